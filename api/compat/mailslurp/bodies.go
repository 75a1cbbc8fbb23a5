package mailslurp

import (
	"io"
	"net/http"

	"tempmail/api/family"
	"tempmail/mailbox"
)

// The MailSlurp family's bodies (mailslurp.go): an email's HTML as a
// page, in JSON, or queried with a CSS selector (selector.go), and its
// source as received, as it is or in JSON. None of them marks the email
// read, as getEmail does: they read a part of it, which MailSlurp leaves
// to its own rules, and a test that waits for unread mail after reading
// its HTML should still find the next one.

// htmlPolicy is what an email's HTML page may do: nothing. The page comes
// from the service's origin, so it is given none (a sandbox) and may run,
// load and submit nothing, as an attachment (family.Kit.ServeAttachment).
const htmlPolicy = "default-src 'none'; sandbox"

// mailslurpHTMLOf is the email of the path and the body its HTML calls
// answer: its HTML, or a text email's text, as getEmail's body is.
// replaceCidImages is read, not heeded: cid: references stay as sent.
func (s *API) mailslurpHTMLOf(r *http.Request) (*mailbox.Message, string, error) {
	m, _, err := s.mailslurpEmailOf(r, false)
	if err == nil {
		_, err = mailslurpBool(r, "replaceCidImages")
	}
	if err != nil {
		return nil, "", err
	}
	body, _ := bodyOf(m)
	return m, body, nil
}

// mailslurpEmailHTML is getEmailHTML (GET /emails/{emailId}/html): the
// body as a page.
func (s *API) mailslurpEmailHTML(w http.ResponseWriter, r *http.Request) {
	_, body, err := s.mailslurpHTMLOf(r)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", htmlPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	_, _ = io.WriteString(w, body)
}

// mailslurpEmailHTMLJSON is getEmailHTMLJson (GET
// /emails/{emailId}/html/json): the body, with the subject.
func (s *API) mailslurpEmailHTMLJSON(w http.ResponseWriter, r *http.Request) {
	m, body, err := s.mailslurpHTMLOf(r)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	family.WriteJSON(w, http.StatusOK, mailslurpHTML{Subject: m.Subject, Body: body})
}

// mailslurpEmailHTMLQuery is getEmailHTMLQuery (GET
// /emails/{emailId}/htmlQuery?htmlSelector=): the text of each element of
// the email's HTML that the selector finds, in the order of the HTML, as
// jsoup's eachText gives it, and the HTML as body. An email without HTML
// has no elements to find.
func (s *API) mailslurpEmailHTMLQuery(w http.ResponseWriter, r *http.Request) {
	m, _, err := s.mailslurpEmailOf(r, false)
	var sel []selector
	if err == nil {
		sel, err = parseSelectors(r.URL.Query().Get("htmlSelector"))
	}
	var lines []string
	if err == nil {
		lines, err = queryHTML(m.HTML, sel)
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	family.WriteJSON(w, http.StatusOK, mailslurpLines{Lines: family.OrEmpty(lines), Body: m.HTML})
}

// mailslurpRawEmail is getRawEmailContents (GET /emails/{emailId}/raw):
// the email exactly as received, under the service's Received field (and
// Authentication-Results, with checks on). The SDK's getRawEmailContents
// returns nothing of it (its VoidApiResponse); the same call's Raw form
// holds it (getRawEmailContentsRaw(...).raw.text()).
func (s *API) mailslurpRawEmail(w http.ResponseWriter, r *http.Request) {
	m, _, err := s.mailslurpEmailOf(r, false)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	s.ServeRaw(w, r, m, false)
}

// mailslurpRawEmailJSON is getRawEmailJson (GET
// /emails/{emailId}/raw/json): the same source as a JSON string, which
// holds text alone: bytes that are no UTF-8 (8-bit mail in another
// charset) are U+FFFD there, and exact in getRawEmailContents.
func (s *API) mailslurpRawEmailJSON(w http.ResponseWriter, r *http.Request) {
	m, _, err := s.mailslurpEmailOf(r, false)
	var raw []byte
	if err == nil {
		raw, err = s.RawBytes(r.Context(), m)
		err = family.AsNotFound(err, "Email not found: "+m.ID)
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	family.WriteJSON(w, http.StatusOK, mailslurpRaw{Content: string(raw)})
}
