// Switching between the addresses this browser made (saved.js): the "Your
// addresses" button, shown when there is another than the one shown, and
// the list it opens, each address with its lifetime. An address comes back
// only if the server still has it: one that expired or was deleted
// meanwhile is dropped, and the page says so. The page (app.js) shows the
// address switched to; this module owns the button and the list.

import * as api from './api.js';
import { byId, setShown, announce } from './dom.js';
import { formatRemaining } from './format.js';
import * as saved from './saved.js';

/**
 * @typedef {object} SwitcherHooks
 * @property {() => string|undefined} current the token of the inbox shown, if any
 * @property {() => void} opening the list opens: what else is open below the
 *   address closes, as one thing at a time shows there
 * @property {() => void} switching a switch starts, before the server is asked
 * @property {(inbox: import('./saved.js').Saved) => void} show shows the inbox switched to
 * @property {(text: string) => void} notice says why a switch failed ('' clears)
 */

export class Switcher {
  #on;
  #toggle = byId('switch-toggle');
  #count = byId('switch-count');
  #panel = byId('switch-panel');
  #list = byId('switch-list');
  /** Refreshes the lifetimes while the list is open. */
  #tick = 0;

  /** @param {SwitcherHooks} hooks */
  constructor(hooks) {
    this.#on = hooks;
    this.#toggle.addEventListener('click', () => this.setOpen(this.#panel.hidden));
  }

  /**
   * Shows the addresses to switch to (the button, when there is another
   * than the one shown, and the list when it is open). The focus stays on
   * the address it was on.
   */
  render() {
    const all = saved.all();
    const here = this.#on.current();
    const others = all.filter((x) => x.token !== here).length;
    this.#count.textContent = String(all.length);
    setShown(this.#toggle, others > 0);
    if (others === 0) {
      // The list goes: the focus goes to the button beside its own.
      if (this.#panel.contains(document.activeElement)) byId('new-address').focus();
      this.setOpen(false);
      return;
    }
    const focused = /** @type {HTMLElement|null} */ (document.activeElement)?.closest?.('[data-token]')?.getAttribute('data-token');
    const items = all.map((x) => {
      const li = document.createElement('li');
      li.className = 'switch-item';
      const address = document.createElement('span');
      address.className = 'switch-address';
      address.translate = false;
      address.textContent = x.address;
      const expiry = document.createElement('span');
      expiry.className = 'switch-expiry';
      expiry.dataset.expires = x.expires_at;
      if (x.token === here) {
        li.setAttribute('aria-current', 'true');
        const badge = document.createElement('span');
        badge.className = 'switch-here';
        badge.textContent = 'Shown now';
        li.append(address, badge, expiry);
        return li;
      }
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'switch-to';
      button.dataset.token = x.token;
      button.append(address, expiry);
      button.addEventListener('click', () => this.#switchTo(x));
      li.append(button);
      return li;
    });
    this.#list.replaceChildren(...items);
    this.#tickLifetimes();
    if (focused) /** @type {HTMLElement|null} */ (this.#list.querySelector(`[data-token="${CSS.escape(focused)}"]`))?.focus();
  }

  /** Refreshes the lifetimes in the list; drops an address that expired. */
  #tickLifetimes() {
    let expired = false;
    for (const el of this.#list.querySelectorAll('.switch-expiry')) {
      const left = Date.parse(/** @type {HTMLElement} */ (el).dataset.expires || '') - Date.now();
      if (left <= 0) expired = true;
      el.textContent = `Expires in ${formatRemaining(left)}`;
    }
    if (expired) this.render();
  }

  /** Shows or hides the list (not when there is nothing to switch to). */
  setOpen(open) {
    if (open === !this.#panel.hidden) return;
    if (open) this.#on.opening();
    this.#toggle.setAttribute('aria-expanded', String(open));
    setShown(this.#panel, open);
    clearInterval(this.#tick);
    if (open) {
      this.render();
      if (this.#panel.hidden) return; // nothing to switch to after all
      this.#tick = setInterval(() => this.#tickLifetimes(), 1000);
      /** @type {HTMLElement|null} */ (this.#panel.querySelector('.switch-to'))?.focus();
    }
  }

  /** Escape with the focus in the list: closes it, back to its button. Says whether it did. */
  escape() {
    if (this.#panel.hidden || !this.#panel.contains(document.activeElement)) return false;
    this.setOpen(false);
    this.#toggle.focus();
    return true;
  }

  /** Shows another address this browser made, if it still lives. */
  async #switchTo(entry) {
    this.#on.switching();
    let inbox;
    try {
      inbox = await api.getInbox(entry.token);
    } catch (err) {
      if (err.inboxGone) {
        saved.forget(entry.token);
        this.render();
        this.#on.notice(`${entry.address} has expired or was deleted.`);
      } else {
        this.#on.notice(`Could not switch to ${entry.address}: ${err.message}`);
      }
      return;
    }
    saved.remember({ ...entry, ...inbox });
    this.setOpen(false);
    this.#on.show({ ...entry, ...inbox });
    this.#on.notice('');
    this.#toggle.focus();
    announce(`Switched to ${entry.address}`);
  }
}
