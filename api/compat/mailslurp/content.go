package mailslurp

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"tempmail"
	"tempmail/api/family"
)

// What the MailSlurp family's SDK finds in an email (mailslurp.go):
// codes (with CodesIn, search.go), content matching a pattern, text lines,
// links. Its HTML and source are in bodies.go, its attachments in
// attachments.go.

// mailslurpCodeOptions are ExtractCodesOptions: the method (PATTERN is
// what tempmail has; the others fall back to it, with a warning), the
// length of a code, how many candidates, and patterns of the caller's.
type mailslurpCodeOptions struct {
	Method         string   `json:"method"`
	MinLength      *int     `json:"minLength"`
	MaxLength      *int     `json:"maxLength"`
	MaxCandidates  *int     `json:"maxCandidates"`
	CustomPatterns []string `json:"customPatterns"`
}

// Bounds on code extraction.
const (
	maxCodeLength     = 32
	maxCodeCandidates = 20
	maxCodePatterns   = 8
	maxPatternLen     = 512
)

// codePatterns are the patterns opts ask for: theirs, or digits of
// minLength to maxLength (default six, as .../otp/ finds).
func codePatterns(opts mailslurpCodeOptions) ([]*regexp.Regexp, error) {
	if len(opts.CustomPatterns) > maxCodePatterns {
		return nil, tempmail.Errorf(tempmail.Invalid, "customPatterns holds at most %d patterns", maxCodePatterns)
	}
	var out []*regexp.Regexp
	for _, p := range opts.CustomPatterns {
		re, err := compilePattern(p)
		if err != nil {
			return nil, err
		}
		out = append(out, re)
	}
	if len(out) > 0 {
		return out, nil
	}
	if opts.MinLength == nil && opts.MaxLength == nil {
		return []*regexp.Regexp{regexp.MustCompile(family.DefaultOTPPattern)}, nil
	}
	lo, hi := 4, 8
	if opts.MinLength != nil {
		lo = *opts.MinLength
	}
	if opts.MaxLength != nil {
		hi = *opts.MaxLength
	}
	if lo < 1 || hi > maxCodeLength || lo > hi {
		return nil, tempmail.Errorf(tempmail.Invalid, "minLength and maxLength must be from 1 to %d, minLength the smaller", maxCodeLength)
	}
	return []*regexp.Regexp{regexp.MustCompile(fmt.Sprintf(`\b\d{%d,%d}\b`, lo, hi))}, nil
}

// compilePattern compiles a caller's pattern (RE2, at most maxPatternLen
// bytes).
func compilePattern(p string) (*regexp.Regexp, error) {
	if len(p) > maxPatternLen {
		return nil, tempmail.Errorf(tempmail.Invalid, "invalid pattern: longer than %d bytes", maxPatternLen)
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, tempmail.Errorf(tempmail.Invalid, "invalid pattern: %v", err)
	}
	return re, nil
}

// mailslurpEmailCodes finds codes in an email (POST
// /emails/{emailId}/codes): with each pattern, in its subject, then its
// text (CodesIn, as .../otp/ finds them).
func (s *API) mailslurpEmailCodes(w http.ResponseWriter, r *http.Request) {
	var opts mailslurpCodeOptions
	m, _, err := s.mailslurpEmailOf(r, false)
	if err == nil {
		err = family.DecodeBody(r, &opts)
	}
	var patterns []*regexp.Regexp
	if err == nil {
		patterns, err = codePatterns(opts)
	}
	n := 5
	if err == nil && opts.MaxCandidates != nil {
		if n = *opts.MaxCandidates; n < 1 || n > maxCodeCandidates {
			err = tempmail.Errorf(tempmail.Invalid, "maxCandidates must be from 1 to %d", maxCodeCandidates)
		}
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	out := mailslurpCodes{MethodUsed: "PATTERN", Candidates: []mailslurpCandidate{}, Warnings: []string{}}
	if opts.Method != "" && opts.Method != "PATTERN" && opts.Method != "AUTO" {
		out.Warnings = append(out.Warnings, "method "+tempmail.Excerpt(opts.Method, 32)+" is not supported here: PATTERN was used")
	}
	seen := map[string]bool{}
	for _, re := range patterns {
		for _, part := range []struct{ source, text string }{{"SUBJECT", m.Subject}, {"TEXT", m.Text}} {
			for _, code := range family.CodesIn(re, part.text, n) {
				if len(out.Candidates) < n && !seen[code] {
					seen[code] = true
					out.Candidates = append(out.Candidates, mailslurpCandidate{Code: code, Confidence: 1, Method: "PATTERN", Source: part.source})
				}
			}
		}
	}
	if len(out.Candidates) > 0 {
		out.Found, out.Code = true, &out.Candidates[0].Code
	}
	family.WriteJSON(w, http.StatusOK, out)
}

// mailslurpContentMatch matches a pattern against an email's text (its
// HTML when the text has no match): POST /emails/{emailId}/contentMatch.
// matches is the whole match, then its groups; [] for none.
func (s *API) mailslurpContentMatch(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Pattern string `json:"pattern"`
	}
	m, _, err := s.mailslurpEmailOf(r, false)
	if err == nil {
		err = family.DecodeBody(r, &body)
	}
	if err == nil && body.Pattern == "" {
		err = tempmail.Errorf(tempmail.Invalid, "pattern is required")
	}
	var re *regexp.Regexp
	if err == nil {
		re, err = compilePattern(body.Pattern)
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	found := re.FindStringSubmatch(m.Text)
	if found == nil {
		found = re.FindStringSubmatch(m.HTML)
	}
	family.WriteJSON(w, http.StatusOK, mailslurpMatch{Pattern: body.Pattern, Matches: family.OrEmpty(found)})
}

// mailslurpTextLines is an email's text by lines, blank lines left out:
// GET /emails/{emailId}/textLines.
func (s *API) mailslurpTextLines(w http.ResponseWriter, r *http.Request) {
	m, _, err := s.mailslurpEmailOf(r, false)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	lines := []string{}
	for line := range strings.Lines(m.Text) {
		if line = strings.TrimSpace(line); line != "" {
			lines = append(lines, line)
		}
	}
	family.WriteJSON(w, http.StatusOK, mailslurpLines{Lines: lines, Body: m.Text})
}

// mailslurpLinks is an email's links: GET /emails/{emailId}/links.
func (s *API) mailslurpLinks(w http.ResponseWriter, r *http.Request) {
	m, _, err := s.mailslurpEmailOf(r, false)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	links := []string{}
	for _, l := range m.Links {
		links = append(links, l.URL)
	}
	body, _ := bodyOf(m)
	family.WriteJSON(w, http.StatusOK, mailslurpLinks{Links: links, Body: body})
}
