package main

import (
	"path/filepath"
	"testing"
)

// TestDocsExamplesRunAsWritten runs the examples of README.md,
// CONTRIBUTING.md and every page of docs/ against the service, as
// docs_test.go says, and compares what each prints with the page. A page
// without run markers has nothing to run (the root package's
// TestEveryDocBlockRunsOrSaysWhy holds that its blocks say why).
func TestDocsExamplesRunAsWritten(t *testing.T) {
	t.Parallel()
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range append([]string{"../../README.md", "../../CONTRIBUTING.md"}, pages...) {
		t.Run(filepath.Base(page), func(t *testing.T) {
			t.Parallel()
			runDocExamples(t, page, docTools, docSessions)
		})
	}
}

// docTools are the commands the examples call beyond the shell's own.
var docTools = []string{"curl", "jq", "swaks", "base64", "go", "sed"}

// docDomains are the domains the sessions' services serve: make run's.
var docDomains = []string{"--domains", "tempmail.test"}

// docSessions are the services the sessions of the docs run against: as
// make run starts it, and for a few, with the flags their first example
// says, in a comment, it was started with. A session of one page is apart from
// a session of the same name on another.
var docSessions = map[string]docSession{
	"quickstart": {flags: []string{"--domains", "tempmail.test"}},
	"auth":       {flags: docDomains},
	"readkey":    {flags: append([]string{"--read-key", "s3cret"}, docDomains...)},
	"tenants":    {flags: docDomains},
	"domains":    {flags: docDomains},
	"c":          {flags: docDomains},
	"wait":       {flags: docDomains},
	"events":     {flags: docDomains},
	"cli":        {flags: docDomains},
	"tenantcli":  {flags: docDomains},
	"admin":      {flags: docDomains},
	"mcp":        {flags: docDomains},
	"a":          {flags: docDomains},
	"b":          {flags: docDomains},
	"authres":    {flags: docDomains},
	"smtp":       {flags: docDomains},
	"inbound":    {flags: docDomains},
	"page":       {flags: docDomains},
	"compat":     {flags: docDomains},
	"teams":      {flags: []string{"--domains", "tempmail.test"}},
	"ops":        {flags: []string{"--domains", "tempmail.test"}},
	"hooks": {flags: append([]string{"--webhook-allow-private", "--webhook-retry-schedule", "2s,1h"}, docDomains...),
		addrs: []string{"127.0.0.1:9000", "127.0.0.1:9001"}},
	"catchall": {flags: []string{"--domains", "tempmail.test,catch.example.test",
		"--catch-all-domains", "catch.example.test"}},
}
