package apitest

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/google/uuid"
)

// JSONType is the Content-Type of a JSON body.
const JSONType = "application/json"

// IsUUID reports whether id is a UUID in its canonical text form, as the
// service's ids are.
func IsUUID(id string) bool {
	u, err := uuid.Parse(id)
	return err == nil && u.String() == id
}

// CreateInboxA makes a family A inbox on domain 1 and returns its JSON.
func (h *Harness) CreateInboxA(body string) map[string]any {
	h.T.Helper()
	r := h.Do("POST", "/api/inboxes/create_inbox/", body, "Content-Type", JSONType)
	if r.Status != http.StatusCreated {
		h.T.Fatalf("create_inbox %s: %d %s", body, r.Status, r.Body)
	}
	return r.JSON(h.T)
}

// NewTenant makes a tenant named name with quota (JSON, "" for none) and
// returns its id.
func (h *Harness) NewTenant(name, quota string) string {
	h.T.Helper()
	body := `{"name":"` + name + `"}`
	if quota != "" {
		body = `{"name":"` + name + `","quota":` + quota + `}`
	}
	r := h.Do("POST", "/api/tenants/", body, Admin()...)
	if r.Status != http.StatusCreated {
		h.T.Fatalf("create tenant: %d %s", r.Status, r.Body)
	}
	return r.JSON(h.T)["id"].(string)
}

// NewKey makes a key of tenant with scopes (a JSON array) and returns the
// key and its id.
func (h *Harness) NewKey(tenant, scopes string) (key, id string) {
	h.T.Helper()
	r := h.Do("POST", "/api/tenants/"+tenant+"/keys/", `{"name":"k","scopes":`+scopes+`}`, Admin()...)
	if r.Status != http.StatusCreated {
		h.T.Fatalf("create key: %d %s", r.Status, r.Body)
	}
	v := r.JSON(h.T)
	return v["key"].(string), v["id"].(string)
}

// List is the messages of the family C inbox with token, as its list
// shows them.
func (h *Harness) List(token string) []map[string]any {
	h.T.Helper()
	r := h.Do("GET", "/inboxes/"+token+"/messages/", "")
	if r.Status != 200 {
		h.T.Fatalf("list: %d %s", r.Status, r.Body)
	}
	var out []map[string]any
	if err := json.Unmarshal(r.Body, &out); err != nil {
		h.T.Fatal(err)
	}
	return out
}

// Fill sends n messages to address, numbered 0..n-1 in their subjects
// ("m007"), the even ones from even@example.com and the odd ones from
// odd@example.com, every tenth to a Cc, and waits until all are listed.
func (h *Harness) Fill(token, address string, n int) {
	h.T.Helper()
	for i := range n {
		from := "odd@example.com"
		if i%2 == 0 {
			from = "even@example.com"
		}
		cc := ""
		if i%10 == 0 {
			cc = "Cc: Watcher <watcher@elsewhere.test>\r\n"
		}
		h.SendMailFrom(from, address, fmt.Sprintf("From: %s\r\nTo: %s\r\n%sSubject: m%03d\r\n\r\nbody %d\r\n", from, address, cc, i, i))
	}
	r := h.Do("GET", "/inboxes/"+token+"/latest/?wait=30&subject="+fmt.Sprintf("m%03d", n-1), "")
	if r.Status != 200 {
		h.T.Fatalf("message %d not listed: %d %s", n-1, r.Status, r.Body)
	}
}

// Admin is the headers of a request with the API token and a JSON body:
// an operator's, as the tenants' and domains' endpoints need.
func Admin() []string {
	return []string{"Authorization", "Token " + TestToken, "Content-Type", JSONType}
}
