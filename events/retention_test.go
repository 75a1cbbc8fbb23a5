package events_test

import (
	"encoding/json"
	"testing"
	"time"

	"tempmail/events"
	"tempmail/mailbox"
)

// A new InboxCreated says what becomes of its messages in "retention",
// left out for the default, and never says "family": an inbox that
// retains its messages is written as version 4, which binaries of version
// 3 refuse rather than take the inbox for one that keeps them for ever;
// one that does not is written in the version it was before. Either reads
// back as it was written.
func TestInboxCreatedRecordsItsRetentionAndNoFamily(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		retention    mailbox.Retention
		tenant, hash string
		want         int // version
	}{
		{mailbox.RetainWithInbox, "", "", 1},
		{mailbox.RetainWithInbox, "t-1", "", 2},
		{mailbox.RetainWithInbox, "", "$2a$10$x", 3},
		{mailbox.RetainMessages, "", "", 4},
		{mailbox.RetainMessages, "t-1", "", 4},
	} {
		ev := inbox("r@x.test")
		ev.Retention, ev.TenantID, ev.PasswordHash = tc.retention, tc.tenant, tc.hash
		b, err := events.Encode(ev, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		var env struct {
			V    int                        `json:"v"`
			Data map[string]json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(b, &env); err != nil {
			t.Fatal(err)
		}
		if _, ok := env.Data["family"]; ok {
			t.Errorf("%+v: written with a family: %s", tc, b)
		}
		got, ok := env.Data["retention"]
		switch {
		case tc.retention == mailbox.RetainWithInbox && ok:
			t.Errorf("%+v: the default retention written: %s", tc, b)
		case tc.retention == mailbox.RetainMessages && string(got) != `"messages"`:
			t.Errorf("%+v: retention written as %s, want \"messages\": %s", tc, got, b)
		}
		if env.V != tc.want {
			t.Errorf("%+v: written as version %d, want %d", tc, env.V, tc.want)
		}
		p, _, err := events.Decode(b)
		if back, ok := p.(*events.InboxCreated); err != nil || !ok || back.Retention != tc.retention ||
			back.TenantID != tc.tenant || back.PasswordHash != tc.hash || back.InboxID != ev.InboxID {
			t.Errorf("%+v: read back %#v, %v", tc, p, err)
		}
	}
}

// An InboxCreated written before "retention" existed, with the letter of
// the API that made it, means what it meant: "B", the mailbox API's, that
// each message is kept for --message-retention; "A" and "C" that messages
// live as long as the inbox. The events are as that build wrote them, in
// each version it wrote.
func TestInboxCreatedOfFamilyBReadsAsRetained(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		stored string
		want   mailbox.Retention
	}{
		{`{"type":"InboxCreated","v":1,"time":"2026-11-20T10:00:00Z","data":{"inbox_id":"b1","address":"b1@fixture.test","token":"TOKB","family":"B","domain_id":1,"created_at":"2026-11-20T10:00:00Z"}}`,
			mailbox.RetainMessages},
		{`{"type":"InboxCreated","v":2,"time":"2026-11-20T10:00:00Z","data":{"inbox_id":"b2","address":"b2@fixture.test","token":"TOKB","family":"B","domain_id":1,"created_at":"2026-11-20T10:00:00Z","tenant_id":"t-1"}}`,
			mailbox.RetainMessages},
		{`{"type":"InboxCreated","v":1,"time":"2026-11-20T10:00:00Z","data":{"inbox_id":"a1","address":"a1@fixture.test","token":"TOKA","family":"A","domain_id":1,"created_at":"2026-11-20T10:00:00Z","expires_at":"2026-11-20T11:00:00Z","ttl":3600}}`,
			mailbox.RetainWithInbox},
		{`{"type":"InboxCreated","v":3,"time":"2026-11-20T10:00:00Z","data":{"inbox_id":"c1","address":"c1@fixture.test","token":"TOKC","family":"C","domain_id":1,"created_at":"2026-11-20T10:00:00Z","expires_at":"2026-11-21T10:00:00Z","password_hash":"$2a$10$x"}}`,
			mailbox.RetainWithInbox},
	} {
		p, _, err := events.Decode([]byte(tc.stored))
		ev, ok := p.(*events.InboxCreated)
		if err != nil || !ok {
			t.Fatalf("%s: %#v, %v", tc.stored, p, err)
		}
		if ev.Retention != tc.want {
			t.Errorf("%s: retention %q, want %q", tc.stored, ev.Retention, tc.want)
		}
		// The rest of the event reads as before.
		if ev.InboxID == "" || ev.Token == "" || ev.DomainID != 1 || ev.CreatedAt.IsZero() {
			t.Errorf("%s: read as %+v", tc.stored, ev)
		}
		// Encoded again, it says its retention, not its letter.
		b, err := events.Encode(ev, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		var env struct {
			Data map[string]json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(b, &env); err != nil {
			t.Fatal(err)
		}
		if _, ok := env.Data["family"]; ok {
			t.Errorf("%s: written again with its family: %s", tc.stored, b)
		}
	}
}
