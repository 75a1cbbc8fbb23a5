// The page's entry point: it decides which address is shown (the one a
// link names, the one this browser already has, a new one, or one switched
// to), what follows when it goes, and wires the other modules together:
// they draw and do; the decisions are here.
//
// Where the server makes no inbox without an API key (--anonymous off, as
// /ui/config.json says, or as a 401 says), the page asks for one before it
// makes an address, in place of the address when it has none to show, and
// keeps it for the next addresses (keyform.js). Only making an inbox, and
// reading the configuration, send it: what an inbox's token reads needs
// no key.
//
// A link to an inbox (link.js) opens it here, and makes it one of this
// browser's addresses.
//
// The modules it wires, one job each, are mapped in the package's doc.go.

import * as api from './api.js';
import { byId, announce, makeCopyButton } from './dom.js';
import { shortSender } from './format.js';
import { Mailbox } from './mailbox.js';
import { MessageList } from './list.js';
import { Reader } from './reader.js';
import * as saved from './saved.js';
import { UndoDelete } from './undo.js';
import { KeyForm } from './keyform.js';
import { Switcher } from './switcher.js';
import { Chooser } from './chooser.js';
import { Countdown } from './countdown.js';
import { inboxLink, isToken, takeLinkedToken } from './link.js';
import * as view from './view.js';

// What the page shows now. Only the functions below change it.
const state = {
  /** @type {{token: string, address: string, created_at: string, expires_at: string}|null} */
  inbox: null,
  /** @type {Mailbox|null} keeps state.inbox's messages live */
  mailbox: null,
  /** what "Try again" does after a fatal error */
  retry: () => {},
  /** resolves once loadConfig has finished, well or not */
  configLoaded: Promise.resolve(),
};

const list = new MessageList(openMessage);
const reader = new Reader({
  read: (id) => state.mailbox?.markRead(id),
  delete: deleteMessage,
  gone: () => inboxGone('gone'),
  closed: () => render(),
});
const keyForm = new KeyForm({
  changed: () => {
    state.configLoaded = loadConfig(); // the domains this key may use
  },
  cancelled: () => byId('new-address').focus(),
  done: () => {
    if (!keyForm.open && view.showsAddress() && document.activeElement === document.body) {
      byId('copy-address').focus();
    }
  },
});
const undo = new UndoDelete({
  restored: (id) => list.opener(id)?.focus(),
  gone: (mailbox) => mailbox === state.mailbox && inboxGone('gone'),
});
const countdown = new Countdown({
  live: (token) => token === state.inbox?.token && Boolean(state.mailbox),
  expired: (token) => token === state.inbox?.token && inboxGone('expired'),
});
// Below the address, one thing opens at a time: the switcher's list, the
// chooser's form, or the key form (which, with no address to show, takes
// the address's place and stays).
const switcher = new Switcher({
  current: () => state.inbox?.token,
  opening: () => {
    chooser.setOpen(false);
    if (state.mailbox) keyForm.close();
  },
  switching: () => undo.flush(), // a deletion waiting in the inbox left is made now
  show,
  notice: view.notice,
});
const chooser = new Chooser({
  opening: () => {
    switcher.setOpen(false);
    if (state.mailbox) keyForm.close();
  },
  create: newInbox,
  made: (inbox) => {
    show(inbox);
    view.notice('');
    byId('copy-address').focus();
    announce(`Your new address is ${inbox.address}`);
  },
  askKey: (err, retry) => {
    if (!keyForm.about(err)) return false;
    askForKey(err, retry);
    return true;
  },
});

// --- starting ---

function boot() {
  makeCopyButton(/** @type {HTMLButtonElement} */ (byId('copy-address')), () => state.inbox?.address ?? '', 'Address');
  makeCopyButton(/** @type {HTMLButtonElement} */ (byId('copy-link')), () => (state.inbox ? inboxLink(state.inbox.token) : ''), 'Link');
  byId('copy-link').addEventListener('click', () => {
    if (state.inbox) view.notice('Anyone who has this link can read this inbox and delete its mail, until it expires.');
  });
  byId('new-address').addEventListener('click', () => askStartOver());
  byId('expired-new').addEventListener('click', () => startOver());
  byId('confirm-leave').addEventListener('close', onLeaveDialogClosed);
  byId('delete-inbox').addEventListener('click', () => /** @type {HTMLDialogElement} */ (byId('confirm-delete')).showModal());
  byId('confirm-delete').addEventListener('close', onDeleteDialogClosed);
  byId('load-more').addEventListener('click', () => state.mailbox?.loadMore());
  byId('list-retry').addEventListener('click', () => state.mailbox?.loadMore());
  byId('fatal-retry').addEventListener('click', () => state.retry());
  // Coming back online is a good moment to try again by itself.
  window.addEventListener('online', () => {
    if (view.showsFatal()) state.retry();
  });
  document.addEventListener('keydown', onKeydown);
  window.addEventListener('storage', onStorage);
  // A link pasted into the address bar of this tab changes only its fragment.
  window.addEventListener('hashchange', () => {
    const token = takeLinkedToken();
    if (token !== null) openLinked(token);
  });
  state.configLoaded = loadConfig();
  const token = takeLinkedToken();
  if (token !== null) openLinked(token);
  else resumeOrCreate();
}

/**
 * Shows the inbox a link names, and keeps it among this browser's
 * addresses. When it is gone (or the link names none), says so, and goes
 * on as without the link.
 */
async function openLinked(token) {
  const first = !state.inbox;
  if (first) showAddressLoading();
  let why = 'This link does not name an inbox.';
  if (isToken(token)) {
    try {
      const inbox = await api.getInbox(token);
      saved.remember(inbox);
      show(inbox);
      view.notice('');
      announce(`Opened ${inbox.address}`);
      return;
    } catch (err) {
      if (!err.inboxGone) {
        if (first) showFatal(err, () => openLinked(token));
        else view.notice(`Could not open the inbox of this link: ${err.message}`);
        return;
      }
      why = 'The inbox this link opens has expired or was deleted.';
    }
  }
  if (first) await resumeOrCreate();
  view.notice(why);
}

/** Shows the inbox this browser had if it still lives, else a new one. */
async function resumeOrCreate() {
  showAddressLoading();
  const last = saved.current();
  let expired = '';
  if (last) {
    try {
      const inbox = await api.getInbox(last.token);
      show(inbox);
      return;
    } catch (err) {
      if (!err.inboxGone) {
        showFatal(err, resumeOrCreate);
        return;
      }
      saved.forget(last.token);
      expired = `Your previous address ${last.address} has expired.`;
    }
  }
  try {
    show(await newInbox({}));
    if (expired) view.notice(`${expired} Here is a new one.`);
  } catch (err) {
    if (expired) view.notice(expired);
    if (keyForm.about(err)) askForKey(err, startOver);
    else showFatal(err, resumeOrCreate);
  }
}

/** The domains to choose from; the chooser works without them (default domain). */
async function loadConfig() {
  let config;
  try {
    // A key is held only where the server asked for one: with it, the
    // chooser lists its tenant's private domains too. Where the server
    // makes addresses without a key, none is sent, so none is listed.
    config = await api.getConfig(keyForm.key);
    if (keyForm.key && config.anonymous !== false) config = await api.getConfig();
  } catch (err) {
    chooser.noDomains(err);
    return;
  }
  chooser.showDomains(config);
  keyForm.needed = config.anonymous === false;
  keyForm.renderKept();
}

// --- the inbox ---

/**
 * Asks the service for a new inbox and makes it this browser's, with the
 * API key where the server needs one (and only there: where anyone makes
 * inboxes, a key would only tie them to its tenant and its quota). Throws
 * ApiError, or NoKey when a key is needed and none is held.
 */
async function newInbox(choice) {
  await state.configLoaded; // it says whether a key is needed
  const key = keyForm.forCreation();
  let inbox;
  try {
    inbox = await api.createInbox(choice, key);
  } catch (err) {
    if (err.status === 401) keyForm.refused(key); // asked for again
    throw err;
  }
  saved.remember(inbox);
  return inbox;
}

/** Shows an inbox and starts watching its mail. */
function show(inbox) {
  undo.flush(); // a deletion waiting in the inbox left is made now
  state.mailbox?.stop();
  reader.close(false);
  list.clear();
  state.inbox = inbox;
  keyForm.close();

  view.showing(inbox);
  countdown.start(inbox);

  const mailbox = new Mailbox(inbox.token, {
    changed: render,
    arrived: (m) => announce(`New message from ${shortSender(m.from_name, m.from)}: ${m.subject || '(no subject)'}`),
    removed: (id) => reader.removed(id),
    status: view.setConnection,
    gone: inboxGone,
  });
  state.mailbox = mailbox;
  render();
  switcher.render();
  mailbox.start();
}

/**
 * "New address": asked first when the inbox shown has mail, as the page
 * then moves away from it (it stays among the addresses to switch to).
 */
function askStartOver() {
  const mailbox = state.mailbox;
  const n = mailbox ? Math.max(mailbox.total, mailbox.messages.size) : 0;
  if (n === 0 || !state.inbox) {
    startOver();
    return;
  }
  const messages = n === 1 ? '1 message' : `${n} messages`;
  byId('leave-text').textContent = `${state.inbox.address} has ${messages}. ` +
    'You can come back to it under “Your addresses” in this browser until it expires.';
  /** @type {HTMLDialogElement} */ (byId('confirm-leave')).showModal();
}

function onLeaveDialogClosed() {
  const dialog = /** @type {HTMLDialogElement} */ (byId('confirm-leave'));
  if (dialog.returnValue === 'leave') startOver();
}

/** "New address" and "Get a new address": a random name on the default domain. */
async function startOver() {
  view.setButtonsEnabled(false);
  try {
    const inbox = await newInbox({});
    show(inbox);
    view.notice('');
    announce(`Your new address is ${inbox.address}`);
  } catch (err) {
    if (keyForm.about(err)) {
      askForKey(err, startOver);
    } else if (state.mailbox) {
      // The current address still works: keep it.
      view.notice(`Could not get a new address: ${err.message}`);
      view.setButtonsEnabled(true);
    } else {
      showFatal(err, startOver);
    }
  }
}

/** The inbox expired, was deleted, or is no longer there: say so and offer a new one. */
function inboxGone(reason) {
  undo.drop();
  state.mailbox?.stop();
  state.mailbox = null;
  countdown.stop();
  reader.close(false);
  if (state.inbox) saved.forget(state.inbox.token);
  switcher.render();
  countdown.ended(reason === 'deleted' ? 'Deleted' : 'Expired');
  chooser.setOpen(false);
  view.gone(reason);
}

async function onDeleteDialogClosed() {
  const dialog = /** @type {HTMLDialogElement} */ (byId('confirm-delete'));
  if (dialog.returnValue !== 'delete' || !state.inbox) return;
  const inbox = state.inbox;
  // Stopped first: the stream would report the deletion as the inbox's end.
  state.mailbox?.stop();
  view.setButtonsEnabled(false);
  try {
    await api.deleteInbox(inbox.token);
  } catch (err) {
    if (!err.inboxGone) {
      view.notice(`Could not delete the inbox: ${err.message}`);
      show(inbox); // watch it again, as it still lives
      return;
    }
  }
  saved.forget(inbox.token);
  state.mailbox = null; // stopped above: no inbox is live now
  try {
    show(await newInbox({}));
    view.notice(`${inbox.address} and its mail were deleted. Here is a new address.`);
  } catch (err) {
    if (keyForm.about(err)) {
      askForKey(err, startOver);
      view.notice(`${inbox.address} and its mail were deleted.`);
    } else {
      showFatal(err, startOver);
    }
  }
}

// --- the API key, where the server needs one (keyform.js) ---

/**
 * Asks for an API key, with the server's refusal (err) unless none was
 * sent; retry is the creation the key is for. With no inbox to show, the
 * form takes the address's place (the addresses this browser made stay
 * there to switch to: they need no key); else it opens below the address,
 * which can be kept with Cancel.
 */
function askForKey(err, retry) {
  const live = Boolean(state.mailbox);
  if (live) {
    chooser.setOpen(false);
    switcher.setOpen(false);
    view.setButtonsEnabled(true);
  } else {
    clearInbox();
    view.askingKey();
    switcher.render();
  }
  keyForm.show(err, retry, live);
}

// --- reading ---

/** The reader's Delete: the message goes now, and may be taken back for a few seconds. */
function deleteMessage(id) {
  if (!state.mailbox || !state.inbox) return;
  reader.close(); // focus goes back to the message in the list, then on to the next
  undo.delete(state.inbox.token, state.mailbox, id);
}

function openMessage(id, opener) {
  const message = state.mailbox?.messages.get(id);
  if (!message || !state.inbox) return;
  reader.open(state.inbox.token, message, opener);
  render();
}

function render() {
  if (!state.mailbox) return;
  list.render(state.mailbox, reader.openId || null);
  view.setUnread(state.mailbox.unread);
}

function onKeydown(event) {
  if (event.key === 'z' && (event.ctrlKey || event.metaKey) && !event.shiftKey && !event.altKey && undo.pending &&
      !/** @type {HTMLElement} */ (event.target).closest?.('input, textarea, select, [contenteditable]')) {
    event.preventDefault();
    undo.undo();
    return;
  }
  if (event.key !== 'Escape') return;
  if (document.querySelector('dialog[open]')) return; // a dialog closes itself
  if (keyForm.open && state.mailbox && byId('key-form').contains(document.activeElement)) {
    keyForm.cancel();
    return;
  }
  if (chooser.escape()) return;
  if (switcher.escape()) return;
  if (reader.openId) {
    event.preventDefault();
    reader.close();
  }
}

// --- while no inbox is shown ---

/** An address is being got. */
function showAddressLoading() {
  keyForm.close();
  countdown.hide();
  view.loading();
}

/**
 * The service could not give us an inbox at all: say why, and offer to try
 * again with retry.
 */
function showFatal(err, retry) {
  clearInbox();
  keyForm.close();
  state.retry = retry;
  view.fatal(err.message);
}

/** No inbox is shown: nothing of the last one stays in view. */
function clearInbox() {
  state.mailbox?.stop();
  state.mailbox = null;
  state.inbox = null;
  countdown.stop();
  countdown.hide();
  view.none();
}

// --- other tabs ---

/**
 * Another tab changed the address or the addresses: follow it, so that
 * every tab shows the same inbox.
 */
function onStorage(event) {
  if (event.key === saved.apiKeyKey) {
    keyForm.reload();
    return;
  }
  if (event.key === saved.listKey) {
    switcher.render();
    return;
  }
  if (event.key !== saved.currentKey) return;
  const last = saved.current();
  if (last && last.token !== state.inbox?.token) show(last);
}

boot();
