package tempmail_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The docs a newcomer reads: README.md, CONTRIBUTING.md and every page
// under docs/. These tests hold them to three rules: each page can be read
// at once, every link leads somewhere, and every code block is either run
// by a test or says why it is not.

// docPages are the Markdown files the rules apply to.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"README.md", "CONTRIBUTING.md"}, pages...)
}

// Longest pages, in lines: the README is read first and whole; a page of
// docs/ is one topic.
const (
	readmeMaxLines = 200
	pageMaxLines   = 500
)

func TestDocPagesAreShort(t *testing.T) {
	t.Parallel()
	for _, page := range docPages(t) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		limit := pageMaxLines
		if page == "README.md" {
			limit = readmeMaxLines
		}
		if n := strings.Count(string(b), "\n"); n > limit {
			t.Errorf("%s has %d lines, more than %d: split it by topic", page, n, limit)
		}
	}
}

// testedBlocks are the markers of blocks that a test of cmd/tempmail runs
// in a way of its own (a GitHub Actions job's steps, say), with that test.
var testedBlocks = map[string]string{
	"ci":                "TestReadmeCIJobWorksAsWritten",
	"mailosaur-laptop":  "TestMailosaurFromItsSDK",
	"mailosaur-ci":      "TestMailosaurFromItsSDK",
	"mailslurp-snippet": "TestMailSlurpSnippetOfTheDocsRuns",
}

var (
	blockBegin = regexp.MustCompile(`^<!-- ([a-z0-9-]+):begin(?: [a-z0-9-]+)? -->$`)
	blockEnd   = regexp.MustCompile(`^<!-- ([a-z0-9-]+):end -->$`)
	notRun     = regexp.MustCompile(`^<!-- not run: (.{10,}) -->$`)
)

// TestEveryDocBlockRunsOrSaysWhy: every fenced block is inside a run
// marker (cmd/tempmail/docs_test.go runs it and compares what it prints),
// inside the marker of a block another test runs (testedBlocks), or right
// under a <!-- not run: REASON --> that says why no test runs it.
func TestEveryDocBlockRunsOrSaysWhy(t *testing.T) {
	t.Parallel()
	tests := testSources(t)
	for name, test := range testedBlocks {
		if !strings.Contains(tests, "func "+test+"(") {
			t.Errorf("the blocks marked %s are said to be run by %s, which is not a test of this repository", name, test)
		}
	}
	for _, page := range docPages(t) {
		for _, f := range unrunBlocks(t, page) {
			t.Error(f)
		}
	}
}

// unrunBlocks finds the fenced blocks of a page that no test runs and no
// marker explains.
func unrunBlocks(t *testing.T, page string) []string {
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	lines := strings.Split(string(b), "\n")
	inside := "" // the marker the lines are inside, if any
	reason := false
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		marker := strings.TrimLeft(line, " ") // a list item's markers are indented
		switch m := blockBegin.FindStringSubmatch(line); {
		case m != nil:
			if m[1] != "run" && testedBlocks[m[1]] == "" && m[1] != "flags" {
				found = append(found, fmt.Sprintf("%s:%d: %s is no marker a test knows (run, flags, or one of testedBlocks)", page, i+1, line))
			}
			inside = m[1]
			continue
		case blockEnd.MatchString(line):
			inside = ""
			continue
		case notRun.MatchString(marker):
			reason = true
			continue
		case strings.HasPrefix(marker, "<!-- not run"):
			found = append(found, fmt.Sprintf("%s:%d: %q: say why the block is not run, in a few words", page, i+1, line))
			continue
		case strings.TrimSpace(line) == "":
			continue
		case !strings.HasPrefix(strings.TrimLeft(line, " "), "```"):
			reason = false
			continue
		}
		// A fence opens a block: skip to its end.
		indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
		from := i + 1
		for i++; i < len(lines) && lines[i] != indent+"```"; i++ {
		}
		if inside == "" && !reason {
			found = append(found, fmt.Sprintf("%s:%d: a block that no test runs: put it between run markers, or say why not above it (<!-- not run: needs DNS -->)", page, from))
		}
		reason = false
	}
	return found
}

// testSources is the text of every test file of the repository.
func testSources(t *testing.T) string {
	var all strings.Builder
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && path != ".") {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, "_test.go") {
			b, err := os.ReadFile(path)
			all.Write(b)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return all.String()
}

var (
	mdLink  = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	htmlID  = regexp.MustCompile(`<a id="([^"]+)"></a>`)
	heading = regexp.MustCompile(`^#{1,6} (.+)$`)
)

// TestDocLinksLeadSomewhere: every link of a page to a file of the
// repository names one that exists, and its #anchor a heading (or an
// <a id>) of that file, as GitHub makes them.
func TestDocLinksLeadSomewhere(t *testing.T) {
	t.Parallel()
	anchors := map[string]map[string]bool{}
	anchorsOf := func(page string) map[string]bool {
		if a, ok := anchors[page]; ok {
			return a
		}
		a := map[string]bool{}
		b, _ := os.ReadFile(page)
		fence := false
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(strings.TrimLeft(line, " "), "```") {
				fence = !fence
			}
			if m := heading.FindStringSubmatch(line); m != nil && !fence {
				a[slug(m[1])] = true
			}
			for _, m := range htmlID.FindAllStringSubmatch(line, -1) {
				a[m[1]] = true
			}
		}
		anchors[page] = a
		return a
	}
	for _, page := range docPages(t) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path, anchor, _ := strings.Cut(target, "#")
				file := page
				if path != "" {
					file = filepath.Join(filepath.Dir(page), path)
					if _, err := os.Stat(file); err != nil {
						t.Errorf("%s:%d: a link to %s, which does not exist", page, i+1, path)
						continue
					}
				}
				if anchor != "" && strings.HasSuffix(file, ".md") && !anchorsOf(file)[anchor] {
					t.Errorf("%s:%d: a link to #%s, which is no heading of %s", page, i+1, anchor, file)
				}
			}
		}
	}
}

// slug is the anchor GitHub gives a heading: lower case, spaces as
// hyphens, and no punctuation but hyphens and underscores.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}
