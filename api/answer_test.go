package api

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"tempmail/api/family"
	"tempmail/api/inboxapi"
	"tempmail/api/mailboxapi"
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
	when := wire.At(time.Date(2026, 11, 23, 8, 58, 18, 415393000, time.UTC))
	values := map[string]any{
		"message C": wire.Message{ID: "x", From: strange(20), Cc: []string{}, Subject: strange(30), Text: strange(50000),
			HTML: strange(50000), ReceivedAt: when, Headers: map[string]string{"B": strange(10), "A": "<&>"},
			Attachments: []wire.Attachment{{Filename: strange(8), URL: "/x"}, {Filename: "y"}}},
		"message C, short": wire.Message{ID: "x", Text: strange(500), HTML: "<p>", Headers: map[string]string{}},
		"message B, empty": mailboxapi.Message{Headers: map[string]string{}, Attachments: []mailboxapi.Attachment{}},
		"message B":        mailboxapi.Message{Body: strange(70000), Headers: map[string]string{"X": strange(9)}, Attachments: []mailboxapi.Attachment{}},
		"email A":          inboxapi.Email{ID: "i", To: []string{"a@b"}, Cc: []string{}, BodyHTML: strange(70000), Attachments: []inboxapi.Attachment{}},
		"pointer":          &wire.Message{Text: "t", HTML: strange(70000)},
		"list of messages": []mailboxapi.Message{{Body: "one", Headers: map[string]string{}}, {BodyHTML: strange(50)}},
		"nil list":         []mailboxapi.Message(nil),
		"embedded":         wire.InboxDetail{Inbox: wire.Inbox{Token: "T", Address: "a@b", CreatedAt: when}, Count: 3},
		"omitempty":        inboxapi.Inbox{ID: "i", Email: "e"},
		"omitempty set":    inboxapi.Inbox{ID: "i", EmailCount: new(int)},
		"subscription":     family.Subscription{ID: "s", Events: []string{"message.received"}},
		"summaries":        []wire.EmailSummaryA{{ID: "1", Preview: strange(40)}},
		"map":              map[string]any{"success": false, "error": strange(20)},
		"string":           strange(64),
		"long text alone":  strange(70000),
	}
	for name, v := range values {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(v); err != nil {
				t.Fatal(err)
			}
			rec := httptest.NewRecorder()
			family.WriteJSON(rec, 200, v)
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
// answer passes PageBudget, whatever the limit asked.
func TestPagesEndPastTheirBudget(t *testing.T) {
	t.Parallel()
	item := strings.Repeat("\x01", 300<<10) // 1.8 MB escaped
	rec := httptest.NewRecorder()
	family.WritePage(rec, 50, func(int) any { return item })
	var got []string
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 || rec.Body.Len() < family.PageBudget || rec.Body.Len() > family.PageBudget+2<<20 {
		t.Errorf("a page of 50 items of 1.8 MB: %d items in %d bytes, want 5, just past %d", len(got), rec.Body.Len(), family.PageBudget)
	}
}
