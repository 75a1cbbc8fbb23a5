package api

import (
	"encoding/json"
	"html"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"
	nethtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"tempmail"
	"tempmail/command"
	"tempmail/events"
	"tempmail/projections"
	"tempmail/wire"
)

// Family C, beyond API.md's reads: what an inbox's owner does with its
// token alone (create with a chosen name, look, delete, mark read, read the
// raw source, download attachments, see the HTML body safely). The page
// (package web) uses only these, so it works when --read-key and
// --require-token guard everything else.

// createTokenInbox makes a family C inbox: a random name on the default
// domain, or the name and domain asked for (family B's rules for names).
func (s *Server) createTokenInbox(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Name   json.RawMessage `json:"name"`
		Domain string          `json:"domain"`
	}
	if err := decodeBody(r, &body); err != nil {
		writeError(w, r, s.log, familyC, err)
		return
	}
	name, err := s.emailName(body.Name, "name")
	var dom projections.Domain
	switch {
	case err != nil:
	case body.Domain == "":
		dom, err = s.defaultDomain(r)
	case len(body.Domain) > 253:
		err = tempmail.Errorf(tempmail.Invalid, "Domain not found or inactive")
	default:
		dom, err = s.activeDomain(r, func(d projections.Domain) bool { return d.Name == body.Domain })
		err = asInvalid(err, "Domain not found or inactive")
	}
	if err != nil {
		writeError(w, r, s.log, familyC, err)
		return
	}
	in, err := s.commands.CreateInbox(r.Context(), command.Spec{Family: events.FamilyC, Local: name, Random: 10,
		Domain: dom, TTL: s.cfg.TokenInboxTTL})
	if err != nil {
		writeError(w, r, s.log, familyC, err)
		return
	}
	writeJSON(w, http.StatusCreated, tokenInbox{Token: in.Token, Address: in.Address,
		CreatedAt: wire.Time(in.CreatedAt), ExpiresAt: wire.Time(in.ExpiresAt)})
}

type tokenInboxDetail struct {
	tokenInbox
	Count int `json:"count"`
}

func (s *Server) getTokenInbox(w http.ResponseWriter, r *http.Request) {
	in, err := s.tokenInboxOf(r)
	if err != nil {
		writeError(w, r, s.log, familyC, err)
		return
	}
	writeJSON(w, http.StatusOK, tokenInboxDetail{tokenInbox{Token: in.Token, Address: in.Address,
		CreatedAt: wire.Time(in.CreatedAt), ExpiresAt: wire.Time(in.ExpiresAt)}, in.Count})
}

func (s *Server) deleteTokenInbox(w http.ResponseWriter, r *http.Request) {
	in, err := s.tokenInboxOf(r)
	if err == nil {
		err = asNotFound(s.commands.DeleteInbox(r.Context(), in), "Inbox not found")
	}
	if err != nil {
		writeError(w, r, s.log, familyC, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// tokenMessageOf resolves {token} and {id} to a message of that inbox. On
// failure it has answered.
func (s *Server) tokenMessageOf(w http.ResponseWriter, r *http.Request) (*projections.Inbox, *projections.Message, bool) {
	in, err := s.tokenInboxOf(r)
	var m *projections.Message
	if err == nil {
		m, err = s.messageIn(r.Context(), in, chi.URLParam(r, "id"))
		err = asNotFound(err, "Message not found")
	}
	if err != nil {
		writeError(w, r, s.log, familyC, err)
		return nil, nil, false
	}
	return in, m, true
}

func (s *Server) markReadC(w http.ResponseWriter, r *http.Request) {
	var body struct{}
	if err := decodeBody(r, &body); err != nil {
		writeError(w, r, s.log, familyC, err)
		return
	}
	in, m, ok := s.tokenMessageOf(w, r)
	if !ok {
		return
	}
	m, err := s.commands.MarkRead(r.Context(), m)
	if err != nil {
		writeError(w, r, s.log, familyC, asNotFound(err, "Message not found"))
		return
	}
	writeJSON(w, http.StatusOK, toMessageC(m, in.Token))
}

func (s *Server) deleteMessageC(w http.ResponseWriter, r *http.Request) {
	_, m, ok := s.tokenMessageOf(w, r)
	if !ok {
		return
	}
	if err := s.commands.DeleteMessage(r.Context(), m); err != nil {
		writeError(w, r, s.log, familyC, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) rawC(w http.ResponseWriter, r *http.Request) {
	if _, m, ok := s.tokenMessageOf(w, r); ok {
		s.serveRaw(w, r, familyC, m, r.URL.Query().Get("download") == "1")
	}
}

// attachmentC serves attachment n (from 1) of a message.
func (s *Server) downloadAttachmentC(w http.ResponseWriter, r *http.Request) {
	_, m, ok := s.tokenMessageOf(w, r)
	if !ok {
		return
	}
	n, err := strconv.Atoi(chi.URLParam(r, "n"))
	if err != nil || n < 1 || n > len(m.Attachments) {
		writeError(w, r, s.log, familyC, tempmail.Errorf(tempmail.NotFound, "Attachment not found"))
		return
	}
	s.serveAttachment(w, r, familyC, m, &m.Attachments[n-1])
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

// linksInNewTabs gives every http and https link of a mail's HTML
// target="_blank" and rel="noopener noreferrer" (and drops its ping, a
// tracker's beacon): the frame may not navigate to another site (the page
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
// read it) is an http or https URL, as a browser parses it: tabs and line
// breaks anywhere are dropped, and spaces and control characters before it.
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
		return hasPrefix("http:") || hasPrefix("https:")
	}
	return false
}

func (s *Server) bodyHTML(w http.ResponseWriter, r *http.Request) {
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
