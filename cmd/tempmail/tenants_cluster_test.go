package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"tempmail/eventually"
	"tempmail/service/servicetest"
)

// TestTenantsHoldOnEveryNodeOfACluster: issue 32's claims for a cluster
// of three processes, each answering from its own caches. A key revoked
// through one node is refused (401) by every node, through every family
// and MCP, as soon as the revocation returns: read-your-writes, not
// eventually; a key past its expires_at is refused by every node. A
// domain added through one node takes mail on the others as soon as the
// addition returns, and a private one takes its tenant's inboxes there
// (another tenant's key is told it does not exist). One cluster for all
// of it: three processes on two cores, not parallel.
func TestTenantsHoldOnEveryNodeOfACluster(t *testing.T) {
	servicetest.Long(t)
	nodes := clusterNodes(t)
	for _, n := range nodes {
		n.args = append(n.args, "--api-token", adminToken, "--domains", "tempmail.test")
	}
	startCluster(t, nodes)
	c := tenantsCluster{t: t, nodes: nodes}
	t.Run("a revoked key is refused by every node at once", c.revocation)
	t.Run("an expired key is refused by every node", c.expiry)
	t.Run("a domain added at runtime takes mail on every node", c.domains)
}

// tenantsCluster is the cluster the scenarios of
// TestTenantsHoldOnEveryNodeOfACluster share, and what they say to it.
type tenantsCluster struct {
	t     *testing.T
	nodes []*clusterNode
}

// admin calls node n with the API token, the admin key, and decodes a
// JSON answer of status want into out (when out is not nil).
func (c tenantsCluster) admin(t *testing.T, n *clusterNode, method, path, body string, want int, out any) {
	t.Helper()
	code, b := call(t, method, n.base+path, body, "Authorization", "Token "+adminToken)
	if code != want {
		t.Fatalf("%s %s on %s: %d %s, want %d", method, path, n.name, code, b, want)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s on %s: %v: %s", method, path, n.name, err, b)
		}
	}
}

// tenant makes a tenant through n and returns its id.
func (c tenantsCluster) tenant(t *testing.T, n *clusterNode, name string) string {
	t.Helper()
	var tn struct{ ID string }
	c.admin(t, n, "POST", "/api/tenants/", fmt.Sprintf(`{"name":%q}`, name), http.StatusCreated, &tn)
	return tn.ID
}

// key makes a key of tenant through n (extra: more JSON fields, such as
// expires_at) and returns it and its id.
func (c tenantsCluster) key(t *testing.T, n *clusterNode, tenant, scopes, extra string) (key, id string) {
	t.Helper()
	var k struct{ ID, Key string }
	c.admin(t, n, "POST", "/api/tenants/"+tenant+"/keys/", `{"name":"ci","scopes":`+scopes+extra+`}`, http.StatusCreated, &k)
	return k.Key, k.ID
}

// keyRequest is one request a key makes, in one family or over MCP.
type keyRequest struct {
	what, method, path, body string
}

// keyRequests are a request of each family and of MCP, made with a key of
// the tenant whose inbox in is: each answers 200 while the key is live.
func keyRequests(in tokenInbox) []keyRequest {
	local, _, _ := strings.Cut(in.Address, "@")
	return []keyRequest{
		{"family A: the tenant's inboxes", "GET", "/api/inboxes/", ""},
		{"family C: the inbox by its token", "GET", "/inboxes/" + in.Token + "/", ""},
		{"family B: the mailbox", "GET", "/api/mailstore/mailbox/" + local, ""},
		{"MCP: tools/list", "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
	}
}

// asKey makes r through n with key in Authorization: Bearer.
func asKey(t *testing.T, n *clusterNode, key string, r keyRequest) (int, []byte) {
	t.Helper()
	return call(t, r.method, n.base+r.path, r.body, "Authorization", "Bearer "+key,
		"Accept", "application/json, text/event-stream")
}

// accepted checks that key is taken by every node, through every family:
// it also leaves in each node's caches whatever a read of the key puts
// there, which a revocation must not be hidden by.
func (c tenantsCluster) accepted(t *testing.T, key string, in tokenInbox) {
	t.Helper()
	for _, n := range c.nodes {
		for _, r := range keyRequests(in) {
			if code, b := asKey(t, n, key, r); code != http.StatusOK {
				t.Fatalf("%s on %s with a live key: %d %.300s", r.what, n.name, code, b)
			}
		}
	}
}

// refused reports the requests of key that some node does not refuse
// with 401, or nil when every node refuses every one.
func (c tenantsCluster) refused(t *testing.T, key string, in tokenInbox) error {
	t.Helper()
	var taken []string
	for _, n := range c.nodes {
		for _, r := range keyRequests(in) {
			if code, b := asKey(t, n, key, r); code != http.StatusUnauthorized {
				taken = append(taken, fmt.Sprintf("%s on %s: %d %.200s", r.what, n.name, code, b))
			}
		}
	}
	if taken != nil {
		return fmt.Errorf("not refused:\n%s", strings.Join(taken, "\n"))
	}
	return nil
}

// keyInbox makes a family C inbox with key through n.
func keyInbox(t *testing.T, n *clusterNode, key string) tokenInbox {
	t.Helper()
	code, b := call(t, "POST", n.base+"/inboxes/", "{}", "Authorization", "Bearer "+key)
	if code != http.StatusCreated {
		t.Fatalf("POST /inboxes/ on %s with a key: %d %s", n.name, code, b)
	}
	var in tokenInbox
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	return in
}

// revocation: the admin makes a tenant and a key through node 1, the key
// makes an inbox through node 2 and reads it through node 3 (and every
// node, every family, warming their caches); revoked through node 3, it
// is refused by all three the moment the revocation returns.
func (c tenantsCluster) revocation(t *testing.T) {
	n1, n2, n3 := c.nodes[0], c.nodes[1], c.nodes[2]
	key, id := c.key(t, n1, c.tenant(t, n1, "revoked"), `["inboxes"]`, "")
	in := keyInbox(t, n2, key)
	code, b := asKey(t, n3, key, keyRequest{"", "GET", "/api/inboxes/", ""})
	if code != http.StatusOK || !strings.Contains(string(b), in.Address) {
		t.Fatalf("the tenant's inboxes on node 3: %d %s, want %s among them", code, b, in.Address)
	}
	c.accepted(t, key, in)

	c.admin(t, n3, "DELETE", "/api/keys/"+id+"/", "", http.StatusNoContent, nil)
	// No waiting: once the revocation returned, every node refuses it.
	if err := c.refused(t, key, in); err != nil {
		t.Errorf("right after the revocation returned through node 3: %v", err)
	}
	// The token alone is still the capability it always was.
	if code, b := call(t, "GET", n1.base+"/inboxes/"+in.Token+"/", ""); code != http.StatusOK {
		t.Errorf("the inbox by its token alone after the revocation: %d %s", code, b)
	}
}

// expiry: a key whose expires_at is a few seconds away is taken by every
// node until then, and refused by every node after.
func (c tenantsCluster) expiry(t *testing.T) {
	n1, n2 := c.nodes[0], c.nodes[1]
	expires := time.Now().Add(4 * time.Second).UTC()
	key, _ := c.key(t, n1, c.tenant(t, n1, "expiring"), `["inboxes"]`,
		fmt.Sprintf(`,"expires_at":%q`, expires.Format(time.RFC3339Nano)))
	in := keyInbox(t, n2, key)
	for _, n := range c.nodes {
		for _, r := range keyRequests(in) {
			code, b := asKey(t, n, key, r)
			// A refusal that came before the expiry is wrong; on a slow
			// machine the expiry may come first.
			if code != http.StatusOK && time.Now().Before(expires) {
				t.Errorf("%s on %s before the key expired: %d %.200s", r.what, n.name, code, b)
			}
		}
	}
	eventually.Nil(t, "every node refuses the expired key", func() error {
		if time.Now().Before(expires) {
			return fmt.Errorf("the key expires at %s", expires)
		}
		return c.refused(t, key, in)
	})
}

// domains: a catch-all domain and a private one are added through node
// 1; at once, nodes 2 and 3 take mail to the first (making its inboxes)
// and the private domain's tenant makes an inbox there through node 3,
// which takes mail through nodes 2 and 3, while another tenant's key is
// told the domain does not exist. The mail is read through another node.
func (c tenantsCluster) domains(t *testing.T) {
	n1, n2, n3 := c.nodes[0], c.nodes[1], c.nodes[2]
	var open struct {
		ID       int
		Name     string
		CatchAll bool `json:"catch_all"`
	}
	c.admin(t, n1, "POST", "/api/domains/", `{"name":"open.example.test","catch_all":true}`, http.StatusCreated, &open)
	if open.Name != "open.example.test" || !open.CatchAll {
		t.Fatalf("the catch-all domain added: %+v", open)
	}
	for _, n := range []*clusterNode{n2, n3} {
		if err := servicetest.Mail(n.smtpAddr, "signup@open.example.test", "to "+n.name, "hello"); err != nil {
			t.Errorf("mail to the catch-all domain through %s right after it was added: %v", n.name, err)
		}
	}
	// The mail is there (the inbox the first made) through node 1.
	eventually.True(t, "both messages to the catch-all domain through node 1", func() bool {
		token := c.catchAllToken(t, n1, "signup@open.example.test")
		seen, err := subjects(n1.base, token)
		return token != "" && err == nil && seen["to n2"] == 1 && seen["to n3"] == 1
	})

	owner, other := c.tenant(t, n1, "shop"), c.tenant(t, n1, "other")
	ownerKey, _ := c.key(t, n1, owner, `["inboxes"]`, "")
	otherKey, _ := c.key(t, n1, other, `["inboxes"]`, "")
	var private struct{ ID int }
	c.admin(t, n1, "POST", "/api/domains/", fmt.Sprintf(`{"name":"shop.example.test","tenant_id":%q}`, owner), http.StatusCreated, &private)
	// At once, through node 3: the tenant's key makes an inbox there,
	// another tenant's is told there is no such domain.
	create := fmt.Sprintf(`{"domain_id":%d}`, private.ID)
	code, b := call(t, "POST", n3.base+"/api/inboxes/create_inbox/", create, "Authorization", "Bearer "+otherKey)
	if code != http.StatusNotFound {
		t.Errorf("another tenant's key makes an inbox on the private domain through node 3: %d %s, want 404", code, b)
	}
	code, b = call(t, "POST", n3.base+"/api/inboxes/create_inbox/", create, "Authorization", "Bearer "+ownerKey)
	var in struct {
		ID, Email string
		Token     string `json:"access_token"`
	}
	if code != http.StatusCreated || json.Unmarshal(b, &in) != nil || !strings.HasSuffix(in.Email, "@shop.example.test") {
		t.Fatalf("the tenant's key makes an inbox on its private domain through node 3 right after it was added: %d %s", code, b)
	}
	for _, n := range []*clusterNode{n2, n3} {
		if err := servicetest.Mail(n.smtpAddr, in.Email, "to "+n.name, "hello"); err != nil {
			t.Errorf("mail to the private domain's inbox through %s right after it was made: %v", n.name, err)
		}
	}
	eventually.True(t, "both messages to the private domain through node 1", func() bool {
		seen, err := subjects(n1.base, in.Token)
		return err == nil && seen["to n2"] == 1 && seen["to n3"] == 1
	})
	// Another tenant's key does not find the inbox either.
	if code, b := call(t, "GET", n2.base+"/inboxes/"+in.Token+"/", "", "Authorization", "Bearer "+otherKey); code != http.StatusNotFound {
		t.Errorf("the private domain's inbox with another tenant's key: %d %s, want 404", code, b)
	}
}

// catchAllToken finds the token of the inbox that holds address, as node
// n knows it, with the admin's lookup by address; "" while there is none.
func (c tenantsCluster) catchAllToken(t *testing.T, n *clusterNode, address string) string {
	t.Helper()
	code, b := call(t, "GET", n.base+"/api/inboxes/?email="+url.QueryEscape(address), "", "Authorization", "Token "+adminToken)
	var found []struct {
		Token string `json:"access_token"`
	}
	if code != http.StatusOK || json.Unmarshal(b, &found) != nil || len(found) != 1 {
		return ""
	}
	return found[0].Token
}
