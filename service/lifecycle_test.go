package service_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/smtp"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tempmail/eventually"
	"tempmail/mailbox"
	"tempmail/service"
	"tempmail/service/servicetest"
)

// What a deletion must leave: nothing readable of the message in the data
// directory. What a message says is stored only sealed under a key of its
// own (sealed/seal.go), so the data directory holds a readable copy exactly
// when it holds the plaintext, or the key. These helpers look for both, in
// every file under the data directory, as someone with a copy of it would.

// filesHolding returns the files under dir that contain any of needles.
func filesHolding(t *testing.T, dir string, needles ...[]byte) []string {
	t.Helper()
	var found []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil // a file removed while walking
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		for _, n := range needles {
			if bytes.Contains(data, n) {
				found = append(found, path)
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// plaintext is marker as it is and base64-encoded (attachments, raw bytes
// inside JSON) at any of the three alignments base64 can give it.
func plaintext(marker string) [][]byte {
	out := [][]byte{[]byte(marker)}
	for k := range 3 {
		enc := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("\x00", k) + marker))
		// Skip the first group (it holds the alignment bytes) and any
		// partial last group: what is left depends on the marker alone.
		out = append(out, []byte(enc[4:4*((k+len(marker))/3)]))
	}
	return out
}

// sealKey returns the key message id's content is sealed under.
func sealKey(t *testing.T, svc *service.Service, id string) []byte {
	t.Helper()
	m, _, err := svc.Views.Message(t.Context(), id)
	if err != nil {
		t.Fatalf("message %s: %v", id, err)
	}
	key, err := svc.Store.SealKey(t.Context(), m.ContentRef())
	if err != nil {
		t.Fatalf("key of %s: %v", id, err)
	}
	return key
}

// sealedAtRest checks that no file under the data directory holds any of
// the markers in plaintext, and that each key is there (the scan would find
// it: it proves something when it later finds nothing).
func sealedAtRest(t *testing.T, svc *service.Service, markers []string, keys ...[]byte) {
	t.Helper()
	for _, m := range markers {
		if files := filesHolding(t, svc.Config.DataDir, plaintext(m)...); len(files) > 0 {
			t.Errorf("%q is in plaintext in %v", m, files)
		}
	}
	for i, k := range keys {
		if len(filesHolding(t, svc.Config.DataDir, k)) == 0 {
			t.Fatalf("key %d of a live message is nowhere in the data directory; the scan proves nothing", i)
		}
	}
}

// erasedWithin waits at most d for every key to leave the data directory.
func erasedWithin(t *testing.T, svc *service.Service, d time.Duration, what string, keys ...[]byte) {
	t.Helper()
	start := time.Now()
	eventually.Within(t, d, what+": every key erased", func() error {
		var left []string
		for _, k := range keys {
			left = append(left, filesHolding(t, svc.Config.DataDir, k)...)
		}
		if len(left) > 0 {
			return fmt.Errorf("a key is still readable in %v", left)
		}
		return nil
	})
	t.Logf("%s: erased %v after", what, time.Since(start).Round(10*time.Millisecond))
}

// messageIDs lists an inbox's messages through family A, by subject.
func messageIDs(t *testing.T, base, inboxID string) map[string]string {
	t.Helper()
	_, b := servicetest.Call(t, "GET", base+"/api/inboxes/"+inboxID+"/emails/?limit=200", "")
	var list []struct{ ID, Subject string }
	_ = json.Unmarshal(b, &list)
	out := map[string]string{}
	for _, m := range list {
		out[m.Subject] = m.ID
	}
	return out
}

// createInboxA makes a family A inbox with body, and returns its id and
// address.
func createInboxA(t *testing.T, base, body string) (id, addr string) {
	t.Helper()
	code, b := servicetest.Call(t, "POST", base+"/api/inboxes/create_inbox/", body)
	if code != 201 {
		t.Fatalf("create_inbox: %d %s", code, b)
	}
	var v struct{ ID, Email string }
	_ = json.Unmarshal(b, &v)
	return v.ID, v.Email
}

// TestExpiryRefusesMailAnd404sAndErasesEverything: once an inbox's
// lifetime is over its mail is refused and it answers 404, by the clock,
// and the expiry then erases every message of it.
func TestExpiryRefusesMailAnd404sAndErasesEverything(t *testing.T) {
	t.Parallel()
	cfg := servicetest.Config(t)
	cfg.MinInboxTTL = time.Second
	svc := servicetest.Start(t, cfg)
	base := servicetest.URL(svc)
	// Two seconds leave what must happen before the expiry (two messages
	// sent and listed, the data directory scanned: 0.1 s under -race)
	// ample room.
	id, addr := createInboxA(t, base, `{"domain_id":1,"ttl":2}`)
	small, large := "MARKERsmall"+id[:8], "MARKERlarge"+id[:8]
	if err := servicetest.Mail(svc.SMTPAddr(), addr, small, small+" body"); err != nil {
		t.Fatalf("before expiry: %v", err)
	}
	if err := servicetest.Mail(svc.SMTPAddr(), addr, large, large+strings.Repeat(" padding to go to the object store", 4000)); err != nil {
		t.Fatalf("before expiry: %v", err)
	}
	var ids map[string]string
	eventually.True(t, "both messages listed", func() bool {
		ids = messageIDs(t, base, id)
		return len(ids) == 2
	})
	keys := [][]byte{sealKey(t, svc, ids[small]), sealKey(t, svc, ids[large])}
	sealedAtRest(t, svc, []string{small, large}, keys...)

	// At expiry: refused and 404 at once, by time, before the event fires.
	eventually.True(t, "inbox answers 404", func() bool {
		code, _ := servicetest.Call(t, "GET", base+"/api/inboxes/"+id+"/", "")
		return code == 404
	})
	expired := time.Now()
	if err := servicetest.Mail(svc.SMTPAddr(), addr, "late", "too late"); err == nil || !strings.Contains(err.Error(), "550") {
		t.Errorf("mail after expiry: %v, want 550 5.1.1", err)
	}
	for _, m := range ids {
		if code, _ := servicetest.Call(t, "GET", base+"/api/emails/"+m+"/", ""); code != 404 {
			t.Errorf("email %s after expiry: %d", m, code)
		}
	}
	// The server fires InboxExpired; then nothing of either message can
	// be read from the data directory.
	erasedWithin(t, svc, 30*time.Second, "expiry", keys...)
	sealedAtRest(t, svc, []string{small, large})
	t.Logf("erased %v after the 404 began", time.Since(expired).Round(100*time.Millisecond))
	if objects, _ := svc.Store.Raw().List(t.Context()); len(objects) != 0 {
		t.Errorf("object store still holds %d objects", len(objects))
	}
}

// TestExpiryDueWhileStoppedFiresOnStart: an inbox whose lifetime ends
// while the service is stopped is gone when it starts again, and its mail
// erased.
func TestExpiryDueWhileStoppedFiresOnStart(t *testing.T) {
	t.Parallel()
	cfg := servicetest.Config(t)
	cfg.MinInboxTTL = time.Second
	svc := servicetest.Start(t, cfg)
	base := servicetest.URL(svc)
	// Two seconds leave what must happen before the stop ample room.
	id, addr := createInboxA(t, base, `{"domain_id":1,"ttl":2}`)
	marker := "MARKERstopped" + id[:8]
	if err := servicetest.Mail(svc.SMTPAddr(), addr, marker, marker+" body"); err != nil {
		t.Fatal(err)
	}
	var ids map[string]string
	eventually.True(t, "message listed", func() bool {
		ids = messageIDs(t, base, id)
		return ids[marker] != ""
	})
	key := sealKey(t, svc, ids[marker])
	in, err := svc.Views.Inbox(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	servicetest.Stop(svc)
	if !time.Now().Before(in.ExpiresAt) {
		t.Fatalf("the service stopped after the inbox expired (at %v): nothing fell due while it was stopped", in.ExpiresAt)
	}
	eventually.True(t, "the expiry to fall due while nothing runs", func() bool { return time.Now().After(in.ExpiresAt) })

	svc = servicetest.Start(t, cfg)
	base = servicetest.URL(svc)
	if code, _ := servicetest.Call(t, "GET", base+"/api/inboxes/"+id+"/", ""); code != 404 {
		t.Errorf("expired inbox after restart: %d", code)
	}
	erasedWithin(t, svc, 30*time.Second, "expiry while stopped", key)
	if in, err := svc.Views.InboxByAddress(t.Context(), addr); err == nil {
		t.Errorf("views still hold the expired inbox: %+v", in)
	}
}

// TestDeletionErasesEverythingReadable sends messages whose subject, text,
// HTML, attachment and raw source carry a marker; deleting one message
// leaves nothing readable of it in the data directory within 30 s and
// leaves the others readable; deleting the inbox does the same for the
// rest.
func TestDeletionErasesEverythingReadable(t *testing.T) {
	t.Parallel()
	svc := servicetest.Start(t, servicetest.Config(t))
	base := servicetest.URL(svc)
	id, addr := createInboxA(t, base, `{"domain_id":1}`)
	keep, gone, inboxGone := "MARKERkeep"+id[:8], "MARKERgone"+id[:8], "MARKERinbox"+id[:8]
	for _, m := range []string{keep, gone, inboxGone} {
		raw := "From: s@example.com\r\nTo: " + addr + "\r\nSubject: " + m + "\r\nMIME-Version: 1.0\r\n" +
			"Content-Type: multipart/mixed; boundary=\"B\"\r\n\r\n" +
			"--B\r\nContent-Type: multipart/alternative; boundary=\"A\"\r\n\r\n" +
			"--A\r\nContent-Type: text/plain\r\n\r\n" + m + " in the text\r\n" +
			"--A\r\nContent-Type: text/html\r\n\r\n<p>" + m + " in the html</p>\r\n--A--\r\n" +
			"--B\r\nContent-Type: text/plain; name=\"" + m + ".txt\"\r\nContent-Disposition: attachment; filename=\"" + m + ".txt\"\r\n" +
			"Content-Transfer-Encoding: base64\r\n\r\n" + base64.StdEncoding.EncodeToString([]byte(m+" in the attachment")) + "\r\n--B--\r\n"
		servicetest.Send(t, svc.SMTPAddr(), "s@example.com", addr, raw)
	}
	var ids map[string]string
	eventually.True(t, "three listed", func() bool {
		ids = messageIDs(t, base, id)
		return len(ids) == 3
	})
	keys := map[string][]byte{}
	for _, m := range []string{keep, gone, inboxGone} {
		keys[m] = sealKey(t, svc, ids[m])
	}
	sealedAtRest(t, svc, []string{keep, gone, inboxGone}, keys[keep], keys[gone], keys[inboxGone])

	if code, _ := servicetest.Call(t, "DELETE", base+"/api/emails/"+ids[gone]+"/", ""); code != 204 {
		t.Fatal(code)
	}
	erasedWithin(t, svc, 30*time.Second, "deleted message", keys[gone])
	if code, b := servicetest.Call(t, "GET", base+"/api/emails/"+ids[keep]+"/", ""); code != 200 || !strings.Contains(string(b), keep+" in the text") {
		t.Errorf("the message kept after deleting another: %d %s", code, b)
	}
	if len(filesHolding(t, svc.Config.DataDir, keys[keep])) == 0 {
		t.Error("deleting one message erased another's key")
	}

	if code, _ := servicetest.Call(t, "DELETE", base+"/api/inboxes/"+id+"/", ""); code != 204 {
		t.Fatal(code)
	}
	erasedWithin(t, svc, 30*time.Second, "deleted inbox", keys[keep], keys[inboxGone])
	sealedAtRest(t, svc, []string{keep, gone, inboxGone})
}

// TestRetentionDeletesFamilyBMessagesAndKeepsTheMailbox: a family B
// message is deleted and erased once --message-retention has passed; the
// mailbox stays and takes mail; family A's messages are not deleted so.
func TestRetentionDeletesFamilyBMessagesAndKeepsTheMailbox(t *testing.T) {
	t.Parallel()
	cfg := servicetest.Config(t)
	cfg.MessageRetention = 2 * time.Second
	svc := servicetest.Start(t, cfg)
	base := servicetest.URL(svc)
	code, b := servicetest.Call(t, "POST", base+"/api/create-temp-email/", `{"email_name":"keeper"}`)
	if code != 201 {
		t.Fatalf("%d %s", code, b)
	}
	marker := "MARKERretained-keeper"
	if err := servicetest.Mail(svc.SMTPAddr(), "keeper@tempmail.test", marker, marker+" body"); err != nil {
		t.Fatal(err)
	}
	var key []byte
	total := func() int {
		code, b := servicetest.Call(t, "GET", base+"/api/mailstore/mailbox/keeper/", "")
		if code != 200 {
			t.Fatalf("mailbox: %d %s", code, b)
		}
		var v struct{ Total int }
		_ = json.Unmarshal(b, &v)
		return v.Total
	}
	eventually.True(t, "message listed", func() bool { return total() == 1 })
	if in, err := svc.Views.InboxByAddress(t.Context(), "keeper@tempmail.test"); err == nil && in.Latest() != "" {
		key = sealKey(t, svc, in.Latest())
	} else {
		t.Fatalf("keeper's latest: %+v %v", in, err)
	}
	eventually.True(t, "message gone after retention", func() bool { return total() == 0 })
	erasedWithin(t, svc, 30*time.Second, "retention", key)

	// Family A and C inboxes carry no retention: only their own lifetime.
	// A family A message is stored first, then one to the mailbox, which
	// stays and keeps receiving; once retention takes that one, the family
	// A message, older, is still there.
	idA, addr := createInboxA(t, base, `{"domain_id":1}`)
	if err := servicetest.Mail(svc.SMTPAddr(), addr, "no retention", "x"); err != nil {
		t.Fatal(err)
	}
	countA := func() int {
		in, err := svc.Views.Inbox(t.Context(), idA)
		if err != nil {
			t.Fatalf("the family A inbox: %v", err)
		}
		return in.Count
	}
	eventually.True(t, "the family A message stored", func() bool { return countA() == 1 })
	if err := servicetest.Mail(svc.SMTPAddr(), "keeper@tempmail.test", "again", "after retention"); err != nil {
		t.Fatalf("mail after retention: %v", err)
	}
	eventually.True(t, "new message listed", func() bool { return total() == 1 })
	eventually.True(t, "the new message gone after retention", func() bool { return total() == 0 })
	if n := countA(); n != 1 {
		t.Errorf("the family A inbox holds %d messages after the retention time, want 1", n)
	}
}

// TestMessage1001EvictsMessage1Everywhere: an inbox keeps its newest 1000
// messages; the oldest is deleted and erased when the 1001st comes.
func TestMessage1001EvictsMessage1Everywhere(t *testing.T) {
	servicetest.Long(t) // a thousand messages
	t.Parallel()
	cfg := servicetest.Config(t)
	cfg.SMTPRatePerIP = 0
	svc := servicetest.Start(t, cfg)
	base := servicetest.URL(svc)
	id, addr := createInboxA(t, base, `{"domain_id":1}`)
	c, err := smtp.Dial(svc.SMTPAddr())
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
		_, b := servicetest.Call(t, "GET", base+"/api/inboxes/"+id+"/", "")
		var v struct {
			EmailCount int `json:"email_count"`
		}
		_ = json.Unmarshal(b, &v)
		return v.EmailCount
	}
	eventually.True(t, "1000 messages", func() bool { return count() == 1000 })
	first := fmt.Sprintf("MARKERn%04d-%s", 1, id[:8])
	in, err := svc.Views.Inbox(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	oldest, err := svc.Views.List(t.Context(), in, mailbox.Query{Offset: 999, Limit: 1})
	if err != nil || len(oldest.Items) != 1 {
		t.Fatalf("oldest: %v %v", oldest, err)
	}
	key := sealKey(t, svc, oldest.Items[0].ID)
	sealedAtRest(t, svc, []string{first}, key)
	send(1001)
	erasedWithin(t, svc, 30*time.Second, "eviction", key)
	// The list holds 2..1001 once the 1001st shows (mail shows a moment
	// after its 250, not with it).
	var newest, oldestPage []byte
	eventually.True(t, "the 1001st listed", func() bool {
		_, newest = servicetest.Call(t, "GET", base+"/api/inboxes/"+id+"/emails/?limit=1", "")
		return strings.Contains(string(newest), fmt.Sprintf("MARKERn%04d", 1001))
	})
	_, oldestPage = servicetest.Call(t, "GET", base+"/api/inboxes/"+id+"/emails/?limit=1&offset=999", "")
	if n := count(); n != 1000 || !strings.Contains(string(oldestPage), fmt.Sprintf("MARKERn%04d", 2)) {
		t.Errorf("%d messages after the 1001st, the oldest %s; want 1000, messages 2..1001", n, oldestPage)
	}
}
