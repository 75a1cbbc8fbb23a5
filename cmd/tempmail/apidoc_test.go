package main

import (
	"testing"

	"tempmail/mailauth/authtest"
)

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
	"auth":    {flags: apiDocDomains},
	"readkey": {flags: append([]string{"--read-key", "s3cret"}, apiDocDomains...)},
	"c":       {flags: apiDocDomains},
	"wait":    {flags: apiDocDomains},
	"events":  {flags: apiDocDomains},
	"cli":     {flags: apiDocDomains},
	"mcp":     {flags: apiDocDomains},
	"a":       {flags: apiDocDomains},
	"b":       {flags: apiDocDomains},
	"authres": {flags: apiDocDomains},
	"smtp":    {flags: apiDocDomains},
	"inbound": {flags: apiDocDomains},
	"page":    {flags: apiDocDomains},
	"hooks": {flags: append([]string{"--webhook-allow-private", "--webhook-retry-schedule", "2s,1h"}, apiDocDomains...),
		addrs: []string{"127.0.0.1:9000", "127.0.0.1:9001"}},
	"catchall": {flags: []string{"--domains", "tempmail.test,mail.example.test,catch.example.test",
		"--catch-all-domains", "catch.example.test"}},
}

// docDNS is the DNS the docs' services ask: it knows the names the
// examples' checks find records for, and answers that no other name
// exists, so that what SPF, DKIM and DMARC say is the same on every
// machine (against the internet's DNS, example.com and its kind publish
// records of their own).
func docDNS(t *testing.T) *authtest.DNS {
	dns := authtest.StartDNS(t)
	// Authentication results: sender.example signs its mail with the key
	// s1 (the signature in the doc was made with it, and only its public
	// half is kept), sends it from 127.0.0.1, and asks for rejection of
	// what fails.
	dns.TXT("sender.example", "v=spf1 ip4:127.0.0.1 -all")
	dns.TXT("_dmarc.sender.example", "v=DMARC1; p=reject")
	dns.TXT("s1._domainkey.sender.example", "v=DKIM1; k=ed25519; p=2shJY89vgoAfNr3a0Q+TDZEKRvKAiUUJv9axcbZjHn8=")
	return dns
}
