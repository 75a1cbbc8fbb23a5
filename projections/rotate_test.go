package projections

import (
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"tempmail"
	"tempmail/events"
	"tempmail/eventually"
	"tempmail/mailbox"
)

// TestRotatedSecretsSurviveARebuild: a subscription's new secret is an
// event like its creation, so the views show it at once and a rebuild
// restores it; a rotation that raced another, or came after the
// subscription ended, records nothing.
func TestRotatedSecretsSurviveARebuild(t *testing.T) {
	t.Parallel()
	e := newEnv(t, t.TempDir())
	ctx := ctxT(t)
	in := createInbox(t, e.store, "hooked@one.test", 0)
	secretOf := func(v *Views, id string) string {
		t.Helper()
		w, err := v.Webhook(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return w.Secret
	}
	var ids []string
	for _, inbox := range []inboxRef{{}, in} { // one to every inbox, one to the inbox
		ev := events.WebhookCreated{WebhookID: uuid.NewString(), URL: "https://hooks.example/", Events: []string{mailbox.HookMessageReceived},
			Secret: "whsec_b2xk", CreatedAt: time.Unix(1700000200, 0).UTC(), InboxID: inbox.id, Address: inbox.addr}
		created, err := e.store.CreateWebhook(ctx, ev, inbox.lifecycleSeq, nil)
		if err != nil {
			t.Fatal(err)
		}
		rot := events.WebhookSecretRotated{WebhookID: ev.WebhookID, InboxID: inbox.id, Address: inbox.addr,
			Secret: "whsec_bmV3", RotatedAt: time.Unix(1700000300, 0).UTC()}
		if err := e.views.WaitApplied(ctx, created); err != nil {
			t.Fatal(err)
		}
		ack, err := e.store.RotateWebhookSecret(ctx, rot)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.views.WaitApplied(ctx, ack); err != nil {
			t.Fatal(err)
		}
		if got := secretOf(e.views, ev.WebhookID); got != "whsec_bmV3" {
			t.Errorf("after rotation the secret is %q", got)
		}
		ids = append(ids, ev.WebhookID)
	}
	// A rotation of an ended subscription changes nothing, and leaves
	// nothing in a log whose subscription's events went with it.
	if _, err := e.store.DeleteWebhook(ctx, events.WebhookDeleted{WebhookID: ids[0]}); err != nil {
		t.Fatal(err)
	}
	late, err := e.store.RotateWebhookSecret(ctx, events.WebhookSecretRotated{WebhookID: ids[0], Secret: "whsec_eA=="})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.views.CaughtUp(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.views.Webhook(ctx, ids[0]); tempmail.KindOf(err) != tempmail.NotFound {
		t.Errorf("the deleted subscription after a late rotation: %v", err)
	}
	// The log forgets it once the views' checkpoint has passed it.
	eventually.True(t, "the late rotation leaves the log", func() bool {
		return !slices.ContainsFunc(storedEvents(t, e.store), func(ev events.Event) bool { return ev.Seq == late.Seq })
	})
	e.views.Stop()

	if _, err := Rebuild(ctx, e.node.JS, e.store, Options{}); err != nil {
		t.Fatal(err)
	}
	v2, err := Open(ctx, e.node.JS, e.store, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := secretOf(v2, ids[1]); got != "whsec_bmV3" {
		t.Errorf("after a rebuild the secret is %q, want the rotated one", got)
	}
	if _, err := v2.Webhook(ctx, ids[0]); tempmail.KindOf(err) != tempmail.NotFound {
		t.Errorf("the deleted subscription after a rebuild: %v", err)
	}
}
