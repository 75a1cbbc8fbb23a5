// DOM helpers shared by the page's modules. Text from mail only ever reaches
// the page through textContent (never innerHTML), so nothing in a message can
// become markup here.

/** The element with this id; a missing one is a bug in index.html. */
export function byId(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`index.html has no #${id}`);
  return el;
}

/** Shows or hides an element with the hidden attribute (style.css honours it). */
export function setShown(el, shown) {
  el.hidden = !shown;
}

/** Says something to screen-reader users without moving their focus. */
export function announce(text) {
  const region = byId('announce');
  // Clearing first makes a repeated message ("Copied") be read again.
  region.textContent = '';
  setTimeout(() => {
    region.textContent = text;
  }, 50);
}

/**
 * Copies text to the clipboard. The Clipboard API exists only on secure
 * origins (https, localhost); a service on plain http elsewhere gets the
 * older copy command instead.
 * @returns {Promise<boolean>} whether it was copied
 */
export async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // denied (the document is not focused, say): try the old way
    }
  }
  const focused = document.activeElement;
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.className = 'offscreen';
  document.body.append(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  area.remove();
  if (focused instanceof HTMLElement) focused.focus();
  return ok;
}

/**
 * Wires a copy button: clicking copies what text() returns, and the button
 * says "Copied" for a moment (its normal label is in data-label).
 * @param {HTMLButtonElement} button
 * @param {() => string} text
 * @param {string} what named in the announcement ("Address", "Code")
 */
export function makeCopyButton(button, text, what) {
  let timer = 0;
  button.addEventListener('click', async (event) => {
    event.stopPropagation();
    const value = text();
    if (!value) return;
    const ok = await copyText(value);
    button.textContent = ok ? 'Copied' : 'Select and copy';
    button.classList.toggle('copied', ok);
    announce(ok ? `${what} copied: ${value}` : `Could not copy. ${what}: ${value}`);
    clearTimeout(timer);
    timer = setTimeout(() => {
      button.textContent = button.dataset.label || 'Copy';
      button.classList.remove('copied');
    }, 1600);
  });
}
