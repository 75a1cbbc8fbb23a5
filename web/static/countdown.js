// The address's lifetime, under it: "Expires in 59 min", counted down each
// second. The server's clock decides when an inbox expires, and its event
// stream says so (mailbox.js); once the count reaches zero, this asks the
// server every few seconds too, for a stream that is down at that moment.
// The page (app.js) says what an inbox's end means; this module owns the
// line.

import * as api from './api.js';
import { byId, setShown } from './dom.js';
import { formatFullTime, formatRemaining } from './format.js';

/**
 * @typedef {object} CountdownHooks
 * @property {(token: string) => boolean} live the page shows this inbox,
 *   its mail kept live: it is still worth asking the server about
 * @property {(token: string) => void} expired the server has no inbox of
 *   this token any more
 */

export class Countdown {
  #on;
  #line = byId('expiry');
  #text = byId('expiry-text');
  /** The inbox counted down. */
  #token = '';
  #tick = 0;
  #check = 0;
  /**
   * Counts start() and stop(): a check of the server that was under way
   * when they came schedules no other, so that the same inbox shown again
   * is not asked about by two loops.
   */
  #round = 0;

  /** @param {CountdownHooks} hooks */
  constructor(hooks) {
    this.#on = hooks;
  }

  /** Shows the inbox's lifetime, counting down. */
  start(inbox) {
    this.stop();
    this.#token = inbox.token;
    const expiresAt = Date.parse(inbox.expires_at);
    this.#line.title = `Expires ${formatFullTime(inbox.expires_at)}`;
    setShown(this.#line, true);
    const tick = () => {
      const left = expiresAt - Date.now();
      if (left > 0) {
        this.#text.textContent = `Expires in ${formatRemaining(left)}`;
        return;
      }
      // The server's clock decides. Its stream says "expired" when the time
      // comes; asking covers a stream that is down at that moment.
      this.#text.textContent = 'Expiring now…';
      clearInterval(this.#tick);
      this.#check = setTimeout(() => this.#checkExpired(), 3000);
    };
    tick();
    this.#tick = setInterval(tick, 1000);
  }

  /** Stops counting (and asking the server). */
  stop() {
    this.#round++;
    clearInterval(this.#tick);
    clearTimeout(this.#check);
  }

  /** The inbox's end: the line says text ("Expired", "Deleted") in place of the count. */
  ended(text) {
    this.#text.textContent = text;
  }

  /** Hides the line: no inbox is shown, or one is being got. */
  hide() {
    setShown(this.#line, false);
  }

  async #checkExpired() {
    const token = this.#token;
    const round = this.#round;
    if (!this.#on.live(token)) return;
    try {
      await api.getInbox(token);
    } catch (err) {
      if (err.inboxGone) {
        if (round === this.#round) this.#on.expired(token);
        return;
      }
    }
    if (round === this.#round && this.#on.live(token)) {
      this.#check = setTimeout(() => this.#checkExpired(), 5000);
    }
  }
}
