package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/smtp"
	"strings"
	"testing"
	"time"
)

// assertNoTrace scans every message of every stream (events, content, object
// store chunks, views) and every stored object for marker.
func assertNoTrace(t *testing.T, svc *Service, marker string) {
	t.Helper()
	if where := traces(t, svc, marker); len(where) > 0 {
		t.Errorf("%q can still be read back: %v", marker, where)
	}
}

func traces(t *testing.T, svc *Service, marker string) []string {
	t.Helper()
	ctx := ctxT(t)
	var where []string
	streams := svc.Node.JS.ListStreams(ctx)
	for info := range streams.Info() {
		st, err := svc.Node.JS.Stream(ctx, info.Config.Name)
		if err != nil {
			t.Fatal(err)
		}
		for seq := info.State.FirstSeq; seq <= info.State.LastSeq && seq > 0; seq++ {
			m, err := st.GetMsg(ctx, seq)
			if err != nil {
				continue // deleted
			}
			hdr, _ := json.Marshal(m.Header)
			if containsMarker(m.Data, marker) || bytes.Contains(hdr, []byte(marker)) {
				where = append(where, fmt.Sprintf("%s #%d %s", info.Config.Name, seq, m.Subject))
			}
		}
	}
	if err := streams.Err(); err != nil {
		t.Fatal(err)
	}
	objects, _ := svc.Store.Raw().List(ctx)
	for _, o := range objects {
		r, err := svc.Store.Raw().Get(ctx, o.Name)
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(r)
		r.Close()
		if bytes.Contains(b, []byte(marker)) {
			where = append(where, "object "+o.Name)
		}
	}
	return where
}

// containsMarker finds marker in data as it is, or base64-encoded (raw
// bytes inside JSON) at any of the three alignments base64 can give it.
func containsMarker(data []byte, marker string) bool {
	if bytes.Contains(data, []byte(marker)) {
		return true
	}
	for k := range 3 {
		enc := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("\x00", k) + marker))
		// Skip the first group (it holds the alignment bytes) and any
		// partial last group: what is left depends on the marker alone.
		if inner := enc[4 : 4*((k+len(marker))/3)]; bytes.Contains(data, []byte(inner)) {
			return true
		}
	}
	return false
}

// eventually polls cond until it holds or 45 s pass: generous, because CI
// runs every package at once under the race detector on two cores.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > 45*time.Second {
			t.Fatalf("%s: not within 45s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Logf("%s took %v", what, d.Round(time.Second))
	}
}

func sendSMTP(svc *Service, to, subject, body string) error {
	msg := "From: s@example.com\r\nTo: " + to + "\r\nSubject: " + subject + "\r\n\r\n" + body + "\r\n"
	return smtp.SendMail(svc.SMTP.Addr(), nil, "s@example.com", []string{to}, []byte(msg))
}

func createInboxA(t *testing.T, base, body string) (id, addr string) {
	t.Helper()
	code, b := call(t, "POST", base+"/api/inboxes/create_inbox/", body)
	if code != 201 {
		t.Fatalf("create_inbox: %d %s", code, b)
	}
	var v struct{ ID, Email string }
	_ = json.Unmarshal(b, &v)
	return v.ID, v.Email
}

func TestExpiryRefusesMailAnd404sAndPurgesEverything(t *testing.T) {
	cfg := testConfig(t.TempDir())
	cfg.MinInboxTTL = time.Second
	svc, base := startServiceWith(t, cfg)
	id, addr := createInboxA(t, base, `{"domain_id":1,"ttl":2}`)
	small, large := "MARKERsmall"+id[:8], "MARKERlarge"+id[:8]
	if err := sendSMTP(svc, addr, small, small+" body"); err != nil {
		t.Fatalf("before expiry: %v", err)
	}
	if err := sendSMTP(svc, addr, large, large+strings.Repeat(" padding to go to the object store", 4000)); err != nil {
		t.Fatalf("before expiry: %v", err)
	}
	eventually(t, "both messages listed", func() bool {
		_, b := call(t, "GET", base+"/api/inboxes/"+id+"/emails/", "")
		return strings.Count(string(b), `"id"`) == 2
	})
	if len(traces(t, svc, small)) == 0 || len(traces(t, svc, large)) == 0 {
		t.Fatal("the scan finds nothing even before expiry; it would prove nothing after")
	}
	code, b := call(t, "GET", base+"/api/inboxes/"+id+"/emails/", "")
	var list []struct{ ID string }
	_ = json.Unmarshal(b, &list)

	// At expiry: refused and 404 at once, by time, before the event fires.
	created := time.Now()
	eventually(t, "inbox answers 404", func() bool {
		code, _ = call(t, "GET", base+"/api/inboxes/"+id+"/", "")
		return code == 404
	})
	if err := sendSMTP(svc, addr, "late", "too late"); err == nil || !strings.Contains(err.Error(), "550") {
		t.Errorf("mail after expiry: %v, want 550 5.1.1", err)
	}
	for _, m := range list {
		if code, _ := call(t, "GET", base+"/api/emails/"+m.ID+"/", ""); code != 404 {
			t.Errorf("email %s after expiry: %d", m.ID, code)
		}
	}
	// The server fires InboxExpired; then nothing of either message is left.
	eventually(t, "purge after expiry", func() bool {
		return len(traces(t, svc, small)) == 0 && len(traces(t, svc, large)) == 0
	})
	assertNoTrace(t, svc, small)
	assertNoTrace(t, svc, large)
	t.Logf("purged %v after the 404 began", time.Since(created).Round(100*time.Millisecond))
	if objects, _ := svc.Store.Raw().List(ctxT(t)); len(objects) != 0 {
		t.Errorf("object store still holds %d objects", len(objects))
	}
}

func TestExpiryDueWhileStoppedFiresOnStart(t *testing.T) {
	cfg := testConfig(t.TempDir())
	cfg.MinInboxTTL = time.Second
	svc, base := startServiceWith(t, cfg)
	id, addr := createInboxA(t, base, `{"domain_id":1,"ttl":2}`)
	marker := "MARKERstopped" + id[:8]
	if err := sendSMTP(svc, addr, marker, marker+" body"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "message listed", func() bool {
		_, b := call(t, "GET", base+"/api/inboxes/"+id+"/emails/", "")
		return strings.Contains(string(b), marker)
	})
	stop(svc)
	time.Sleep(3 * time.Second) // the expiry falls due while nothing runs

	svc, base = startServiceWith(t, cfg)
	if code, _ := call(t, "GET", base+"/api/inboxes/"+id+"/", ""); code != 404 {
		t.Errorf("expired inbox after restart: %d", code)
	}
	eventually(t, "purge after restart", func() bool { return len(traces(t, svc, marker)) == 0 })
	if in, err := svc.Views.InboxByAddress(ctxT(t), addr); err == nil {
		t.Errorf("views still hold the expired inbox: %+v", in)
	}
}

func TestDeletionPurgesContent(t *testing.T) {
	svc, base := startService(t, t.TempDir())
	id, addr := createInboxA(t, base, `{"domain_id":1}`)
	keep, gone, inboxGone := "MARKERkeep"+id[:8], "MARKERgone"+id[:8], "MARKERinbox"+id[:8]
	for _, m := range []string{keep, gone, inboxGone} {
		if err := sendSMTP(svc, addr, m, m+" body"); err != nil {
			t.Fatal(err)
		}
	}
	var list []struct{ ID, Subject string }
	eventually(t, "three listed", func() bool {
		_, b := call(t, "GET", base+"/api/inboxes/"+id+"/emails/", "")
		_ = json.Unmarshal(b, &list)
		return len(list) == 3
	})
	deleted := 0
	for _, m := range list {
		if m.Subject == gone {
			if code, _ := call(t, "DELETE", base+"/api/emails/"+m.ID+"/", ""); code != 204 {
				t.Fatal(code)
			}
			deleted++
		}
	}
	if deleted != 1 {
		t.Fatalf("found %d messages to delete in %+v", deleted, list)
	}
	eventually(t, "deleted message purged", func() bool { return len(traces(t, svc, gone)) == 0 })
	if len(traces(t, svc, keep)) == 0 {
		t.Error("deleting one message purged another")
	}
	if code, _ := call(t, "DELETE", base+"/api/inboxes/"+id+"/", ""); code != 204 {
		t.Fatal(code)
	}
	eventually(t, "deleted inbox purged", func() bool {
		return len(traces(t, svc, keep)) == 0 && len(traces(t, svc, inboxGone)) == 0
	})
}

func TestRetentionDeletesFamilyBMessagesAndKeepsTheMailbox(t *testing.T) {
	cfg := testConfig(t.TempDir())
	cfg.MessageRetention = 2 * time.Second
	svc, base := startServiceWith(t, cfg)
	code, b := call(t, "POST", base+"/api/create-temp-email/", `{"email_name":"keeper"}`)
	if code != 201 {
		t.Fatalf("%d %s", code, b)
	}
	marker := "MARKERretained-keeper"
	if err := sendSMTP(svc, "keeper@tempmail.test", marker, marker+" body"); err != nil {
		t.Fatal(err)
	}
	total := func() int {
		code, b := call(t, "GET", base+"/api/mailstore/mailbox/keeper/", "")
		if code != 200 {
			t.Fatalf("mailbox: %d %s", code, b)
		}
		var v struct{ Total int }
		_ = json.Unmarshal(b, &v)
		return v.Total
	}
	eventually(t, "message listed", func() bool { return total() == 1 })
	eventually(t, "message gone after retention", func() bool { return total() == 0 })
	eventually(t, "content purged", func() bool { return len(traces(t, svc, marker)) == 0 })
	// The mailbox stays and keeps receiving.
	if err := sendSMTP(svc, "keeper@tempmail.test", "again", "after retention"); err != nil {
		t.Fatalf("mail after retention: %v", err)
	}
	eventually(t, "new message listed", func() bool { return total() == 1 })
	// Family A and C inboxes carry no retention: only their own lifetime.
	_, addr := createInboxA(t, base, `{"domain_id":1}`)
	if err := sendSMTP(svc, addr, "no retention", "x"); err != nil {
		t.Fatal(err)
	}
	in, _ := svc.Views.InboxByAddress(ctxT(t), addr)
	time.Sleep(3 * time.Second)
	if cur, err := svc.Views.Inbox(ctxT(t), in.ID); err != nil || cur.Count != 1 {
		t.Errorf("family A message after the retention time: %+v %v", cur, err)
	}
}

func TestMessage1001EvictsMessage1Everywhere(t *testing.T) {
	if testing.Short() {
		t.Skip("a thousand messages")
	}
	cfg := testConfig(t.TempDir())
	cfg.SMTPRatePerIP = 0
	svc, base := startServiceWith(t, cfg)
	id, addr := createInboxA(t, base, `{"domain_id":1}`)
	c, err := smtp.Dial(svc.SMTP.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	send := func(n int) {
		if err := c.Mail("s@example.com"); err != nil {
			t.Fatal(err)
		}
		if err := c.Rcpt(addr); err != nil {
			t.Fatal(err)
		}
		w, _ := c.Data()
		fmt.Fprintf(w, "Subject: MARKERn%04d-%s\r\n\r\nMARKERn%04d-%s body\r\n", n, id[:8], n, id[:8])
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	for n := 1; n <= 1000; n++ {
		send(n)
	}
	count := func() int {
		_, b := call(t, "GET", base+"/api/inboxes/"+id+"/", "")
		var v struct {
			EmailCount int `json:"email_count"`
		}
		_ = json.Unmarshal(b, &v)
		return v.EmailCount
	}
	eventually(t, "1000 messages", func() bool { return count() == 1000 })
	first := fmt.Sprintf("MARKERn%04d-%s", 1, id[:8])
	if len(traces(t, svc, first)) == 0 {
		t.Fatal("message 1 not found before the 1001st; the scan proves nothing")
	}
	send(1001)
	eventually(t, "message 1 evicted", func() bool { return len(traces(t, svc, first)) == 0 })
	if n := count(); n != 1000 {
		t.Errorf("%d messages after the 1001st, want 1000", n)
	}
	_, b := call(t, "GET", base+"/api/inboxes/"+id+"/emails/", "")
	if strings.Contains(string(b), first) || !strings.Contains(string(b), fmt.Sprintf("MARKERn%04d", 1001)) ||
		!strings.Contains(string(b), fmt.Sprintf("MARKERn%04d", 2)) {
		t.Error("the list does not hold messages 2..1001")
	}
}
