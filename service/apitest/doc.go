// Package apitest is what the HTTP tests of every family share: a running
// service as a test sees it (Harness), started through the one assembly
// `tempmail serve` runs (servicetest: embedded NATS in the test's
// temporary directory, the views, webhooks, ingest and the API), and
// talked to as its users do, over its HTTP and SMTP listeners.
//
// Every answer a harness's client receives, every event of a stream it
// opens (Stream) and every webhook delivery checked with Contract is
// held to the OpenAPI document the service serves (contract.go): a
// handler and the document cannot drift apart unnoticed.
//
// A test that needs a service configured its own way starts one (New,
// NewWith); a test that needs only inboxes of its own uses the one its
// package shares (Shared), which costs a start per package rather than
// per test. A package that shares one runs Main from its TestMain.
//
// Where things are: harness.go, the harness and its requests;
// contract.go, contractstream.go, the checks against the document;
// stream.go, event streams as a client reads them; inboxes.go, mail.go,
// the inboxes, tenants, keys and messages tests make.
package apitest
