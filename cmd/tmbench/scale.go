package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/smtp"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"tempmail/broker"
	"tempmail/command"
	"tempmail/events"
)

// Views that do not grow with use (issue 38): what an operation costs the
// service, in CPU, with few things and with very many, in the same run.
// Each entry a read or a write touches has a bounded size, so the ratios
// are about 1; a list kept in one entry made them grow with the list (an
// RCPT to an unknown domain cost 100 times more with 1,600 domains than
// with 3).

// op is one operation measured: what it is, and a run of it.
type op struct {
	name string
	run  func(i int) error
}

// side is a service and the ops measured on it.
type side struct {
	s   *service
	ops []op
}

// sideBySide measures the services' CPU for n runs of each op of small
// and of large, in rounds that take turns (a tenth of the runs of one,
// then of the other), so that whatever else the machine does weighs on
// both alike; each op first runs a few times to warm the caches. It
// returns the CPU per run, by op, for each.
func sideBySide(small, large side, n int) (map[string]time.Duration, map[string]time.Duration) {
	const rounds = 10
	cost := func(sd side, k, from, to int) time.Duration {
		before := procCPU(sd.s.cmd.Process.Pid)
		for i := from; i < to; i++ {
			if err := sd.ops[k].run(i); err != nil {
				panic(fmt.Sprintf("%s %d: %v", sd.ops[k].name, i, err))
			}
		}
		return procCPU(sd.s.cmd.Process.Pid) - before
	}
	outSmall, outLarge := map[string]time.Duration{}, map[string]time.Duration{}
	for k := range small.ops {
		for _, sd := range []side{small, large} {
			for i := range 20 {
				_ = sd.ops[k].run(-1 - i)
			}
		}
		var cs, cl time.Duration
		for r := range rounds {
			from, to := r*n/rounds, (r+1)*n/rounds
			cs += cost(small, k, from, to)
			cl += cost(large, k, from, to)
		}
		outSmall[small.ops[k].name] = cs / time.Duration(n)
		outLarge[small.ops[k].name] = cl / time.Duration(n)
	}
	return outSmall, outLarge
}

// compare adds a row per op: its cost at the large size against the small.
func (b *bench) compare(what string, small, large map[string]time.Duration, ops []op) {
	for _, o := range ops {
		ratio := float64(large[o.name]) / float64(max(small[o.name], 1))
		fmt.Printf("  %s: %v at the small size, %v at the large\n", o.name, small[o.name].Round(time.Microsecond), large[o.name].Round(time.Microsecond))
		b.add(fmt.Sprintf("%s: %s flat within 20%%", what, o.name), fmt.Sprintf("%v, %v", small[o.name].Round(time.Microsecond),
			large[o.name].Round(time.Microsecond)), fmt.Sprintf("%.2f×", ratio), ratio <= 1.2)
	}
}

// call makes a request with the API token or a key and reads the status.
func (s *service) call(method, path, body, auth string) (int, []byte, error) {
	req, err := http.NewRequest(method, "http://"+s.http+path, strings.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// expect is call that wants status, and decodes the answer into out.
func (s *service) expect(status int, method, path, body, auth string, out any) error {
	code, b, err := s.call(method, path, body, auth)
	if err != nil {
		return err
	}
	if code != status {
		return fmt.Errorf("%s %s: %d %s", method, path, code, b)
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// unknownDomainOps are what the issue measured growing with the domain
// list: an RCPT to a domain not served (on one SMTP connection), a keyless
// lookup of a domain id (mail.tm's), and a family C creation on a domain
// not served.
func unknownDomainOps(s *service) ([]op, func()) {
	c, err := smtp.Dial(s.smt)
	if err != nil {
		panic(err)
	}
	if err := c.Mail("bench@example.com"); err != nil {
		panic(err)
	}
	return []op{
		{"RCPT to an unknown domain", func(i int) error {
			if err := c.Rcpt(fmt.Sprintf("x@nope-%d.example", i)); err == nil || !strings.Contains(err.Error(), "550") {
				return fmt.Errorf("want 550, got %v", err)
			}
			return nil
		}},
		{"keyless domain lookup", func(i int) error {
			return s.expect(http.StatusNotFound, "GET", "/compat/mailtm/domains/99999", "", "", nil)
		}},
		{"create on an unknown domain", func(i int) error {
			return s.expect(http.StatusBadRequest, "POST", "/inboxes/", fmt.Sprintf(`{"domain":"nope-%d.example"}`, i), "", nil)
		}},
	}, func() { c.Close() }
}

// domains: the costs of unknownDomainOps with the 3 configured domains,
// and with 100,000 more (a thousand tenants of a hundred private domains
// each, added through the API): two services, measured side by side.
func (b *bench) domains() {
	tenants, each := b.scale(1000, 100), 100
	fmt.Printf("\n[11a] domains: costs with 3 domains and with %d\n", tenants*each)
	few := b.startService("", "", "--api-token", benchToken, "--domains", "tempmail.test,b.test,c.test")
	defer few.remove()
	defer few.stop()
	s := b.startService("", "", "--api-token", benchToken, "--domains", "tempmail.test,b.test,c.test")
	defer s.remove()
	defer s.stop()

	start := time.Now()
	admin := "Token " + benchToken
	ids := make([]string, tenants)
	for i := range ids {
		var t struct{ ID string }
		if err := s.expect(http.StatusCreated, "POST", "/api/tenants/", fmt.Sprintf(`{"name":"t%d"}`, i), admin, &t); err != nil {
			panic(err)
		}
		ids[i] = t.ID
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for {
				k := int(next.Add(1)) - 1
				if k >= tenants*each {
					return
				}
				body := fmt.Sprintf(`{"name":"d%d.t%d.example","tenant_id":%q,"catch_all":true}`, k/tenants, k%tenants, ids[k%tenants])
				if err := s.expect(http.StatusCreated, "POST", "/api/domains/", body, admin, nil); err != nil {
					panic(err)
				}
			}
		})
	}
	wg.Wait()
	fmt.Printf("  %d domains added in %v (%.0f a second, through the API)\n", tenants*each, time.Since(start).Round(time.Second),
		float64(tenants*each)/time.Since(start).Seconds())
	// The SMTP sessions open now: one idle through the additions would
	// have timed out.
	opsFew, doneFew := unknownDomainOps(few)
	defer doneFew()
	ops, done := unknownDomainOps(s)
	defer done()
	small, large := sideBySide(side{few, opsFew}, side{s, ops}, b.scale(3000, 500))
	b.compare(fmt.Sprintf("3 to %d domains", tenants*each+3), small, large, ops)
}

// tenantOps are what a tenant's key does with its inboxes: make one, read
// its usage, list the first page, delete one (of those it made).
func tenantOps(s *service, key string) []op {
	auth := "Bearer " + key
	var mu sync.Mutex
	var made []string
	return []op{
		{"make an inbox", func(int) error {
			var in struct{ Token string }
			if err := s.expect(http.StatusCreated, "POST", "/inboxes/", "", auth, &in); err != nil {
				return err
			}
			mu.Lock()
			made = append(made, in.Token)
			mu.Unlock()
			return nil
		}},
		{"read its usage", func(int) error { return s.expect(http.StatusOK, "GET", "/api/usage/", "", auth, nil) }},
		{"list its first page", func(int) error { return s.expect(http.StatusOK, "GET", "/api/inboxes/?limit=50", "", auth, nil) }},
		{"delete an inbox", func(int) error {
			mu.Lock()
			token := made[len(made)-1]
			made = made[:len(made)-1]
			mu.Unlock()
			return s.expect(http.StatusNoContent, "DELETE", "/inboxes/"+token+"/", "", auth, nil)
		}},
	}
}

// bigTenant: what a tenant's key does, for a tenant of 10 inboxes and one
// of 1,000,000, in one service. The large tenant's inboxes are written
// into the log beforehand (as the API would, a claim and an inbox each),
// which the service then applies to its views as it starts.
func (b *bench) bigTenant() {
	size := b.scale(1_000_000, 20_000)
	fmt.Printf("\n[11b] a tenant of 10 inboxes and one of %d\n", size)
	dir, key, took, err := generateTenant(size)
	if err != nil {
		panic(err)
	}
	fmt.Printf("  %d inboxes of one tenant written to the log in %v\n", size, took.Round(time.Second))
	start := time.Now()
	if out, err := exec.Command(b.bin, "rebuild", "--data-dir", dir).CombinedOutput(); err != nil {
		panic(fmt.Sprintf("rebuild: %v\n%s", err, out))
	}
	fmt.Printf("  the views built from them in %v\n", time.Since(start).Round(time.Second))
	s := b.startService(dir, "", "--api-token", benchToken)
	defer s.remove()
	defer s.stop()
	var usage struct{ Inboxes struct{ Current int64 } }
	if err := s.expect(http.StatusOK, "GET", "/api/usage/", "", "Bearer "+key, &usage); err != nil || usage.Inboxes.Current != int64(size) {
		panic(fmt.Sprintf("the large tenant's usage: %+v, %v", usage, err))
	}
	admin := "Token " + benchToken
	var small struct{ ID string }
	if err := s.expect(http.StatusCreated, "POST", "/api/tenants/", `{"name":"small"}`, admin, &small); err != nil {
		panic(err)
	}
	var smallKey struct{ Key string }
	if err := s.expect(http.StatusCreated, "POST", "/api/tenants/"+small.ID+"/keys/", `{"name":"k","scopes":["inboxes"]}`, admin, &smallKey); err != nil {
		panic(err)
	}
	for range 10 {
		if err := s.expect(http.StatusCreated, "POST", "/inboxes/", "", "Bearer "+smallKey.Key, nil); err != nil {
			panic(err)
		}
	}
	n := b.scale(500, 100)
	opsSmall, opsLarge := tenantOps(s, smallKey.Key), tenantOps(s, key)
	costSmall, costLarge := sideBySide(side{s, opsSmall}, side{s, opsLarge}, n)
	b.compare(fmt.Sprintf("a tenant of 10 inboxes and of %d", size), costSmall, costLarge, opsSmall)
}

// generateTenant writes a store whose one tenant has n live inboxes (and
// a key), as the API records them, and returns its data directory and the
// key.
func generateTenant(n int) (dir, key string, took time.Duration, err error) {
	start := time.Now()
	ctx := context.Background()
	dir, err = os.MkdirTemp("", "tmbench")
	if err != nil {
		return "", "", 0, err
	}
	node, err := broker.StartNode(ctx, broker.NodeConfig{DataDir: dir, SyncInterval: 2 * time.Minute})
	if err != nil {
		return "", "", 0, err
	}
	defer node.Close(ctx)
	store, err := events.OpenStore(ctx, node.JS, events.StoreConfig{})
	if err != nil {
		return "", "", 0, err
	}
	defer store.Close()
	tenant := uuid.NewString()
	ack, err := store.AppendTenantEvent(ctx, events.TenantCreated{TenantID: tenant, Name: "big", CreatedAt: time.Now().UTC()}, 0)
	if err != nil {
		return "", "", 0, err
	}
	key = "tm_" + strings.Repeat("b", 32)
	_, err = store.AppendTenantEvent(ctx, events.KeyCreated{KeyID: uuid.NewString(), TenantID: tenant, Name: "k",
		Scopes: []string{"inboxes"}, Hash: command.KeyHash(key), CreatedAt: time.Now().UTC()}, ack.Seq)
	if err != nil {
		return "", "", 0, err
	}
	// Published without waiting for each answer, as CreateTenantInbox
	// would store them one after the other (it waits for each, which
	// would take an hour here).
	for i := range n {
		ev := events.InboxCreated{InboxID: uuid.NewString(), Address: fmt.Sprintf("big%d@tempmail.test", i),
			Token: uuid.NewString(), DomainID: 1, CreatedAt: time.Now().UTC(), TenantID: tenant}
		msgs, err := store.TenantInboxEvents(ev)
		if err != nil {
			return "", "", 0, err
		}
		for _, m := range msgs {
			if _, err := node.JS.PublishMsgAsync(m); err != nil {
				return "", "", 0, fmt.Errorf("inbox %d: %w", i, err)
			}
		}
		if i%5000 == 4999 || i == n-1 {
			select {
			case <-node.JS.PublishAsyncComplete():
			case <-time.After(time.Minute):
				return "", "", 0, fmt.Errorf("inbox %d: the stream did not answer within a minute", i)
			}
		}
	}
	return dir, key, time.Since(start), nil
}
