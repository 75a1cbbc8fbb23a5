// The addresses this browser made, kept in localStorage until they expire,
// so that getting a new address loses nothing: the page can switch back to
// any of them. One of them is the current one, which every tab of this
// browser shows.
//
// Only what the page needs to come back is kept: {token, address,
// created_at, expires_at}. Storage may be blocked (some private modes):
// then nothing is kept, and the page still works until it is closed.
//
// Beside them is the API key a person gave where the server makes no
// address without one (--anonymous off). It is kept here, in localStorage
// like the inboxes' tokens, so that every new address, in every tab and
// after a reload, does not ask for it again; the page's policy runs only
// its own scripts, and a mail's HTML runs in a sandboxed frame whose
// origin is not the page's, so nothing else reads it. The page sends it
// only to make an inbox: the inboxes' tokens do the rest, so the saved
// addresses come back without it. "Forget key" takes it out.

/** The current inbox. */
export const currentKey = 'tempmail.inbox';
/** Every inbox this browser made that has not expired, the current one among them. */
export const listKey = 'tempmail.inboxes';
/** The API key that makes this browser's new addresses. */
export const apiKeyKey = 'tempmail.apikey';
// More than anyone switches between; the oldest go first.
const maxKept = 50;

/** @typedef {{token: string, address: string, created_at: string, expires_at: string}} Saved */

/** The current inbox, unless it has expired. */
export function current() {
  const c = read(currentKey);
  return alive(c) ? slim(c) : null;
}

/**
 * Every kept inbox that has not expired, newest first.
 * @returns {Saved[]}
 */
export function all() {
  const list = read(listKey);
  const out = (Array.isArray(list) ? list : []).filter(alive).map(slim);
  // A page of an older version kept only the current one.
  const c = current();
  if (c && !out.some((x) => x.token === c.token)) out.push(c);
  return out.sort(newestFirst);
}

/** Keeps an inbox, and makes it the current one. */
export function remember(inbox) {
  const s = slim(inbox);
  const list = [s, ...all().filter((x) => x.token !== s.token)].sort(newestFirst).slice(0, maxKept);
  write(listKey, list);
  write(currentKey, s);
}

/** Forgets an inbox that expired or was deleted, as the current one too. */
export function forget(token) {
  write(listKey, all().filter((x) => x.token !== token));
  if (read(currentKey)?.token === token) write(currentKey, null);
}

/** The API key kept, or '' for none. */
export function apiKey() {
  const key = read(apiKeyKey);
  return typeof key === 'string' ? key : '';
}

/** Keeps the API key ('' forgets it). */
export function keepApiKey(key) {
  write(apiKeyKey, key || null);
}

function alive(x) {
  return Boolean(x) && typeof x.token === 'string' && x.token !== '' && typeof x.address === 'string' &&
    Date.parse(x.expires_at) > Date.now();
}

/** @returns {Saved} */
function slim({ token, address, created_at, expires_at }) {
  return { token, address, created_at, expires_at };
}

function newestFirst(a, b) {
  const t = (x) => Date.parse(x.created_at) || Date.parse(x.expires_at) || 0;
  return t(b) - t(a);
}

function read(key) {
  try {
    return JSON.parse(localStorage.getItem(key) || 'null');
  } catch {
    return null; // blocked or garbled: as if empty
  }
}

function write(key, value) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // blocked or full: kept for this page only
  }
}
