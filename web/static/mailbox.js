// Mailbox keeps one inbox's messages up to date: it opens the inbox's event
// stream first, then loads the list, and merges both by message id, so that
// mail arriving between the two is neither missed nor shown twice.

import * as api from './api.js';

// How long start() waits for the stream to open before it loads the list
// anyway (the list is worth showing even while the stream reconnects).
const openTimeout = 5000;
const pageSize = 50;

/**
 * @typedef {object} Handlers
 * @property {() => void} changed the messages or their loading state changed
 * @property {(message: object) => void} arrived a new message came in live
 * @property {(id: string) => void} removed a message was deleted
 * @property {(state: 'live'|'reconnecting'|'offline') => void} status the stream's state
 * @property {(reason: string) => void} gone the inbox expired ("expired") or was
 *   deleted ("deleted"), or is no longer there ("gone"); the Mailbox has stopped
 */

export class Mailbox {
  /** id → the message as the list shows it (family C's list element). */
  messages = new Map();
  /** How many messages the inbox holds, as far as we know. */
  total = 0;
  /** A page of the list is being loaded. */
  loading = false;
  /** Why the last load failed (an ApiError), or null. */
  loadError = null;

  #token;
  #on;
  /** @type {EventSource|null} */
  #source = null;
  #stopped = false;
  #loadedOnce = false;
  // Changes the stream reported before the list that holds their message
  // was loaded: the list's copy would otherwise bring the message back, or
  // show it unread.
  #deleted = new Set();
  #read = new Set();
  // Messages deleted here but not yet on the server (the reader may still
  // undo): id → the message. The list and the stream do not bring them back.
  #hidden = new Map();
  // After the browser gave up on the stream we open a new one, which does
  // not resume where the old one stopped: the list is then loaded afresh.
  #needsReload = false;
  // The list is being loaded afresh (#reload): the messages shown stay
  // until its first page comes, which then takes their place. A reload
  // that failed leaves this set, and "Try again" reloads.
  #refreshing = false;
  // The messages the stream brought since the reload began: the page may
  // have been read before they came.
  #arrivedMeanwhile = new Set();
  // Counts reloads: a page asked for before the last reload is dropped.
  #generation = 0;
  #retryTimer = 0;
  #retryDelay = 2000;

  /**
   * @param {string} token the inbox's token
   * @param {Handlers} handlers
   */
  constructor(token, handlers) {
    this.#token = token;
    this.#on = handlers;
  }

  /** Opens the stream, waits until the server holds it, then loads the first page. */
  async start() {
    await this.#connect();
    if (!this.#stopped) await this.#load(0);
  }

  /** Stops listening; nothing is reported after this. */
  stop() {
    this.#stopped = true;
    clearTimeout(this.#retryTimer);
    this.#source?.close();
    this.#source = null;
  }

  /** Loads the next page of older messages. */
  loadMore() {
    if (this.loading) return Promise.resolve(); // a second click while the first loads
    if (this.#refreshing) return this.#reload(); // "Try again" after a reload failed
    return this.#load(this.#loadedOnce ? this.messages.size : 0);
  }

  /** The messages, newest first. */
  sorted() {
    return [...this.messages.values()].sort(newestFirst);
  }

  get unread() {
    let n = 0;
    for (const m of this.messages.values()) if (!m.is_read) n++;
    return n;
  }

  /**
   * The first page of the list has come. Until it has, the inbox may hold
   * mail that is not shown yet: no message shown does not mean an empty
   * inbox. A reload does not make it false: the messages of the last load
   * stay shown until the new page comes (see refreshing).
   */
  get loaded() {
    return this.#loadedOnce;
  }

  /**
   * The list is being loaded afresh (the stream came back with "reset"),
   * or its reload failed: the messages shown are those of the last load,
   * and may hold some deleted meanwhile, until the new first page comes.
   */
  get refreshing() {
    return this.#refreshing;
  }

  /** More messages are on the server than are loaded. */
  get hasMore() {
    return this.#loadedOnce && this.messages.size < this.total;
  }

  /** Records that a message was read (here, or as the stream reports). */
  markRead(id) {
    const waiting = this.#hidden.get(id);
    if (waiting) waiting.is_read = true;
    const m = this.messages.get(id);
    if (m && !m.is_read) {
      m.is_read = true;
      this.#on.changed();
    }
    this.#read.add(id);
  }

  /**
   * Records that a message was deleted (here, or as the stream reports; the
   * second report of one deletion changes nothing).
   */
  remove(id) {
    if (this.#stopped || this.#deleted.has(id)) return;
    this.#deleted.add(id);
    // A hidden message was counted out already; one not loaded is counted
    // all the same: it was on a page not shown yet.
    if (!this.#hidden.delete(id)) this.total = Math.max(0, this.total - 1);
    if (this.messages.delete(id)) this.#on.removed(id);
    this.#on.changed();
  }

  /**
   * Takes a message out of the list while its deletion may still be undone.
   * @returns {boolean} whether it was in the list
   */
  hide(id) {
    const m = this.messages.get(id);
    if (this.#stopped || !m) return false;
    this.messages.delete(id);
    this.#hidden.set(id, m);
    this.total = Math.max(0, this.total - 1);
    this.#on.changed();
    return true;
  }

  /**
   * Puts a hidden message back.
   * @returns {boolean} whether it came back (not when deleted meanwhile)
   */
  unhide(id) {
    const m = this.#hidden.get(id);
    if (this.#stopped || !m) return false;
    this.#hidden.delete(id);
    this.messages.set(id, m);
    this.total++;
    this.#on.changed();
    return true;
  }

  // --- the event stream ---

  /** Opens the stream; resolves once it is open, has failed, or after openTimeout. */
  #connect() {
    return new Promise((resolve) => {
      const source = new EventSource(api.eventsURL(this.#token));
      this.#source = source;
      const timer = setTimeout(resolve, openTimeout);
      const settle = () => {
        clearTimeout(timer);
        resolve();
      };
      // Events of a stream we have replaced or stopped are ignored.
      const current = () => !this.#stopped && source === this.#source;

      source.addEventListener('open', () => {
        if (!current()) return;
        settle();
        this.#retryDelay = 2000;
        this.#on.status('live');
        if (this.#needsReload) {
          this.#needsReload = false;
          this.#reload();
        }
      });
      source.addEventListener('error', () => {
        if (!current()) return;
        if (source.readyState === EventSource.CLOSED) {
          // The browser gave up: the server answered with an error (404
          // when the inbox is gone, 503 when it holds too many streams).
          settle();
          this.#recover();
        } else {
          // The browser reconnects by itself and resumes with Last-Event-ID.
          this.#on.status('reconnecting');
        }
      });
      source.addEventListener('message', (e) => current() && this.#parsed(e, (m) => this.#arrived(m)));
      source.addEventListener('read', (e) => current() && this.#parsed(e, (d) => this.markRead(d.id)));
      source.addEventListener('deleted', (e) => current() && this.#parsed(e, (d) => this.remove(d.id)));
      // Away for longer than the server remembers deletions: what we show
      // may hold messages deleted meanwhile, so the list is loaded afresh.
      source.addEventListener('reset', () => current() && this.#reload());
      source.addEventListener('expired', (e) => current() && this.#parsed(e, (d) => {
        // The server ends the stream now; without close() the browser would
        // reconnect and be answered 404.
        this.#end(d.reason === 'deleted' ? 'deleted' : 'expired');
      }));
    });
  }

  #parsed(event, handle) {
    let data;
    try {
      data = JSON.parse(event.data);
    } catch {
      return; // not ours to show; the next event or a reload brings the truth
    }
    if (data && typeof data === 'object') handle(data);
  }

  #arrived(message) {
    if (typeof message.id !== 'string' || this.#deleted.has(message.id) || this.messages.has(message.id) ||
        this.#hidden.has(message.id)) return;
    if (this.#read.has(message.id)) message.is_read = true;
    this.messages.set(message.id, message);
    if (this.#refreshing) this.#arrivedMeanwhile.add(message.id);
    this.total++;
    this.#on.arrived(message);
    this.#on.changed();
  }

  /** After the browser gave up on the stream: find out why, and try again. */
  async #recover() {
    this.#source?.close();
    this.#source = null;
    this.#on.status('reconnecting');
    try {
      await api.getInbox(this.#token);
    } catch (err) {
      if (this.#stopped) return;
      if (err.inboxGone) {
        this.#end('gone');
        return;
      }
      if (err.network) this.#on.status('offline');
    }
    if (this.#stopped) return;
    this.#needsReload = true;
    clearTimeout(this.#retryTimer);
    this.#retryTimer = setTimeout(() => {
      if (!this.#stopped) this.#connect();
    }, this.#retryDelay);
    this.#retryDelay = Math.min(this.#retryDelay * 2, 30000);
  }

  #end(reason) {
    if (this.#stopped) return;
    this.stop();
    this.#on.gone(reason);
  }

  // --- the list ---

  /**
   * Loads the first page again, to take the place of what is loaded. What
   * is shown stays shown meanwhile: a list that emptied and filled again
   * would flash, and lose a reader's place in it.
   */
  #reload() {
    this.#generation++; // a page still on its way would be out of date
    this.#refreshing = true;
    this.#arrivedMeanwhile.clear();
    this.#deleted.clear();
    this.#read.clear();
    return this.#load(0);
  }

  async #load(offset) {
    const generation = this.#generation;
    const current = () => !this.#stopped && generation === this.#generation;
    this.loading = true;
    this.loadError = null;
    this.#on.changed();
    try {
      const page = await api.listMessages(this.#token, { limit: pageSize, offset });
      if (!current()) return;
      const fresh = this.#refreshing;
      if (fresh) this.#replace(page);
      for (const m of page.messages) {
        if (this.#deleted.has(m.id) || this.#hidden.has(m.id)) continue;
        const shown = this.messages.get(m.id);
        // A message shown stays as it is, but on a reload: the page's copy
        // may be read where this one is not.
        if (shown && !fresh) continue;
        if (this.#read.has(m.id) || shown?.is_read) m.is_read = true;
        this.messages.set(m.id, m);
      }
      // The server still counts the hidden ones.
      this.total = Math.max(page.total - this.#hidden.size, this.messages.size);
      this.#loadedOnce = true;
    } catch (err) {
      if (!current()) return;
      if (err.inboxGone) {
        this.loading = false;
        this.#end('gone');
        return;
      }
      this.loadError = err; // a failed reload leaves the last messages shown
    } finally {
      // A load of an earlier reload leaves the state to the current one.
      if (current()) {
        this.loading = false;
        this.#on.changed();
      }
    }
  }

  /**
   * The reload's first page has come: the messages it does not hold go
   * (#load then adds those it holds), but for those the stream brought
   * meanwhile. A message gone that the page's range covers was deleted
   * while the stream was away, and is reported removed (the reader may
   * show it); one older than the page's oldest may only be on a later page.
   */
  #replace(page) {
    this.#refreshing = false;
    const listed = new Set(page.messages.map((m) => m.id));
    const oldest = page.messages.reduce((o, m) => (!o || newestFirst(m, o) > 0 ? m : o), null);
    const complete = page.messages.length >= page.total;
    for (const [id, m] of [...this.messages]) {
      if (listed.has(id) || this.#arrivedMeanwhile.has(id)) continue;
      this.messages.delete(id);
      if (complete || (oldest && newestFirst(m, oldest) <= 0)) this.#on.removed(id);
    }
    this.#arrivedMeanwhile.clear();
  }
}

/** Orders messages newest first. */
function newestFirst(a, b) {
  // RFC 3339 UTC times of one layout sort as strings; ids (time-ordered) break ties.
  return a.received_at === b.received_at ? cmp(b.id, a.id) : cmp(b.received_at, a.received_at);
}

function cmp(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}
