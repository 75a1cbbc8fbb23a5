// The scenario of TestMailSlurpFromItsSDK, with the published
// mailslurp-client: node client.mjs <basePath> <key> <read key> <other
// tenant's key>. It prints the addresses of its two new inboxes, a line
// each, for the test to send mail to (a text email to the first, HTML with
// a binary attachment to the second), then waits for that mail with the
// SDK's own waits, so the order cannot matter; at the end it prints its
// report as one line of JSON.
import { MailSlurp } from 'mailslurp-client';

const [basePath, apiKey, readKey, otherKey] = process.argv.slice(2);
const mailslurp = new MailSlurp({ apiKey, basePath });
const report = {};

// What a failed call threw: MailSlurp's methods throw the parsed error
// body, the controllers' the answer (a fetch Response) itself.
async function refusal(call) {
  try {
    await call();
    return null;
  } catch (e) {
    if (e && typeof e.json === 'function') {
      const body = await e.json().catch(() => ({}));
      return { status: e.status, message: body.message };
    }
    return e && e.status !== undefined ? { status: e.status, message: e.message } : { thrown: String(e) };
  }
}

// The bytes of an answer, as the test compares them: base64.
const base64Of = async (response) => Buffer.from(await response.raw.arrayBuffer()).toString('base64');

const inbox = await mailslurp.createInbox();
report.inbox = { id: inbox.id, emailAddress: inbox.emailAddress, createdAt: inbox.createdAt instanceof Date };
const files = await mailslurp.createInbox();
console.log(inbox.emailAddress);
console.log(files.emailAddress);

const latest = await mailslurp.waitForLatestEmail(inbox.id, 30000, true);
report.gotAt = Date.now();
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

// The second inbox's email, HTML with a binary attachment: waited for as
// previews, which leave it unread, then paged, counted, marked read, and
// read in each form the SDK has.
const ec = mailslurp.emailController;
const ic = mailslurp.inboxController;
const ac = mailslurp.attachmentController;
const [preview] = await mailslurp.waitForEmailCount(1, files.id, 30000);
const emailId = preview.id;
const attachmentId = preview.attachments[0];
const pageFields = (p) => ({ ids: p.content.map((x) => x.id), totalElements: p.totalElements, totalPages: p.totalPages,
  size: p.size, number: p.number, first: p.first, last: p.last, numberOfElements: p.numberOfElements, empty: p.empty,
  pageNumber: p.pageable.pageNumber, pageSize: p.pageable.pageSize, sorted: p.sort.sorted,
  dates: p.content.every((x) => x.createdAt instanceof Date) });
const unread = await ic.getInboxEmailsPaginated({ inboxId: files.id, page: 0, size: 10 });
const read = await ec.markAsRead({ emailId, read: true });
const after = await ic.getInboxEmailsPaginated({ inboxId: files.id, page: 0, size: 10, sort: 'DESC' });
const byAddress = await ic.getInboxByEmailAddress({ emailAddress: files.emailAddress });
const latestIn = await ec.getLatestEmailInInbox1({ inboxId: files.id });
report.lists = {
  allInboxes: [pageFields(await mailslurp.getAllInboxes(0, 1, undefined, undefined, 'ASC')),
    pageFields(await mailslurp.getAllInboxes(1, 1, undefined, undefined, 'ASC')),
    pageFields(await ic.getAllInboxes({ page: 0, size: 20, sort: 'DESC' }))],
  emails: pageFields(unread),
  unreadBefore: unread.content.map((x) => x.read),
  markAsRead: { id: read.id, read: read.read },
  readAfter: after.content.map((x) => x.read),
  count: (await ic.getInboxEmailCount({ inboxId: files.id })).totalElements,
  byAddress: { inboxId: byAddress.inboxId, exists: byAddress._exists },
  latestIn: { id: latestIn.id, subject: latestIn.subject, attachments: latestIn.attachments },
};
const htmlJson = await ec.getEmailHTMLJson({ emailId });
const query = await ec.getEmailHTMLQuery({ emailId, htmlSelector: 'p.code' });
report.reading = {
  html: await ec.getEmailHTML({ emailId }),
  htmlJson: { subject: htmlJson.subject, body: htmlJson.body },
  htmlQuery: query.lines,
  raw: await base64Of(await ec.getRawEmailContentsRaw({ emailId })),
  rawVoid: (await ec.getRawEmailContents({ emailId })) === undefined,
  rawJson: (await ec.getRawEmailJson({ emailId })).content,
};
const meta = await ec.getAttachmentMetaData({ emailId, attachmentId });
const info = await ac.getAttachmentInfo({ attachmentId });
const entity = await ac.getAttachment({ attachmentId });
const b64 = await ec.downloadAttachmentBase64({ emailId, attachmentId });
const b64ByID = await ac.downloadAttachmentAsBase64Encoded({ attachmentId });
report.attachments = {
  id: attachmentId,
  metadata: [meta, info].map((m) => ({ id: m.id, name: m.name, contentType: m.contentType, contentLength: m.contentLength })),
  entity: { id: entity.attachmentId, name: entity.name, contentType: entity.contentType, contentLength: entity.contentLength,
    inboxId: entity.inboxId, userId: entity.userId, createdAt: entity.createdAt instanceof Date },
  // downloadAttachment and downloadAttachmentAsBytes read the bytes as
  // UTF-8 text; their Raw forms hold them as they came.
  text: (await ec.downloadAttachment({ emailId, attachmentId })).length,
  bytes: await base64Of(await ec.downloadAttachmentRaw({ emailId, attachmentId })),
  bytesByID: await base64Of(await ac.downloadAttachmentAsBytesRaw({ attachmentId })),
  textByID: (await ac.downloadAttachmentAsBytes({ attachmentId })).length,
  base64: [b64, b64ByID].map((d) => ({ base64FileContents: d.base64FileContents, contentType: d.contentType, sizeBytes: d.sizeBytes })),
};

// Another tenant's key finds nothing; a read key reads and cannot make or
// delete; an endpoint the family lacks says so.
const other = new MailSlurp({ apiKey: otherKey, basePath });
const reader = new MailSlurp({ apiKey: readKey, basePath });
const oec = other.emailController;
const oic = other.inboxController;
const oac = other.attachmentController;
report.isolation = {
  getInbox: await refusal(() => other.getInbox(inbox.id)),
  getEmail: await refusal(() => other.getEmail(email.id)),
  deleteInbox: await refusal(() => other.deleteInbox(inbox.id)),
  getEmailHTML: await refusal(() => oec.getEmailHTML({ emailId })),
  getEmailHTMLJson: await refusal(() => oec.getEmailHTMLJson({ emailId })),
  getEmailHTMLQuery: await refusal(() => oec.getEmailHTMLQuery({ emailId, htmlSelector: 'p' })),
  getRawEmailContents: await refusal(() => oec.getRawEmailContents({ emailId })),
  getRawEmailJson: await refusal(() => oec.getRawEmailJson({ emailId })),
  downloadAttachment: await refusal(() => oec.downloadAttachment({ emailId, attachmentId })),
  downloadAttachmentBase64: await refusal(() => oec.downloadAttachmentBase64({ emailId, attachmentId })),
  getAttachmentMetaData: await refusal(() => oec.getAttachmentMetaData({ emailId, attachmentId })),
  downloadAttachmentAsBase64Encoded: await refusal(() => oac.downloadAttachmentAsBase64Encoded({ attachmentId })),
  downloadAttachmentAsBytes: await refusal(() => oac.downloadAttachmentAsBytes({ attachmentId })),
  getAttachmentInfo: await refusal(() => oac.getAttachmentInfo({ attachmentId })),
  getAttachment: await refusal(() => oac.getAttachment({ attachmentId })),
  getInboxEmailsPaginated: await refusal(() => oic.getInboxEmailsPaginated({ inboxId: files.id })),
  getInboxEmailCount: await refusal(() => oic.getInboxEmailCount({ inboxId: files.id })),
  getLatestEmailInInbox1: await refusal(() => oec.getLatestEmailInInbox1({ inboxId: files.id })),
  markAsRead: await refusal(() => oec.markAsRead({ emailId, read: true })),
};
report.otherSees = {
  byAddress: (await oic.getInboxByEmailAddress({ emailAddress: files.emailAddress }))._exists,
  allInboxes: (await other.getAllInboxes(0, 20)).totalElements,
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
await mailslurp.deleteInbox(files.id);
report.gone = await refusal(() => mailslurp.getInbox(inbox.id));
console.log(JSON.stringify(report));
