// Deleting a message, with a few seconds to take it back. The message
// leaves the list at once and a bar offers "Undo"; the server is asked to
// delete it when the time is up, when another message is deleted, when the
// page shows another inbox, or when the page is left. A deletion the server
// has made cannot be undone, and a confirmation before every one would be
// asked so often that it would be clicked through without reading.

import * as api from './api.js';
import { byId, setShown, announce } from './dom.js';

/** How long the bar offers to undo, in ms; it waits while pointed at or focused. */
export const undoDelay = 6000;
// How long the bar shows that a deletion failed.
const errorDelay = 8000;

/** The shortcut, as this platform's keyboard writes it. */
export const undoKeys = /Mac|iPhone|iPad/.test(navigator.platform) ? '⌘Z' : 'Ctrl+Z';

/**
 * @typedef {object} UndoHandlers
 * @property {(id: string) => void} restored the message is back in the list
 * @property {(mailbox: import('./mailbox.js').Mailbox) => void} gone the
 *   inbox of a deletion is gone
 */

export class UndoDelete {
  /** @type {{token: string, id: string, mailbox: import('./mailbox.js').Mailbox}|null} */
  #pending = null;
  #timer = 0;
  /** Pointer or focus is on the bar: the time does not run. */
  #held = false;
  #on;
  #bar = byId('toast');

  /** @param {UndoHandlers} handlers */
  constructor(handlers) {
    this.#on = handlers;
    const undo = byId('toast-undo');
    undo.addEventListener('click', () => this.undo());
    undo.title = `Undo (${undoKeys})`;
    const hold = (held) => {
      this.#held = held;
      if (held) clearTimeout(this.#timer);
      else this.#arm();
    };
    this.#bar.addEventListener('pointerenter', () => hold(true));
    this.#bar.addEventListener('pointerleave', () => hold(this.#bar.contains(document.activeElement)));
    this.#bar.addEventListener('focusin', () => hold(true));
    this.#bar.addEventListener('focusout', (e) => {
      if (!this.#bar.contains(/** @type {Node|null} */ (e.relatedTarget))) hold(this.#bar.matches(':hover'));
    });
    // The page is being left: the deletion is made now, in a request that
    // outlives the page.
    window.addEventListener('pagehide', () => this.#commit(true));
  }

  /** A deletion can be undone now. */
  get pending() {
    return this.#pending !== null;
  }

  /**
   * Takes a message out of the list now, and deletes it on the server in
   * undoDelay unless undone. An earlier deletion waiting is made first.
   * @param {string} token
   * @param {import('./mailbox.js').Mailbox} mailbox
   * @param {string} id
   */
  delete(token, mailbox, id) {
    this.flush();
    if (!mailbox.hide(id)) return;
    this.#pending = { token, id, mailbox };
    this.#show('Message deleted.', true);
    announce(`Message deleted. To undo, press ${undoKeys} or the Undo button.`);
    this.#arm();
  }

  /** Puts the waiting message back in the list. */
  undo() {
    const p = this.#pending;
    if (!p) return;
    this.#pending = null;
    this.#hide();
    if (p.mailbox.unhide(p.id)) {
      announce('Message restored.');
      this.#on.restored(p.id);
    } else {
      announce('The message was deleted elsewhere meanwhile.');
    }
  }

  /** Makes the waiting deletion now (the page moves on to another inbox). */
  flush() {
    this.#commit(false);
  }

  /** Forgets the waiting deletion: its inbox is gone, and its mail with it. */
  drop() {
    this.#pending = null;
    this.#hide();
  }

  #arm() {
    clearTimeout(this.#timer);
    if (this.#held || this.#bar.hidden) return;
    this.#timer = setTimeout(() => (this.#pending ? this.#commit(false) : this.#hide()),
      this.#pending ? undoDelay : errorDelay);
  }

  async #commit(leaving) {
    const p = this.#pending;
    if (!p) return;
    this.#pending = null;
    this.#hide(); // also as the page is left: it may come back from the back-forward cache
    try {
      await api.deleteMessage(p.token, p.id, { keepalive: leaving });
      p.mailbox.remove(p.id);
    } catch (err) {
      if (err.inboxGone) {
        this.#on.gone(p.mailbox);
      } else if (err.status === 404) {
        p.mailbox.remove(p.id); // already deleted: the same outcome
      } else if (!leaving && p.mailbox.unhide(p.id)) {
        this.#show(`Could not delete the message, so it is back: ${err.message}`, false);
        announce(`Could not delete the message: ${err.message}`);
        this.#arm();
      }
    }
  }

  #show(text, canUndo) {
    byId('toast-text').textContent = text;
    setShown(byId('toast-undo'), canUndo);
    setShown(this.#bar, true);
  }

  #hide() {
    clearTimeout(this.#timer);
    // Focus on the bar would be lost with it: the list's heading takes it.
    if (this.#bar.contains(document.activeElement)) byId('messages-heading').focus();
    this.#held = false;
    setShown(this.#bar, false);
  }
}
