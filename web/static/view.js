// What the page shows of where it is, around the list and the reader: the
// address card (an address being got, the address shown with its buttons,
// or none), the panels that take the mail's place (the inbox gone, the
// service out of reach), the notice under the address, the connection in
// the top bar, and the tab's title. The page (app.js) decides where it is;
// each state is drawn here whole, whichever way it is reached, so that
// nothing of the one before stays in view.

import { byId, setShown } from './dom.js';

const connectionText = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  offline: 'Server unreachable, retrying…',
};

const goneTitles = {
  expired: 'This address has expired',
  deleted: 'This inbox was deleted',
  gone: 'This address has expired or was deleted',
};

/** An address is being got: nothing to copy or act on yet. */
export function loading() {
  setShown(byId('address-loading'), true);
  setShown(byId('address-row'), false);
  setShown(byId('fatal'), false);
  setButtonsEnabled(false);
}

/** An inbox is shown, its mail below, its event stream connecting. */
export function showing(inbox) {
  byId('address').textContent = inbox.address;
  byId('waiting-address').textContent = inbox.address;
  byId('address').classList.remove('gone');
  setShown(byId('address-loading'), false);
  setShown(byId('address-row'), true);
  setShown(byId('fatal'), false);
  setShown(byId('expired'), false);
  setShown(byId('mail'), true);
  for (const id of ['new-address', 'choose-toggle', 'delete-inbox']) setShown(byId(id), true);
  setButtonsEnabled(true);
  setConnection('connecting');
}

/**
 * The inbox shown expired, was deleted, or is no longer there (reason
 * "expired", "deleted" or "gone"): its address stays, struck out, and a
 * new one is offered in its mail's place.
 */
export function gone(reason) {
  byId('expired-title').textContent = goneTitles[reason] || goneTitles.gone;
  byId('address').classList.add('gone');
  setShown(byId('mail'), false);
  setShown(byId('expired'), true);
  setButtonsEnabled(false);
  setShown(byId('delete-inbox'), false);
  /** @type {HTMLButtonElement} */ (byId('new-address')).disabled = false;
  setConnection('none');
  setUnread(0);
}

/** No inbox is shown: nothing of the last one stays in view. */
export function none() {
  for (const id of ['address-loading', 'address-row', 'mail', 'expired', 'fatal']) setShown(byId(id), false);
  setButtonsEnabled(false);
  setConnection('none');
  setUnread(0);
}

/** The key form takes the address's place: there is no inbox to leave or delete. */
export function askingKey() {
  setShown(byId('new-address'), false);
  setShown(byId('delete-inbox'), false);
}

/** The service could not give the page an inbox at all: why, with "Try again". */
export function fatal(message) {
  byId('fatal-text').textContent = message;
  setShown(byId('fatal'), true);
}

/** An address is shown (live or gone). */
export function showsAddress() {
  return !byId('address-row').hidden;
}

/** "Try again" is offered. */
export function showsFatal() {
  return !byId('fatal').hidden;
}

/** Says something under the address ('' clears it). */
export function notice(text) {
  const el = byId('notice');
  el.textContent = text;
  setShown(el, Boolean(text));
}

/** The address's buttons: copy it, copy its link, a new address, delete it. */
export function setButtonsEnabled(on) {
  for (const id of ['copy-address', 'copy-link', 'new-address', 'delete-inbox']) {
    /** @type {HTMLButtonElement} */ (byId(id)).disabled = !on;
  }
}

/** @param {'connecting'|'live'|'reconnecting'|'offline'|'none'} s the event stream's state */
export function setConnection(s) {
  const el = byId('connection');
  el.dataset.state = s;
  setShown(el, s !== 'none');
  byId('connection-text').textContent = connectionText[s] || '';
}

/** The tab's title counts the unread messages, so that a tab in the background shows new mail. */
export function setUnread(n) {
  document.title = n > 0 ? `(${n}) tempmail` : 'tempmail';
}
