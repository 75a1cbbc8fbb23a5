// A tenant's program, written against the client that openapi-typescript
// generated from the service's own /openapi.json (schema.ts, beside this
// file once TestTypeScriptClient has made it) and openapi-fetch. It is
// type-checked with tsc --strict: every body it sends and every field it
// reads is the document's, with no casts.
//
// node client.mjs BASE ADMIN_TOKEN: with the admin key it makes a tenant
// and a key of it, and, with that key, a family A inbox; it prints
// {"address": ..., "token": ...} on a line and waits for a line on stdin,
// which the test sends once the mail it sent there is readable. Then it
// reads the inbox's emails with the key, and tries reading with no key, a
// wrong key and another tenant's key, and prints what it found as one line
// of JSON.
import createClient from "openapi-fetch";
import { createInterface } from "node:readline";
import type { components, paths } from "./schema.js";

type Tenant = components["schemas"]["Tenant"];
type KeyWithSecret = components["schemas"]["KeyWithSecret"];

// What the types say that no run shows: a new tenant needs a name (the
// service answers 400 without one), though a PATCH, of the same fields,
// does not. Were name optional, {} would extend the Pick, and this would
// not compile.
type NewTenant = paths["/api/tenants/"]["post"]["requestBody"]["content"]["application/json"];
type TenantChange = NonNullable<paths["/api/tenants/{tenant}/"]["patch"]["requestBody"]>["content"]["application/json"];
const nameIsRequired: {} extends Pick<NewTenant, "name"> ? never : true = true;
const nameIsOptionalInAChange: {} extends Pick<TenantChange, "name"> ? true : never = true;

const [base, adminToken] = process.argv.slice(2);
if (!base || !adminToken) {
  throw new Error("usage: node client.mjs BASE ADMIN_TOKEN");
}

// fail stops the program on an answer the test did not expect; the test
// reads stderr and the exit status.
function fail(what: string, response: Response, error: unknown): never {
  throw new Error(`${what}: HTTP ${response.status}: ${JSON.stringify(error)}`);
}

const admin = createClient<paths>({ baseUrl: base, headers: { Authorization: `Token ${adminToken}` } });

async function tenantWithKey(name: string): Promise<[Tenant, KeyWithSecret]> {
  const tenant = await admin.POST("/api/tenants/", {
    body: { name, quota: { inboxes: 5, messages_per_day: 0, storage_bytes: 0, webhooks: 0 } },
  });
  if (!tenant.data) fail("POST /api/tenants/", tenant.response, tenant.error);
  const key = await admin.POST("/api/tenants/{tenant}/keys/", {
    params: { path: { tenant: tenant.data.id } },
    body: { name: "pipeline", scopes: ["inboxes"] },
  });
  if (!key.data) fail("POST /api/tenants/{tenant}/keys/", key.response, key.error);
  return [tenant.data, key.data];
}

const [tenant, key] = await tenantWithKey("ts client");
const [, otherKey] = await tenantWithKey("another team");
const asTenant = createClient<paths>({ baseUrl: base, headers: { Authorization: `Bearer ${key.key}` } });

const domains = await asTenant.GET("/api/domains/");
if (!domains.data) fail("GET /api/domains/", domains.response, domains.error);
const domain = domains.data[0];
if (!domain) throw new Error("GET /api/domains/: no domain");
const inbox = await asTenant.POST("/api/inboxes/create_inbox/", { body: { domain_id: domain.id, ttl: 600 } });
if (!inbox.data) fail("POST /api/inboxes/create_inbox/", inbox.response, inbox.error);
console.log(JSON.stringify({ address: inbox.data.email, token: inbox.data.access_token }));

// The test's signal that the mail is in.
const stdin = createInterface({ input: process.stdin });
await new Promise((resolve) => stdin.once("line", resolve));
stdin.close();

const inboxPath = { params: { path: { id: inbox.data.id } } };
const list = await asTenant.GET("/api/inboxes/{id}/emails/", inboxPath);
if (!list.data) fail("GET /api/inboxes/{id}/emails/", list.response, list.error);
const emails = [];
for (const summary of list.data) {
  const email = await asTenant.GET("/api/emails/{id}/", { params: { path: { id: summary.id } } });
  if (!email.data) fail("GET /api/emails/{id}/", email.response, email.error);
  emails.push({
    subject: email.data.subject,
    body_text: email.data.body_text,
    from: email.data.from_email,
    inbox_id: email.data.inbox_id,
  });
}

// The same read without a key, with a key that is no key, and with
// another tenant's key: only their statuses.
const refused: Record<string, number> = {};
for (const [who, authorization] of [
  ["none", undefined],
  ["wrong", "Bearer tm_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"],
  ["other tenant", `Bearer ${otherKey.key}`],
] as const) {
  const client = createClient<paths>({ baseUrl: base, headers: authorization ? { Authorization: authorization } : {} });
  const read = await client.GET("/api/inboxes/{id}/emails/", inboxPath);
  refused[who] = read.response.status;
}

console.log(
  JSON.stringify({
    tenant: { id: tenant.id, name: tenant.name },
    key: { id: key.id, tenant_id: key.tenant_id, scopes: key.scopes },
    inbox: { id: inbox.data.id, email: inbox.data.email },
    emails,
    refused,
  }),
);
