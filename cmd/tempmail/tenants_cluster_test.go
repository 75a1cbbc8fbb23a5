package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/smtp"
	"net/url"
	"strings"
	"syscall"
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
// (another tenant's key is told it does not exist). A node's watcher is
// milliseconds behind, less than a test's next request: so the same is
// asked again of a node stopped through the changes, whose watcher is
// behind when it runs again (a read of a stale cache is seen there). One
// cluster for all of it: three processes on two cores, not parallel.
func TestTenantsHoldOnEveryNodeOfACluster(t *testing.T) {
	servicetest.Long(t)
	nodes := clusterNodes(t)
	for _, n := range nodes {
		n.args = append(n.args, "--api-token", adminToken, "--domains", "tempmail.test")
	}
	startCluster(t, nodes)
	c := tenantsCluster{nodes: nodes}
	t.Run("a revoked key is refused by every node at once", c.revocation)
	t.Run("a node paused through a revocation and a domain's addition has them once it runs", c.paused)
	t.Run("an expired key is refused by every node", c.expiry)
	t.Run("a domain added at runtime takes mail on every node", c.domains)
	t.Run("fault rules act on every node at once", c.faults)
}

// faults: the admin's pause, made through one node, refuses the next
// connection to every node (a 421 in place of the greeting), and its
// deletion through another lets the next one in everywhere; an inbox's
// rule made through one node refuses its next delivery through each of
// the others (once their views have it), once each.
func (c tenantsCluster) faults(t *testing.T) {
	var rule struct{ ID string }
	c.admin(t, c.nodes[0], "POST", "/api/faults/", `{"command": "CONNECT", "reply": "421 4.3.2 paused"}`, http.StatusCreated, &rule)
	for _, n := range c.nodes {
		if _, err := smtp.Dial(n.smtpAddr); err == nil || !strings.Contains(err.Error(), "4.3.2 paused") {
			t.Errorf("a connection to %s after the pause: %v", n.name, err)
		}
	}
	c.admin(t, c.nodes[2], "DELETE", "/api/faults/"+rule.ID+"/", "", http.StatusNoContent, nil)
	for _, n := range c.nodes {
		cl, err := smtp.Dial(n.smtpAddr)
		if err != nil {
			t.Errorf("a connection to %s after the pause ended: %v", n.name, err)
			continue
		}
		cl.Close()
	}
	code, b := call(t, "POST", c.nodes[0].base+"/inboxes/", "")
	var in struct{ Token, Address string }
	if code != http.StatusCreated || json.Unmarshal(b, &in) != nil {
		t.Fatalf("inbox: %d %s", code, b)
	}
	code, b = call(t, "POST", c.nodes[0].base+"/inboxes/"+in.Token+"/faults/", `{"command": "RCPT", "reply": "451 4.7.1 try again later", "times": 2}`)
	if code != http.StatusCreated {
		t.Fatalf("rule: %d %s", code, b)
	}
	for _, n := range c.nodes[1:] {
		// An inbox's rule is in its entry, which each node's views have
		// milliseconds after the POST (the service's rules are checked
		// against the log at each connection; an inbox's are not, or
		// every delivery would pay a read of the log).
		eventually.True(t, "the rule in "+n.name+"'s views", func() bool {
			_, b := call(t, "GET", n.base+"/inboxes/"+in.Token+"/faults/", "")
			return strings.Contains(string(b), "try again later")
		})
		if err := servicetest.Mail(n.smtpAddr, in.Address, "through "+n.name, "hello"); err == nil || !strings.Contains(err.Error(), "4.7.1 try again later") {
			t.Errorf("a delivery through %s: %v; want the rule's 451", n.name, err)
		}
	}
	if err := servicetest.Mail(c.nodes[0].smtpAddr, in.Address, "through n1", "hello"); err != nil {
		t.Errorf("the third delivery, after the rule's two: %v", err)
	}
}

// tenantsCluster is the cluster the scenarios of
// TestTenantsHoldOnEveryNodeOfACluster share, and what they say to it.
type tenantsCluster struct {
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

// pause stops node n (SIGSTOP), with the leaders of the events and the
// views on node 1 (a stopped leader would stall every write until another
// is elected), and returns what makes it run again (SIGCONT), once.
func (c tenantsCluster) pause(t *testing.T, n *clusterNode) (resume func()) {
	t.Helper()
	leadEverything(t, c.nodes[0], c.nodes[0])
	if err := n.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resumed := false
	return func() {
		if !resumed {
			resumed = true
			if err := n.cmd.Process.Signal(syscall.SIGCONT); err != nil {
				t.Fatal(err)
			}
		}
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
	// At once, through nodes 2 and 3, the tenant sees it listed, and the
	// admin among the tenant's.
	for _, n := range []*clusterNode{n2, n3} {
		for _, auth := range []string{"Token " + adminToken, "Bearer " + ownerKey} {
			if code, b := call(t, "GET", n.base+"/api/domains/?tenant="+owner, "", "Authorization", auth); code != http.StatusOK || !strings.Contains(string(b), `"shop.example.test"`) {
				t.Errorf("GET /api/domains/ through %s (%s) right after the domain was added: %d %s", n.name, auth[:5], code, b)
			}
		}
	}
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

// paused: node 2 is stopped (SIGSTOP) while a key is revoked through node
// 3 and a private catch-all domain is added through node 1, and stays
// stopped until another key of the tenant has expired: seconds, for what
// its watcher missed to be still on its way when it runs again, and
// fewer than a partition's pin lasts (5 s), for the partitions it
// projects not to be handed over. Its first answers then refuse the
// revoked key, make the tenant's inbox on the domain and take mail to
// it: what a node answers must not wait on its watcher catching up.
func (c tenantsCluster) paused(t *testing.T) {
	n1, n2, n3 := c.nodes[0], c.nodes[1], c.nodes[2]
	tenant := c.tenant(t, n1, "paused")
	revoked, id := c.key(t, n1, tenant, `["inboxes"]`, "")
	key, _ := c.key(t, n1, tenant, `["inboxes"]`, "")
	expires := time.Now().Add(4 * time.Second).UTC()
	expiring, _ := c.key(t, n1, tenant, `["read"]`, fmt.Sprintf(`,"expires_at":%q`, expires.Format(time.RFC3339Nano)))
	in := keyInbox(t, n2, revoked)
	c.accepted(t, revoked, in)
	// Node 2 has read the domains, and keeps them.
	if code, b := call(t, "GET", n2.base+"/api/domains/", "", "Authorization", "Bearer "+key); code != http.StatusOK {
		t.Fatalf("GET /api/domains/ on node 2: %d %s", code, b)
	}

	resume := c.pause(t, n2)
	defer resume()
	// While node 2 is stopped, the key is revoked through node 3 and the
	// domain added through node 1. Neither need return before node 2 runs
	// again: it may be the one that projects their partition, which is
	// taken over only after its pin and the ack wait.
	const name = "paused.example.test"
	revocation, addition := make(chan answer, 1), make(chan answer, 1)
	go func() {
		revocation <- tryCall("DELETE", n3.base+"/api/keys/"+id+"/", "", "Authorization", "Token "+adminToken)
	}()
	go func() {
		addition <- tryCall("POST", n1.base+"/api/domains/", fmt.Sprintf(`{"name":%q,"tenant_id":%q,"catch_all":true}`, name, tenant),
			"Authorization", "Token "+adminToken)
	}()
	// Node 2 stays stopped for seconds, until the other key has expired.
	r := keyRequests(in)[0]
	eventually.True(t, "node 1 refuses the expired key", func() bool {
		code, _ := asKey(t, n1, expiring, r)
		return time.Now().After(expires) && code == http.StatusUnauthorized
	})
	resume()
	// Answered 503, a change is stored but not yet applied: it is, once
	// node 1 shows it.
	if a := <-revocation; a.code == http.StatusServiceUnavailable {
		failover(t, "node 1 refuses the revoked key", func() bool {
			code, _ := asKey(t, n1, revoked, r)
			return code == http.StatusUnauthorized
		})
	} else if a.code != http.StatusNoContent {
		t.Fatalf("DELETE /api/keys/%s/ on node 3 with node 2 stopped: %d %s %v", id, a.code, a.body, a.err)
	}
	domain := 0
	if a := <-addition; a.code == http.StatusServiceUnavailable {
		failover(t, "node 1 lists the domain", func() bool {
			code, b := call(t, "GET", n1.base+"/api/domains/", "", "Authorization", "Token "+adminToken)
			var list []struct {
				ID   int
				Name string
			}
			if code != http.StatusOK || json.Unmarshal(b, &list) != nil {
				return false
			}
			for _, d := range list {
				if d.Name == name {
					domain = d.ID
				}
			}
			return domain != 0
		})
	} else {
		var added struct{ ID int }
		if a.code != http.StatusCreated || json.Unmarshal(a.body, &added) != nil {
			t.Fatalf("POST /api/domains/ on node 1 with node 2 stopped: %d %s %v", a.code, a.body, a.err)
		}
		domain = added.ID
	}

	// Node 2 may not reach the views at first (503, or a 4xx reply over
	// SMTP: nothing is taken, nothing refused for good); its first answer
	// is the one every node gives.
	first := func(what string, try func() (again, err error)) {
		t.Helper()
		var last error
		err := eventually.Poll(45*time.Second, func() error {
			again, err := try()
			if err != nil {
				t.Errorf("%s as it runs again: %v", what, err)
			}
			last = again
			return again
		})
		if err != nil {
			for _, l := range n2.logged() {
				if strings.Contains(l, "level=WARN") || strings.Contains(l, "level=ERROR") {
					t.Logf("n2: %s", l)
				}
			}
			t.Fatalf("waited 45s for %s; the last answer: %v", what, last)
		}
	}
	first("node 2 refuses the revoked key", func() (error, error) {
		code, b := asKey(t, n2, revoked, r)
		if code == http.StatusServiceUnavailable {
			return fmt.Errorf("%d %s", code, b), nil
		}
		if code != http.StatusUnauthorized {
			return nil, fmt.Errorf("%s: %d %.200s, want 401", r.what, code, b)
		}
		return nil, nil
	})
	first("node 2 makes the tenant's inbox on the new domain", func() (error, error) {
		code, b := call(t, "POST", n2.base+"/api/inboxes/create_inbox/", fmt.Sprintf(`{"domain_id":%d}`, domain),
			"Authorization", "Bearer "+key)
		if code == http.StatusServiceUnavailable {
			return fmt.Errorf("%d %s", code, b), nil
		}
		if code != http.StatusCreated {
			return nil, fmt.Errorf("%d %s, want 201", code, b)
		}
		return nil, nil
	})
	first("node 2 takes mail to the new domain", func() (error, error) {
		err := servicetest.Mail(n2.smtpAddr, "order@"+name, "paused", "hello")
		if err != nil && strings.HasPrefix(err.Error(), "4") {
			return err, nil
		}
		return nil, err
	})
}

// answer is what a request made off the test's goroutine got.
type answer struct {
	code int
	body []byte
	err  error
}

// tryCall is call for a goroutine of its own: it returns what went wrong
// instead of failing the test.
func tryCall(method, url, body string, headers ...string) answer {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return answer{err: err}
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := servicetest.Client.Do(req)
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, b, err}
}
