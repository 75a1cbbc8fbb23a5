// The scenario of TestMailosaurFromItsSDK, with the published Mailosaur
// clients: node client.mjs <baseUrl> <key> <read key> <other tenant's key>,
// with MAILOSAUR_SMTP_HOST set to the first domain (as generateEmailAddress
// reads it). Each time it wants mail it prints "send <address>" on a line
// of its own and waits for that mail with the client's own waiting call
// (messages.get, cy.mailosaurGetMessage), so the order of the send and
// the wait cannot matter; at the end it prints its report as one line of
// JSON.
//
// First the `mailosaur` SDK, then cypress-mailosaur's commands: Cypress
// cannot run here (its binary is not installed), so its published command
// module is loaded as Cypress loads it (its index.js registers every
// command with Cypress.Commands.add) on a stand-in for Cypress and cy
// whose request and backend('http:request') perform the request with
// fetch, as Cypress's own would; the commands' code, their URLs, headers,
// bodies, polling and answers' handling, is the package's, unchanged.
import { createHmac } from 'node:crypto';
import { createRequire } from 'node:module';
import MailosaurClient from 'mailosaur';

const [baseUrl, apiKey, readKey, otherKey] = process.argv.slice(2);
const report = {};

// What a failed call threw: MailosaurError's type and status, or the
// message of another error.
async function refusal(call) {
  try {
    await call();
    return null;
  } catch (e) {
    return { type: e.errorType || '', status: e.httpStatusCode || 0, message: e.message };
  }
}

const mailosaur = new MailosaurClient(apiKey, baseUrl);
const server = await mailosaur.servers.create({ name: 'SDK tests' });
const address = mailosaur.servers.generateEmailAddress(server.id);
report.server = { id: server.id, name: server.name };
report.address = address;
console.log('send ' + address);

const message = await mailosaur.messages.get(server.id, { sentTo: address }, { timeout: 30000 });
report.gotAt = Date.now();
report.message = {
  id: message.id,
  subject: message.subject,
  from: message.from[0].email,
  to: message.to[0].email,
  received: message.received instanceof Date && !isNaN(message.received),
  server: message.server,
  htmlCode: message.html.codes[0]?.value,
  htmlLink: message.html.links[0]?.href,
  htmlImages: message.html.images.map((i) => [i.src, i.alt]),
  textCode: message.text.codes[0]?.value,
  headers: message.metadata.headers.length,
};
// totp is the code of an authenticator app for the base32 secret in the
// 30-second step that ends at until (RFC 6238), written here apart from
// the service's, to check it.
function totp(secret, until) {
  const bits = [...secret.replace(/=+$/, '')].map((c) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'.indexOf(c).toString(2).padStart(5, '0')).join('');
  const key = Buffer.from(bits.match(/.{8}/g).map((b) => parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(until.getTime() / 30000) - 1));
  const mac = createHmac('sha1', key).update(counter).digest();
  const off = mac[mac.length - 1] & 0x0f;
  return String((mac.readUInt32BE(off) & 0x7fffffff) % 1000000).padStart(6, '0');
}
const secret = 'ONSWG4TFOQYTEMYJBSWY3DPEHPK3PXP';
const otp = await mailosaur.devices.otp(secret);
report.otp = { code: otp.code, expected: totp(secret, otp.expires), inFuture: otp.expires > new Date() };
// A device stored with the secret: its code by its id is the code of the
// secret, asked in the same 30-second window (again should one end
// between the two).
const device = await mailosaur.devices.create({ name: 'phone', sharedSecret: secret });
const listed = (await mailosaur.devices.list()).items.map((d) => [d.id, d.name]);
let byId, bySecret;
for (let i = 0; i < 3; i++) {
  byId = await mailosaur.devices.otp(device.id);
  bySecret = await mailosaur.devices.otp(secret);
  if (byId.expires.getTime() === bySecret.expires.getTime()) break;
}
report.devices = {
  id: device.id,
  name: device.name,
  listed,
  otp: byId.code,
  bySecret: bySecret.code,
  expected: totp(secret, byId.expires),
  sameWindow: byId.expires.getTime() === bySecret.expires.getTime(),
};
report.files = {
  eml: (await mailosaur.files.getEmail(message.id)).toString('base64'),
  attachment: (await mailosaur.files.getAttachment(message.attachments[0].id)).toString('base64'),
  name: message.attachments[0].fileName,
};
const transactions = await mailosaur.usage.transactions();
report.transactions = { days: transactions.items.length, email: transactions.items[0]?.email };
report.refused = {
  'analysis.spam': await refusal(() => mailosaur.analysis.spam(message.id)),
  'analysis.deliverability': await refusal(() => mailosaur.analysis.deliverability(message.id)),
  'messages.create': await refusal(() => mailosaur.messages.create(server.id, { to: 'x@example.com', subject: 's', text: 't', send: true })),
  'messages.forward': await refusal(() => mailosaur.messages.forward(message.id, { to: 'x@example.com' })),
  'messages.reply': await refusal(() => mailosaur.messages.reply(message.id, { text: 'thanks' })),
  'messages.generatePreviews': await refusal(() => mailosaur.messages.generatePreviews(message.id, { emailClients: ['x'] })),
  'previews.listEmailClients': await refusal(() => mailosaur.previews.listEmailClients()),
  'servers.getPassword': await refusal(() => mailosaur.servers.getPassword(server.id)),
};
report.preview = await refusal(() => mailosaur.files.getPreview('a-preview'));
report.list = (await mailosaur.messages.list(server.id)).items.map((m) => m.id);
report.search = (await mailosaur.messages.search(server.id, { subject: 'verify', match: 'ALL' })).items.map((m) => m.id);
report.renamed = (await mailosaur.servers.update(server.id, { ...server, name: 'Renamed' })).name;
report.servers = (await mailosaur.servers.list()).items.map((s) => s.name);
report.count = (await mailosaur.servers.get(server.id)).messages;
const limits = await mailosaur.usage.limits();
report.limits = { servers: limits.servers.current, email: limits.email.current };

// Isolation: another tenant's key finds none of it.
const other = new MailosaurClient(otherKey, baseUrl);
report.isolation = {
  getServer: await refusal(() => other.servers.get(server.id)),
  getMessage: await refusal(() => other.messages.getById(message.id)),
  list: await refusal(() => other.messages.list(server.id)),
  deleteAll: await refusal(() => other.messages.deleteAll(server.id)),
  deviceOtp: await refusal(() => other.devices.otp(device.id)),
  deviceDel: await refusal(() => other.devices.del(device.id)),
};
const reader = new MailosaurClient(readKey, baseUrl);
report.reader = {
  get: (await reader.messages.getById(message.id)).id,
  create: await refusal(() => reader.servers.create({ name: 'not mine to make' })),
  devices: (await reader.devices.list()).items.length,
  createDevice: await refusal(() => reader.devices.create({ name: 'not mine to make', sharedSecret: secret })),
};
// Deleted, the device is not found.
await mailosaur.devices.del(device.id);
report.devices.afterDel = (await mailosaur.devices.list()).items.length;
report.devices.gone = await refusal(() => mailosaur.devices.otp(device.id));
report.badKey = await refusal(() => new MailosaurClient('tm_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', baseUrl).servers.list());

await mailosaur.messages.deleteAll(server.id);
report.afterDeleteAll = (await mailosaur.messages.list(server.id)).items.length;
report.nothingMore = await refusal(() => mailosaur.messages.get(server.id, { sentTo: address }, { timeout: 1500 }));

// cypress-mailosaur's commands, on the stand-in.
const env = { MAILOSAUR_API_KEY: apiKey, MAILOSAUR_BASE_URL: baseUrl, MAILOSAUR_SMTP_HOST: process.env.MAILOSAUR_SMTP_HOST };
const requested = [];
// request performs a Cypress request (cy.request's options, or
// backend('http:request')'s, which put the JSON body in json) and
// answers as Cypress does: status, isOkStatusCode, headers, parsed body.
async function request(opts) {
  const url = new URL(opts.url);
  for (const [k, v] of Object.entries(opts.qs || {})) {
    if (v !== undefined && v !== null) url.searchParams.set(k, v instanceof Date ? v.toISOString() : String(v));
  }
  const headers = { ...opts.headers };
  const json = opts.json !== undefined ? opts.json : opts.body;
  if (json !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(url, { method: opts.method, headers, body: json === undefined ? undefined : JSON.stringify(json) });
  const bytes = Buffer.from(await res.arrayBuffer());
  requested.push(`${opts.method} ${url.pathname}`);
  // encoding 'binary' gives the body as a string of its bytes, as Cypress
  // does; else JSON when it parses, as Cypress does, or the text.
  let body = opts.encoding === 'binary' ? bytes.toString('latin1') : bytes.toString();
  try {
    if (opts.encoding !== 'binary') body = body ? JSON.parse(body) : '';
  } catch {}
  return { status: res.status, isOkStatusCode: res.ok, headers: Object.fromEntries(res.headers), body };
}
const cy = {
  env: async (names) => Object.fromEntries(names.map((n) => [n, env[n]])),
  wrap: async (v) => v,
  request,
};
globalThis.cy = cy;
globalThis.Cypress = {
  Promise,
  Commands: { add: (name, fn) => { cy[name] = (...args) => fn(...args); } },
  backend: (event, opts) => {
    if (event !== 'http:request') throw new Error('backend ' + event);
    const answer = request(opts);
    return { timeout: () => answer };
  },
};
createRequire(import.meta.url)('cypress-mailosaur');

const cyServer = await cy.mailosaurCreateServer({ name: 'Cypress tests' });
const cyAddress = await cy.mailosaurGenerateEmailAddress(cyServer.id);
console.log('send ' + cyAddress);
const cyMessage = await cy.mailosaurGetMessage(cyServer.id, { sentTo: cyAddress }, { timeout: 30000 });
const cyGotAt = Date.now();
async function thrown(call) {
  try {
    await call();
    return '';
  } catch (e) {
    return e.message;
  }
}
report.cypress = {
  gotAt: cyGotAt,
  eml: Buffer.from(await cy.mailosaurDownloadMessage(cyMessage.id)).toString('base64'),
  attachment: Buffer.from(await cy.mailosaurDownloadAttachment(cyMessage.attachments[0].id), 'latin1').toString('base64'),
  otp: (await cy.mailosaurGetDeviceOtp(secret)).code,
  spam: await thrown(() => cy.mailosaurGetSpamAnalysis(cyMessage.id)),
  forward: await thrown(() => cy.mailosaurForwardMessage(cyMessage.id, { to: 'x@example.com' })),
  address: cyAddress,
  subject: cyMessage.subject,
  htmlCode: cyMessage.html.codes[0]?.value,
  htmlLink: cyMessage.html.links[0]?.href,
  listed: (await cy.mailosaurListMessages(cyServer.id)).items.length,
};
// Devices through cypress-mailosaur: made, listed, their code by id (the
// code of the secret, in the same window) and deleted.
const cyDevice = await cy.mailosaurCreateDevice({ name: 'Cypress phone', sharedSecret: secret });
const cyListed = (await cy.mailosaurListDevices()).items.map((d) => d.name);
let cyById, cyBySecret;
for (let i = 0; i < 3; i++) {
  cyById = await cy.mailosaurGetDeviceOtp(cyDevice.id);
  cyBySecret = await cy.mailosaurGetDeviceOtp(secret);
  if (cyById.expires === cyBySecret.expires) break;
}
await cy.mailosaurDeleteDevice(cyDevice.id);
report.cypress.devices = {
  id: cyDevice.id,
  listed: cyListed,
  otp: cyById.code,
  bySecret: cyBySecret.code,
  sameWindow: cyById.expires === cyBySecret.expires,
  afterDel: (await cy.mailosaurListDevices()).items.length,
  gone: await thrown(() => cy.mailosaurGetDeviceOtp(cyDevice.id)),
};
await cy.mailosaurDeleteAllMessages(cyServer.id);
await cy.mailosaurDeleteServer(cyServer.id);
report.cypress.requested = [...new Set(requested)];
await mailosaur.servers.del(server.id);
report.gone = await refusal(() => mailosaur.servers.get(server.id));

console.log(JSON.stringify(report));
