package service_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"tempmail/eventually"
	"tempmail/service"
	"tempmail/service/servicetest"
)

// TestARetryAfterTheDedupeWindowIsStoredOnce: an MTA that lost our 250
// sends the message again minutes later (Postfix first after 300 s, and
// for days), long after the event stream's own dedupe window (2 min; 1 s
// here) has let go of it. The inbox's view recognises the retry by its
// print: 250, nothing stored, and the log line names the first copy; also
// after a restart and after a rebuild of the views.
func TestARetryAfterTheDedupeWindowIsStoredOnce(t *testing.T) {
	t.Parallel()
	const window = time.Second
	cfg := servicetest.Config(t)
	cfg.SMTPRatePerIP = 0
	var log syncBuffer
	start := func() *service.Service {
		return servicetest.StartWith(t, cfg, service.Options{DedupeWindow: window,
			Logger: slog.New(slog.NewTextHandler(&log, nil))})
	}
	svc := start()
	resp, err := http.Post(servicetest.URL(svc)+"/inboxes/", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	var in struct{ Token, Address string }
	_ = json.NewDecoder(resp.Body).Decode(&in)
	resp.Body.Close()

	msg := "From: shop@example.com\r\nTo: " + in.Address + "\r\nSubject: Your code\r\nMessage-ID: <code-1@shop.example.com>\r\n\r\nYour code is 318207.\r\n"
	send := func(svc *service.Service) {
		t.Helper()
		servicetest.Send(t, svc.SMTPAddr(), "bounce@shop.example.com", in.Address, msg)
	}
	ids := func(svc *service.Service) []string {
		t.Helper()
		resp, err := http.Get(servicetest.URL(svc) + "/inboxes/" + in.Token + "/messages/")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var list []struct{ ID string }
		_ = json.NewDecoder(resp.Body).Decode(&list)
		var out []string
		for _, m := range list {
			out = append(out, m.ID)
		}
		return out
	}
	lastSeq := func(svc *service.Service) uint64 {
		t.Helper()
		seq, err := svc.Store.LastSeq(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return seq
	}

	send(svc)
	var first string
	eventually.True(t, "the message is readable", func() bool {
		got := ids(svc)
		if len(got) == 1 {
			first = got[0]
		}
		return len(got) == 1
	})
	// What is tested is a retry after the stream has forgotten the
	// message's id: that takes time to pass, and nothing signals it.
	time.Sleep(window + 100*time.Millisecond)
	before := lastSeq(svc)
	send(svc)
	if after := lastSeq(svc); after != before {
		t.Errorf("the retry published events %d to %d", before+1, after)
	}
	if got := ids(svc); len(got) != 1 || got[0] != first {
		t.Errorf("after the retry the inbox lists %v, want only %s", got, first)
	}
	if !strings.Contains(log.String(), `msg="mail accepted" via=smtp`) ||
		!strings.Contains(log.String(), "ids=["+first+"] rcpts=1") || !strings.Contains(log.String(), "duplicate=true") {
		t.Errorf("no log line names the first copy of the retry:\n%s", log.String())
	}

	// After a restart, and after a rebuild of the views from the log.
	servicetest.Stop(svc)
	svc = start()
	send(svc)
	servicetest.Stop(svc)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := service.Rebuild(ctx, cfg, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	svc = start()
	before = lastSeq(svc)
	send(svc)
	if got := ids(svc); len(got) != 1 || got[0] != first || lastSeq(svc) != before {
		t.Errorf("after a restart and a rebuild the inbox lists %v, want only %s", got, first)
	}
}
