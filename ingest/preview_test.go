package ingest_test

import (
	"testing"

	"tempmail/backend/backendtest"
)

// TestPreviewsArePlainSentences: what a list shows of a message (the
// page, family A and C lists, the MCP tools, webhooks) is what it says, in
// plain words: an HTML-only message's preview has its words, not the
// marks of the text it is shown as (heading rules, *bold*, link URLs in
// brackets, list bullets); a message's own text part is its preview as
// its sender wrote it.
func TestPreviewsArePlainSentences(t *testing.T) {
	t.Parallel()
	svc := backendtest.Start(t, testConfig(t))
	in := inbox(t, svc, "box@tempmail.test")
	const html = "<html><head><title>Shop mail</title><style>h1 { color: red }</style></head><body>\r\n" +
		"<h1>Welcome</h1>\r\n<p>Your code is <b>904512</b>.</p>\r\n" +
		"<p><a href=\"https://shop.example/confirm\">Confirm your address</a> or read our <a href=\"https://shop.example/terms\">terms</a>.</p>\r\n" +
		"<ul><li>Fast</li><li>Free&nbsp;&amp;&nbsp;easy</li></ul><hr><p>Shop<br>Main Street 1</p></body></html>\r\n"
	cases := []struct{ subject, body, want string }{
		{"html only", "Content-Type: text/html; charset=utf-8\r\n\r\n" + html,
			"Welcome Your code is 904512. Confirm your address or read our terms. Fast Free & easy Shop Main Street 1"},
		{"text and html", "MIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=\"b\"\r\n\r\n" +
			"--b\r\nContent-Type: text/plain\r\n\r\nHi *Jane*, your code is 123456.\r\n" +
			"--b\r\nContent-Type: text/html\r\n\r\n<p>Hi <b>Jane</b>, your code is <b>123456</b>.</p>\r\n--b--\r\n",
			"Hi *Jane*, your code is 123456."},
		{"text", "\r\n  Plain   words\r\n\r\nover lines.\r\n", "Plain words over lines."},
	}
	for _, c := range cases {
		raw := "From: shop@example.com\r\nTo: box@tempmail.test\r\nSubject: " + c.subject + "\r\n" + c.body
		backendtest.Send(t, svc.SMTPAddr(), "shop@example.com", in.Address, raw)
	}
	messages(t, svc, in.ID, len(cases))
	in, err := svc.Views.Inbox(t.Context(), in.ID)
	if err != nil {
		t.Fatal(err)
	}
	list, err := svc.Views.Messages(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	previews := map[string]string{}
	for _, s := range list {
		previews[s.Subject] = s.Preview
	}
	for _, c := range cases {
		if got := previews[c.subject]; got != c.want {
			t.Errorf("%s: preview %q, want %q", c.subject, got, c.want)
		}
	}
}
