package main

import "testing"

// The README's quick start, pasted into a shell as written, works against
// a service started as `make run` starts it, and prints what the README
// says (docs_test.go runs it).
func TestReadmeQuickStartWorksAsWritten(t *testing.T) {
	t.Parallel()
	runDocExamples(t, "../../README.md", []string{"curl", "swaks", "sed"}, map[string]docSession{
		"quickstart": {flags: []string{"--domains", "tempmail.test"}},
	})
}
