package ingest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"net/mail"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jhillyerd/enmime/v2"

	"tempmail"
	"tempmail/mailauth"
	"tempmail/projections"
)

// InboundMessage is a message handed over by the inbound webhook.
type InboundMessage struct {
	To  []string
	Raw []byte // the whole message, as sent
}

// inboundJSON is the JSON form: either a message to build (to, from,
// subject, text, html, attachments) or a raw one (to, raw).
type inboundJSON struct {
	To          json.RawMessage `json:"to"`
	From        string          `json:"from"`
	Subject     *string         `json:"subject"`
	Text        *string         `json:"text"`
	HTML        string          `json:"html"`
	Raw         string          `json:"raw"`
	Attachments []struct {
		Filename    string `json:"filename"`
		ContentType string `json:"content_type"`
		Data        string `json:"data"`
	} `json:"attachments"`
}

// ReadInbound decodes a webhook request in any of API.md's forms: a raw
// message body (message/rfc822 or text/plain) with ?to= recipients, or JSON.
// Errors carry kinds the api maps to 400, 413 and 415.
func (d *Deliverer) ReadInbound(r *http.Request) (InboundMessage, error) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		mt = ""
	}
	switch mt {
	case "message/rfc822", "text/plain":
		raw, err := readLimited(r.Body, d.MaxMessageBytes)
		if err != nil {
			return InboundMessage{}, err
		}
		to := r.URL.Query()["to"]
		if len(to) == 0 {
			return InboundMessage{}, missing("to")
		}
		return InboundMessage{To: to, Raw: raw}, checkRaw(raw)
	case "application/json":
		body, err := readLimited(r.Body, d.MaxInboundBytes())
		if err != nil {
			return InboundMessage{}, err
		}
		var j inboundJSON
		if err := json.Unmarshal(body, &j); err != nil {
			return InboundMessage{}, tempmail.Errorf(tempmail.Invalid, "request body is not valid JSON: %v", err)
		}
		return d.fromJSON(j)
	}
	return InboundMessage{}, tempmail.Errorf(tempmail.Unsupported,
		"Unsupported media type %q in request; send message/rfc822, text/plain or application/json", r.Header.Get("Content-Type"))
}

func (d *Deliverer) fromJSON(j inboundJSON) (InboundMessage, error) {
	to, err := recipientsOf(j.To)
	if err != nil {
		return InboundMessage{}, err
	}
	if j.Raw != "" {
		raw, err := decodeBase64(j.Raw)
		if err != nil {
			return InboundMessage{}, tempmail.Errorf(tempmail.Invalid, "raw is not valid base64")
		}
		if int64(len(raw)) > d.MaxMessageBytes {
			return InboundMessage{}, tempmail.Errorf(tempmail.TooLarge, "message is larger than %d bytes", d.MaxMessageBytes)
		}
		return InboundMessage{To: to, Raw: raw}, checkRaw(raw)
	}
	switch {
	case j.From == "":
		return InboundMessage{}, missing("from")
	case j.Subject == nil:
		return InboundMessage{}, missing("subject")
	case j.Text == nil:
		return InboundMessage{}, missing("text")
	}
	from, err := mail.ParseAddress(j.From)
	if err != nil {
		return InboundMessage{}, tempmail.Errorf(tempmail.Invalid, "from is not an e-mail address: %q", j.From)
	}
	b := enmime.Builder().From(from.Name, from.Address).Subject(*j.Subject).Text([]byte(*j.Text)).
		Date(time.Now()).Header("Message-ID", "<"+uuid.NewString()+"@"+d.Hostname+">")
	for _, addr := range to {
		b = b.To("", addr)
	}
	if j.HTML != "" {
		b = b.HTML([]byte(j.HTML))
	}
	for i, a := range j.Attachments {
		data, err := decodeBase64(a.Data)
		if err != nil {
			return InboundMessage{}, tempmail.Errorf(tempmail.Invalid, "attachments[%d].data is not valid base64", i)
		}
		ct := a.ContentType
		if ct == "" {
			ct = "application/octet-stream"
		}
		b = b.AddAttachment(data, ct, a.Filename)
	}
	part, err := b.Build()
	if err != nil {
		return InboundMessage{}, tempmail.Wrap(tempmail.Invalid, err, "cannot build a message from these fields")
	}
	var buf bytes.Buffer
	if err := part.Encode(&buf); err != nil {
		return InboundMessage{}, tempmail.Wrap(tempmail.Invalid, err, "cannot build a message from these fields")
	}
	if int64(buf.Len()) > d.MaxMessageBytes {
		return InboundMessage{}, tempmail.Errorf(tempmail.TooLarge, "message is larger than %d bytes", d.MaxMessageBytes)
	}
	return InboundMessage{To: to, Raw: buf.Bytes()}, nil
}

// recipientsOf accepts "to" as a string or an array of strings.
func recipientsOf(raw json.RawMessage) ([]string, error) {
	var one string
	var many []string
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return nil, missing("to")
	case json.Unmarshal(raw, &one) == nil:
		many = []string{one}
	case json.Unmarshal(raw, &many) != nil:
		return nil, tempmail.Errorf(tempmail.Invalid, "to must be an address or an array of addresses")
	}
	var out []string
	for _, a := range many {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return nil, missing("to")
	}
	return out, nil
}

func missing(field string) error {
	return tempmail.Errorf(tempmail.Invalid, "Missing required field: %s", field)
}

// checkRaw refuses bytes that are not a message at all: without a header
// block there is nothing to store as mail.
func checkRaw(raw []byte) error {
	if _, err := mail.ReadMessage(bytes.NewReader(raw)); err != nil {
		return tempmail.Errorf(tempmail.Invalid, "not an RFC 5322 message: %v", err)
	}
	return nil
}

func decodeBase64(s string) ([]byte, error) {
	s = strings.Map(func(r rune) rune {
		if r == '\r' || r == '\n' || r == ' ' || r == '\t' {
			return -1
		}
		return r
	}, s)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, errors.New("not base64")
}

// MaxInboundBytes is the largest webhook request body: a message of up to
// MaxMessageBytes, which base64 and JSON framing make up to a third larger.
func (d *Deliverer) MaxInboundBytes() int64 { return d.MaxMessageBytes*4/3 + 64<<10 }

func readLimited(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) || int64(len(b)) > limit {
		return nil, tempmail.Errorf(tempmail.TooLarge, "request body is larger than %d bytes", limit)
	}
	if err != nil {
		return nil, tempmail.Wrap(tempmail.Invalid, err, "could not read the request body")
	}
	return b, nil
}

// DeliverInbound delivers a webhook message through the same path as SMTP.
// Recipients that are not live inboxes are skipped; if none is, the error is
// ErrNoMailbox.
func (d *Deliverer) DeliverInbound(r *http.Request, msg InboundMessage) (Delivered, error) {
	start := time.Now()
	if len(msg.To) > maxRecipients {
		return Delivered{}, tempmail.Errorf(tempmail.Invalid, "at most %d recipients per message", maxRecipients)
	}
	var rcpts []*projections.Inbox
	var addrs []string
	for _, to := range msg.To {
		// The caller holds the API token: it is the operator's relay,
		// whose catch-all inboxes count against no client's share.
		in, err := d.Accept(r.Context(), to, netip.Addr{})
		if errors.Is(err, ErrNoMailbox) {
			d.Metrics.reject(RejectNoMailbox)
			continue
		}
		if errors.Is(err, ErrNotServed) {
			d.Metrics.reject(RejectNotServed)
			continue
		}
		if err != nil {
			return Delivered{}, err
		}
		if !slices.ContainsFunc(rcpts, func(x *projections.Inbox) bool { return x.ID == in.ID }) {
			rcpts = append(rcpts, in)
			addrs = append(addrs, in.Address)
		}
	}
	if len(rcpts) == 0 {
		return Delivered{}, ErrNoMailbox
	}
	ip, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		ip = r.RemoteAddr
	}
	hdr := d.ReceivedHeader("webhook", ip, "HTTP", uuid.Must(uuid.NewV7()).String(), addrs, time.Now())
	room := d.headerRoom(hdr)
	buf := make([]byte, room+len(msg.Raw))
	copy(buf[room:], msg.Raw)
	// The caller over HTTP is not the sending mail server: there is no
	// SMTP client whose address SPF could check (it says none), and DKIM
	// and DMARC check the message as any other.
	raw, client, auth := d.authenticate(r.Context(), buf, room, hdr, mailauth.Input{})
	res, err := d.Deliver(r.Context(), Envelope{Recipients: rcpts, Auth: auth}, raw, client)
	if err == nil {
		d.logAccepted("webhook", ip, res, len(raw), time.Since(start))
	}
	return res, err
}
