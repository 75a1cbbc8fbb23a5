package inbound

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/mail"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jhillyerd/enmime/v2"

	"tempmail"
)

// inboundMessage is a message handed over by the inbound webhook.
type inboundMessage struct {
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

// readInbound decodes a webhook request in any of the forms of docs/webhooks.md: a raw
// message body (message/rfc822 or text/plain) with ?to= recipients, or JSON.
// Errors carry kinds the api maps to 400, 413 and 415.
func readInbound(r *http.Request, maxMessage int64, hostname string) (inboundMessage, error) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		mt = ""
	}
	switch mt {
	case "message/rfc822", "text/plain":
		raw, err := readLimited(r.Body, maxMessage)
		if err != nil {
			return inboundMessage{}, err
		}
		to := r.URL.Query()["to"]
		if len(to) == 0 {
			return inboundMessage{}, missing("to")
		}
		return inboundMessage{To: to, Raw: raw}, checkRaw(raw)
	case "application/json":
		body, err := readLimited(r.Body, MaxRequestBytes(maxMessage))
		if err != nil {
			return inboundMessage{}, err
		}
		var j inboundJSON
		if err := json.Unmarshal(body, &j); err != nil {
			return inboundMessage{}, tempmail.Errorf(tempmail.Invalid, "request body is not valid JSON: %v", err)
		}
		return fromJSON(j, maxMessage, hostname)
	}
	return inboundMessage{}, tempmail.Errorf(tempmail.Unsupported,
		"Unsupported media type %q in request; send message/rfc822, text/plain or application/json", r.Header.Get("Content-Type"))
}

func fromJSON(j inboundJSON, maxMessage int64, hostname string) (inboundMessage, error) {
	to, err := recipientsOf(j.To)
	if err != nil {
		return inboundMessage{}, err
	}
	if j.Raw != "" {
		raw, err := decodeBase64(j.Raw)
		if err != nil {
			return inboundMessage{}, tempmail.Errorf(tempmail.Invalid, "raw is not valid base64")
		}
		if int64(len(raw)) > maxMessage {
			return inboundMessage{}, tempmail.Errorf(tempmail.TooLarge, "message is larger than %d bytes", maxMessage)
		}
		return inboundMessage{To: to, Raw: raw}, checkRaw(raw)
	}
	switch {
	case j.From == "":
		return inboundMessage{}, missing("from")
	case j.Subject == nil:
		return inboundMessage{}, missing("subject")
	case j.Text == nil:
		return inboundMessage{}, missing("text")
	}
	from, err := mail.ParseAddress(j.From)
	if err != nil {
		return inboundMessage{}, tempmail.Errorf(tempmail.Invalid, "from is not an e-mail address: %q", j.From)
	}
	b := enmime.Builder().From(from.Name, from.Address).Subject(*j.Subject).Text([]byte(*j.Text)).
		Date(time.Now()).Header("Message-ID", "<"+uuid.NewString()+"@"+hostname+">")
	for _, addr := range to {
		b = b.To("", addr)
	}
	if j.HTML != "" {
		b = b.HTML([]byte(j.HTML))
	}
	for i, a := range j.Attachments {
		data, err := decodeBase64(a.Data)
		if err != nil {
			return inboundMessage{}, tempmail.Errorf(tempmail.Invalid, "attachments[%d].data is not valid base64", i)
		}
		ct := a.ContentType
		if ct == "" {
			ct = "application/octet-stream"
		}
		b = b.AddAttachment(data, ct, a.Filename)
	}
	part, err := b.Build()
	if err != nil {
		return inboundMessage{}, tempmail.Wrap(tempmail.Invalid, err, "cannot build a message from these fields")
	}
	var buf bytes.Buffer
	if err := part.Encode(&buf); err != nil {
		return inboundMessage{}, tempmail.Wrap(tempmail.Invalid, err, "cannot build a message from these fields")
	}
	if int64(buf.Len()) > maxMessage {
		return inboundMessage{}, tempmail.Errorf(tempmail.TooLarge, "message is larger than %d bytes", maxMessage)
	}
	return inboundMessage{To: to, Raw: buf.Bytes()}, nil
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

// maxInboundBytes is the largest webhook request body: a message of up to
// maxMessage bytes, which base64 and JSON framing make up to a third larger.
func MaxRequestBytes(maxMessage int64) int64 { return maxMessage*4/3 + 64<<10 }

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
