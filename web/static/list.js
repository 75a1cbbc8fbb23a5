// The message list: one <li> per message, kept by id. A render adds the
// new items in place and removes the gone ones, and never moves an item that
// stays, so a person's keyboard focus is never lost to an update.

import { byId, setShown, makeCopyButton } from './dom.js';
import { findCode, formatListTime, formatFullTime, formatSender, shortSender } from './format.js';

export class MessageList {
  #ul = byId('messages');
  #template = /** @type {HTMLTemplateElement} */ (byId('message-item'));
  /** id → its <li> */
  #items = new Map();
  #onOpen;

  /** @param {(id: string, opener: HTMLElement) => void} onOpen */
  constructor(onOpen) {
    this.#onOpen = onOpen;
    // Arrow keys move between messages; Enter and Space open one (they are buttons).
    this.#ul.addEventListener('keydown', (e) => this.#arrowKeys(e));
  }

  /** Forgets every item (another inbox is shown). */
  clear() {
    this.#items.clear();
    this.#ul.replaceChildren();
  }

  /**
   * Shows the mailbox's messages and its loading, empty and error states.
   * @param {import('./mailbox.js').Mailbox} mailbox
   * @param {string|null} selectedId the message open in the reader
   */
  render(mailbox, selectedId) {
    for (const [id, li] of this.#items) {
      if (!mailbox.messages.has(id)) this.#removeItem(id, li);
    }
    let cursor = this.#ul.firstElementChild;
    for (const m of mailbox.sorted()) {
      let li = this.#items.get(m.id);
      if (!li) {
        li = this.#create(m);
        this.#items.set(m.id, li);
      }
      if (li === cursor) {
        cursor = cursor.nextElementSibling;
      } else {
        this.#ul.insertBefore(li, cursor); // only new items get here
      }
      this.#update(li, m, m.id === selectedId);
    }

    // Until the list's first page has come (while the event stream
    // connects, and while the page is on its way) the inbox is loading, not
    // empty, whatever the stream has brought meanwhile: it may hold more.
    // While a reload's page is on its way, the messages shown stay, and
    // "Loading messages…" shows only if there are none.
    const empty = mailbox.messages.size === 0;
    const loading = !mailbox.loadError && (mailbox.loading || !mailbox.loaded);
    setShown(byId('list-loading'), loading && (empty || !mailbox.loaded));
    setShown(byId('list-error'), Boolean(mailbox.loadError));
    if (mailbox.loadError) byId('list-error-text').textContent = `Could not load the messages: ${mailbox.loadError.message}`;
    setShown(byId('list-empty'), empty && !loading && !mailbox.loadError);
    const more = byId('load-more');
    setShown(more, mailbox.hasMore);
    /** @type {HTMLButtonElement} */ (more).disabled = mailbox.loading;

    // A reload (the stream came back with "reset") keeps the messages of
    // the last load in view until the new page takes their place: the list
    // says it is refreshing, and dims a little if that takes a while.
    const refreshing = mailbox.refreshing && mailbox.loading && !empty;
    this.#ul.setAttribute('aria-busy', String(refreshing));

    const n = mailbox.messages.size;
    const unread = mailbox.unread;
    byId('message-count').textContent = n === 0 ? '' :
      `${n} ${n === 1 ? 'message' : 'messages'}${unread ? `, ${unread} unread` : ''}${refreshing ? ', refreshing…' : ''}`;
  }

  /** The button that opens a message, to give focus back to. */
  opener(id) {
    return this.#items.get(id)?.querySelector('.message-open') ?? null;
  }

  #create(m) {
    const li = /** @type {HTMLLIElement} */ (this.#template.content.firstElementChild.cloneNode(true));
    li.dataset.id = m.id;
    const q = (sel) => li.querySelector(sel);

    q('.item-from').textContent = shortSender(m.from_name, m.from);
    q('.item-from').title = formatSender(m.from_name, m.from);
    const time = q('.item-time');
    time.dateTime = m.received_at;
    time.textContent = formatListTime(m.received_at);
    time.title = formatFullTime(m.received_at);
    q('.item-subject').textContent = m.subject || '(no subject)';
    q('.item-preview').textContent = m.preview || '';

    const code = findCode(m.subject, m.preview);
    if (code) {
      q('.item-code').textContent = code;
      const copy = q('.item-code-copy');
      copy.setAttribute('aria-label', `Copy code ${code}`);
      makeCopyButton(copy, () => code, 'Code');
      q('.item-code-box').hidden = false;
    }
    const files = Array.isArray(m.attachments) ? m.attachments : [];
    if (files.length > 0) {
      q('.item-attachments-text').textContent = files.length === 1 ? '1 attachment' : `${files.length} attachments`;
      q('.item-attachments').hidden = false;
    }

    const open = q('.message-open');
    open.addEventListener('click', () => this.#onOpen(m.id, open));
    return li;
  }

  #update(li, m, selected) {
    li.classList.toggle('unread', !m.is_read);
    const open = li.querySelector('.message-open');
    if (selected) open.setAttribute('aria-current', 'true');
    else open.removeAttribute('aria-current');
    li.querySelector('.item-state').textContent = m.is_read ? '' : 'Unread.';
  }

  #removeItem(id, li) {
    // Focus inside a removed item would fall back to the page's start: hand
    // it to the next message, or the previous, or the list's heading.
    if (li.contains(document.activeElement)) {
      const next = li.nextElementSibling || li.previousElementSibling;
      const target = next?.querySelector('.message-open') || byId('messages-heading');
      target.focus();
    }
    li.remove();
    this.#items.delete(id);
  }

  #arrowKeys(e) {
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    const buttons = [...this.#ul.querySelectorAll('.message-open')];
    const i = buttons.indexOf(/** @type {any} */ (document.activeElement));
    if (i < 0) return;
    const j = e.key === 'ArrowDown' ? Math.min(i + 1, buttons.length - 1) : Math.max(i - 1, 0);
    buttons[j].focus();
    e.preventDefault();
  }
}
