package api_test

import (
	"net/http"
	"strings"
	"tempmail/service/apitest"
	"testing"
)

// TestHEADAnswersWhereverGETDoes: RFC 9110 §9.1 asks for HEAD wherever GET
// is served. It answers GET's status and headers with no body, on the
// page, the probes, the document and every family; an event stream's HEAD
// ends after its headers instead of holding the stream open.
func TestHEADAnswersWhereverGETDoes(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	b := h.Do("POST", "/api/create-temp-email/", `{"email_name":"heads"}`, "Content-Type", apitest.JSONType)
	h.Expect(b, http.StatusCreated, "")
	token, addr, inboxID := b.JSON(t)["token"].(string), b.JSON(t)["email"].(string), b.JSON(t)["inbox_id"].(string)
	h.SendMail(addr, "From: a@example.com\r\nSubject: head\r\n\r\nbody\r\n")
	id := h.WaitLatest(token, "")["id"].(string)

	for _, path := range []string{
		"/", "/livez", "/readyz", "/healthz", "/openapi.json", "/ui/config.json",
		"/api/domains/", "/api/inboxes/" + inboxID + "/", "/api/emails/" + id + "/raw/",
		"/api/mailstore/mailbox/heads/", "/api/mailstore/mailbox/heads/" + id + ".eml/",
		"/inboxes/" + token + "/", "/inboxes/" + token + "/messages/", "/inboxes/" + token + "/latest/",
		"/inboxes/nosuchtoken/", "/api/inboxes/01a2078d-d682-79b3-ad9e-f71739d913ca/",
	} {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			h := h.As(t)
			get, head := h.Do("GET", path, ""), h.Do("HEAD", path, "")
			if head.Status != get.Status || len(head.Body) != 0 {
				t.Errorf("HEAD: %d with %d bytes; GET: %d", head.Status, len(head.Body), get.Status)
			}
			for _, name := range []string{"Content-Type", "Content-Length", "Cache-Control", "X-Total-Count", "Content-Disposition"} {
				if got, want := head.Header.Get(name), get.Header.Get(name); got != want {
					t.Errorf("%s: HEAD %q, GET %q", name, got, want)
				}
			}
		})
	}
	for _, path := range []string{"/inboxes/" + token + "/events/", "/api/inboxes/" + inboxID + "/events/"} {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			r := h.As(t).Do("HEAD", path, "") // within the client's timeout, not after the stream's 30 minutes
			if r.Status != 200 || r.Header.Get("Content-Type") != "text/event-stream" || len(r.Body) != 0 {
				t.Errorf("HEAD of an event stream: %d %q, %d bytes", r.Status, r.Header.Get("Content-Type"), len(r.Body))
			}
		})
	}
}

// TestAllowListsTheMethodsAPathServes: a 405 carries Allow (RFC 9110
// §15.5.6), and Allow lists exactly what the path serves, HEAD with GET and
// OPTIONS with any; OPTIONS itself answers 204 with it. The create paths
// are served with POST alone: family A's create_inbox sits where an
// inbox's id would, and GET there is 405, not an inbox that is not found.
func TestAllowListsTheMethodsAPathServes(t *testing.T) {
	t.Parallel()
	h := shared.Harness(t)
	token, _ := h.TokenInbox()
	const get, post = "GET, HEAD, OPTIONS", "POST, OPTIONS"
	for _, c := range []struct{ path, allow, method string }{
		{"/", get, "POST"},
		{"/livez", get, "DELETE"},
		{"/readyz/", get, "PUT"},
		{"/openapi.json", get, "POST"},
		{"/metrics", get, "POST"},
		{"/inboxes/", post, "GET"},
		{"/inboxes", post, "HEAD"},
		{"/api/inboxes/create_inbox/", post, "GET"},
		{"/api/inboxes/create_inbox", post, "DELETE"},
		{"/api/create-temp-email/", post, "GET"},
		{"/api/domains/", "GET, HEAD, POST, OPTIONS", "DELETE"},
		{"/api/inboxes/01a2078d-d682-79b3-ad9e-f71739d913ca/", "GET, HEAD, DELETE, OPTIONS", "POST"},
		{"/api/webhooks/", "GET, HEAD, POST, OPTIONS", "DELETE"},
		{"/api/mailstore/mailbox/someone/x.eml/", "GET, HEAD, POST, OPTIONS", "PUT"},
		{"/api/mailstore/mailbox/someone/x.eml/delete/", "DELETE, OPTIONS", "GET"},
		{"/inboxes/" + token + "/", "GET, HEAD, DELETE, OPTIONS", "PATCH"},
		{"/inboxes/" + token + "/webhooks/", "GET, HEAD, POST, OPTIONS", "PUT"},
		{"/address/latest/", get, "POST"},
	} {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			t.Parallel()
			h := h.As(t)
			r := h.Do(c.method, c.path, "")
			if r.Status != http.StatusMethodNotAllowed || r.Header.Get("Allow") != c.allow {
				t.Errorf("%d, Allow %q; want 405, Allow %q", r.Status, r.Header.Get("Allow"), c.allow)
			}
			if c.method == "HEAD" && len(r.Body) != 0 {
				t.Errorf("a HEAD answered with %d bytes of body", len(r.Body))
			}
			if c.method != "HEAD" && !strings.Contains(string(r.Body), `not allowed.`) {
				t.Errorf("body %s", r.Body)
			}
			r = h.Do("OPTIONS", c.path, "")
			if r.Status != http.StatusNoContent || r.Header.Get("Allow") != c.allow || len(r.Body) != 0 {
				t.Errorf("OPTIONS: %d, Allow %q, %d bytes; want 204, Allow %q", r.Status, r.Header.Get("Allow"), len(r.Body), c.allow)
			}
		})
	}
	t.Run("OPTIONS of a path not served", func(t *testing.T) {
		t.Parallel()
		if r := h.As(t).Do("OPTIONS", "/nowhere/", ""); r.Status != http.StatusNotFound || r.Header.Get("Allow") != "" {
			t.Errorf("%d, Allow %q", r.Status, r.Header.Get("Allow"))
		}
	})
}
