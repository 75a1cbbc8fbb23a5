// A link to an inbox: the page's address with the inbox's token in the
// fragment, /#token=<token>. A browser never sends a fragment to a server,
// in a request or in a Referer, so the token reaches the service only as
// the page's own calls send it. Opened, the token is taken out of the
// address bar at once; the page (app.js) then makes the inbox one of this
// browser's addresses.

/** The link that opens the inbox with this token, in this page. */
export function inboxLink(token) {
  return `${location.origin}${location.pathname}#token=${encodeURIComponent(token)}`;
}

/**
 * The token of a link to an inbox (#token=...), taken out of the address
 * bar, so that it stays neither in view nor in the history; null when the
 * page's address names none.
 */
export function takeLinkedToken() {
  const params = new URLSearchParams(location.hash.slice(1));
  if (!params.has('token')) return null;
  history.replaceState(history.state, '', location.pathname + location.search);
  return (params.get('token') || '').trim();
}

/** Whether a link's token can name an inbox: tokens are letters and digits; anything else would only be refused. */
export function isToken(token) {
  return /^[A-Za-z0-9]{1,64}$/.test(token);
}
