package mailslurp_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// What getEmailHTMLQuery's selectors find, and how getAllInboxes pages;
// and every new call's bad values (the longest and strangest ids, pages
// out of bounds, selectors it does not take): 400 in the family's shape,
// never a 500; well-formed ids of nothing: 404.
func TestMailSlurpReadsAndPages(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	key, _ := h.NewKey(h.NewTenant("pages", ""), `["inboxes"]`)
	as := mailslurpKey(key)
	var ids []string
	for range 3 {
		id, _ := mailslurpInbox(h, key, "")
		ids = append(ids, id)
	}
	id, addr := mailslurpInbox(h, key, "")
	ids = append(ids, id)
	h.Expect(h.Do("GET", mailslurp+"/emails/latestIn?inboxId="+id, "", as...), http.StatusNotFound, "")
	h.SendMail(addr, "From: shop@example.com\r\nTo: "+addr+"\r\nSubject: links\r\nContent-Type: text/html\r\n\r\n"+
		`<div id="main" class="Box wide"><p>Hello <b>you</b></p><a href="https://shop.example/v?t=1" data-x="Go">Verify</a>`+
		`<p class="code">482913</p><script>var x = "no";</script></div><p> </p>`+"\r\n")
	r := h.Do("GET", mailslurp+"/waitForLatestEmail?inboxId="+id+"&timeout=10000", "", as...)
	h.Expect(r, http.StatusOK, "")
	emailID := r.JSON(t)["id"].(string)
	e := mailslurp + "/emails/" + emailID
	for sel, want := range map[string]string{
		"p":                         "[Hello you 482913]",
		"div#main > a[href^=https]": "[Verify]",
		".CODE, b":                  "[you 482913]",
		"div.box.wide p":            "[Hello you 482913]",
		`a[data-x="go"]`:            "[Verify]",
		"*[href*='shop.example']":   "[Verify]",
		"body > p":                  "[]",
		"div":                       "[Hello you Verify 482913]",
	} {
		if r := h.Do("GET", e+"/htmlQuery?htmlSelector="+url.QueryEscape(sel), "", as...); fmt.Sprint(r.JSON(t)["lines"]) != want {
			t.Errorf("htmlQuery %q: %d %s, want %s", sel, r.Status, r.Body, want)
		}
	}

	// Pages of the tenant's four inboxes: oldest first, or newest.
	page := func(query string) (content []string, v map[string]any) {
		t.Helper()
		r := h.Do("GET", mailslurp+"/inboxes/paginated?"+query, "", as...)
		h.Expect(r, http.StatusOK, "")
		v = r.JSON(t)
		for _, in := range v["content"].([]any) {
			content = append(content, in.(map[string]any)["id"].(string))
		}
		return content, v
	}
	if got, v := page("size=3"); !slices.Equal(got, ids[:3]) || v["totalElements"] != float64(4) || v["totalPages"] != float64(2) ||
		v["first"] != true || v["last"] != false || v["numberOfElements"] != float64(3) {
		t.Errorf("page 0: %v %v", got, v)
	}
	if got, v := page("size=3&page=1"); !slices.Equal(got, ids[3:]) || v["last"] != true || v["number"] != float64(1) {
		t.Errorf("page 1: %v %v", got, v)
	}
	if got, v := page("size=3&page=9"); got != nil || v["empty"] != true || v["totalElements"] != float64(4) {
		t.Errorf("page 9: %v %v", got, v)
	}
	if got, _ := page("size=1&sort=DESC"); !slices.Equal(got, ids[3:]) {
		t.Errorf("DESC: %v", got)
	}
	if got, _ := page("search=" + strings.ToUpper(addr[:6])); !slices.Equal(got, ids[3:]) {
		t.Errorf("search: %v", got)
	}
	for _, none := range []string{"favourite=true", "tag=x", "inboxType=SMTP_INBOX", "inboxFunction=ALIAS",
		"since=2999-01-01T00:00:00.000Z", "domainId=0190f0f0-0000-7000-8000-000000000000"} {
		if got, _ := page(none); got != nil {
			t.Errorf("%s: %v", none, got)
		}
	}
	h.Expect(h.Do("GET", mailslurp+"/inboxes/"+id+"/emails/count", "", as...), http.StatusOK, `{"totalElements":1}`)
	h.Expect(h.Do("GET", mailslurp+"/inboxes/byEmailAddress?emailAddress=no-one@tempmail.test", "", as...), http.StatusOK,
		`{"inboxId":null,"exists":false}`)

	long := strings.Repeat("a", 300)
	for _, p := range []string{
		e + "/htmlQuery",
		e + "/htmlQuery?htmlSelector=" + url.QueryEscape("p:first-child"),
		e + "/htmlQuery?htmlSelector=" + url.QueryEscape("p + p"),
		e + "/htmlQuery?htmlSelector=" + url.QueryEscape("[href="),
		e + "/htmlQuery?htmlSelector=" + url.QueryEscape("a[href='x]"),
		e + "/htmlQuery?htmlSelector=" + url.QueryEscape("p\x00"),
		e + "/htmlQuery?htmlSelector=" + url.QueryEscape(strings.Repeat("p ", 40)),
		e + "/htmlQuery?htmlSelector=" + url.QueryEscape(strings.Repeat("p,", 9)+"p"),
		e + "/htmlQuery?htmlSelector=" + long,
		e + "/html?replaceCidImages=maybe",
		e + "/attachments/" + long,
		e + "/attachments/" + url.PathEscape("<script>") + "/base64",
		mailslurp + "/attachments/" + url.PathEscape("é-1") + "/metadata",
		mailslurp + "/attachments/" + strings.Repeat("f", 42) + "/bytes",
		mailslurp + "/attachments/" + emailID + "-1%0A",
		mailslurp + "/emails/abc/html",
		mailslurp + "/emails/" + emailID + "0/raw",
		mailslurp + "/emails/latestIn",
		mailslurp + "/emails/latestIn?inboxId=" + long,
		mailslurp + "/emails/latestIn?inboxId=" + url.QueryEscape("../"+id),
		mailslurp + "/inboxes/paginated?page=-1",
		mailslurp + "/inboxes/paginated?page=10001",
		mailslurp + "/inboxes/paginated?page=99999999999999999999",
		mailslurp + "/inboxes/paginated?size=0",
		mailslurp + "/inboxes/paginated?size=201",
		mailslurp + "/inboxes/paginated?sort=UP",
		mailslurp + "/inboxes/paginated?search=" + long,
		mailslurp + "/inboxes/paginated?search=%01",
		mailslurp + "/inboxes/paginated?inboxType=OTHER",
		mailslurp + "/inboxes/paginated?inboxFunction=x",
		mailslurp + "/inboxes/paginated?domainId=nope",
		mailslurp + "/inboxes/paginated?since=yesterday",
		mailslurp + "/inboxes/" + id + "/emails/paginated?size=1000",
		mailslurp + "/inboxes/" + id + "/emails/paginated?before=x",
		mailslurp + "/inboxes/" + id + "/emails/paginated?syncConnectors=1",
		mailslurp + "/inboxes/" + id[:35] + "/emails/count",
		mailslurp + "/inboxes/byEmailAddress",
		mailslurp + "/inboxes/byEmailAddress?emailAddress=" + strings.Repeat("a", 400) + "@x.test",
		mailslurp + "/inboxes/byEmailAddress?emailAddress=no-at-sign",
		mailslurp + "/inboxes/byEmailAddress?emailAddress=a%0D%0Ab@x.test",
	} {
		r := h.Do("GET", p, "", as...)
		if v := r.JSON(t); r.Status != http.StatusBadRequest || v["status"] != float64(400) || v["error"] != "Bad Request" || v["message"] == "" {
			t.Errorf("GET %.120s: %d %.300s, want 400", p, r.Status, r.Body)
		}
	}
	h.Expect(h.Do("PATCH", e+"/read?read=false", "", as...), http.StatusBadRequest,
		`{"status":400,"error":"Bad Request","message":"read=false is not supported: tempmail keeps an email read once it is"}`)
	h.Expect(h.Do("PATCH", e+"/read?read=maybe", "", as...), http.StatusBadRequest, "")
	for _, p := range []string{
		e + "/attachments/" + emailID + "-1",
		mailslurp + "/attachments/" + emailID + "-1/metadata",
		mailslurp + "/attachments/0190f0f0-0000-7000-8000-000000000000-1/base64",
		mailslurp + "/emails/0190f0f0-0000-7000-8000-000000000000/html",
		mailslurp + "/inboxes/0190f0f0-0000-7000-8000-000000000000/emails/paginated",
	} {
		h.Expect(h.Do("GET", p, "", as...), http.StatusNotFound, "")
	}
}
