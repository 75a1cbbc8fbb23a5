package tokenapi_test

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"tempmail/config"
	"tempmail/service/apitest"
)

// linkMail is an HTML message whose links hide behind entities and
// quoted-printable, with a script link, and a text part with one more.
const linkMail = "From: Shop <shop@example.com>\r\nSubject: Confirm your address\r\nMIME-Version: 1.0\r\n" +
	"Content-Type: multipart/alternative; boundary=\"b\"\r\n\r\n" +
	"--b\r\nContent-Type: text/plain\r\n\r\nConfirm: https://shop.example/verify?t=abc&u=1\r\nUnsubscribe: https://shop.example/unsub.\r\n" +
	"--b\r\nContent-Type: text/html\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n" +
	"<a href=3D\"https://shop.example/\">Shop</a> <a href=3D\"javascript:steal()\">x</a>" +
	"<a href=3D\"https://shop.example/verify?t=3Dabc&amp;u=3D1\">Confirm your=\r\n address</a>\r\n--b--\r\n"

// jsonField is the compact JSON of one field of a JSON object.
func JSONField(t *testing.T, body []byte, name string) []byte {
	t.Helper()
	var v map[string]json.RawMessage
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, v[name]); err != nil {
		t.Fatalf("%s of %s: %v", name, body, err)
	}
	return b.Bytes()
}

func TestLinkC(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	token, addr := h.TokenInbox()
	link := func(query string) apitest.Response { return h.Do("GET", "/inboxes/"+token+"/link/"+query, "") }
	h.Expect(link(""), 404, `{"error":"No link"}`)
	h.Expect(h.Do("GET", "/inboxes/nope/link/", ""), 404, `{"error":"Inbox not found"}`)

	h.SendMail(addr, linkMail)
	m := h.WaitLatest(token, "")
	id := m["id"].(string)
	h.SendMail(addr, "From: other@example.com\r\nSubject: no links\r\n\r\nnothing to click\r\n")
	plain := h.WaitLatest(token, id)["id"].(string)

	wantLinks := `[{"url":"https://shop.example/","url_ascii":"https://shop.example/","text":"Shop"},` +
		`{"url":"https://shop.example/verify?t=abc&u=1","url_ascii":"https://shop.example/verify?t=abc&u=1","text":"Confirm your address"},` +
		`{"url":"https://shop.example/unsub","url_ascii":"https://shop.example/unsub","text":""}]`
	for _, path := range []string{"/inboxes/" + token + "/messages/" + id + "/", "/api/emails/" + id + "/"} {
		r := h.Do("GET", path, "")
		h.Expect(r, 200, "")
		if got := string(JSONField(t, r.Body, "links")); got != wantLinks {
			t.Errorf("%s links %s, want %s", path, got, wantLinks)
		}
	}
	for _, path := range []string{"/inboxes/" + token + "/messages/" + plain + "/", "/api/emails/" + plain + "/",
		"/inboxes/" + token + "/latest/"} {
		if got := string(JSONField(t, h.Do("GET", path, "").Body, "links")); got != "[]" {
			t.Errorf("%s links %s, want []", path, got)
		}
	}

	found := func(want string) string {
		return `{"link":"` + want + `","link_ascii":"` + want + `","text":"` + map[string]string{"https://shop.example/": "Shop",
			"https://shop.example/verify?t=abc&u=1": "Confirm your address", "https://shop.example/unsub": ""}[want] +
			`","message_id":"` + id + `","subject":"Confirm your address","from":"shop@example.com","received_at":"` +
			m["received_at"].(string) + `"}`
	}
	for _, c := range []struct {
		name, query, want string
		status            int
	}{
		{"the newest message with a link, its first", "", found("https://shop.example/"), 200},
		{"the first whose URL matches", "?pattern=verify", found("https://shop.example/verify?t=abc&u=1"), 200},
		{"from the text part", "?pattern=" + url.QueryEscape(`unsub$`), found("https://shop.example/unsub"), 200},
		{"filters", "?from=shop&subject=confirm&pattern=verify", found("https://shop.example/verify?t=abc&u=1"), 200},
		{"a filter no message passes", "?from=nobody", `{"error":"No link"}`, 404},
		{"no link matches", "?pattern=javascript", `{"error":"No link"}`, 404},
		{"nothing newer than after", "?after=" + id, `{"error":"No link"}`, 404},
		{"a pattern that does not compile", "?pattern=" + url.QueryEscape("(x"), `{"error":"invalid pattern: error parsing regexp: missing closing ): ` + "`(x`" + `"}`, 400},
		{"a pattern too long", "?pattern=" + strings.Repeat("a", 513), `{"error":"invalid pattern: longer than 512 bytes"}`, 400},
		{"a bad wait", "?wait=61", `{"error":"wait must be a whole number of seconds from 0 to 60"}`, 400},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := h.As(t)
			h.Expect(h.Do("GET", "/inboxes/"+token+"/link/"+c.query, ""), c.status, c.want)
		})
	}
}

// TestLinkWaitAnswersWhenTheMailLands: link/?pattern=verify&wait=20 is held
// while no message has such a link (a message with other links does not
// release it), and answered with the decoded URL when one lands.
func TestLinkWaitAnswersWhenTheMailLands(t *testing.T) {
	t.Parallel()
	h := apitest.New(t) // its own: it counts the requests held open
	token, addr := h.TokenInbox()
	h.SendMail(addr, "Subject: welcome\r\nContent-Type: text/html\r\n\r\n<a href=\"https://shop.example/\">Shop</a>\r\n")
	welcome := h.WaitLatest(token, "")["id"].(string)
	start := time.Now()
	done := h.Start("GET", "/inboxes/"+token+"/link/?pattern=verify&wait=20", "")
	h.WaitHeld(1)
	h.SendMail(addr, "Subject: another\r\n\r\nsee https://shop.example/news\r\n")
	h.WaitLatest(token, welcome)
	select {
	case r := <-done:
		t.Fatalf("answered before a matching link landed: %d %s", r.Status, r.Body)
	default:
	}
	h.SendMail(addr, linkMail)
	select {
	case r := <-done:
		h.Expect(r, 200, "")
		if v := r.JSON(t); v["link"] != "https://shop.example/verify?t=abc&u=1" || v["text"] != "Confirm your address" {
			t.Errorf("answer %v", v)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("still held after the link landed")
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("answered after %v", took)
	}
}

// TestReadKeyGuardsLink: with --read-key, link/ needs the key as otp does.
func TestReadKeyGuardsLink(t *testing.T) {
	t.Parallel()
	h := apitest.New(t, func(c *config.Config) { c.ReadKey = "s3cret-key" })
	token, _ := h.TokenInbox()
	h.Expect(h.Do("GET", "/inboxes/"+token+"/link/", ""), 401, `{"error":"read key required"}`)
	h.Expect(h.Do("GET", "/inboxes/"+token+"/link/", "", "X-Read-Key", "wrong"), 403, `{"error":"invalid read key"}`)
	h.Expect(h.Do("GET", "/inboxes/"+token+"/link/", "", "X-Read-Key", "s3cret-key"), 404, `{"error":"No link"}`)
}

// TestLinkLooksThroughTheNewest200: a look reads pages of the list until it
// finds a link, through the newest 200 messages that pass the filters and
// no further.
func TestLinkLooksThroughTheNewest200(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	token, addr := h.TokenInbox()
	h.SendMail(addr, linkMail)
	first := h.WaitLatest(token, "")["id"].(string)
	h.Fill(token, addr, 199) // the documented bound is 200
	if v := h.Do("GET", "/inboxes/"+token+"/link/?pattern=verify", "").JSON(t); v["message_id"] != first {
		t.Errorf("the 200th newest message's link: %v", v)
	}
	last := h.WaitLatest(token, "")["id"].(string)
	h.SendMail(addr, "Subject: one more\r\n\r\nno links\r\n")
	h.WaitLatest(token, last)
	h.Expect(h.Do("GET", "/inboxes/"+token+"/link/?pattern=verify", ""), 404, `{"error":"No link"}`)
	if v := h.Do("GET", "/inboxes/"+token+"/link/?pattern=verify&from=shop", "").JSON(t); v["message_id"] != first {
		t.Errorf("the filters choose the 200: %v", v)
	}
}

// A link's URL shows what it holds (issue 29): a right-to-left override
// or a zero-width space is percent-encoded in url, and an
// internationalized host is given also as a browser looks it up
// (url_ascii, link_ascii), so that a look-alike of a known name (a
// Cyrillic а in аpple.example) shows as what it is.
func TestLinksShowWhatTheyHide(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	token, addr := h.TokenInbox()
	h.SendMail(addr, "From: it@example.com\r\nSubject: reset\r\nMIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n"+
		"<a href=\"https://\u0430pple.example/reset\">Reset</a> <a href=\"https://files.example/invoice\u202egpj.exe\">invoice</a> "+
		"<a href=\"https://pay\u200b.example/\">pay</a>\r\n")
	id := h.WaitLatest(token, "")["id"].(string)
	want := `[{"url":"https://` + "\u0430" + `pple.example/reset","url_ascii":"https://xn--pple-43d.example/reset","text":"Reset"},` +
		`{"url":"https://files.example/invoice%E2%80%AEgpj.exe","url_ascii":"https://files.example/invoice%E2%80%AEgpj.exe","text":"invoice"},` +
		`{"url":"https://pay%E2%80%8B.example/","url_ascii":"https://pay.example/","text":"pay"}]`
	if got := string(JSONField(t, h.Do("GET", "/inboxes/"+token+"/messages/"+id+"/", "").Body, "links")); got != want {
		t.Errorf("links %s,\nwant %s", got, want)
	}
	r := h.Do("GET", "/inboxes/"+token+"/link/?pattern=pple", "")
	h.Expect(r, 200, "")
	if v := r.JSON(t); v["link"] != "https://\u0430pple.example/reset" || v["link_ascii"] != "https://xn--pple-43d.example/reset" {
		t.Errorf("link %s", r.Body)
	}
}
