package service_test

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/textproto"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"tempmail/eventually"
	"tempmail/service"
	"tempmail/service/servicetest"
)

// A tenant's mail quotas, through a real SMTP conversation: past its
// messages of the day or its stored bytes, a recipient of its inboxes
// gets 452 4.2.2 at RCPT (the relay in front keeps the message), the
// inbound webhook 429; once the quota is raised, or mail deleted, the
// same message gets in, as a relay's retry would.
func TestMailPastATenantsQuotaIsDeferred(t *testing.T) {
	t.Parallel()
	svc := servicetest.Start(t, servicetest.Config(t))
	base := servicetest.URL(svc)
	admin := []string{"Authorization", "Token " + svc.Config.APIToken}
	tenant := sendOK(t, 201, "POST", base+"/api/tenants/", `{"name":"mailers","quota":{"messages_per_day":2}}`, admin...)
	tid := tenant["id"].(string)
	key := sendOK(t, 201, "POST", base+"/api/tenants/"+tid+"/keys/", `{"name":"k","scopes":["inboxes"]}`, admin...)
	as := []string{"Authorization", "Bearer " + key["key"].(string)}
	inbox := sendOK(t, 201, "POST", base+"/api/inboxes/create_inbox/", `{"domain_id":1}`, as...)
	to := inbox["email"].(string)

	usage := func() map[string]map[string]int64 {
		_, b := servicetest.Call(t, "GET", base+"/api/usage/", "", as...)
		var u map[string]map[string]int64
		if err := json.Unmarshal(b, &u); err != nil {
			t.Fatalf("usage: %v: %s", err, b)
		}
		return u
	}
	for i := range 2 {
		if err := servicetest.Mail(svc.SMTPAddr(), to, "within", "message "+string(rune('a'+i))); err != nil {
			t.Fatalf("message %d of a quota of 2: %v", i+1, err)
		}
	}
	eventually.True(t, "two messages counted today", func() bool { return usage()["messages_today"]["current"] == 2 })
	if u := usage(); u["messages_today"]["limit"] != 2 || u["storage_bytes"]["current"] <= 0 {
		t.Errorf("usage after two messages: %v", u)
	}

	over := func(what string) {
		t.Helper()
		err := servicetest.Mail(svc.SMTPAddr(), to, "beyond", "the third")
		var te *textproto.Error
		if !errors.As(err, &te) || te.Code != 452 || !strings.HasPrefix(te.Msg, "4.2.2 quota exceeded: "+what) {
			t.Fatalf("mail past the tenant's %s: %v, want 452 4.2.2", what, err)
		}
	}
	over("messages_per_day 2 of 2")
	code, b := servicetest.Call(t, "POST", base+"/api/webhook/email/",
		`{"to":"`+to+`","from":"w@example.com","subject":"s","text":"t"}`, admin...)
	if code != 429 || !strings.Contains(string(b), "quota exceeded: messages_per_day 2 of 2") {
		t.Errorf("the inbound webhook past the quota: %d %s, want 429", code, b)
	}

	// Raised, the quota lets the same mail in.
	sendOK(t, 200, "PATCH", base+"/api/tenants/"+tid+"/", `{"quota":{"messages_per_day":3}}`, admin...)
	if err := servicetest.Mail(svc.SMTPAddr(), to, "beyond", "the third"); err != nil {
		t.Fatalf("after the quota was raised: %v", err)
	}
	eventually.True(t, "three messages counted today", func() bool { return usage()["messages_today"]["current"] == 3 })
	// The metrics say so, by tenant: what its inboxes took, and what its
	// quota refused (the SMTP recipient, the webhook's message).
	_, metrics := servicetest.Call(t, "GET", base+"/metrics", "")
	for _, m := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"tempmail_tenant_messages_received_total", []string{`tenant="` + tid + `"`}, 3},
		{"tempmail_tenant_inboxes_created_total", []string{`tenant="` + tid + `"`}, 1},
		{"tempmail_tenant_quota_refusals_total", []string{`quota="messages_per_day"`, `tenant="` + tid + `"`}, 2},
	} {
		if got, ok := servicetest.Metric(string(metrics), m.name, m.labels...); !ok || got != m.want {
			t.Errorf("%s%v = %v (%v), want %v", m.name, m.labels, got, ok, m.want)
		}
	}

	// The counts are the views': a rebuild makes them again from the log.
	before := usage()
	cfg := svc.Config
	servicetest.Stop(svc)
	if _, err := service.Rebuild(t.Context(), cfg, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	svc = servicetest.Start(t, cfg)
	base = servicetest.URL(svc)
	if after := usage(); !reflect.DeepEqual(after, before) {
		t.Errorf("usage after a rebuild: %v, before: %v", after, before)
	}

	// Storage: at its quota, mail waits until some is deleted.
	stored := usage()["storage_bytes"]["current"]
	sendOK(t, 200, "PATCH", base+"/api/tenants/"+tid+"/", `{"quota":{"messages_per_day":0,"storage_bytes":`+strconv.FormatInt(stored, 10)+`}}`, admin...)
	over("storage_bytes")
	_, b = servicetest.Call(t, "GET", base+"/api/inboxes/"+inbox["id"].(string)+"/emails/", "", as...)
	var list []map[string]any
	if err := json.Unmarshal(b, &list); err != nil || len(list) != 3 {
		t.Fatalf("the inbox's mail: %v %s", err, b)
	}
	if code, b := servicetest.Call(t, "DELETE", base+"/api/emails/"+list[0]["id"].(string)+"/", "", as...); code != 204 {
		t.Fatalf("delete a message: %d %s", code, b)
	}
	eventually.True(t, "the deleted message's bytes no longer stored", func() bool {
		return usage()["storage_bytes"]["current"] < stored
	})
	// A message no larger than the one deleted fits (what is held never
	// passes the quota, not even by one message).
	if err := servicetest.Mail(svc.SMTPAddr(), to, "r", "x"); err != nil {
		t.Fatalf("after a message was deleted: %v", err)
	}

	// An inbox's ending takes its bytes off.
	if code, b := servicetest.Call(t, "DELETE", base+"/api/inboxes/"+inbox["id"].(string)+"/", "", as...); code != 204 {
		t.Fatalf("delete the inbox: %d %s", code, b)
	}
	eventually.True(t, "no bytes stored once the inbox is gone", func() bool { return usage()["storage_bytes"]["current"] == 0 })
}
