package main

import "testing"

// TestAPIDocExamplesRunAsWritten runs every example of docs/API.md against
// the service, as docs_test.go says, and compares what each prints with
// the doc.
func TestAPIDocExamplesRunAsWritten(t *testing.T) {
	t.Parallel()
	runDocExamples(t, "../../docs/API.md", []string{"curl", "jq", "swaks", "base64", "go"}, apiDocSessions)
}

// apiDocDomains are the domains docs/API.md's service serves: make run's
// and a second.
var apiDocDomains = []string{"--domains", "tempmail.test,mail.example.test"}

// apiDocSessions are the services the sessions of docs/API.md run
// against: the doc's own, and for a few, with the flags their section
// says it was started with.
var apiDocSessions = map[string]docSession{
	"auth":      {flags: apiDocDomains},
	"readkey":   {flags: append([]string{"--read-key", "s3cret"}, apiDocDomains...)},
	"tenants":   {flags: apiDocDomains},
	"domains":   {flags: append([]string{"--hostname", "mx.example.test"}, apiDocDomains...)},
	"c":         {flags: apiDocDomains},
	"wait":      {flags: apiDocDomains},
	"events":    {flags: apiDocDomains},
	"cli":       {flags: apiDocDomains},
	"tenantcli": {flags: apiDocDomains},
	"mcp":       {flags: apiDocDomains},
	"a":         {flags: apiDocDomains},
	"b":         {flags: apiDocDomains},
	"authres":   {flags: apiDocDomains},
	"smtp":      {flags: apiDocDomains},
	"inbound":   {flags: apiDocDomains},
	"page":      {flags: apiDocDomains},
	"hooks": {flags: append([]string{"--webhook-allow-private", "--webhook-retry-schedule", "2s,1h"}, apiDocDomains...),
		addrs: []string{"127.0.0.1:9000", "127.0.0.1:9001"}},
	"catchall": {flags: []string{"--domains", "tempmail.test,mail.example.test,catch.example.test",
		"--catch-all-domains", "catch.example.test"}},
}
