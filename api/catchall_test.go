package api_test

import (
	"encoding/json"
	"net/url"
	"testing"

	"tempmail/config"
	"tempmail/service/apitest"
)

// An inbox a catch-all domain made is read by address only with the API
// token or its own (issue 29): anyone could guess signup-42@, and before,
// /address/latest/ answered them the whole message, and held ?wait= for
// the next. Without either, it is answered as no inbox at all, at once,
// even with wait; an inbox of another domain answers as before.
func TestCatchAllInboxReadByAddressOnlyWithAToken(t *testing.T) {
	t.Parallel()
	h := apitest.New(t, func(c *config.Config) {
		c.Domains = []string{"tempmail.test", "catch.test"}
		c.CatchAllDomains = []string{"catch.test"}
	})
	const addr = "signup-42@catch.test"
	h.SendMail(addr, "From: shop@example.com\r\nSubject: Your code\r\n\r\nYour code is 482913.\r\n")
	latest := "/address/latest/?address=" + url.QueryEscape(addr)
	withAPIToken := h.Do("GET", latest+"&wait=10", "", "Authorization", "Token "+apitest.TestToken)
	h.Expect(withAPIToken, 200, "")
	m := withAPIToken.JSON(t)
	if m["subject"] != "Your code" {
		t.Fatalf("with the API token: %s", withAPIToken.Body)
	}
	var found []struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal(h.Do("GET", "/api/inboxes/?email="+url.QueryEscape(addr), "", "Authorization", "Token "+apitest.TestToken).Body, &found); err != nil || len(found) != 1 {
		t.Fatalf("lookup: %v %v", found, err)
	}
	own := found[0].Token
	other, otherAddr := h.TokenInbox()

	notFound := `{"error":"Inbox not found"}`
	for _, headers := range map[string][]string{
		"no credentials":          nil,
		"a wrong token":           {"Authorization", "Token wrong"},
		"another inbox's token":   {"Authorization", "Token " + other},
		"the token in X-Read-Key": {"X-Read-Key", apitest.TestToken},
	} {
		h.Expect(h.Do("GET", latest, "", headers...), 404, notFound)
		// Nothing newer than its message: a held request would wait, and
		// then say "No messages". It is not held.
		h.Expect(h.Do("GET", latest+"&wait=30&after="+m["id"].(string), "", headers...), 404, notFound)
	}
	h.Expect(h.Do("GET", latest, "", "Authorization", "Token "+own), 200, "")
	// The API token is the admin's credential in Bearer too, as everywhere.
	h.Expect(h.Do("GET", latest, "", "Authorization", "Bearer "+apitest.TestToken), 200, "")
	h.Expect(h.Do("GET", latest+"&after="+m["id"].(string), "", "Authorization", "Token "+apitest.TestToken), 404, `{"error":"No messages"}`)

	// An inbox of a domain that is not catch-all: its address answers
	// anyone, as before.
	h.SendMail(otherAddr, "From: shop@example.com\r\nSubject: hello\r\n\r\nhi\r\n")
	h.Expect(h.Do("GET", "/address/latest/?wait=10&address="+url.QueryEscape(otherAddr), ""), 200, "")
}
