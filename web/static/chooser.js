// Choosing an address's name and domain: the form "Choose the name…"
// opens, with the domains the server offers (/ui/config.json). The page
// (app.js) makes the address and shows it; this module owns the form, and
// says in it why an address could not be made, marking the field the
// server's refusal is about, so that a person corrects it where they typed.

import { byId, setShown } from './dom.js';

/** @typedef {{name?: string, domain?: string}} Choice */

/**
 * @typedef {object} ChooserHooks
 * @property {() => void} opening the form opens: what else is open below the
 *   address closes, as one thing at a time shows there
 * @property {(choice: Choice) => Promise<object>} create makes the address
 *   chosen, or throws why not (ApiError, NoKey)
 * @property {(inbox: object) => void} made shows the address made
 * @property {(err: Error, retry: () => Promise<void>) => boolean} askKey err
 *   is about the API key: the page asks for one, with retry to make the
 *   address once it is given, and says true; else false
 */

export class Chooser {
  #on;
  #toggle = byId('choose-toggle');
  #form = byId('choose-form');
  #name = /** @type {HTMLInputElement} */ (byId('choose-name'));
  #domain = /** @type {HTMLSelectElement} */ (byId('choose-domain'));
  #submit = /** @type {HTMLButtonElement} */ (byId('choose-submit'));
  #error = byId('choose-error');

  /** @param {ChooserHooks} hooks */
  constructor(hooks) {
    this.#on = hooks;
    this.#form.addEventListener('submit', (event) => this.#onSubmit(event));
    this.#toggle.addEventListener('click', () => this.setOpen(this.#form.hidden));
  }

  /**
   * The server's configuration (/ui/config.json): its domains to choose
   * from, the default one chosen, and how long a name may be.
   */
  showDomains(config) {
    const domains = Array.isArray(config.domains) ? config.domains : [];
    this.#domain.replaceChildren(...domains.map((d) => new Option(d, d, false, d === config.default_domain)));
    this.#domain.disabled = domains.length < 2;
    if (config.max_name_length) this.#name.setAttribute('maxlength', String(config.max_name_length));
  }

  /** The configuration could not be read: the form still works, on the server's default domain. */
  noDomains(err) {
    this.#domain.replaceChildren(new Option('default domain', ''));
    this.#showError(`Could not load the domains: ${err.message}`);
  }

  /** Shows or hides the form. */
  setOpen(open) {
    if (open) this.#on.opening();
    this.#toggle.setAttribute('aria-expanded', String(open));
    setShown(this.#form, open);
    if (open) this.#name.focus();
    else this.#showError('');
  }

  /** Escape with the focus in the form: closes it, back to its button. Says whether it did. */
  escape() {
    if (this.#form.hidden || !this.#form.contains(document.activeElement)) return false;
    this.setOpen(false);
    this.#toggle.focus();
    return true;
  }

  async #onSubmit(event) {
    event.preventDefault();
    /** @type {Choice} */
    const choice = {};
    const name = this.#name.value.trim().toLowerCase();
    if (name) choice.name = name;
    if (this.#domain.value) choice.domain = this.#domain.value;

    this.#showError('');
    this.#submit.disabled = true;
    try {
      await this.#choose(choice);
    } finally {
      this.#submit.disabled = false;
    }
  }

  /** Makes the address chosen and has the page show it; the form says why not. */
  async #choose(choice) {
    try {
      const inbox = await this.#on.create(choice);
      this.#on.made(inbox);
      this.#name.value = '';
      this.setOpen(false);
    } catch (err) {
      if (this.#on.askKey(err, () => this.#choose(choice))) return;
      if (this.#form.hidden) this.setOpen(true); // closed while the key was asked for
      // The server's words: "Invalid name: ...", "Email name already taken",
      // "Domain not found or inactive".
      const aboutDomain = /domain/i.test(err.message) && !/name/i.test(err.message);
      this.#showError(err.message, aboutDomain ? this.#domain : this.#name);
    }
  }

  /** Shows (or, with '', clears) the form's error, marking the field it is about. */
  #showError(text, field = null) {
    this.#error.textContent = text;
    setShown(this.#error, Boolean(text));
    for (const el of [this.#name, this.#domain]) {
      if (el === field) el.setAttribute('aria-invalid', 'true');
      else el.removeAttribute('aria-invalid');
    }
    if (field) field.focus();
  }
}
