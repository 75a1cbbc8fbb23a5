package api

import (
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"
)

// BenchmarkAnswer compares the streaming encoder with encoding/json on the
// answer of GET /inboxes/<token>/latest/ for a small message.
func BenchmarkAnswer(b *testing.B) {
	m := messageC{ID: "01a207a0-bd30-70af-97c8-e0f271807b10", From: "shop@example.com", To: "io178cxmi7@tempmail.test",
		Cc: []string{}, Subject: "Your sign-up code", Text: "Welcome! Your code is 482913.\n", ReceivedAt: Time(time.Now()),
		Size: 425, Headers: map[string]string{"From": "shop@example.com", "Subject": "Your sign-up code"}, Attachments: []attachmentC{}}
	b.Run("streamed", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			writeJSON(httptest.NewRecorder(), 200, m)
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			rec := httptest.NewRecorder()
			rec.Header().Set("Content-Type", "application/json; charset=utf-8")
			rec.WriteHeader(200)
			enc := json.NewEncoder(rec)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(m)
		}
	})
}
