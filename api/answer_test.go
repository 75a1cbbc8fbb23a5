package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"tempmail/wire"
)

// TestAnswersEncodeAsEncodingJSONDoes: what the streaming encoder writes is
// byte for byte what encoding/json writes (HTML unescaped), long texts of
// every kind of character included.
func TestAnswersEncodeAsEncodingJSONDoes(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(19, 1))
	alphabet := []string{"a", "Z", " ", "\x00", "\x01", "\b", "\f", "\n", "\r", "\t", "\x1f", "\"", "\\", "<", ">", "&",
		"é", "✓", "📧", "\u2028", "\u2029", "\xff", "\xe2\x80", "\xc3", "\x7f", "/"}
	strange := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	when := wire.Time(time.Date(2026, 11, 23, 8, 58, 18, 415393000, time.UTC))
	values := map[string]any{
		"message C": messageC{ID: "x", From: strange(20), Cc: []string{}, Subject: strange(30), Text: longText(strange(50000)),
			HTML: longText(strange(50000)), ReceivedAt: when, Headers: map[string]string{"B": strange(10), "A": "<&>"},
			Attachments: []attachmentC{{Filename: strange(8), URL: "/x"}, {Filename: "y"}}},
		"message C, short": messageC{ID: "x", Text: longText(strange(500)), HTML: "<p>", Headers: map[string]string{}},
		"message B, empty": messageB{Headers: map[string]string{}, Attachments: []attachmentB{}},
		"message B":        messageB{Body: longText(strange(70000)), Headers: map[string]string{"X": strange(9)}, Attachments: []attachmentB{}},
		"email A":          emailA{ID: "i", To: []string{"a@b"}, Cc: []string{}, BodyHTML: longText(strange(70000)), Attachments: []attachmentA{}},
		"pointer":          &messageC{Text: "t", HTML: longText(strange(70000))},
		"list of messages": []messageB{{Body: "one", Headers: map[string]string{}}, {BodyHTML: longText(strange(50))}},
		"nil list":         []messageB(nil),
		"embedded":         tokenInboxDetail{tokenInbox{Token: "T", Address: "a@b", CreatedAt: when}, 3},
		"omitempty":        inboxA{ID: "i", Email: "e"},
		"omitempty set":    inboxA{ID: "i", EmailCount: new(int)},
		"subscription":     subscription{ID: "s", Events: []string{"message.received"}},
		"summaries":        []wire.EmailSummaryA{{ID: "1", Preview: strange(40)}},
		"map":              map[string]any{"success": false, "error": strange(20)},
		"string":           strange(64),
		"long text alone":  longText(strange(70000)),
	}
	for name, v := range values {
		t.Run(name, func(t *testing.T) {
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(v); err != nil {
				t.Fatal(err)
			}
			rec := httptest.NewRecorder()
			writeJSON(rec, 200, v)
			if got := rec.Body.String(); got != want.String() {
				i := 0
				for i < min(len(got), want.Len()) && got[i] == want.String()[i] {
					i++
				}
				t.Errorf("differs at byte %d:\n got %.120q\nwant %.120q", i, got[max(0, i-20):], want.String()[max(0, i-20):])
			}
		})
	}
}

// TestPagesEndPastTheirBudget: a list page stops taking items once its
// answer passes pageBudget, whatever the limit asked.
func TestPagesEndPastTheirBudget(t *testing.T) {
	t.Parallel()
	item := longText(strings.Repeat("\x01", 300<<10)) // 1.8 MB escaped
	rec := httptest.NewRecorder()
	writePage(rec, 50, func(int) any { return item })
	var got []string
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 || rec.Body.Len() < pageBudget || rec.Body.Len() > pageBudget+2<<20 {
		t.Errorf("a page of 50 items of 1.8 MB: %d items in %d bytes, want 5, just past %d", len(got), rec.Body.Len(), pageBudget)
	}
}

// bigBodies is a message whose text and HTML bodies are as long as ingest
// keeps (256 KiB each), of control characters that JSON writes as six
// bytes each: 3 MB of answer for half a megabyte of mail.
func bigBodies(to string, n int) string {
	line := strings.Repeat("\x01", 998) + "\r\n"
	body := strings.Repeat(line, 256<<10/len(line))
	return "From: big@example.com\r\nTo: " + to + "\r\nSubject: big " + strconv.Itoa(n) + "\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: multipart/alternative; boundary=\"B\"\r\n\r\n" +
		"--B\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n" + body +
		"--B\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n" + body + "--B--\r\n"
}

// TestMailboxPagesEndPastTheirBudget: family B's page of whole messages
// ends early past its budget, with total saying how many there are, and
// the next page (offset = what was received) brings the rest.
func TestMailboxPagesEndPastTheirBudget(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	r := h.do("POST", "/api/create-temp-email/", `{"email_name":"big"}`, "Content-Type", jsonCT)
	h.expect(r, 201, "")
	mailbox := r.JSON(t)["token"].(string)
	const n = 4
	for i := range n {
		h.sendMail("big@tempmail.test", bigBodies("big@tempmail.test", i))
	}
	eventually(t, "the messages readable", func() bool {
		return h.do("GET", "/inboxes/"+mailbox+"/", "").JSON(t)["count"] == float64(n)
	})
	var page struct {
		Emails []struct {
			Filename, Subject, Body string
		}
		Total int
	}
	seen := map[string]bool{}
	for offset := 0; offset < n; offset += len(page.Emails) {
		r := h.do("GET", "/api/mailstore/mailbox/big/?limit=200&offset="+strconv.Itoa(offset), "")
		if err := json.Unmarshal(r.Body, &page); err != nil || r.Status != 200 {
			t.Fatalf("offset %d: %d %v", offset, r.Status, err)
		}
		if page.Total != n || r.Header.Get("X-Total-Count") != strconv.Itoa(n) {
			t.Errorf("offset %d: total %d, X-Total-Count %s", offset, page.Total, r.Header.Get("X-Total-Count"))
		}
		if offset == 0 && (len(page.Emails) != 3 || len(r.Body) < pageBudget) {
			t.Errorf("first page: %d messages in %d bytes, want it to end after 3, past %d", len(page.Emails), len(r.Body), pageBudget)
		}
		if len(page.Emails) == 0 {
			t.Fatalf("offset %d: an empty page before the end", offset)
		}
		for _, m := range page.Emails {
			if len(m.Body) < 250<<10 || strings.Trim(m.Body, "\x01\r\n") != "" {
				t.Errorf("%s: a body of %d bytes, not as sent", m.Subject, len(m.Body))
			}
			seen[m.Filename] = true
		}
	}
	if len(seen) != n {
		t.Errorf("%d messages seen over the pages, want %d", len(seen), n)
	}
	// The other families' lists and a message's detail carry the same text.
	token := h.do("POST", "/inboxes/", "").JSON(t)["token"].(string)
	h.sendMail(h.do("GET", "/inboxes/"+token+"/", "").JSON(t)["address"].(string), bigBodies("x", 9))
	m := h.waitLatest(token, "")
	if text, _ := m["text"].(string); len(text) < 250<<10 || m["html"] != text {
		t.Errorf("detail: text of %d bytes", len(text))
	}
	if r := h.do("GET", fmt.Sprintf("/inboxes/%s/messages/?limit=200", token), ""); r.Status != http.StatusOK || r.Header.Get("X-Total-Count") != "1" {
		t.Errorf("family C list: %d %s", r.Status, r.Header.Get("X-Total-Count"))
	}
}
