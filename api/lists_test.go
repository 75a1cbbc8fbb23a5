package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"tempmail/api"
	"tempmail/config"
	"tempmail/eventually"
	"tempmail/service/apitest"
)

func subjects(t *testing.T, body []byte, field string) []string {
	t.Helper()
	var list []map[string]any
	if err := json.Unmarshal(body, &list); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	var out []string
	for _, m := range list {
		out = append(out, m[field].(string))
	}
	return out
}

func want(from, to int) []string {
	var out []string
	for i := from; i >= to; i-- {
		out = append(out, fmt.Sprintf("m%03d", i))
	}
	return out
}

// TestListsArePaged: every message list takes limit (default 50, at most
// 200) and offset, newest first; families A and C answer the page and put
// the total in X-Total-Count, family B keeps its total in the body.
func TestListsArePaged(t *testing.T) {
	t.Parallel()
	h := apitest.New(t, func(c *config.Config) { c.SMTPRatePerIP = 0 })
	r := h.Do("POST", "/api/create-temp-email/", `{"email_name":"pager"}`)
	v := r.JSON(t)
	token, address, inboxID := v["token"].(string), v["email"].(string), v["inbox_id"].(string)
	h.Fill(token, address, 75)

	r = h.Do("GET", "/inboxes/"+token+"/messages/", "")
	if got := subjects(t, r.Body, "subject"); strings.Join(got, ",") != strings.Join(want(74, 25), ",") {
		t.Errorf("C default page: %v", got)
	}
	if r.Header.Get("X-Total-Count") != "75" {
		t.Errorf("C X-Total-Count %q, want 75", r.Header.Get("X-Total-Count"))
	}
	r = h.Do("GET", "/inboxes/"+token+"/messages/?limit=10&offset=60", "")
	if got := subjects(t, r.Body, "subject"); strings.Join(got, ",") != strings.Join(want(14, 5), ",") {
		t.Errorf("C limit=10 offset=60: %v", got)
	}
	r = h.Do("GET", "/api/inboxes/"+inboxID+"/emails/?limit=200", "")
	if got := subjects(t, r.Body, "subject"); len(got) != 75 || got[0] != "m074" || got[74] != "m000" || r.Header.Get("X-Total-Count") != "75" {
		t.Errorf("A limit=200: %d items, %q..., total %q", len(got), got[:1], r.Header.Get("X-Total-Count"))
	}
	r = h.Do("GET", "/api/inboxes/"+inboxID+"/emails/?offset=75", "")
	h.Expect(r, 200, `[]`)

	r = h.Do("GET", "/api/mailstore/mailbox/pager/?limit=5&offset=3", "")
	var b struct {
		Emails []struct{ Subject, Body string }
		Total  int
	}
	if err := json.Unmarshal(r.Body, &b); err != nil || b.Total != 75 || len(b.Emails) != 5 || b.Emails[0].Subject != "m071" || b.Emails[0].Body != "body 71\n" {
		t.Errorf("B limit=5 offset=3: %+v %v", b, err)
	}

	for _, q := range []string{"limit=0", "limit=201", "limit=x", "limit=-1", "offset=-1", "offset=x", "offset=99999999999"} {
		t.Run(q, func(t *testing.T) {
			t.Parallel()
			h := h.As(t)
			for _, path := range []string{"/inboxes/" + token + "/messages/?", "/api/inboxes/" + inboxID + "/emails/?", "/api/mailstore/mailbox/pager/?"} {
				if r := h.Do("GET", path+q, ""); r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), "must be a whole number") {
					t.Errorf("%s%s: %d %s", path, q, r.Status, r.Body)
				}
			}
		})
	}
}

// TestMatchFilters: from, to and subject select messages in every list and
// in latest, otp and address/latest, as case-insensitive substrings, ANDed;
// with wait, a request waits for the first message that matches.
func TestMatchFilters(t *testing.T) {
	t.Parallel()
	h := apitest.New(t, func(c *config.Config) { c.SMTPRatePerIP = 0 })
	token, address := h.TokenInbox()
	h.Fill(token, address, 20)

	cases := []struct {
		query string
		want  []string
	}{
		{"from=ODD@", []string{"m019", "m017", "m015", "m013", "m011", "m009", "m007", "m005", "m003", "m001"}},
		{"subject=M01&from=even", []string{"m018", "m016", "m014", "m012", "m010"}},
		{"to=watcher", []string{"m010", "m000"}},
		{"to=" + address, want(19, 0)},
		{"subject=nothing-like-it", nil},
	}
	// All at once, and done before the mail below changes the inbox.
	t.Run("messages", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.query, func(t *testing.T) {
				t.Parallel()
				r := h.As(t).Do("GET", "/inboxes/"+token+"/messages/?"+c.query, "")
				if got := subjects(t, r.Body, "subject"); strings.Join(got, ",") != strings.Join(c.want, ",") || r.Header.Get("X-Total-Count") != fmt.Sprint(len(c.want)) {
					t.Errorf("%v (total %s), want %v", got, r.Header.Get("X-Total-Count"), c.want)
				}
			})
		}
	})
	r := h.Do("GET", "/inboxes/"+token+"/messages/?from=odd&limit=2&offset=1", "")
	if got := subjects(t, r.Body, "subject"); strings.Join(got, ",") != "m017,m015" || r.Header.Get("X-Total-Count") != "10" {
		t.Errorf("a filtered page: %v total %s", got, r.Header.Get("X-Total-Count"))
	}

	r = h.Do("GET", "/inboxes/"+token+"/latest/?from=even", "")
	if r.JSON(t)["subject"] != "m018" {
		t.Errorf("latest from even: %s", r.Body)
	}
	r = h.Do("GET", "/address/latest/?address="+address+"&subject=m00", "")
	if r.JSON(t)["subject"] != "m009" {
		t.Errorf("address/latest subject=m00: %s", r.Body)
	}
	r = h.Do("GET", "/inboxes/"+token+"/otp/?pattern=body+(\\d%2B)&from=even&subject=m00", "")
	if v := r.JSON(t); v["otp"] != "8" || v["subject"] != "m008" {
		t.Errorf("otp with filters: %s", r.Body)
	}
	h.Expect(h.Do("GET", "/inboxes/"+token+"/latest/?from=nobody", ""), 404, `{"error":"No messages"}`)

	// A wait for a match is answered by the first message that matches,
	// not by the first that arrives.
	done := h.Start("GET", "/inboxes/"+token+"/latest/?wait=20&subject=welcome", "")
	h.WaitHeld(1)
	h.SendMailFrom("x@example.com", address, "Subject: unrelated\r\n\r\nnot this one\r\n")
	h.SendMailFrom("shop@example.com", address, "Subject: Welcome aboard\r\n\r\nthis one\r\n")
	if r := <-done; r.Status != 200 || r.JSON(t)["subject"] != "Welcome aboard" {
		t.Errorf("wait for a match: %d %s", r.Status, r.Body)
	}

	long := strings.Repeat("a", 257)
	for _, q := range []string{"from=" + long, "to=" + long, "subject=" + long} {
		if r := h.Do("GET", "/inboxes/"+token+"/messages/?"+q, ""); r.Status != 400 {
			t.Errorf("messages?%.20s...: %d %s", q, r.Status, r.Body)
		}
		if r := h.Do("GET", "/inboxes/"+token+"/latest/?"+q, ""); r.Status != 400 {
			t.Errorf("latest?%.20s...: %d %s", q, r.Status, r.Body)
		}
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
	h := shared.Harness(t)
	r := h.Do("POST", "/api/create-temp-email/", `{"email_name":"big"}`, "Content-Type", apitest.JSONType)
	h.Expect(r, 201, "")
	mailbox := r.JSON(t)["token"].(string)
	const n = 4
	for i := range n {
		h.SendMail("big@tempmail.test", bigBodies("big@tempmail.test", i))
	}
	eventually.True(t, "the messages readable", func() bool {
		return h.Do("GET", "/inboxes/"+mailbox+"/", "").JSON(t)["count"] == float64(n)
	})
	var page struct {
		Emails []struct {
			Filename, Subject, Body string
		}
		Total int
	}
	seen := map[string]bool{}
	for offset := 0; offset < n; offset += len(page.Emails) {
		r := h.Do("GET", "/api/mailstore/mailbox/big/?limit=200&offset="+strconv.Itoa(offset), "")
		if err := json.Unmarshal(r.Body, &page); err != nil || r.Status != 200 {
			t.Fatalf("offset %d: %d %v", offset, r.Status, err)
		}
		if page.Total != n || r.Header.Get("X-Total-Count") != strconv.Itoa(n) {
			t.Errorf("offset %d: total %d, X-Total-Count %s", offset, page.Total, r.Header.Get("X-Total-Count"))
		}
		if offset == 0 && (len(page.Emails) != 3 || len(r.Body) < api.PageBudget) {
			t.Errorf("first page: %d messages in %d bytes, want it to end after 3, past %d", len(page.Emails), len(r.Body), api.PageBudget)
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
	token := h.Do("POST", "/inboxes/", "").JSON(t)["token"].(string)
	h.SendMail(h.Do("GET", "/inboxes/"+token+"/", "").JSON(t)["address"].(string), bigBodies("x", 9))
	m := h.WaitLatest(token, "")
	if text, _ := m["text"].(string); len(text) < 250<<10 || m["html"] != text {
		t.Errorf("detail: text of %d bytes", len(text))
	}
	if r := h.Do("GET", fmt.Sprintf("/inboxes/%s/messages/?limit=200", token), ""); r.Status != http.StatusOK || r.Header.Get("X-Total-Count") != "1" {
		t.Errorf("family C list: %d %s", r.Status, r.Header.Get("X-Total-Count"))
	}
}
