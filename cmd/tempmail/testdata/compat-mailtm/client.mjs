// The mail.tm scenario of TestMailTMFromItsClient, through mailjs as
// published: make an account with a tenant's key, log in, wait for mail
// with the client's own event source (mail.tm's Mercure hub, here under
// the same base URL), read it, mark it seen, read its source, delete it
// and the account. Arguments: the base URL, the tenant's key, the address.
// It prints {"ready": <account id>} once it listens for mail (the Go test
// then sends some over SMTP), and at the end a JSON report.
import Mailjs from "@cemalgnlts/mailjs";

const [base, key, address] = process.argv.slice(2);
const password = "correct horse battery staple";
const report = {};

function data(what, res) {
  if (!res.status) {
    throw new Error(`${what}: ${res.statusCode} ${JSON.stringify(res.data)}`);
  }
  return res.data;
}

const mail = new Mailjs();
// mailjs takes no options for where it talks: its constructor sets these
// two fields, which are set here instead of mail.tm's hosts.
mail.baseUrl = base;
mail.baseMercure = base + "/.well-known/mercure";
// The Bearer it sends until it logs in: the tenant's key, whose tenant
// the account is then.
mail.token = key;

report.domains = data("getDomains", await mail.getDomains()).map((d) => d.domain);
report.registered = data("register", await mail.register(address, password)).address;
report.badLogin = (await mail.login(address, "wrong")).statusCode;
data("login", await mail.login(address, password));
report.me = data("me", await mail.me()).address;

// Listen before the mail is sent: "open" is set with the listener, first.
const opened = new Promise((resolve) => mail.on("open", resolve));
const arrived = new Promise((resolve) => mail.on("arrive", resolve));
await opened;
console.log(JSON.stringify({ ready: mail.id }));

const listed = await arrived;
report.gotAt = Date.now();
report.arrived = { subject: listed.subject, from: listed.from, seen: listed.seen };
const msg = data("getMessage", await mail.getMessage(listed.id));
report.message = { subject: msg.subject, text: msg.text, html: msg.html, to: msg.to.map((t) => t.address), msgid: msg.msgid };
// Its own "seen" and "delete" events follow, as mail.tm's hub sends them.
const seenEvent = new Promise((resolve) => mail.on("seen", resolve));
report.seen = data("setMessageSeen", await mail.setMessageSeen(listed.id, true)).seen;
report.seenEvent = (await seenEvent).id;
const list = data("getMessages", await mail.getMessages());
report.listed = list.map((m) => ({ id: m.id, seen: m.seen }));
report.sourceHasSubject = data("getSource", await mail.getSource(listed.id)).data.includes("Subject: " + msg.subject);
const deleteEvent = new Promise((resolve) => mail.on("delete", resolve));
report.deleted = (await mail.deleteMessage(listed.id)).statusCode;
report.deleteEvent = (await deleteEvent).id;
report.afterDelete = data("getMessages", await mail.getMessages()).length;
mail.off();
report.accountDeleted = (await mail.deleteMe()).statusCode;
// deleteMe forgets the token: log in again to see the account is gone.
report.loginAfter = (await mail.login(address, password)).statusCode;
console.log(JSON.stringify(report));
