package command_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"tempmail"
	"tempmail/backend"
	"tempmail/backend/backendtest"
	"tempmail/command"
	"tempmail/config"
	"tempmail/eventually"
	"tempmail/mailbox"
	"tempmail/projections"
)

// inboxWebhooks returns the subscriptions to in as the views show them now.
func inboxWebhooks(t *testing.T, svc *backend.Backend, in *projections.Inbox) []projections.Webhook {
	t.Helper()
	in, err := svc.Views.Inbox(t.Context(), in.ID)
	if err != nil {
		t.Fatal(err)
	}
	list, err := svc.Views.InboxWebhooks(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// TestSubscribeChecksItsTargetFirst: a subscription without a URL, or to
// a loopback address without --webhook-allow-private, is refused as
// Invalid and records nothing.
func TestSubscribeChecksItsTargetFirst(t *testing.T) {
	t.Parallel()
	svc := start(t, func(c *config.Config) { c.WebhookAllowPrivate = false })
	before := logEnd(t, svc)
	for _, url := range []string{"", " ", "http://127.0.0.1:9/hook", "ftp://127.0.0.1/"} {
		if h, err := svc.Commands.Subscribe(t.Context(), command.Subscription{URL: url, Events: []string{mailbox.HookMessageReceived}}); tempmail.KindOf(err) != tempmail.Invalid {
			t.Errorf("Subscribe to %q: %+v %v, want Invalid", url, h, err)
		}
	}
	if got := logEnd(t, svc); got != before {
		t.Errorf("refused subscriptions recorded %d events", got-before)
	}
	if list, err := svc.Views.Webhooks(t.Context()); err != nil || len(list) != 0 {
		t.Errorf("subscriptions after refusals: %v %v", list, err)
	}
}

// TestSubscribeIsSeenAtOnce: a subscription, to every inbox or to one, is
// returned as the views show it as soon as the command returns, with a
// signing secret of its own; one to an inbox that ended meanwhile is not
// made.
func TestSubscribeIsSeenAtOnce(t *testing.T) {
	t.Parallel()
	svc := start(t)
	in := newInbox(t, svc, "")
	kinds := []string{mailbox.HookMessageReceived, mailbox.HookInboxDeleted}
	global, err := svc.Commands.Subscribe(t.Context(), command.Subscription{URL: "http://127.0.0.1:9/all", Events: kinds})
	if err != nil {
		t.Fatal(err)
	}
	own, err := svc.Commands.Subscribe(t.Context(), command.Subscription{URL: "http://127.0.0.1:9/own", Events: kinds, Inbox: in})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []*projections.Webhook{global, own} {
		seen, err := svc.Views.Webhook(t.Context(), h.ID)
		if err != nil || seen.URL != h.URL || seen.Secret != h.Secret || !slices.Equal(seen.Events, kinds) {
			t.Errorf("subscription %+v: the views show %+v (%v)", h, seen, err)
		}
		if !strings.HasPrefix(h.Secret, "whsec_") {
			t.Errorf("secret %q", h.Secret)
		}
	}
	if global.Secret == own.Secret || global.InboxID != "" || own.InboxID != in.ID || own.Address != in.Address {
		t.Errorf("global %+v, own %+v", global, own)
	}
	if list := inboxWebhooks(t, svc, in); len(list) != 1 || list[0].ID != own.ID {
		t.Errorf("the inbox's subscriptions: %+v", list)
	}

	if err := svc.Commands.DeleteInbox(t.Context(), in); err != nil {
		t.Fatal(err)
	}
	if h, err := svc.Commands.Subscribe(t.Context(), command.Subscription{URL: "http://127.0.0.1:9/late", Events: kinds, Inbox: in}); tempmail.KindOf(err) != tempmail.NotFound {
		t.Errorf("a subscription to an inbox that ended: %+v %v, want NotFound", h, err)
	}
}

// TestSubscriptionCapsAreDecidedByTheViews: thirty subscriptions to one
// inbox at once, each made with the inbox as read before any (so that
// none is refused up front), leave exactly the cap, and the rest are told
// of it; the same for subscriptions to every inbox.
func TestSubscriptionCapsAreDecidedByTheViews(t *testing.T) {
	t.Parallel()
	svc := start(t)
	in := newInbox(t, svc, "")
	count := func(errs []error) (made int) {
		for _, err := range errs {
			switch {
			case err == nil:
				made++
			case tempmail.KindOf(err) != tempmail.Conflict:
				t.Errorf("a subscription past the cap: %v, want Conflict", err)
			}
		}
		return made
	}
	made := count(race(3*projections.MaxInboxWebhooks, func(ctx context.Context, _ int) error {
		_, err := svc.Commands.Subscribe(ctx, command.Subscription{URL: "http://127.0.0.1:9/", Events: []string{mailbox.HookMessageReceived}, Inbox: in})
		return err
	}))
	list := inboxWebhooks(t, svc, in)
	if made != projections.MaxInboxWebhooks || len(list) != made {
		t.Errorf("%d racing subscriptions to one inbox: %d made, %d listed; want %d", 3*projections.MaxInboxWebhooks, made, len(list), projections.MaxInboxWebhooks)
	}

	made = count(race(projections.MaxGlobalWebhooks+20, func(ctx context.Context, _ int) error {
		_, err := svc.Commands.Subscribe(ctx, command.Subscription{URL: "http://127.0.0.1:9/", Events: []string{mailbox.HookMessageReceived}})
		return err
	}))
	global, err := svc.Views.Webhooks(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if made != projections.MaxGlobalWebhooks || len(global) != made {
		t.Errorf("%d racing subscriptions to every inbox: %d made, %d listed; want %d", projections.MaxGlobalWebhooks+20, made, len(global), projections.MaxGlobalWebhooks)
	}
}

// TestUnsubscribeEndsTheSubscriptionAndItsLog: once Unsubscribe returns,
// the subscription is gone from the views and its delivery log is empty.
func TestUnsubscribeEndsTheSubscriptionAndItsLog(t *testing.T) {
	t.Parallel()
	svc := start(t)
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(rc.Close)
	h, err := svc.Commands.Subscribe(t.Context(), command.Subscription{URL: rc.URL, Events: []string{mailbox.HookMessageReceived}})
	if err != nil {
		t.Fatal(err)
	}
	in := newInbox(t, svc, "")
	backendtest.Deliver(t, svc, in.Token, "logged")
	eventually.True(t, "the delivery in the log", func() bool {
		log, err := svc.Hooks.Attempts(t.Context(), h.ID)
		return err == nil && len(log) == 1
	})
	if err := svc.Commands.Unsubscribe(t.Context(), h); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Views.Webhook(t.Context(), h.ID); tempmail.KindOf(err) != tempmail.NotFound {
		t.Errorf("after Unsubscribe the subscription is found: %v", err)
	}
	if log, err := svc.Hooks.Attempts(t.Context(), h.ID); err != nil || len(log) != 0 {
		t.Errorf("after Unsubscribe the log holds %v (%v)", log, err)
	}
}

// TestRotateSecretReturnsTheSecretInForce: a rotation's secret is the one
// the views hold when it returns. Of rotations at once, each returns the
// secret then in force or a Conflict, and the last in force is one
// returned; a rotation of a subscription deleted meanwhile is NotFound.
func TestRotateSecretReturnsTheSecretInForce(t *testing.T) {
	t.Parallel()
	svc := start(t)
	h, err := svc.Commands.Subscribe(t.Context(), command.Subscription{URL: "http://127.0.0.1:9/", Events: []string{mailbox.HookMessageReceived}})
	if err != nil {
		t.Fatal(err)
	}
	rotated, secret, err := svc.Commands.RotateSecret(t.Context(), h)
	if err != nil {
		t.Fatal(err)
	}
	if secret == h.Secret || rotated.Secret != secret || !strings.HasPrefix(secret, "whsec_") {
		t.Errorf("rotated %q into %q (the subscription shows %q)", h.Secret, secret, rotated.Secret)
	}
	if seen, err := svc.Views.Webhook(t.Context(), h.ID); err != nil || seen.Secret != secret {
		t.Errorf("right after the rotation the views show %+v (%v)", seen, err)
	}

	secrets := make([]string, 8)
	errs := race(8, func(ctx context.Context, i int) (err error) {
		_, secrets[i], err = svc.Commands.RotateSecret(ctx, rotated)
		return err
	})
	var returned []string
	for i, err := range errs {
		switch {
		case err == nil:
			returned = append(returned, secrets[i])
		case tempmail.KindOf(err) != tempmail.Conflict:
			t.Errorf("a racing rotation: %v, want Conflict", err)
		}
	}
	seen, err := svc.Views.Webhook(t.Context(), h.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(returned, seen.Secret) {
		t.Errorf("the secret in force after racing rotations was returned to none of them")
	}

	if err := svc.Commands.Unsubscribe(t.Context(), seen); err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.Commands.RotateSecret(t.Context(), seen); tempmail.KindOf(err) != tempmail.NotFound {
		t.Errorf("rotating a deleted subscription: %v, want NotFound", err)
	}
}
