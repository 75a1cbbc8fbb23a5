package mail

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"tempmail/mail/mailtest"
	"tempmail/mailbox"
)

// checkBounded asserts what every parse result must satisfy, whatever the input.
func checkBounded(t *testing.T, name string, p mailbox.Content) {
	t.Helper()
	for field, v := range map[string]string{"subject": p.Subject, "from": p.From, "from_name": p.FromName,
		"text": p.Text, "html": p.HTML, "message-id": p.HeaderMessageID} {
		if !utf8.ValidString(v) {
			t.Errorf("%s: %s is not valid UTF-8", name, field)
		}
	}
	if len(p.Text) > maxBodyBytes || len(p.HTML) > maxBodyBytes || len(p.Subject) > maxSubjectBytes ||
		len(p.Attachments) > maxAttachments || len(p.To) > maxAddresses || len(p.Cc) > maxAddresses {
		t.Errorf("%s: a bound is exceeded: text %d html %d subject %d attachments %d", name,
			len(p.Text), len(p.HTML), len(p.Subject), len(p.Attachments))
	}
	total := 0
	for k, v := range p.Headers {
		total += len(k) + len(v)
		if !utf8.ValidString(v) {
			t.Errorf("%s: header %s is not valid UTF-8", name, k)
		}
	}
	if total > maxHeaderBytes {
		t.Errorf("%s: headers take %d bytes", name, total)
	}
	if p.Links == nil {
		t.Errorf("%s: links nil, which readers take for content stored before links were kept", name)
	}
	if _, err := json.Marshal(p); err != nil {
		t.Errorf("%s: cannot be encoded: %v", name, err)
	}
}

func TestMalformedMessagesParseAsWellAsTheyCan(t *testing.T) {
	t.Parallel()
	want := map[string]func(mailbox.Content) bool{
		"broken boundary":      func(p mailbox.Content) bool { return p.Subject == "broken boundary" },
		"no boundary param":    func(p mailbox.Content) bool { return strings.Contains(p.Text, "plain words") },
		"unknown charset":      func(p mailbox.Content) bool { return strings.Contains(p.Text, "nuqneH") },
		"bad quoted-printable": func(p mailbox.Content) bool { return strings.Contains(p.Text, "broken") },
		"no headers":           func(p mailbox.Content) bool { return strings.Contains(p.Text, "just a body") },
		"very long line":       func(p mailbox.Content) bool { return len(p.Text) >= 200000 },
		"deep nesting":         func(p mailbox.Content) bool { return p.Subject == "deep" },
		"nested just under limit": func(p mailbox.Content) bool {
			return p.Subject == "deep" && strings.Contains(p.Text, "bottom")
		},
		"header without colon": func(p mailbox.Content) bool { return p.Subject == "ok" && strings.HasPrefix(p.Text, "this is not") },
		"bad date":             func(p mailbox.Content) bool { return p.Subject == "bad date" && p.Date.IsZero() },
		"many attachments":     func(p mailbox.Content) bool { return len(p.Attachments) == maxAttachments },
		"bare LF":              func(p mailbox.Content) bool { return p.Text == "line1\nline2\n" },
		"html only": func(p mailbox.Content) bool {
			return strings.Contains(p.Text, "135790") && strings.Contains(p.HTML, "<b>135790</b>")
		},
	}
	for name, raw := range mailtest.Malformed() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := Parse([]byte(raw))
			checkBounded(t, name, p)
			if ok := want[name]; ok != nil && !ok(p) {
				t.Errorf("%s: parsed as subject %q text %.80q headers %v attachments %d", name, p.Subject, p.Text, p.Headers, len(p.Attachments))
			}
		})
	}
}

// msg_35 of CPython's email tests: a header block ended by a line without
// a colon, with no empty line after it. Python's parser ends the headers
// there and makes the line the body; it must not be folded into Subject.
// The variants move it (first line, mid-block), and keep what is still a
// header block (folding, an mbox From line) whole.
func TestHeaderBlockEndsAtALineThatIsNoHeader(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, raw, subject, text string
		headers                  map[string]string
	}{
		{"msg_35", "From: aperson@dom.ain\nTo: bperson@dom.ain\nSubject: here's something interesting\n" +
			"counter to RFC 2822, there's no separating newline here\n",
			"here's something interesting", "counter to RFC 2822, there's no separating newline here\n",
			map[string]string{"From": "aperson@dom.ain", "To": "bperson@dom.ain", "Subject": "here's something interesting"}},
		{"msg_35 with CRLF", "From: aperson@dom.ain\r\nSubject: here's something interesting\r\n" +
			"counter to RFC 2822, there's no separating newline here\r\n",
			"here's something interesting", "counter to RFC 2822, there's no separating newline here\n",
			map[string]string{"From": "aperson@dom.ain", "Subject": "here's something interesting"}},
		{"a name with a space is no name", "Subject: s\r\nNot A Header: x\r\nX-After: y\r\n\r\nbody\r\n",
			"s", "Not A Header: x\nX-After: y\n\nbody\n", map[string]string{"Subject": "s"}},
		{"folded lines and an mbox From line stay in the block",
			"From someone@example.com Sat Nov 21 19:00:00 2026\r\nSubject: one\r\n two\r\nX-A: 1\r\n\r\nbody\r\n",
			"one two", "body\n", map[string]string{"Subject": "one two", "X-A": "1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := Parse([]byte(c.raw))
			if p.Subject != c.subject || p.Text != c.text || !reflect.DeepEqual(p.Headers, c.headers) {
				t.Errorf("subject %q text %q headers %q;\nwant %q %q %q", p.Subject, p.Text, p.Headers, c.subject, c.text, c.headers)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, raw := range mailtest.Malformed() {
		f.Add([]byte(raw))
	}
	f.Add([]byte(mailtest.Multipart))
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkBounded(t, "fuzz", Parse(raw))
	})
}

// TestParseFindsLinks: a message's links are kept with its content: the
// HTML's as a browser reads its decoded body, then the text part's, once
// each; the text an HTML-only message is shown as adds none of its own.
func TestParseFindsLinks(t *testing.T) {
	t.Parallel()
	alternative := "Subject: verify\r\nMIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=\"b\"\r\n\r\n" +
		"--b\r\nContent-Type: text/plain\r\n\r\nVerify: https://shop.example/verify?t=abc&u=1\r\nHelp: https://shop.example/help.\r\n" +
		"--b\r\nContent-Type: text/html\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n" +
		"<p><a href=3D\"https://shop.example/verify?t=3Dabc&amp;u=3D1\">Verify your=\r\n address</a>" +
		" <a href=3D\"javascript:steal()\">x</a></p>\r\n--b--\r\n"
	for _, c := range []struct {
		name, raw string
		want      []mailbox.Link
	}{
		{"text and html", alternative, []mailbox.Link{{URL: "https://shop.example/verify?t=abc&u=1", Text: "Verify your address"},
			{URL: "https://shop.example/help", Text: ""}}},
		{"html only", "Subject: x\r\nContent-Type: text/html\r\n\r\n<a href=\"https://a.example/x?y=1&amp;z=2\">Go</a> " +
			"<a href=\"https://b.example/\">https://b.example/</a>\r\n",
			[]mailbox.Link{{URL: "https://a.example/x?y=1&z=2", Text: "Go"}, {URL: "https://b.example/", Text: "https://b.example/"}}},
		{"headers only", "Subject: deep\r\n" + strings.Repeat("Content-Type: multipart/mixed; boundary=\"q\"\r\n", 13) +
			"\r\nsee https://deep.example/\r\n", []mailbox.Link{{URL: "https://deep.example/", Text: ""}}},
		{"none", "Subject: x\r\n\r\nno links here\r\n", []mailbox.Link{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := Parse([]byte(c.raw))
			if !reflect.DeepEqual(p.Links, c.want) {
				t.Errorf("links %q, want %q (text %q)", p.Links, c.want, p.Text)
			}
		})
	}
}

// TestOnlyMultipartMailIsCheckedForNesting: the guard against deep
// nesting (maxBoundaries) concerns the boundaries a multipart message
// declares; a plain text message that talks of boundaries (a MIME
// tutorial) is parsed whole, its recipients kept.
func TestOnlyMultipartMailIsCheckedForNesting(t *testing.T) {
	t.Parallel()
	about := strings.Repeat("A boundary line begins with two hyphens.\r\n", maxBoundaries+1)
	p := Parse([]byte("From: a@example.com\r\nTo: b@example.com\r\nSubject: MIME\r\n\r\n" + about))
	if !reflect.DeepEqual(p.To, []string{"b@example.com"}) || p.Text != strings.ReplaceAll(about, "\r\n", "\n") {
		t.Errorf("a plain message about boundaries: to %q, text %q", p.To, p.Text)
	}
	deep := Parse([]byte("Subject: deep\r\nTo: b@example.com\r\nContent-Type: multipart/mixed; boundary=q\r\n\r\n" + about))
	if deep.To != nil || deep.Subject != "deep" {
		t.Errorf("a multipart message with %d boundaries was read past its headers: to %q", maxBoundaries+1, deep.To)
	}
}

// plainMessages are single-part text messages of the shapes the shortcut
// takes, and of shapes next to them that it must leave to enmime.
var plainMessages = []string{
	"From: A <a@example.com>\r\nTo: b@example.com\r\nSubject: hi\r\n\r\nYour code is 123456.\r\nhttps://example.com/v?c=1\r\n",
	"From: a@example.com\nSubject: lf only\n\nline one\nline two\n",
	"Subject: no blank line\r\nNot a header line\r\nbody\r\n",
	"Subject: empty body\r\n\r\n",
	"Subject: headers only",
	"Content-Type: text/plain; charset=utf-8\r\nSubject: =?utf-8?q?caf=C3=A9?=\r\n\r\nplain\r\n",
	"Content-Type: text/plain; charset=\"US-ASCII\"; format=flowed\r\n\r\nflowed \r\ntext\r\n",
	"Content-Type: TEXT/PLAIN\r\nContent-Transfer-Encoding: 7BIT\r\n\r\nupper\r\n",
	"Content-Type: text/plain; charset=utf-8\r\n\r\ncaf\xc3\xa9 is 8-bit\r\n",
	"Content-Type: text/plain\r\n\r\nlatin \xe9 undeclared\r\n",
	"Content-Type: text/plain; charset=utf-16\r\n\r\nab\r\n",
	"Content-Type: text/plain; charset=utf-7\r\n\r\n+AGEAYgBj-\r\n",
	"Content-Type: text/plainish\r\n\r\nnot plain\r\n",
	"Content-Type: text/html\r\n\r\n<p>html <a href=\"https://x.example/\">x</a></p>\r\n",
	"Content-Transfer-Encoding: quoted-printable\r\n\r\nsoft=\r\nbreak =3D\r\n",
	"Content-Transfer-Encoding: base64\r\n\r\naGVsbG8=\r\n",
	"Content-Type: multipart/mixed\r\n\r\nno boundary\r\n",
	"Content-Type: text/plain\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n\r\npart\r\n--b--\r\n",
	"Content-Type:\r\n text/plain;\r\n charset=us-ascii\r\n\r\nfolded\r\n",
	"content-type: text/plain\r\ncontent-transfer-encoding: binary\r\n\r\nlower\r\n\x00\x01\x7f\r\n",
	"From mbox line\r\nSubject: x\r\n\r\nbody\r\n",
	"Subject: bare cr\r\n\r\r\nbody\r\n",
	"\r\nbody without headers\r\n",
	"To: a@example.com\r\n\r\nhttp://a.example HTTPS://B.EXAMPLE/x xhttp://no.example (https://c.example/).\r\n",
}

// TestShortcutParsesAsEnmime: what Parse makes of a message whose body it
// takes as it came is what enmime makes of the whole message.
func TestShortcutParsesAsEnmime(t *testing.T) {
	t.Parallel()
	all := append([]string{mailtest.Multipart}, plainMessages...)
	for _, raw := range mailtest.Malformed() {
		all = append(all, raw)
	}
	for i, raw := range all {
		got, want := parse([]byte(raw), true), parse([]byte(raw), false)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("message %d %q:\nshortcut %+v\nenmime   %+v", i, raw, got, want)
		}
	}
}

func FuzzShortcutParsesAsEnmime(f *testing.F) {
	for _, raw := range plainMessages {
		f.Add([]byte(raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, want := parse(raw, true), parse(raw, false)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\nshortcut %+v\nenmime   %+v", raw, got, want)
		}
	})
}

// BenchmarkParse4KiB parses a plain text message as ingest's benchmark
// sends it (tmbench's message), and a multipart one of the same size.
func BenchmarkParse4KiB(b *testing.B) {
	body := strings.Repeat("The quick brown fox jumps over the lazy dog. 0123456789012345678901234567\r\n", 55)
	plain := "From: Bench <bench@example.com>\r\nTo: a@example.com\r\nSubject: s\r\nMessage-ID: <s@bench>\r\n\r\n" + body
	multi := "From: Bench <bench@example.com>\r\nTo: a@example.com\r\nSubject: s\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: multipart/alternative; boundary=\"----=_Part_1234_5678.1700000000000\"\r\n\r\n------=_Part_1234_5678.1700000000000\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n" +
		body[:len(body)/2] + "\r\n------=_Part_1234_5678.1700000000000\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>" + body[:len(body)/2] + "</p>\r\n------=_Part_1234_5678.1700000000000--\r\n"
	for _, c := range []struct{ name, raw string }{{"plain", plain}, {"multipart", multi}} {
		b.Run(c.name, func(b *testing.B) {
			raw := []byte(c.raw)
			b.ReportAllocs()
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				Parse(raw)
			}
		})
	}
}
