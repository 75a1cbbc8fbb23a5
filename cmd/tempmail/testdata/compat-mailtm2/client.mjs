// A mail.tm client as mail.tm's own documentation tells one to be written
// (docs.mail.tm): plain fetch on a base URL, JSON-LD answers (its
// default), a resource reached by joining its "@id" to the base URL, a
// message's source by joining its "downloadUrl" to it, new mail pushed by
// the Mercure hub (?topic=/accounts/{id}, the token in Bearer). It takes
// no dependency: no published mail.tm client on npm follows downloadUrl
// (see compat_mailtm2_test.go).
//
// node client.mjs <base URL> <Mercure hub URL> <tenant's key>
//
// It prints {"ready": <address>} once it listens for the account's mail
// (the Go test then sends some over SMTP), and at the end its report as
// one line of JSON.
const [base, hub, key] = process.argv.slice(2);
const password = 'correct horse battery staple';
const report = {};

// api calls base + path with mail.tm's default answers (JSON-LD) and the
// Bearer given; it returns the status and the parsed body.
async function api(path, { method = 'GET', bearer, body, type = 'application/json' } = {}) {
  const headers = { Accept: 'application/ld+json' };
  if (bearer) headers.Authorization = `Bearer ${bearer}`;
  if (body !== undefined) headers['Content-Type'] = type;
  const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type'), data: text ? JSON.parse(text) : null };
}

function must(what, res, status) {
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.data)}, want ${status}`);
  return res.data;
}

const domains = must('GET /domains', await api('/domains'), 200)['hydra:member'];
report.domains = domains.map((d) => d.domain);
const address = `docs-client-${crypto.randomUUID().slice(0, 8)}@${domains[0].domain}`;
// Before it logs in, the tenant's key is its Bearer: the account is that
// tenant's.
const account = must('POST /accounts', await api('/accounts', { method: 'POST', bearer: key, body: { address, password } }), 201);
report.account = { id: account.id, atId: account['@id'], address: account.address };
const { id, token } = must('POST /token', await api('/token', { method: 'POST', body: { address, password } }), 200);
report.tokenID = id;
report.me = must('GET /me', await api('/me', { bearer: token }), 200).address;
report.byAtID = must('GET @id', await api(account['@id'], { bearer: token }), 200).address;

// Listen (Mercure: an EventSource stream, read here with fetch), and say
// so once the hub has answered: mail from then on is told.
const listening = new AbortController();
const stream = await fetch(`${hub}?topic=${encodeURIComponent('/accounts/' + id)}`, {
  headers: { Authorization: `Bearer ${token}`, Accept: 'text/event-stream' },
  signal: listening.signal,
});
if (stream.status !== 200) throw new Error(`Mercure: ${stream.status} ${await stream.text()}`);
console.log(JSON.stringify({ ready: address }));

// The first message event: an unnamed event whose data is a Message.
let pushed;
const decoder = new TextDecoder();
let buffered = '';
for await (const chunk of stream.body) {
  buffered += decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, '\n');
  let end;
  while (!pushed && (end = buffered.indexOf('\n\n')) >= 0) {
    const lines = buffered.slice(0, end).split('\n');
    buffered = buffered.slice(end + 2);
    const named = lines.some((l) => l.startsWith('event:') && l.slice(6).trim() !== 'message');
    const data = lines.filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, '')).join('\n');
    if (named || !data) continue;
    const msg = JSON.parse(data);
    if (msg['@type'] === 'Message') pushed = msg;
  }
  if (pushed) break;
}
listening.abort();
if (!pushed) throw new Error('the Mercure stream ended before a message came');
report.pushed = { atId: pushed['@id'], downloadUrl: pushed.downloadUrl, subject: pushed.subject };

// The list, then the message by its @id, its source by its downloadUrl:
// each joined to the base URL, as mail.tm's documentation says.
const list = must('GET /messages', await api('/messages?page=1', { bearer: token }), 200);
report.list = { total: list['hydra:totalItems'], members: list['hydra:member'].map((m) => ({ atId: m['@id'], downloadUrl: m.downloadUrl })) };
const listed = list['hydra:member'][0];
const msg = must('GET @id', await api(listed['@id'], { bearer: token }), 200);
report.message = { id: msg.id, atId: msg['@id'], subject: msg.subject, from: msg.from, to: msg.to.map((t) => t.address),
  text: msg.text, msgid: msg.msgid, seen: msg.seen, downloadUrl: msg.downloadUrl };

const download = await fetch(base + msg.downloadUrl, { headers: { Authorization: `Bearer ${token}` } });
const raw = Buffer.from(await download.arrayBuffer());
report.download = { status: download.status, type: download.headers.get('content-type'),
  length: Number(download.headers.get('content-length')), source: raw.toString('latin1') };
const source = must('GET /sources/{id}', await api(`/sources/${msg.id}`, { bearer: token }), 200);
report.source = { downloadUrl: source.downloadUrl, same: source.data === raw.toString('utf8') };

report.seen = must('PATCH @id', await api(listed['@id'], { method: 'PATCH', bearer: token, body: { seen: true },
  type: 'application/merge-patch+json' }), 200).seen;
report.deleted = (await api(listed['@id'], { method: 'DELETE', bearer: token })).status;
report.afterDelete = (await api(listed['@id'], { bearer: token })).status;
report.totalAfter = must('GET /messages', await api('/messages', { bearer: token }), 200)['hydra:totalItems'];
report.accountDeleted = (await api(account['@id'], { method: 'DELETE', bearer: token })).status;
report.loginAfter = (await api('/token', { method: 'POST', body: { address, password } })).status;
console.log(JSON.stringify(report));
