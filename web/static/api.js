// The calls the page makes to the service. It uses only family C (what an
// inbox's token authorizes) and /ui/config.json, so it keeps working when the
// server guards the rest with --read-key or --require-token. The one call
// that may carry more is making an inbox: on a server that makes none
// without a key (--anonymous off), it sends the API key a person gave.
//
// Every call either returns what the server sent or throws an ApiError whose
// message can be shown to a person as it is.

export class ApiError extends Error {
  /**
   * @param {string} message what to show
   * @param {{status?: number, network?: boolean}} [opts] status is the HTTP
   *   status (0 when there was no answer); network is true when the server
   *   could not be reached at all.
   */
  constructor(message, { status = 0, network = false } = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.network = network;
  }

  /** The inbox no longer exists: it expired or was deleted. */
  get inboxGone() {
    return this.status === 404 && this.message === 'Inbox not found';
  }
}

const unreachable = 'Cannot reach the server. Check your connection and try again.';

/**
 * Sends one request and reads its JSON answer.
 * @param {string} method
 * @param {string} path
 * @param {object} [body] sent as JSON when given
 * @param {{keepalive?: boolean, headers?: Record<string, string>}} [opts]
 *   keepalive lets the request outlive the page; headers are sent besides
 * @returns {Promise<{data: any, response: Response}>}
 */
async function request(method, path, body, { keepalive = false, headers = {} } = {}) {
  /** @type {RequestInit & {headers: Record<string, string>}} */
  const init = { method, cache: 'no-store', keepalive, headers: { ...headers, Accept: 'application/json' } };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  let text;
  try {
    response = await fetch(path, init);
    text = await response.text();
  } catch {
    // fetch rejects only when no answer came (server down, network gone).
    throw new ApiError(unreachable, { network: true });
  }
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null; // an answer from something in between (a proxy's error page)
    }
  }
  if (!response.ok) {
    // Family C errors are {"error": ...}; a few shared ones use "detail".
    const message = (data && (data.error || data.detail)) ||
      `The server answered ${response.status} ${response.statusText}`.trim();
    throw new ApiError(message, { status: response.status });
  }
  return { data, response };
}

/** Builds a path under one inbox, each part escaped. */
function inboxPath(token, ...parts) {
  const rest = parts.map((p) => encodeURIComponent(p) + '/').join('');
  return `/inboxes/${encodeURIComponent(token)}/${rest}`;
}

/**
 * What the page needs to know of the service: domains, default, lifetime,
 * whether a key is needed. With key, the domains are those the key may
 * use, its tenant's private ones among them (a bad key is not refused
 * here: the public ones are listed).
 * @param {string} [key] sent only when given
 */
export async function getConfig(key = '') {
  const headers = key ? { Authorization: `Bearer ${key}` } : {};
  return (await request('GET', '/ui/config.json', undefined, { headers })).data;
}

/**
 * Makes a new inbox: {} for a random name on the default domain, or a chosen
 * name and/or domain. With key (a tenant's API key, tm_...), the inbox is
 * the key's tenant's; the server refuses a bad key with 401, and a key
 * without the inboxes scope, or past its quota, with 403.
 * @param {{name?: string, domain?: string}} [choice]
 * @param {string} [key] sent only when given
 */
export async function createInbox(choice = {}, key = '') {
  const headers = key ? { Authorization: `Bearer ${key}` } : {};
  return (await request('POST', '/inboxes/', choice, { headers })).data;
}

export async function getInbox(token) {
  return (await request('GET', inboxPath(token))).data;
}

export async function deleteInbox(token) {
  await request('DELETE', inboxPath(token));
}

/**
 * One page of an inbox's messages, newest first.
 * @returns {Promise<{messages: object[], total: number}>}
 */
export async function listMessages(token, { limit = 50, offset = 0 } = {}) {
  const { data, response } = await request('GET', `${inboxPath(token, 'messages')}?limit=${limit}&offset=${offset}`);
  const total = Number(response.headers.get('X-Total-Count'));
  const messages = Array.isArray(data) ? data : [];
  return { messages, total: Number.isFinite(total) ? total : messages.length };
}

export async function getMessage(token, id) {
  return (await request('GET', inboxPath(token, 'messages', id))).data;
}

export async function markRead(token, id) {
  return (await request('POST', inboxPath(token, 'messages', id, 'read'), {})).data;
}

/** @param {{keepalive?: boolean}} [opts] keepalive: sent as the page is left */
export async function deleteMessage(token, id, opts = {}) {
  await request('DELETE', inboxPath(token, 'messages', id), undefined, opts);
}

/**
 * The message as received (its raw source), as text.
 * @returns {Promise<string>}
 */
export async function getRaw(token, id) {
  let response;
  try {
    response = await fetch(rawURL(token, id), { cache: 'no-store' });
  } catch {
    throw new ApiError(unreachable, { network: true });
  }
  if (!response.ok) {
    let message = `The server answered ${response.status}`;
    try {
      message = (await response.json()).error || message;
    } catch {
      // not JSON: keep the status
    }
    throw new ApiError(message, { status: response.status });
  }
  try {
    return await response.text();
  } catch {
    throw new ApiError(unreachable, { network: true });
  }
}

/** Where the raw source is served inline; with download, as a .eml file. */
export function rawURL(token, id, download = false) {
  return inboxPath(token, 'messages', id, 'raw') + (download ? '?download=1' : '');
}

/**
 * Where the message's HTML is served for the sandboxed frame; with remote,
 * remote images and styles may load.
 */
export function bodyURL(token, id, remote = false) {
  return `${inboxPath(token, 'messages', id)}body.html${remote ? '?remote=1' : ''}`;
}

/** The inbox's Server-Sent Events stream. */
export function eventsURL(token) {
  return inboxPath(token, 'events');
}
