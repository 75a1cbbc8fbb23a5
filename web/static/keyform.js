// The API key, where the server makes no address without one (--anonymous
// off): the form that asks for it, where it is kept, and whether it is
// needed. The page (app.js) decides where the form shows and what a key,
// once given, is for; this module owns the form and the key.
//
// The key is kept in this browser (saved.js, localStorage), as the
// addresses it made are: a person who gave it once should not be asked
// at every visit. It is sent only where it matters: with inbox creation,
// and with the configuration, whose domains then include its tenant's
// private ones; every other call uses the inbox's token.

import { byId, setShown, announce } from './dom.js';
import * as saved from './saved.js';

/** Thrown where the server needs an API key and this browser holds none. */
export class NoKey extends Error {
  constructor() {
    super('This server needs an API key to make an address.');
    this.name = 'NoKey';
  }
}

export class KeyForm {
  /**
   * @param {{changed: () => void, cancelled: () => void, done: () => void}} hooks
   *   changed: the key kept changed; cancelled: Cancel or Escape closed the
   *   form; done: the creation a key was given for has run.
   */
  constructor(hooks) {
    this.hooks = hooks;
    /** the API key kept ('' for none), here too for a browser whose storage keeps nothing */
    this.key = saved.apiKey();
    /** the server makes no inbox without an API key: its configuration says so, or a 401 did */
    this.needed = false;
    /** what "Use this key" does once the key is kept: the creation that needed it */
    this.retry = async () => {};
    byId('key-form').addEventListener('submit', (event) => this.onSubmit(event));
    byId('key-cancel').addEventListener('click', () => this.cancel());
    byId('key-forget').addEventListener('click', () => this.forget());
  }

  /** The key to send with a creation: '' where none is needed. Throws NoKey where one is needed and none is held. */
  forCreation() {
    if (!this.needed) return '';
    if (!this.key) throw new NoKey();
    return this.key;
  }

  /**
   * A creation was refused with 401: a key is needed after all (the
   * configuration was not read, or the server changed since), or the one
   * sent is unknown, revoked or expired, and is forgotten. Throws NoKey
   * when none was sent.
   */
  refused(sent) {
    this.needed = true;
    if (!sent) throw new NoKey();
    this.set('');
  }

  /**
   * err is the server asking for an API key, or refusing the one given: 401
   * (unknown, revoked or expired), or 403 (the key has no inboxes scope, or
   * its tenant's quota is used up).
   */
  about(err) {
    return err instanceof NoKey || (this.needed && (err.status === 401 || err.status === 403));
  }

  /** The form is shown. */
  get open() {
    return !byId('key-form').hidden;
  }

  /**
   * Shows the form, with the server's refusal (err) unless no key was
   * sent; retry is the creation the key is for. cancellable: an address is
   * shown, which Cancel keeps.
   */
  show(err, retry, cancellable) {
    this.retry = retry;
    setShown(byId('key-cancel'), cancellable);
    setShown(byId('key-form'), true);
    this.showError(err instanceof NoKey ? '' : err.message);
    byId('key-input').focus();
  }

  /** Hides the form, and what was typed in it. */
  close() {
    setShown(byId('key-form'), false);
    this.showError('');
    /** @type {HTMLInputElement} */ (byId('key-input')).value = '';
  }

  /** Cancel, or Escape in the form: closes it, keeping the address shown. */
  cancel() {
    this.close();
    this.hooks.cancelled();
  }

  /** "Use this key": keeps it, and makes the address it was asked for. */
  async onSubmit(event) {
    event.preventDefault();
    const input = /** @type {HTMLInputElement} */ (byId('key-input'));
    const submit = /** @type {HTMLButtonElement} */ (byId('key-submit'));
    const key = input.value.trim();
    // What a header can carry; the server says the rest.
    if (!/^[!-~]{1,256}$/.test(key)) {
      this.showError(key ? 'This is not an API key: a key is tm_ and letters and digits.' : 'Enter the API key.');
      input.focus();
      return;
    }
    this.set(key);
    input.value = '';
    this.showError('');
    submit.disabled = true;
    try {
      await this.retry();
    } finally {
      submit.disabled = false;
    }
    this.hooks.done();
  }

  /** Shows (or, with '', clears) the form's error. */
  showError(text) {
    const error = byId('key-error');
    error.textContent = text;
    setShown(error, Boolean(text));
    if (text) byId('key-input').setAttribute('aria-invalid', 'true');
    else byId('key-input').removeAttribute('aria-invalid');
  }

  /** Keeps the API key in this browser ('' forgets it). */
  set(key) {
    this.key = key;
    saved.keepApiKey(key);
    this.renderKept();
    this.hooks.changed();
  }

  /** "Forget key": the next address asks for it again. */
  forget() {
    this.set('');
    byId('choose-name').focus();
    announce('The API key is forgotten: a new address will ask for it.');
  }

  /** Another tab kept or forgot the key. */
  reload() {
    this.key = saved.apiKey();
    this.renderKept();
  }

  /** The chooser offers to forget the key while one is kept and needed. */
  renderKept() {
    setShown(byId('key-kept'), this.needed && this.key !== '');
  }
}
