package api

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"tempmail/api/family"
	"tempmail/api/mailboxapi"
	"tempmail/wire"
)

// BenchmarkAnswer compares the streaming encoder with encoding/json on the
// answer of GET /inboxes/<token>/latest/ for a small message.
func BenchmarkAnswer(b *testing.B) {
	m := wire.Message{ID: "01a207a0-bd30-70af-97c8-e0f271807b10", From: "shop@example.com", To: "io178cxmi7@tempmail.test",
		Cc: []string{}, Subject: "Your sign-up code", Text: "Welcome! Your code is 482913.\n", ReceivedAt: wire.At(time.Now()),
		Size: 425, Headers: map[string]string{"From": "shop@example.com", "Subject": "Your sign-up code"}, Attachments: []wire.Attachment{}}
	b.Run("streamed", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			family.WriteJSON(discardWriter{}, 200, m)
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			rec := discardWriter{}
			rec.WriteHeader(200)
			enc := json.NewEncoder(rec)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(m)
		}
	})
}

// BenchmarkPage compares a page of 10 whole messages (family B's list of
// 4 KiB messages) written item by item with one encoded whole.
func BenchmarkPage(b *testing.B) {
	items := make([]mailboxapi.Message, 10)
	for i := range items {
		items[i] = mailboxapi.Message{Filename: "01a207a1-0ee2-7a8c-a261-a8367a28bae7.eml", From: "shop@example.com", To: "bench@tempmail.test",
			Subject: "read-1", Date: wire.At(time.Now()), Size: 4200, Headers: map[string]string{"From": "Bench <bench@example.com>", "Subject": "read-1"},
			Body: strings.Repeat("The quick brown fox jumps over the lazy dog. 0123456789012345678901234567\r\n", 55), Attachments: []mailboxapi.Attachment{}}
	}
	b.Run("streamed", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			rec := discardWriter{}
			a := family.NewAnswer(rec, 200)
			a.Raw(`{"emails":[`)
			for i := range items {
				if i > 0 {
					a.Raw(",")
				}
				a.Value(items[i])
			}
			a.Raw(`],"total":10}`)
			a.Finish()
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			rec := discardWriter{}
			enc := json.NewEncoder(rec)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(struct {
				Emails []mailboxapi.Message `json:"emails"`
				Total  int                  `json:"total"`
			}{items, 10})
		}
	})
}

// discardWriter is a connection that takes everything at once, as the
// kernel's socket buffer does: what is measured is the encoding.
type discardWriter struct{}

func (discardWriter) Header() http.Header         { return http.Header{} }
func (discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (discardWriter) WriteHeader(int)             {}
