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
	runDocExamples(t, "../../docs/API.md", apiDocSessions)
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
	return dns
}
