package mail

import (
	"bytes"
	"fmt"
	"io"
	netmail "net/mail"
	"strconv"
	"strings"
	"tempmail/mailbox"

	"tempmail"

	"github.com/inbucket/html2text"
	"github.com/jhillyerd/enmime/v2"
)

// Bounds on what parsing keeps, so that an event and its view entry stay far
// below NATS's 1 MiB message limit whatever the message holds. The raw
// message is always kept whole; these bound only the parsed summary.
const (
	maxBodyBytes    = 256 << 10 // text and HTML bodies, each
	maxHeaderBytes  = 64 << 10  // the headers object, in total
	maxHeaderValue  = 8 << 10   // one header value
	maxSubjectBytes = 16 << 10
	maxAddresses    = 100 // in To and in Cc
	maxAttachments  = 256
	// maxBoundaries bounds MIME nesting. enmime's time doubles with each
	// level of an unterminated nested multipart (depth 22 takes seconds), so
	// a message declaring more boundaries than real mail needs is parsed as
	// headers and text only.
	maxBoundaries = 12
)

// Parse reads a message as well as it can: what ingest learns from its
// bytes, less the raw bytes, the envelope sender and the authentication
// results, which the transport adds. It never fails and never panics:
// broken MIME, unknown charsets, bad encodings and missing headers yield what
// could be read, and the raw bytes are kept regardless. Memory is bounded by a
// small multiple of the message size; deep nesting is refused up front
// (headers only) rather than recursed into.
func Parse(raw []byte) mailbox.Content { return parse(raw, true) }

// parse is Parse; with shortcut false, enmime reads every message whole
// (what a test compares the shortcut with).
func parse(raw []byte, shortcut bool) (p mailbox.Content) {
	p.Headers = topHeaders(raw)
	defer func() {
		if r := recover(); r != nil {
			p = headersOnly(raw)
		}
	}()
	head, body := splitHeader(raw)
	if tooNested(raw, len(raw)-len(body)) {
		return headersOnly(raw)
	}
	// enmime reads the header block alone when the body needs no decoding
	// (plainBody): the body is then the text as it came, and enmime's
	// pipeline for it (a copy through a charset reader, a buffer for each
	// stage) was the larger part of parsing such mail.
	var env *enmime.Envelope
	var err error
	unix := false // env.Text has its line ends made LF already
	if shortcut && mayBePlain(p.Headers, body) {
		// The empty body needs no decoding either: RawContent spares
		// enmime its charset reader's buffers.
		if env, err = newParser(enmime.RawContent(true)).ReadEnvelope(head); err == nil && plainBody(env.Root) {
			env.Text, unix = unixLinesOf(body), true // one copy, where string and unixLines made two
		} else {
			env = nil
		}
	}
	if env == nil {
		if env, err = fullEnvelope(raw); err != nil {
			return headersOnly(raw)
		}
	}
	p.Subject = tempmail.Truncate(env.GetHeader("Subject"), maxSubjectBytes)
	if from, err := env.AddressList("From"); err == nil && len(from) > 0 {
		p.From, p.FromName = strings.ToLower(from[0].Address), from[0].Name
	} else {
		p.From, p.FromName = looseAddress(env.GetHeader("From"))
	}
	p.To = addresses(env, "To")
	p.Cc = addresses(env, "Cc")
	if d, err := env.Date(); err == nil {
		p.Date = d.UTC()
	}
	p.HeaderMessageID = tempmail.Truncate(strings.TrimSpace(env.GetHeader("Message-ID")), 998)
	text := env.Text
	if text == "" && env.HTML != "" {
		// enmime's own rendering, which it makes unless told not to: the
		// text that readers of text (the API's text, codes, the MCP
		// tools) are shown. Previews are made from the HTML instead.
		if text, err = html2text.FromString(env.HTML); err != nil {
			text = ""
		}
		p.TextFromHTML = text != ""
	}
	if !unix {
		text = unixLines(text)
	}
	p.Text = tempmail.Truncate(text, maxBodyBytes)
	p.HTML = tempmail.Truncate(unixLines(env.HTML), maxBodyBytes)

	for _, part := range append(append(env.Attachments, env.Inlines...), env.OtherParts...) {
		if len(p.Attachments) == maxAttachments {
			break
		}
		if strings.HasPrefix(part.ContentType, "multipart/") {
			continue
		}
		name := part.FileName
		if name == "" {
			name = "attachment-" + strconv.Itoa(len(p.Attachments)+1)
		}
		ct := part.ContentType
		if ct == "" {
			ct = "application/octet-stream"
		}
		p.Attachments = append(p.Attachments, mailbox.Attachment{Filename: tempmail.Truncate(name, 255),
			ContentType: tempmail.Truncate(ct, 255), Size: int64(len(part.Content)), Part: part.PartID})
	}
	if p.Text == "" && p.HTML == "" && len(p.Attachments) == 0 {
		// Nothing MIME could make sense of (a multipart without parts, say):
		// show the body as it is rather than nothing.
		p.Text = headersOnly(raw).Text
	}
	p.Links = Extract(p.Text, p.HTML)
	return p
}

// tooNested says whether a message declares more boundaries than real
// mail needs (maxBoundaries), given the length of its header block. Only
// a message whose top-level type is multipart has its parts read, so one
// whose header block never says "multipart" is not searched: most mail
// is a single text part, and counting the words of its body twice cost
// a sixth of parsing it.
func tooNested(raw []byte, headerLen int) bool {
	if !mentionsMultipart(raw[:headerLen]) {
		return false
	}
	return bytes.Count(raw, []byte("oundary")) > maxBoundaries || bytes.Count(raw, []byte("OUNDARY")) > maxBoundaries
}

// mentionsMultipart says whether head holds "multipart" in any case.
func mentionsMultipart(head []byte) bool {
	const word = "multipart"
	for i := 0; i+len(word) <= len(head); i++ {
		if head[i]|0x20 == 'm' && bytes.EqualFold(head[i:i+len(word)], []byte(word)) {
			return true
		}
	}
	return false
}

// newParser is enmime's parser as tempmail uses it.
func newParser(more ...enmime.Option) *enmime.Parser {
	return enmime.NewParser(append([]enmime.Option{
		enmime.SkipMalformedParts(true),
		enmime.MultipartWOBoundaryAsSinglePart(true),
		enmime.SetReadPartErrorPolicy(enmime.AllowCorruptTextPartErrorPolicy),
		enmime.MaxStoredPartErrors(10),
		// Guessing the charset of undeclared text took a third of all ingest
		// CPU (chardet n-grams); undeclared text is read as UTF-8, with
		// invalid bytes replaced, which is what mail without a charset
		// almost always is.
		enmime.DisableCharacterDetection(true),
		// A message without a text part is shown with its HTML as text,
		// made below, where it is known to be that (TextFromHTML).
		enmime.DisableTextConversion(true),
	}, more...)...)
}

// fullEnvelope parses the whole message with enmime.
func fullEnvelope(raw []byte) (*enmime.Envelope, error) {
	head, body := splitHeader(raw)
	return newParser().ReadEnvelope(io.MultiReader(head, bytes.NewReader(body)))
}

// headersOnly is the fallback for messages enmime cannot take: the top-level
// headers, and the body as text.
func headersOnly(raw []byte) mailbox.Content {
	p := mailbox.Content{Headers: topHeaders(raw)}
	msg, err := netmail.ReadMessage(headerBlockEnded(raw))
	if err != nil {
		p.Text = tempmail.Truncate(string(raw), maxBodyBytes)
		p.Links = Extract(p.Text, "")
		return p
	}
	p.Subject = tempmail.Truncate(enmime.DecodeRFC2047(msg.Header.Get("Subject")), maxSubjectBytes)
	p.From, p.FromName = looseAddress(msg.Header.Get("From"))
	if d, err := msg.Header.Date(); err == nil {
		p.Date = d.UTC()
	}
	p.HeaderMessageID = tempmail.Truncate(strings.TrimSpace(msg.Header.Get("Message-ID")), 998)
	if i := bytes.Index(raw, []byte("\r\n\r\n")); i >= 0 {
		p.Text = tempmail.Truncate(unixLines(string(raw[i+4:])), maxBodyBytes)
	} else if i := bytes.Index(raw, []byte("\n\n")); i >= 0 {
		p.Text = tempmail.Truncate(string(raw[i+2:]), maxBodyBytes)
	}
	p.Links = Extract(p.Text, "")
	return p
}

func addresses(env *enmime.Envelope, key string) []string {
	list, err := env.AddressList(key)
	if err != nil {
		return nil
	}
	var out []string
	for _, a := range list {
		if len(out) == maxAddresses {
			break
		}
		out = append(out, strings.ToLower(a.Address))
	}
	return out
}

// looseAddress makes what it can of a From header that does not parse.
func looseAddress(v string) (addr, name string) {
	v = enmime.DecodeRFC2047(strings.TrimSpace(v))
	if a, err := netmail.ParseAddress(v); err == nil {
		return strings.ToLower(a.Address), a.Name
	}
	if i, j := strings.LastIndexByte(v, '<'), strings.LastIndexByte(v, '>'); i >= 0 && j > i {
		return strings.ToLower(strings.TrimSpace(v[i+1 : j])), strings.Trim(strings.TrimSpace(v[:i]), `"`)
	}
	return tempmail.Truncate(strings.ToLower(v), 254), ""
}

// topHeaders returns the message's top-level headers: the first occurrence
// of each name, the name as written in the message, the value unfolded and
// RFC 2047-decoded, all within maxHeaderBytes.
func topHeaders(raw []byte) map[string]string {
	out := map[string]string{}
	seen := map[string]bool{}
	total := 0
	var name string
	var value strings.Builder
	flush := func() {
		if name == "" || seen[strings.ToLower(name)] {
			return
		}
		v := tempmail.Truncate(enmime.DecodeRFC2047(strings.TrimSpace(value.String())), maxHeaderValue)
		if total+len(name)+len(v) > maxHeaderBytes {
			return
		}
		seen[strings.ToLower(name)] = true
		out[name] = v
		total += len(name) + len(v)
	}
	for len(raw) > 0 {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			break // end of the header block
		}
		if line[0] == ' ' || line[0] == '\t' {
			if name != "" && value.Len() < maxHeaderValue {
				value.WriteByte(' ')
				value.Write(bytes.TrimSpace(line))
			}
			continue
		}
		flush()
		name = ""
		value.Reset()
		if !isHeaderLine(line) {
			break // the header block ends here, as in Python's parser
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 || bytes.ContainsAny(line[:colon], " \t") {
			continue // an mbox "From " line, or an empty name: skip it
		}
		name = string(line[:colon])
		value.Write(line[colon+1:])
	}
	flush()
	return out
}

// isHeaderLine says whether a line that does not begin with white space
// belongs to a header block, as CPython's email parser decides it: a
// field name of printable ASCII other than the colon, then a colon; or an
// mbox "From " line, which it skips. Any other line ends the block and
// begins the body, even without the empty line RFC 5322 asks for.
func isHeaderLine(line []byte) bool {
	if bytes.HasPrefix(line, []byte("From ")) {
		return true
	}
	for _, c := range line {
		switch {
		case c == ':':
			return true
		case c < 0x21 || c > 0x7e:
			return false
		}
	}
	return false
}

// unixLines turns CRLF line ends into LF: clients expect text as text, and
// the raw message keeps the original bytes.
func unixLines(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// AttachmentID names one attachment of one recipient's copy of a message.
func AttachmentID(messageID string, n int) string {
	return fmt.Sprintf("%s-%d", messageID, n)
}

// PartContent returns the decoded bytes of the MIME part partID (as recorded
// in an Attachment) of a stored message.
func PartContent(raw []byte, partID string) (content []byte, err error) {
	defer func() {
		if recover() != nil {
			content, err = nil, fmt.Errorf("part %s cannot be read", partID)
		}
	}()
	env, err := enmime.NewParser(enmime.SkipMalformedParts(true), enmime.MultipartWOBoundaryAsSinglePart(true)).
		ReadEnvelope(headerBlockEnded(raw))
	if err != nil {
		return nil, err
	}
	for _, part := range append(append(env.Attachments, env.Inlines...), env.OtherParts...) {
		if part.PartID == partID {
			return part.Content, nil
		}
	}
	return nil, fmt.Errorf("no part %s", partID)
}
