// The message reader: a message's headers, its code, attachments, text,
// headers and source, and its HTML in a sandboxed frame.
//
// The HTML is never put into this page. The frame loads it from the api
// package's body endpoint, which serves it under a policy that runs no
// script, submits no form and loads nothing remote unless asked (remote=1);
// the frame's sandbox attribute (index.html) gives it an origin of its own
// and no scripts, forms or top navigation either, so mail cannot reach this
// page, its storage or the service.

import * as api from './api.js';
import { byId, setShown, announce, makeCopyButton } from './dom.js';
import { authChecks, findCode, formatFullTime, formatSender, formatSize } from './format.js';

// The source view shows at most this much; the download has it all.
const maxSourceChars = 2_000_000;
// With this many links or fewer, the list of links shows open.
const openLinks = 5;
const tabs = ['html', 'text', 'headers', 'source'];

/**
 * @typedef {object} ReaderHandlers
 * @property {(id: string) => void} read the open message was marked read
 * @property {(id: string) => void} delete the reader asked to delete the open message
 * @property {() => void} gone the inbox is gone (a 404 "Inbox not found")
 * @property {() => void} closed the reader closed
 */

export class Reader {
  #on;
  #token = '';
  /** The open message's id, '' when closed. */
  #id = '';
  /** Counts opens, so that a slow answer for an earlier message is dropped. */
  #seq = 0;
  #remote = false;
  #sourceLoaded = false;
  #code = '';
  /** The view shown: one of tabs. */
  #tab = 'html';
  /** @type {HTMLElement|null} where focus returns when the reader closes */
  #opener = null;
  #frame = /** @type {HTMLIFrameElement} */ (byId('message-frame'));

  /** @param {ReaderHandlers} handlers */
  constructor(handlers) {
    this.#on = handlers;
    byId('message-close').addEventListener('click', () => this.close());
    byId('message-delete').addEventListener('click', () => this.#id && this.#on.delete(this.#id));
    byId('remote-toggle').addEventListener('click', () => this.#toggleRemote());
    makeCopyButton(/** @type {HTMLButtonElement} */ (byId('message-code-copy')), () => this.#code, 'Code');
    for (const name of tabs) byId(`tab-${name}`).addEventListener('click', () => this.#select(name));
    byId('message').querySelector('[role=tablist]').addEventListener('keydown', (e) => this.#tabKeys(e));
  }

  get openId() {
    return this.#id;
  }

  /**
   * Opens a message: what the list knows is shown at once, the rest when it
   * comes. Opening marks it read.
   * @param {string} token
   * @param {object} summary the list's element for the message
   * @param {HTMLElement|null} opener
   */
  async open(token, summary, opener) {
    const seq = ++this.#seq;
    this.#token = token;
    this.#id = summary.id;
    this.#opener = opener;
    this.#remote = false;
    this.#sourceLoaded = false;

    this.#showSummary(summary);
    this.#status('Loading the message…');
    this.#select('html', false);
    this.#setRemote(false);
    /** @type {HTMLAnchorElement} */ (byId('message-download')).href = api.rawURL(token, summary.id, true);

    setShown(byId('reader-empty'), false);
    setShown(byId('message'), true);
    document.body.classList.add('reading');
    byId('message-subject').focus();

    if (!summary.is_read) this.#markRead(seq, summary.id);
    try {
      const message = await api.getMessage(token, summary.id);
      if (seq !== this.#seq) return;
      this.#showDetail(message);
      this.#status('');
    } catch (err) {
      if (seq !== this.#seq) return;
      if (err.inboxGone) {
        this.#on.gone();
        return;
      }
      this.#status(err.status === 404 ? 'This message has been deleted.' : `Could not load the message: ${err.message}`);
    }
  }

  /**
   * Closes the reader and gives focus back to the list (unless focus is
   * false: the page is moving on to another inbox).
   */
  close(focus = true) {
    if (!this.#id) return;
    this.#seq++;
    this.#id = '';
    this.#frame.src = 'about:blank';
    setShown(byId('message'), false);
    setShown(byId('reader-empty'), true);
    document.body.classList.remove('reading');
    const target = this.#opener?.isConnected ? this.#opener : byId('messages-heading');
    this.#opener = null;
    if (focus) target.focus();
    this.#on.closed();
  }

  /** A message was deleted elsewhere (another tab, the API): if it is open, say so and close. */
  removed(id) {
    if (id !== this.#id) return;
    announce('The open message was deleted.');
    this.close();
  }

  /** What the list knows: shown at once, the rest cleared until it comes. */
  #showSummary(m) {
    this.#showHeaders(m);
    this.#showCode(findCode(m.subject, m.preview));
    setShown(byId('message-cc-row'), false);
    this.#showAuth(null);
    setShown(byId('message-attachments'), false);
    byId('attachment-list').replaceChildren();
    setShown(byId('message-links'), false);
    byId('link-list').replaceChildren();
    byId('message-text').textContent = '';
    byId('headers-body').replaceChildren();
    byId('message-source').textContent = '';
    byId('source-status').textContent = '';
    setShown(byId('remote-bar'), true);
  }

  #showHeaders(m) {
    byId('message-subject').textContent = m.subject || '(no subject)';
    byId('message-from').textContent = formatSender(m.from_name, m.from);
    byId('message-to').textContent = m.to || '';
    const date = /** @type {HTMLTimeElement} */ (byId('message-date'));
    date.dateTime = m.received_at;
    date.textContent = formatFullTime(m.received_at);
  }

  #showDetail(m) {
    this.#showHeaders(m);
    const cc = Array.isArray(m.cc) ? m.cc.filter(Boolean) : [];
    byId('message-cc').textContent = cc.join(', ');
    setShown(byId('message-cc-row'), cc.length > 0);
    this.#showCode(findCode(m.subject, m.text));
    this.#showAuth(m.authentication);

    byId('message-text').textContent = m.text || '(This message has no text part.)';

    const rows = Object.entries(m.headers || {}).map(([name, value]) => {
      const tr = document.createElement('tr');
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = name;
      const td = document.createElement('td');
      td.textContent = String(value);
      tr.append(th, td);
      return tr;
    });
    byId('headers-body').replaceChildren(...rows);

    const files = Array.isArray(m.attachments) ? m.attachments : [];
    const items = files.map((a) => {
      const li = document.createElement('li');
      const name = a.filename || 'attachment';
      if (a.url) {
        const link = document.createElement('a');
        link.href = a.url;
        link.download = name;
        link.textContent = name;
        li.append(link);
      } else {
        li.append(name);
      }
      const meta = document.createElement('span');
      meta.className = 'attachment-meta';
      meta.textContent = ` ${formatSize(a.size)}${a.content_type ? `, ${a.content_type}` : ''}`;
      li.append(meta);
      return li;
    });
    byId('attachment-list').replaceChildren(...items);
    setShown(byId('message-attachments'), items.length > 0);
    this.#showLinks(Array.isArray(m.links) ? m.links : []);

    // Remote content matters only to HTML; a text-only message reads best
    // as text in the page's own colours.
    setShown(byId('remote-bar'), Boolean(m.html));
    if (!m.html && this.#tab === 'html') this.#select('text', false);
  }

  /**
   * The message's links, each with the URL it leads to under its text. They
   * open in a new tab that cannot reach this page, and tell the site
   * nothing of where they came from. The server gives only http and https
   * URLs; anything else is shown as text, never made a link. A host
   * written in another script is shown also as the browser looks it up
   * (punycode), so that a look-alike of a known name shows as what it is.
   * @param {{url: string, url_ascii?: string, text: string}[]} links
   */
  #showLinks(links) {
    const items = links.map((l) => {
      const li = document.createElement('li');
      const url = String(l.url || '');
      const label = String(l.text || '') || url;
      if (/^https?:\/\//i.test(url)) {
        const a = document.createElement('a');
        a.href = url;
        a.target = '_blank';
        a.rel = 'noopener noreferrer nofollow';
        a.referrerPolicy = 'no-referrer';
        a.textContent = label;
        li.append(a);
      } else {
        li.append(label);
      }
      if (label !== url) {
        const where = document.createElement('span');
        where.className = 'link-url';
        where.textContent = url;
        li.append(where);
      }
      const ascii = String(l.url_ascii ?? url);
      if (ascii !== url) {
        const host = document.createElement('span');
        host.className = 'link-url link-ascii';
        host.textContent = ascii ? `host in ASCII: ${ascii}` : 'its host is no valid name: it opens nothing';
        li.append(host);
      }
      return li;
    });
    byId('link-list').replaceChildren(...items);
    byId('link-count').textContent = `(${items.length})`;
    const details = /** @type {HTMLDetailsElement} */ (byId('message-links'));
    details.open = items.length <= openLinks;
    setShown(details, items.length > 0);
  }

  /**
   * What SPF, DKIM and DMARC said, one item each, in words with a mark
   * and a colour beside them; hidden when the message was not checked.
   */
  #showAuth(auth) {
    const marks = { pass: '✓', fail: '✗', neutral: '–' };
    const items = authChecks(auth).map(({ text, tone }) => {
      const li = document.createElement('li');
      li.className = `auth-check ${tone}`;
      const mark = document.createElement('span');
      mark.className = 'auth-mark';
      mark.setAttribute('aria-hidden', 'true');
      mark.textContent = marks[tone];
      li.append(mark, text);
      return li;
    });
    byId('message-auth').replaceChildren(...items);
    setShown(byId('message-auth-row'), items.length > 0);
  }

  #showCode(code) {
    this.#code = code;
    byId('message-code-value').textContent = code;
    setShown(byId('message-code'), Boolean(code));
  }

  #status(text) {
    const el = byId('message-status');
    el.textContent = text;
    setShown(el, Boolean(text));
  }

  async #markRead(seq, id) {
    try {
      await api.markRead(this.#token, id);
      this.#on.read(id);
    } catch (err) {
      if (err.inboxGone) {
        this.#on.gone();
      } else if (seq === this.#seq && err.status !== 404) {
        this.#status(`Could not mark the message as read: ${err.message}`);
      }
    }
  }

  #toggleRemote() {
    this.#setRemote(!this.#remote);
  }

  #setRemote(remote) {
    this.#remote = remote;
    const toggle = byId('remote-toggle');
    toggle.setAttribute('aria-pressed', String(remote));
    toggle.textContent = remote ? 'Block remote content' : 'Load remote content';
    byId('remote-text').textContent = remote
      ? 'Remote images and styles are loaded: the sender may learn that you opened this message.'
      : 'Remote images and content are blocked.';
    if (this.#id) this.#frame.src = api.bodyURL(this.#token, this.#id, remote);
  }

  /**
   * Shows one of the views (tabs). focus moves focus to the tab, as the
   * arrow keys do; a click focuses it by itself.
   */
  #select(name, focus = false) {
    this.#tab = name;
    for (const t of tabs) {
      const tab = byId(`tab-${t}`);
      const on = t === name;
      tab.setAttribute('aria-selected', String(on));
      tab.tabIndex = on ? 0 : -1;
      setShown(byId(`panel-${t}`), on);
      if (on && focus) tab.focus();
    }
    if (name === 'source') this.#loadSource();
  }

  #tabKeys(e) {
    const current = tabs.findIndex((t) => byId(`tab-${t}`).getAttribute('aria-selected') === 'true');
    let next = -1;
    if (e.key === 'ArrowRight') next = (current + 1) % tabs.length;
    else if (e.key === 'ArrowLeft') next = (current + tabs.length - 1) % tabs.length;
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = tabs.length - 1;
    if (next < 0) return;
    e.preventDefault();
    this.#select(tabs[next], true);
  }

  async #loadSource() {
    if (this.#sourceLoaded || !this.#id) return;
    this.#sourceLoaded = true;
    const seq = this.#seq;
    const status = byId('source-status');
    status.textContent = 'Loading the source…';
    try {
      const raw = await api.getRaw(this.#token, this.#id);
      if (seq !== this.#seq) return;
      const cut = raw.length > maxSourceChars;
      byId('message-source').textContent = cut ? raw.slice(0, maxSourceChars) : raw;
      status.textContent = cut ? 'The source is long: only its beginning is shown. Download the .eml for all of it.' : '';
    } catch (err) {
      if (seq !== this.#seq) return;
      this.#sourceLoaded = false; // selecting the tab again retries
      if (err.inboxGone) this.#on.gone();
      else status.textContent = `Could not load the source: ${err.message}`;
    }
  }
}
