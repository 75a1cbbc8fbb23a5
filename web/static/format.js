// Small pure helpers: finding a one-time code, and turning sizes, times and
// senders into text for people.

// A one-time code is six digits standing alone, the same pattern the
// service's /otp/ endpoint uses by default.
const codePattern = /\b\d{6}\b/;

/**
 * The one-time code of a message: the first six-digit number in its subject,
 * else in its text (the list has only the preview, the detail the whole text).
 * @returns {string} the code, or '' when there is none
 */
export function findCode(subject, text) {
  for (const s of [subject, text]) {
    const m = codePattern.exec(s || '');
    if (m) return m[0];
  }
  return '';
}

/** "1.2 KB", "840 bytes". */
export function formatSize(bytes) {
  if (!Number.isFinite(bytes) || bytes < 0) return '';
  if (bytes < 1000) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  const units = ['KB', 'MB', 'GB'];
  let n = bytes;
  let unit = '';
  for (const u of units) {
    n /= 1000;
    unit = u;
    if (n < 1000) break;
  }
  return `${n < 10 ? n.toFixed(1) : Math.round(n)} ${unit}`;
}

const timeOnly = new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: '2-digit' });
const dayAndTime = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' });
const full = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeStyle: 'medium' });

/** A list's time, in the reader's time zone: "14:03" today, else "Mar 12, 14:03". */
export function formatListTime(iso, now = new Date()) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return d.toDateString() === now.toDateString() ? timeOnly.format(d) : dayAndTime.format(d);
}

/** The whole date and time, in the reader's time zone. */
export function formatFullTime(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : full.format(d);
}

/**
 * What is left of a lifetime: "23 h 59 min", "4 min 05 s", "12 s".
 * @param {number} ms milliseconds left
 */
export function formatRemaining(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const days = Math.floor(s / 86400);
  const hours = Math.floor((s % 86400) / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const seconds = s % 60;
  if (days > 0) return `${days} d ${hours} h`;
  if (hours > 0) return `${hours} h ${String(minutes).padStart(2, '0')} min`;
  if (minutes > 0) return `${minutes} min ${String(seconds).padStart(2, '0')} s`;
  return `${seconds} s`;
}

/** "Shop <shop@example.com>" when there is a name, else the address. */
export function formatSender(name, address) {
  if (name && address && name !== address) return `${name} <${address}>`;
  return name || address || '(unknown sender)';
}

/** The sender as the list shows it: the name when there is one. */
export function shortSender(name, address) {
  return name || address || '(unknown sender)';
}

// RFC 8601 result words, by what they mean to a reader: the check passed,
// it failed, or it says nothing either way (none, neutral, temperror).
const failed = new Set(['fail', 'softfail', 'permerror']);

/**
 * What SPF, DKIM and DMARC said of a message, one check a line item:
 * "SPF pass", "DKIM pass (example.com)", "DMARC fail (policy reject)".
 * tone is 'pass', 'fail' or 'neutral', for colour beside the words.
 * @param {any} auth the message's authentication (null when unchecked)
 * @returns {{text: string, tone: 'pass'|'fail'|'neutral'}[]} [] when unchecked
 */
export function authChecks(auth) {
  if (!auth || typeof auth !== 'object') return [];
  const item = (name, result, detail = '') => {
    const word = typeof result === 'string' && result ? result : 'none';
    const tone = word === 'pass' ? 'pass' : failed.has(word) ? 'fail' : 'neutral';
    return { text: `${name} ${word}${detail ? ` (${detail})` : ''}`, tone };
  };
  const out = [item('SPF', auth.spf?.result)];
  const dkim = Array.isArray(auth.dkim) ? auth.dkim : [];
  if (dkim.length === 0) out.push(item('DKIM', 'none', 'not signed'));
  for (const sig of dkim) out.push(item('DKIM', sig?.result, typeof sig?.domain === 'string' ? sig.domain : ''));
  const dmarc = auth.dmarc || {};
  const policy = dmarc.result !== 'pass' && typeof dmarc.policy === 'string' && dmarc.policy ? `policy ${dmarc.policy}` : '';
  out.push(item('DMARC', dmarc.result, policy));
  return out;
}
