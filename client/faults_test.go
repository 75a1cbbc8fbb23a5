package client

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestFaultSpecIsSentAsTheServiceReadsIt: durations as Go writes them, the
// fields left at zero left out (the service's defaults stand), a seed of 0
// sent when it is given.
func TestFaultSpecIsSentAsTheServiceReadsIt(t *testing.T) {
	t.Parallel()
	zero := uint64(0)
	for _, c := range []struct {
		spec FaultSpec
		want string
	}{
		{FaultSpec{Command: "RCPT", Reply: "451 4.7.1 try again later", Times: 2},
			`{"command":"RCPT","reply":"451 4.7.1 try again later","times":2}`},
		{FaultSpec{Command: "DATA", Close: true, Delay: 5 * time.Second, ExpiresIn: 10 * time.Minute, From: "*@shop.example"},
			`{"command":"DATA","delay":"5s","close":true,"from":"*@shop.example","expires_in":"10m0s"}`},
		{FaultSpec{Command: "MAIL", Reply: "421 4.3.2 busy", Fraction: 0.5, Seed: &zero, Every: 3},
			`{"command":"MAIL","reply":"421 4.3.2 busy","every":3,"fraction":0.5,"seed":0}`},
		{FaultSpec{Command: "RCPT", Greylist: 30 * time.Second, Priority: -5, To: "*@tempmail.test", Client: "192.0.2.0/24"},
			`{"command":"RCPT","to":"*@tempmail.test","client":"192.0.2.0/24","greylist":"30s","priority":-5}`},
		{FaultSpec{Command: "CONNECT", Rate: 10},
			`{"command":"CONNECT","rate":10}`},
	} {
		b, err := json.Marshal(c.spec)
		if err != nil || string(b) != c.want {
			t.Errorf("%+v: %s (%v), want %s", c.spec, b, err, c.want)
		}
	}
}

// TestFaultCalls: each call's method and path, and what it reads of the
// answer; DeleteFault tells a rule that is not there from an inbox that is
// not there, and both from a path the service does not serve.
func TestFaultCalls(t *testing.T) {
	t.Parallel()
	const rule = `{"id":"0193f6a2-5c1e-7d2a-9b4f-3e8a1c2d4f60","command":"RCPT","reply":"451 4.7.1 try again later",` +
		`"times":2,"created_at":"2026-11-29T03:00:00.000001Z",` +
		`"expires_at":"2026-11-29T04:00:00.000001Z","matched":1,"fired":1}`
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got = append(got, r.Method+" "+r.URL.Path+" "+string(body))
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodPost:
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, rule)
		case strings.HasSuffix(r.URL.Path, "/faults/"):
			io.WriteString(w, "["+rule+"]")
		case strings.HasSuffix(r.URL.Path, "/attempts/"):
			io.WriteString(w, `[{"at":"2026-11-29T03:00:01.5Z","client":"127.0.0.1","from":"app@shop.example","command":"AFTER_DATA",`+
				`"code":250,"rule_id":null,"message_id":"01a22499-a275-7d1e-a9f9-f56b99604f87"},`+
				`{"at":"2026-11-29T03:00:01Z","client":"127.0.0.1","from":"app@shop.example","command":"RCPT","code":451,`+
				`"reply":"451 4.7.1 try again later","rule_id":"0193f6a2-5c1e-7d2a-9b4f-3e8a1c2d4f60","message_id":null}]`)
		case strings.HasSuffix(r.URL.Path, "/faults/gone/"):
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":"fault rule not found"}`)
		case strings.HasSuffix(r.URL.Path, "/faults/noinbox/"):
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":"Inbox not found"}`)
		case strings.HasSuffix(r.URL.Path, "/faults/noroute/"):
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":"Not found"}`)
		default:
			w.WriteHeader(http.StatusNoContent)
		}
	}))
	defer srv.Close()
	c, err := New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r, err := c.AddFault(ctx, "TOK", FaultSpec{Command: "RCPT", Reply: "451 4.7.1 try again later", Times: 2})
	if err != nil || r.ID != "0193f6a2-5c1e-7d2a-9b4f-3e8a1c2d4f60" || r.Times != 2 || r.Fired != 1 || r.Matched != 1 || string(r.JSON) != rule ||
		r.ExpiresAt.Sub(r.CreatedAt.Time) != time.Hour {
		t.Errorf("AddFault: %+v %v", r, err)
	}
	list, raw, err := c.Faults(ctx, "TOK")
	if err != nil || len(list) != 1 || list[0].Reply != "451 4.7.1 try again later" || string(raw) != "["+rule+"]" {
		t.Errorf("Faults: %+v %s %v", list, raw, err)
	}
	attempts, _, err := c.Attempts(ctx, "TOK")
	if err != nil || len(attempts) != 2 || attempts[0].Code != 250 || attempts[0].RuleID != nil ||
		*attempts[0].MessageID != "01a22499-a275-7d1e-a9f9-f56b99604f87" || *attempts[1].RuleID != r.ID || attempts[1].MessageID != nil ||
		*attempts[1].Client != "127.0.0.1" {
		t.Errorf("Attempts: %+v %v", attempts, err)
	}
	if err := c.DeleteFault(ctx, "TOK", r.ID); err != nil {
		t.Errorf("DeleteFault: %v", err)
	}
	if err := c.DeleteFault(ctx, "TOK", "gone"); !errors.Is(err, ErrNoFault) {
		t.Errorf("DeleteFault of a rule not there: %v, want ErrNoFault", err)
	}
	if err := c.DeleteFault(ctx, "TOK", "noinbox"); !errors.Is(err, ErrNoInbox) {
		t.Errorf("DeleteFault in an inbox not there: %v, want ErrNoInbox", err)
	}
	if err := c.DeleteFault(ctx, "TOK", "noroute"); err == nil || errors.Is(err, ErrNoFault) {
		t.Errorf("DeleteFault where nothing is served: %v, want the service's 404", err)
	}
	want := []string{
		`POST /inboxes/TOK/faults/ {"command":"RCPT","reply":"451 4.7.1 try again later","times":2}`,
		"GET /inboxes/TOK/faults/ ",
		"GET /inboxes/TOK/attempts/ ",
		"DELETE /inboxes/TOK/faults/0193f6a2-5c1e-7d2a-9b4f-3e8a1c2d4f60/ ",
	}
	for i, w := range want {
		if i >= len(got) || got[i] != w {
			t.Errorf("request %d: %q, want %q", i, got[min(i, len(got)-1)], w)
		}
	}
}

// TestServiceFaultCalls: the admin's calls, with the credential, their
// paths and queries; a rule not there is ErrNoServiceFault.
func TestServiceFaultCalls(t *testing.T) {
	t.Parallel()
	const rule = `{"id":"0193f6a2-5c1e-7d2a-9b4f-3e8a1c2d4f60","command":"CONNECT","reply":"421 4.3.2 paused",` +
		`"priority":5,"created_at":"2026-11-29T03:00:00Z","expires_at":"2026-11-29T04:00:00Z","matched":0,"fired":0}`
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got = append(got, r.Method+" "+r.URL.RequestURI()+" "+r.Header.Get("Authorization")+" "+string(body))
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodPost:
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, rule)
		case r.URL.Path == "/api/faults/":
			io.WriteString(w, "["+rule+"]")
		case r.URL.Path == "/api/attempts/":
			io.WriteString(w, `[{"at":"2026-11-29T03:00:01Z","client":"192.0.2.7","from":"app@shop.example","to":"a@tempmail.test",`+
				`"command":"CONNECT","code":421,"reply":"421 4.3.2 paused","rule_id":"0193f6a2-5c1e-7d2a-9b4f-3e8a1c2d4f60","message_id":null}]`)
		case strings.HasSuffix(r.URL.Path, "/gone/"):
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"detail":"Not found."}`)
		default:
			w.WriteHeader(http.StatusNoContent)
		}
	}))
	defer srv.Close()
	c, err := New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	c.Key = "ADMIN"
	ctx := context.Background()
	r, err := c.AddServiceFault(ctx, FaultSpec{Command: "CONNECT", Reply: "421 4.3.2 paused", Priority: 5})
	if err != nil || r.Command != "CONNECT" || r.Priority != 5 || string(r.JSON) != rule {
		t.Errorf("AddServiceFault: %+v %v", r, err)
	}
	list, raw, err := c.ServiceFaults(ctx)
	if err != nil || len(list) != 1 || list[0].ID != r.ID || string(raw) != "["+rule+"]" {
		t.Errorf("ServiceFaults: %+v %s %v", list, raw, err)
	}
	since := time.Date(2026, 11, 29, 3, 0, 0, 0, time.FixedZone("", 3600))
	attempts, _, err := c.ServiceAttempts(ctx, "a@tempmail.test", since)
	if err != nil || len(attempts) != 1 || attempts[0].To != "a@tempmail.test" || *attempts[0].RuleID != r.ID {
		t.Errorf("ServiceAttempts: %+v %v", attempts, err)
	}
	if _, _, err := c.ServiceAttempts(ctx, "", time.Time{}); err != nil {
		t.Errorf("ServiceAttempts of all: %v", err)
	}
	if err := c.DeleteServiceFault(ctx, r.ID); err != nil {
		t.Errorf("DeleteServiceFault: %v", err)
	}
	if err := c.DeleteServiceFault(ctx, "gone"); !errors.Is(err, ErrNoServiceFault) {
		t.Errorf("DeleteServiceFault of a rule not there: %v, want ErrNoServiceFault", err)
	}
	want := []string{
		`POST /api/faults/ Bearer ADMIN {"command":"CONNECT","reply":"421 4.3.2 paused","priority":5}`,
		"GET /api/faults/ Bearer ADMIN ",
		"GET /api/attempts/?rcpt=a%40tempmail.test&since=2026-11-29T02%3A00%3A00Z Bearer ADMIN ",
		"GET /api/attempts/ Bearer ADMIN ",
		"DELETE /api/faults/0193f6a2-5c1e-7d2a-9b4f-3e8a1c2d4f60/ Bearer ADMIN ",
		"DELETE /api/faults/gone/ Bearer ADMIN ",
	}
	for i, w := range want {
		if i >= len(got) || got[i] != w {
			t.Errorf("request %d: %q, want %q", i, got[min(i, len(got)-1)], w)
		}
	}
}
