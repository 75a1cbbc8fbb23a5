// The page's entry point: it gets an address (the one this browser already
// has, or a new one), shows it with its lifetime, and wires the list, the
// reader and the buttons together.
//
// Modules: api.js (the HTTP calls), mailbox.js (one inbox's messages, kept
// live), list.js (the message list), reader.js (one message), format.js and
// dom.js (helpers).

import * as api from './api.js';
import { byId, setShown, announce, makeCopyButton } from './dom.js';
import { formatFullTime, formatRemaining, shortSender } from './format.js';
import { Mailbox } from './mailbox.js';
import { MessageList } from './list.js';
import { Reader } from './reader.js';

// The inbox this browser uses, shared by its tabs and kept across reloads
// until it expires: {token, address, created_at, expires_at}.
const storageKey = 'tempmail.inbox';

// What the page shows now. Only the functions below change it.
const state = {
  /** @type {{token: string, address: string, created_at: string, expires_at: string}|null} */
  inbox: null,
  /** @type {Mailbox|null} keeps state.inbox's messages live */
  mailbox: null,
  /** /ui/config.json, once loaded */
  config: null,
  countdown: 0,
  expiryCheck: 0,
  /** what "Try again" does after a fatal error */
  retry: () => {},
};

const list = new MessageList(openMessage);
const reader = new Reader({
  read: (id) => state.mailbox?.markRead(id),
  deleted: (id) => state.mailbox?.remove(id),
  gone: () => inboxGone('gone'),
  closed: () => render(),
});

// --- starting ---

function boot() {
  makeCopyButton(/** @type {HTMLButtonElement} */ (byId('copy-address')), () => state.inbox?.address ?? '', 'Address');
  byId('new-address').addEventListener('click', () => startOver());
  byId('expired-new').addEventListener('click', () => startOver());
  byId('delete-inbox').addEventListener('click', () => /** @type {HTMLDialogElement} */ (byId('confirm-delete')).showModal());
  byId('confirm-delete').addEventListener('close', onDeleteDialogClosed);
  byId('choose-form').addEventListener('submit', onChoose);
  byId('choose-toggle').addEventListener('click', () => setChooserOpen(byId('choose-form').hidden));
  byId('load-more').addEventListener('click', () => state.mailbox?.loadMore());
  byId('list-retry').addEventListener('click', () => state.mailbox?.loadMore());
  byId('fatal-retry').addEventListener('click', () => state.retry());
  // Coming back online is a good moment to try again by itself.
  window.addEventListener('online', () => {
    if (!byId('fatal').hidden) state.retry();
  });
  document.addEventListener('keydown', onKeydown);
  window.addEventListener('storage', onStorage);
  loadConfig();
  resumeOrCreate();
}

/** Shows the inbox this browser had if it still lives, else a new one. */
async function resumeOrCreate() {
  showAddressLoading();
  const saved = loadSaved();
  if (saved) {
    try {
      const inbox = await api.getInbox(saved.token);
      show(inbox);
      return;
    } catch (err) {
      if (!err.inboxGone) {
        showFatal(err, resumeOrCreate);
        return;
      }
      forget(saved.token);
      showNotice(`Your previous address ${saved.address} has expired. Here is a new one.`);
    }
  }
  try {
    show(await newInbox({}));
  } catch (err) {
    showFatal(err, resumeOrCreate);
  }
}

/** The domains to choose from; the chooser works without them (default domain). */
async function loadConfig() {
  const select = /** @type {HTMLSelectElement} */ (byId('choose-domain'));
  try {
    state.config = await api.getConfig();
  } catch (err) {
    const option = new Option('default domain', '');
    select.replaceChildren(option);
    showChooserError(`Could not load the domains: ${err.message}`);
    return;
  }
  const domains = Array.isArray(state.config.domains) ? state.config.domains : [];
  select.replaceChildren(...domains.map((d) => new Option(d, d, false, d === state.config.default_domain)));
  select.disabled = domains.length < 2;
  if (state.config.max_name_length) {
    byId('choose-name').setAttribute('maxlength', String(state.config.max_name_length));
  }
}

// --- the inbox ---

/** Asks the service for a new inbox and makes it this browser's. Throws ApiError. */
async function newInbox(choice) {
  const inbox = await api.createInbox(choice);
  save(inbox);
  return inbox;
}

/** Shows an inbox and starts watching its mail. */
function show(inbox) {
  state.mailbox?.stop();
  reader.close(false);
  list.clear();
  state.inbox = inbox;

  byId('address').textContent = inbox.address;
  byId('waiting-address').textContent = inbox.address;
  byId('address').classList.remove('gone');
  setShown(byId('address-loading'), false);
  setShown(byId('address-row'), true);
  setShown(byId('fatal'), false);
  setShown(byId('expired'), false);
  setShown(byId('mail'), true);
  setShown(byId('delete-inbox'), true);
  setButtonsEnabled(true);
  startCountdown();
  setConnection('connecting');

  const mailbox = new Mailbox(inbox.token, {
    changed: render,
    arrived: (m) => announce(`New message from ${shortSender(m.from_name, m.from)}: ${m.subject || '(no subject)'}`),
    removed: (id) => reader.removed(id),
    status: setConnection,
    gone: inboxGone,
  });
  state.mailbox = mailbox;
  render();
  mailbox.start();
}

/** "New address" and "Get a new address": a random name on the default domain. */
async function startOver() {
  setButtonsEnabled(false);
  try {
    const inbox = await newInbox({});
    show(inbox);
    showNotice('');
    announce(`Your new address is ${inbox.address}`);
  } catch (err) {
    if (state.mailbox) {
      // The current address still works: keep it.
      showNotice(`Could not get a new address: ${err.message}`);
      setButtonsEnabled(true);
    } else {
      showFatal(err, startOver);
    }
  }
}

/** The inbox expired, was deleted, or is no longer there: say so and offer a new one. */
function inboxGone(reason) {
  state.mailbox?.stop();
  state.mailbox = null;
  stopCountdown();
  reader.close(false);
  if (state.inbox) forget(state.inbox.token);

  const titles = {
    expired: 'This address has expired',
    deleted: 'This inbox was deleted',
    gone: 'This address has expired or was deleted',
  };
  byId('expired-title').textContent = titles[reason] || titles.gone;
  byId('address').classList.add('gone');
  byId('expiry-text').textContent = reason === 'deleted' ? 'Deleted' : 'Expired';
  setShown(byId('mail'), false);
  setShown(byId('expired'), true);
  setChooserOpen(false);
  setButtonsEnabled(false);
  setShown(byId('delete-inbox'), false);
  /** @type {HTMLButtonElement} */ (byId('new-address')).disabled = false;
  setConnection('none');
  document.title = 'tempmail';
}

async function onDeleteDialogClosed() {
  const dialog = /** @type {HTMLDialogElement} */ (byId('confirm-delete'));
  if (dialog.returnValue !== 'delete' || !state.inbox) return;
  const inbox = state.inbox;
  // Stopped first: the stream would report the deletion as the inbox's end.
  state.mailbox?.stop();
  setButtonsEnabled(false);
  try {
    await api.deleteInbox(inbox.token);
  } catch (err) {
    if (!err.inboxGone) {
      showNotice(`Could not delete the inbox: ${err.message}`);
      show(inbox); // watch it again, as it still lives
      return;
    }
  }
  forget(inbox.token);
  try {
    show(await newInbox({}));
    showNotice(`${inbox.address} and its mail were deleted. Here is a new address.`);
  } catch (err) {
    showFatal(err, startOver);
  }
}

// --- choosing the name and domain ---

async function onChoose(event) {
  event.preventDefault();
  const input = /** @type {HTMLInputElement} */ (byId('choose-name'));
  const select = /** @type {HTMLSelectElement} */ (byId('choose-domain'));
  const submit = /** @type {HTMLButtonElement} */ (byId('choose-submit'));
  const choice = {};
  const name = input.value.trim().toLowerCase();
  if (name) choice.name = name;
  if (select.value) choice.domain = select.value;

  showChooserError('');
  submit.disabled = true;
  try {
    const inbox = await newInbox(choice);
    show(inbox);
    showNotice('');
    input.value = '';
    setChooserOpen(false);
    byId('copy-address').focus();
    announce(`Your new address is ${inbox.address}`);
  } catch (err) {
    // The server's words: "Invalid name: ...", "Email name already taken",
    // "Domain not found or inactive".
    const aboutDomain = /domain/i.test(err.message) && !/name/i.test(err.message);
    showChooserError(err.message, aboutDomain ? select : input);
  } finally {
    submit.disabled = false;
  }
}

/** Shows (or, with '', clears) the chooser's error, marking the field it is about. */
function showChooserError(text, field = null) {
  const error = byId('choose-error');
  error.textContent = text;
  setShown(error, Boolean(text));
  for (const el of [byId('choose-name'), byId('choose-domain')]) {
    if (el === field) el.setAttribute('aria-invalid', 'true');
    else el.removeAttribute('aria-invalid');
  }
  if (field) field.focus();
}

/** Shows or hides the form that chooses the name and domain. */
function setChooserOpen(open) {
  byId('choose-toggle').setAttribute('aria-expanded', String(open));
  setShown(byId('choose-form'), open);
  if (open) byId('choose-name').focus();
  else showChooserError('');
}

// --- reading ---

function openMessage(id, opener) {
  const message = state.mailbox?.messages.get(id);
  if (!message || !state.inbox) return;
  reader.open(state.inbox.token, message, opener);
  render();
}

function render() {
  if (!state.mailbox) return;
  list.render(state.mailbox, reader.openId || null);
  const unread = state.mailbox.unread;
  document.title = unread > 0 ? `(${unread}) tempmail` : 'tempmail';
}

function onKeydown(event) {
  if (event.key !== 'Escape') return;
  if (/** @type {HTMLDialogElement} */ (byId('confirm-delete')).open) return; // the dialog closes itself
  const form = byId('choose-form');
  if (!form.hidden && form.contains(document.activeElement)) {
    setChooserOpen(false);
    byId('choose-toggle').focus();
    return;
  }
  if (reader.openId) {
    event.preventDefault();
    reader.close();
  }
}

// --- the address's lifetime ---

function startCountdown() {
  stopCountdown();
  const expiresAt = Date.parse(state.inbox.expires_at);
  byId('expiry').title = `Expires ${formatFullTime(state.inbox.expires_at)}`;
  setShown(byId('expiry'), true);
  const tick = () => {
    const left = expiresAt - Date.now();
    if (left > 0) {
      byId('expiry-text').textContent = `Expires in ${formatRemaining(left)}`;
      return;
    }
    // The server's clock decides. Its stream says "expired" when the time
    // comes; this covers a stream that is down at that moment.
    byId('expiry-text').textContent = 'Expiring now…';
    clearInterval(state.countdown);
    state.expiryCheck = setTimeout(checkExpired, 3000);
  };
  tick();
  state.countdown = setInterval(tick, 1000);
}

function stopCountdown() {
  clearInterval(state.countdown);
  clearTimeout(state.expiryCheck);
}

async function checkExpired() {
  const token = state.inbox?.token;
  if (!token || !state.mailbox) return;
  try {
    await api.getInbox(token);
  } catch (err) {
    if (err.inboxGone && token === state.inbox?.token) {
      inboxGone('expired');
      return;
    }
  }
  if (token === state.inbox?.token && state.mailbox) state.expiryCheck = setTimeout(checkExpired, 5000);
}

// --- what the page says about itself ---

function showAddressLoading() {
  setShown(byId('address-loading'), true);
  setShown(byId('address-row'), false);
  setShown(byId('expiry'), false);
  setShown(byId('fatal'), false);
  setButtonsEnabled(false);
}

/**
 * The service could not give us an inbox at all: say why, and offer to try
 * again with retry.
 */
function showFatal(err, retry) {
  state.mailbox?.stop();
  state.mailbox = null;
  state.inbox = null;
  state.retry = retry;
  stopCountdown();
  setShown(byId('address-loading'), false);
  setShown(byId('address-row'), false);
  setShown(byId('expiry'), false);
  setShown(byId('mail'), false);
  setShown(byId('expired'), false);
  byId('fatal-text').textContent = err.message;
  setShown(byId('fatal'), true);
  setConnection('none');
}

function showNotice(text) {
  const notice = byId('notice');
  notice.textContent = text;
  setShown(notice, Boolean(text));
}

function setButtonsEnabled(on) {
  for (const id of ['copy-address', 'new-address', 'delete-inbox']) {
    /** @type {HTMLButtonElement} */ (byId(id)).disabled = !on;
  }
}

const connectionText = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  offline: 'Server unreachable, retrying…',
};

/** @param {'connecting'|'live'|'reconnecting'|'offline'|'none'} s */
function setConnection(s) {
  const el = byId('connection');
  el.dataset.state = s;
  setShown(el, s !== 'none');
  byId('connection-text').textContent = connectionText[s] || '';
}

// --- remembering the inbox ---

function loadSaved() {
  try {
    const saved = JSON.parse(localStorage.getItem(storageKey) || 'null');
    if (saved && typeof saved.token === 'string' && typeof saved.address === 'string' &&
        Date.parse(saved.expires_at) > Date.now()) {
      return saved;
    }
  } catch {
    // storage blocked or garbled: start afresh
  }
  return null;
}

function save(inbox) {
  const { token, address, created_at, expires_at } = inbox;
  try {
    localStorage.setItem(storageKey, JSON.stringify({ token, address, created_at, expires_at }));
  } catch {
    // storage blocked (some private modes): the page still works until it is closed
  }
}

/** Forgets the saved inbox if it is this one (another tab may have saved a newer one). */
function forget(token) {
  try {
    if (JSON.parse(localStorage.getItem(storageKey) || 'null')?.token === token) localStorage.removeItem(storageKey);
  } catch {
    // nothing to forget
  }
}

/** Another tab changed the address: follow it, so that every tab shows the same inbox. */
function onStorage(event) {
  if (event.key !== storageKey) return;
  const saved = loadSaved();
  if (saved && saved.token !== state.inbox?.token) show(saved);
}

boot();
