package tokenapi

import (
	"html"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"
	nethtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"tempmail"
	"tempmail/api/family"
)

// What a message holds beyond its fields: the raw source and attachments
// (bounded by downloads.go), and family C's HTML body, served so that it
// can neither run nor fetch anything (a sandbox and a content policy).

func (s *API) rawC(w http.ResponseWriter, r *http.Request) {
	if _, m, ok := s.tokenMessageOf(w, r); ok {
		s.ServeRaw(w, r, m, r.URL.Query().Get("download") == "1")
	}
}

// wire.Attachment serves attachment n (from 1) of a message.
func (s *API) downloadAttachmentC(w http.ResponseWriter, r *http.Request) {
	_, m, ok := s.tokenMessageOf(w, r)
	if !ok {
		return
	}
	n, err := strconv.Atoi(chi.URLParam(r, "n"))
	if err != nil || n < 1 || n > len(m.Attachments) {
		family.WriteError(w, r, s.Log, tempmail.Errorf(tempmail.NotFound, "Attachment not found"))
		return
	}
	s.ServeAttachment(w, r, m, &m.Attachments[n-1])
}

// A mail's HTML is shown in a sandboxed frame of the page, from this
// endpoint, under a policy that lets it run nothing, submit nothing and
// load nothing from elsewhere: tracking pixels are the norm in sign-up
// mail, so remote content comes only when the reader asks (remote=1), and
// even then only images, styles and fonts. The frame's sandbox (in the
// page and in the policy) gives it an origin of its own, so nothing in it
// can reach the page or the service's cookies and storage.
const (
	bodyCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; " +
		"form-action 'none'; base-uri 'none'; frame-ancestors 'self'; sandbox allow-popups allow-popups-to-escape-sandbox"
	bodyCSPRemote = "default-src 'none'; style-src 'unsafe-inline' https: http:; img-src data: https: http:; " +
		"font-src data: https: http:; form-action 'none'; base-uri 'none'; frame-ancestors 'self'; " +
		"sandbox allow-popups allow-popups-to-escape-sandbox"
)

// neutered are what the policy cannot stop and the body loses: a
// <meta http-equiv="refresh"> would navigate the frame (to a tracker, say).
var neutered = regexp.MustCompile(`(?i)<meta[^>]*http-equiv\s*=\s*["']?\s*refresh[^>]*>`)

// linksInNewTabs gives every link of a mail's HTML to another site (http,
// https and scheme-relative: leadsToTheWeb) target="_blank" and
// rel="noopener noreferrer" (and drops its ping, a tracker's beacon): the frame may not navigate to another site (the page
// allows only frames of its own origin) nor navigate the page (its sandbox
// forbids it), so a link left as it came would do nothing when clicked.
// The new tab cannot reach the page, and is told nothing of where the link
// was. Every other byte is copied as it came: the policy and the sandbox,
// not this, are what keep the mail harmless.
func linksInNewTabs(body string) string {
	z := nethtml.NewTokenizer(strings.NewReader(body))
	var b strings.Builder
	b.Grow(len(body) + len(body)/16)
	done := 0 // bytes of body copied or rewritten
	for {
		tt := z.Next()
		if tt == nethtml.ErrorToken {
			b.WriteString(body[done:]) // what the tokenizer gave up on, as it came
			return b.String()
		}
		raw := string(z.Raw()) // before Token, which changes it
		done += len(raw)
		if tt == nethtml.StartTagToken || tt == nethtml.SelfClosingTagToken {
			if tok := z.Token(); (tok.DataAtom == atom.A || tok.DataAtom == atom.Area) && leadsToTheWeb(tok.Attr) {
				kept := tok.Attr[:0]
				for _, a := range tok.Attr {
					if a.Key != "target" && a.Key != "rel" && a.Key != "ping" {
						kept = append(kept, a)
					}
				}
				tok.Attr = append(kept, nethtml.Attribute{Key: "target", Val: "_blank"},
					nethtml.Attribute{Key: "rel", Val: "noopener noreferrer"})
				b.WriteString(tok.String())
				continue
			}
		}
		b.WriteString(raw)
	}
}

// leadsToTheWeb says whether an element's href (the first, as browsers
// read it) leads to another site, as a browser parses it: tabs and line
// breaks anywhere are dropped, and spaces and control characters before
// it; then it is an http or https URL, or a scheme-relative one ("//h"),
// which browsers also write with backslashes ("/\h", "\\h", "\/h") and
// resolve against the page's scheme.
func leadsToTheWeb(attrs []nethtml.Attribute) bool {
	for _, a := range attrs {
		if a.Key != "href" {
			continue
		}
		u := strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, a.Val)
		u = strings.TrimLeftFunc(u, func(r rune) bool { return r <= ' ' })
		hasPrefix := func(p string) bool { return len(u) >= len(p) && strings.EqualFold(u[:len(p)], p) }
		slash := func(i int) bool { return len(u) > i && (u[i] == '/' || u[i] == '\\') }
		return hasPrefix("http:") || hasPrefix("https:") || slash(0) && slash(1)
	}
	return false
}

func (s *API) bodyHTML(w http.ResponseWriter, r *http.Request) {
	_, m, ok := s.tokenMessageOf(w, r)
	if !ok {
		return
	}
	body := m.HTML
	if body == "" {
		body = "<pre style=\"white-space: pre-wrap; font: 14px/1.5 monospace\">" + html.EscapeString(m.Text) + "</pre>"
	}
	body = linksInNewTabs(neutered.ReplaceAllString(body, ""))
	policy := bodyCSP
	if r.URL.Query().Get("remote") == "1" {
		policy = bodyCSPRemote
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", policy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "private, no-store")
	h.Set("X-Frame-Options", "SAMEORIGIN")
	_, _ = w.Write([]byte(body))
}
