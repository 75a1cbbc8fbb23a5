package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"tempmail/mailauth/authtest"
	"tempmail/service/servicetest"
)

// The screenshots in docs/img, made by the page itself with realistic mail
// (browser_test.go has the helpers).

// TestScreenshots writes the README's pictures of the page, with mail in
// it: docs/img/page-light.png and page-dark.png at a desktop's width, and
// page-phone.png at a phone's. The message open is signed, from a domain
// whose SPF and DMARC records an in-process DNS serves, so that its checks
// pass, and it has a link. Then page-key-light.png and page-key-dark.png:
// the page asking for an API key, on a server under --anonymous off. It
// runs only when asked, so that make test-e2e leaves them alone:
//
//	TEMPMAIL_SCREENSHOTS=1 go test -run TestScreenshots ./web
func TestScreenshots(t *testing.T) {
	if os.Getenv("TEMPMAIL_SCREENSHOTS") == "" {
		t.Skip("set TEMPMAIL_SCREENSHOTS=1 to write docs/img/page-*.png")
	}
	dns := authtest.StartDNS(t)
	dns.TXT("acme.example", "v=spf1 ip4:127.0.0.1 -all")
	dns.TXT("_dmarc.acme.example", "v=DMARC1; p=reject")
	key := authtest.NewKey(t, "acme.example", "mail")
	key.Publish(dns)
	cfg := servicetest.Config(t)
	cfg.AuthChecks, cfg.DNSResolver = true, dns.Addr
	svc := servicetest.Start(t, cfg)
	base := servicetest.URL(svc)
	code, body := servicetest.Call(t, "POST", base+"/inboxes/", `{"name": "jane.doe"}`)
	if code != http.StatusCreated {
		t.Fatalf("POST /inboxes/: %d %s", code, body)
	}
	var in struct {
		Token     string `json:"token"`
		Address   string `json:"address"`
		CreatedAt string `json:"created_at"`
		ExpiresAt string `json:"expires_at"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		t.Fatal(err)
	}
	// Another address this browser made, to switch to.
	code, other := servicetest.Call(t, "POST", base+"/inboxes/", `{"name": "jane.shop"}`)
	if code != http.StatusCreated {
		t.Fatalf("POST /inboxes/: %d %s", code, other)
	}
	mail := screenshotMail(in.Address)
	for _, m := range mail[:len(mail)-1] {
		servicetest.Send(t, svc.SMTPAddr(), "shop@example.com", in.Address, m)
	}
	servicetest.Send(t, svc.SMTPAddr(), "bounce@acme.example", in.Address, signed(t, key, mail[len(mail)-1]))
	// One read already, the others not, as an inbox in use looks.
	list := servicetest.Messages(t, base, in.Token)
	if code, body := servicetest.Call(t, "POST", base+"/inboxes/"+in.Token+"/messages/"+list[2].ID+"/read/", "{}"); code != http.StatusOK {
		t.Fatalf("mark read: %d %s", code, body)
	}

	shoot := func(name string, width, height int64, dark, open bool) {
		t.Helper()
		p := newSchemedBrowser(t, width, height, dark)
		// The page takes the inbox from localStorage, as after a reload.
		current, _ := json.Marshal(in)
		p.do(t, chromedp.Navigate(base+"/ui/icon.svg"),
			chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`localStorage.setItem('tempmail.inbox', %s);
				localStorage.setItem('tempmail.inboxes', %s)`, jsString(string(current)), jsString("["+string(other)+","+string(current)+"]"))),
			chromedp.Navigate(base+"/"))
		p.waitLive(t)
		p.waitFor(t, "the mail and the other address", `document.querySelectorAll('.message-item').length === 4 &&
			!document.getElementById('switch-toggle').hidden`)
		if open {
			p.do(t, chromedp.Click(chromedp.CSS(".message-open")))
			p.frameEval(t, `document.readyState`)
			p.waitFor(t, "the message, its checks and its link", `document.getElementById('message-status').hidden &&
				document.getElementById('message-auth').textContent.includes('DMARC pass') && !document.getElementById('message-links').hidden`)
		}
		writeScreenshot(t, p, name)
	}
	shoot("page-light.png", 1280, 900, false, true)
	shoot("page-dark.png", 1280, 900, true, true)
	shoot("page-phone.png", 390, 844, false, false)

	keySvc, _ := keyServer(t, "")
	shootKey := func(name string, dark bool) {
		t.Helper()
		p := newSchemedBrowser(t, 1280, 420, dark)
		p.do(t, chromedp.Navigate(servicetest.URL(keySvc)+"/"))
		p.waitFor(t, "the key form", `!document.getElementById('key-form').hidden`)
		writeScreenshot(t, p, name)
	}
	shootKey("page-key-light.png", false)
	shootKey("page-key-dark.png", true)
}

// newSchemedBrowser is newBrowser in the light colour scheme, or the dark.
func newSchemedBrowser(t *testing.T, width, height int64, dark bool) *browserPage {
	t.Helper()
	p := newBrowser(t, width, height)
	scheme := "light"
	if dark {
		scheme = "dark"
	}
	if _, err := chromedp.Call(p.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
	}); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeScreenshot writes what the tab shows to docs/img/name.
func writeScreenshot(t *testing.T, p *browserPage, name string) {
	t.Helper()
	// No focus ring or caret in the picture.
	p.do(t, chromedp.Evaluate[chromedp.Void](`document.activeElement?.blur(); window.scrollTo(0, 0)`))
	png, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	path := "../docs/img/" + name
	if err := os.MkdirAll("../docs/img", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d KB)", path, len(png)/1024)
}

// screenshotMail is an inbox's worth of ordinary mail, oldest first; the
// last is from acme.example.
func screenshotMail(to string) []string {
	head := func(from, subject, contentType string) string {
		return "From: " + from + "\nTo: " + to + "\nSubject: " + subject +
			"\nMIME-Version: 1.0\nContent-Type: " + contentType + "\n\n"
	}
	return []string{
		head("Orbit Notes <hello@orbitnotes.example>", "Welcome to the Orbit Notes beta", "text/plain; charset=utf-8") +
			"Hi Jane,\n\nthanks for joining the beta. Your notes sync across all your devices from today.\n\nThe Orbit Notes team\n",
		head("Paper & Ink <billing@paperink.example>", "Your invoice #2041", `multipart/mixed; boundary="b"`) +
			"--b\nContent-Type: text/plain; charset=utf-8\n\nHello Jane, your invoice for order #2041 (2 notebooks, 1 fountain pen) is attached.\n" +
			"--b\nContent-Type: application/pdf; name=\"invoice-2041.pdf\"\nContent-Disposition: attachment; filename=\"invoice-2041.pdf\"\n" +
			"Content-Transfer-Encoding: base64\n\nJVBERi0xLjQKJcOkw7zDtsOfCjEgMCBvYmoKPDwvVHlwZS9DYXRhbG9nPj4KZW5kb2JqCnRyYWlsZXIKPDwvUm9vdCAxIDAgUj4+CiUlRU9GCg==\n--b--\n",
		head("Photo Share <security@photoshare.example>", "Reset your password", "text/plain; charset=utf-8") +
			"Someone asked to reset the password of your Photo Share account. If it was you, open the link below within an hour.\n",
		head("Acme Cloud <no-reply@acme.example>", "Confirm your email address", `multipart/alternative; boundary="a"`) +
			"--a\nContent-Type: text/plain; charset=utf-8\n\nHi Jane, your Acme Cloud verification code is 482913. It expires in 10 minutes.\n" +
			"--a\nContent-Type: text/html; charset=utf-8\n\n" +
			`<div style="font-family:Helvetica,Arial,sans-serif;max-width:520px;margin:28px auto;color:#1f2933">` +
			`<p style="font-size:20px;font-weight:bold;color:#1a56db;margin:0 0 18px">&#9729; Acme Cloud</p>` +
			`<h1 style="font-size:22px;margin:0 0 12px">Confirm your email address</h1>` +
			`<p style="font-size:15px;line-height:1.5">Hi Jane, thanks for signing up. Enter this code to confirm your address:</p>` +
			`<p style="font-size:34px;letter-spacing:10px;font-weight:bold;background:#eef2ff;padding:18px;text-align:center;border-radius:10px;margin:18px 0">482913</p>` +
			`<p style="font-size:15px;line-height:1.5">Or <a href="https://acme.example/confirm?code=482913" style="color:#1a56db">confirm your address</a> with one click.</p>` +
			`<p style="font-size:13px;color:#667085;line-height:1.5">The code expires in 10 minutes. If you did not sign up, you can ignore this email.</p></div>` +
			"\n--a--\n",
	}
}
