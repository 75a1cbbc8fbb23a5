// The scenario of TestMailSlurpFromItsSDK, with the published
// mailslurp-client: node client.mjs <basePath> <key> <read key> <other
// tenant's key>. It prints the new inbox's address as a line of its own,
// for the test to send mail to, then waits for that mail with the SDK's
// own wait, so the order of the two cannot matter; at the end it prints
// its report as one line of JSON.
import { MailSlurp } from 'mailslurp-client';

const [basePath, apiKey, readKey, otherKey] = process.argv.slice(2);
const mailslurp = new MailSlurp({ apiKey, basePath });
const report = {};

// What a failed call threw: the SDK throws the parsed error body.
async function refusal(call) {
  try {
    await call();
    return null;
  } catch (e) {
    return e && e.status !== undefined ? { status: e.status, message: e.message } : { thrown: String(e) };
  }
}

const inbox = await mailslurp.createInbox();
report.inbox = { id: inbox.id, emailAddress: inbox.emailAddress, createdAt: inbox.createdAt instanceof Date };
console.log(inbox.emailAddress);

const latest = await mailslurp.waitForLatestEmail(inbox.id, 30000, true);
const email = await mailslurp.getEmail(latest.id);
report.latest = { id: latest.id, subject: latest.subject };
report.email = { subject: email.subject, body: email.body, from: email.from, to: email.to, isHTML: email.isHTML, read: email.read };

const nth = await mailslurp.waitForNthEmail(inbox.id, 0, 5000);
const matching = await mailslurp.waitController.waitForMatchingFirstEmail({
  inboxId: inbox.id,
  timeout: 5000,
  matchOptions: { matches: [{ field: 'SUBJECT', should: 'CONTAIN', value: 'code' }] },
});
const emails = await mailslurp.getEmails(inbox.id);
const counted = await mailslurp.waitForEmailCount(1, inbox.id, 5000);
const matchingAll = await mailslurp.waitForMatchingEmails(
  { matches: [{ field: 'FROM', should: 'EQUAL', value: 'shop@example.com' }] }, 1, inbox.id, 5000);
const match = await mailslurp.emailController.getEmailContentMatch({
  emailId: email.id,
  contentMatchOptions: { pattern: 'code is ([0-9]{6})' },
});
const codes = await mailslurp.emailController.getEmailCodes({ emailId: email.id, extractCodesOptions: {} });
report.found = { nth: nth.id, matching: matching.id, emails: emails.map((e) => e.id),
  counted: counted.map((e) => e.id), matchingAll: matchingAll.map((e) => e.id), match: match.matches, code: codes.code };
report.timedOut = await refusal(() => mailslurp.waitForLatestEmail(inbox.id, 0, true));

// Another tenant's key finds nothing; a read key reads and cannot make or
// delete; an endpoint the family lacks says so.
const other = new MailSlurp({ apiKey: otherKey, basePath });
const reader = new MailSlurp({ apiKey: readKey, basePath });
report.isolation = {
  getInbox: await refusal(() => other.getInbox(inbox.id)),
  getEmail: await refusal(() => other.getEmail(email.id)),
  deleteInbox: await refusal(() => other.deleteInbox(inbox.id)),
};
report.reader = {
  getEmail: (await reader.getEmail(email.id)).id,
  createInbox: await refusal(() => reader.createInbox()),
  deleteEmail: await refusal(() => reader.deleteEmail(email.id)),
};
report.unsupported = await refusal(() => mailslurp.sendEmail(inbox.id, { to: ['x@example.com'], subject: 's', body: 'b' }));
report.badKey = await refusal(() => new MailSlurp({ apiKey: 'wrong', basePath }).getInbox(inbox.id));

await mailslurp.deleteEmail(email.id);
await mailslurp.deleteInbox(inbox.id);
report.gone = await refusal(() => mailslurp.getInbox(inbox.id));
console.log(JSON.stringify(report));
