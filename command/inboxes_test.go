package command_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"tempmail"
	"tempmail/backend/backendtest"
	"tempmail/command"
	"tempmail/config"
	"tempmail/events"
	"tempmail/mailbox"
	"tempmail/projections"
)

// TestOneOfRacingClaimsOfAnAddressWins: twenty claims of one name at once
// make one inbox; the others are told the name is taken. The winner is
// what the views show at once, by address and by token; once it is
// deleted, the name can be claimed again, and a deletion with what was
// read before is refused, leaving the new inbox be.
func TestOneOfRacingClaimsOfAnAddressWins(t *testing.T) {
	t.Parallel()
	svc := start(t)
	d := domain(t, svc, "tempmail.test")
	made := make([]*projections.Inbox, 20)
	errs := race(20, func(ctx context.Context, i int) (err error) {
		made[i], err = svc.Commands.CreateInbox(ctx, command.Spec{Local: "wanted", Domain: d, TTL: time.Hour})
		return err
	})
	var winner *projections.Inbox
	for i, err := range errs {
		switch {
		case err == nil && winner == nil:
			winner = made[i]
		case err == nil:
			t.Errorf("two claims of wanted@tempmail.test won: %s and %s", winner.ID, made[i].ID)
		case !errors.Is(err, command.ErrTaken) || tempmail.KindOf(err) != tempmail.Conflict:
			t.Errorf("a losing claim: %v, want ErrTaken", err)
		}
	}
	if winner == nil {
		t.Fatal("no claim won")
	}
	if winner.Address != "wanted@tempmail.test" || winner.Retention != mailbox.RetainWithInbox || winner.DomainID != d.ID ||
		winner.ExpiresAt.Sub(winner.CreatedAt) != time.Hour || !winner.Live(time.Now()) {
		t.Errorf("the inbox made: %+v", winner)
	}
	byAddress, err := svc.Views.InboxByAddress(t.Context(), "wanted@tempmail.test")
	if err != nil || byAddress.ID != winner.ID {
		t.Fatalf("the views show %+v (%v) at the address, want %s", byAddress, err, winner.ID)
	}
	if byToken, err := svc.Views.InboxByToken(t.Context(), winner.Token); err != nil || byToken.ID != winner.ID {
		t.Errorf("by its token: %+v %v", byToken, err)
	}

	if err := svc.Commands.DeleteInbox(t.Context(), winner); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Views.InboxByAddress(t.Context(), winner.Address); tempmail.KindOf(err) != tempmail.NotFound {
		t.Errorf("a deleted inbox is still found by its address: %v", err)
	}
	again := newInbox(t, svc, "wanted")
	if again.ID == winner.ID || again.Address != winner.Address || again.Token == winner.Token {
		t.Errorf("the name claimed again: %+v, the first %+v", again, winner)
	}
	if err := svc.Commands.DeleteInbox(t.Context(), winner); tempmail.KindOf(err) != tempmail.NotFound {
		t.Errorf("deleting the first inbox again: %v, want NotFound", err)
	}
	if in, err := svc.Views.InboxByAddress(t.Context(), again.Address); err != nil || in.ID != again.ID {
		t.Errorf("after a stale deletion the address holds %+v (%v), want %s", in, err, again.ID)
	}
}

// TestRacingDeletionsOfAnInboxEndItOnce: of deletions of one inbox at once,
// one ends it and the others find it gone.
func TestRacingDeletionsOfAnInboxEndItOnce(t *testing.T) {
	t.Parallel()
	svc := start(t)
	in := newInbox(t, svc, "")
	before := logEnd(t, svc)
	var ended int
	for _, err := range race(8, func(ctx context.Context, _ int) error { return svc.Commands.DeleteInbox(ctx, in) }) {
		switch {
		case err == nil:
			ended++
		case tempmail.KindOf(err) != tempmail.NotFound:
			t.Errorf("a racing deletion: %v, want NotFound", err)
		}
	}
	if ended != 1 {
		t.Errorf("%d deletions ended the inbox, want 1", ended)
	}
	if got := logEnd(t, svc) - before; got != 1 {
		t.Errorf("the log holds %d events more, want the one deletion", got)
	}
	if _, err := svc.Views.Inbox(t.Context(), in.ID); tempmail.KindOf(err) != tempmail.NotFound {
		t.Errorf("the views still show the inbox: %v", err)
	}
}

// TestRandomNamesAreNeverTwiceNorReserved: forty inboxes with random names
// of one character (36 to draw from) made at once each get a name of
// their own, or, once the free names run short, are refused as
// unavailable; and a random name is never one the operator reserved.
func TestRandomNamesAreNeverTwiceNorReserved(t *testing.T) {
	t.Parallel()
	t.Run("racing", func(t *testing.T) {
		t.Parallel()
		svc := start(t)
		d := domain(t, svc, "tempmail.test")
		made := make([]*projections.Inbox, 40)
		errs := race(40, func(ctx context.Context, i int) (err error) {
			made[i], err = svc.Commands.CreateInbox(ctx, command.Spec{Random: 1, Domain: d})
			return err
		})
		owner := map[string]string{}
		for i, err := range errs {
			if err != nil {
				if tempmail.KindOf(err) != tempmail.Unavailable {
					t.Errorf("a random name refused with %v, want Unavailable", err)
				}
				continue
			}
			if other, ok := owner[made[i].Address]; ok {
				t.Errorf("%s was given to %s and %s", made[i].Address, other, made[i].ID)
			}
			owner[made[i].Address] = made[i].ID
		}
		if len(owner) == 0 {
			t.Fatal("no inbox made")
		}
		for addr, id := range owner {
			if in, err := svc.Views.InboxByAddress(t.Context(), addr); err != nil || in.ID != id {
				t.Errorf("%s: the views show %+v (%v), want %s", addr, in, err, id)
			}
		}
	})
	t.Run("reserved", func(t *testing.T) {
		t.Parallel()
		// Every one-character name but q is reserved.
		var reserved []string
		for _, c := range "abcdefghijklmnoprstuvwxyz0123456789" {
			reserved = append(reserved, string(c))
		}
		svc := start(t, func(c *config.Config) { c.ReservedNames = reserved })
		spec := command.Spec{Random: 1, Domain: domain(t, svc, "tempmail.test")}
		// Each try draws five names; most are reserved, and are drawn again.
		var in *projections.Inbox
		for tries := 0; in == nil; tries++ {
			var err error
			if in, err = svc.Commands.CreateInbox(t.Context(), spec); err != nil && tempmail.KindOf(err) != tempmail.Unavailable {
				t.Fatal(err)
			}
			if tries == 200 {
				t.Fatal("200 tries drew no free name")
			}
		}
		if in.Address != "q@tempmail.test" {
			t.Errorf("a random name of one character is %s, want q, the one not reserved", in.Address)
		}
		if _, err := svc.Commands.CreateInbox(t.Context(), spec); tempmail.KindOf(err) != tempmail.Unavailable {
			t.Errorf("with q taken and the rest reserved: %v, want Unavailable", err)
		}
	})
}

// TestNewThingsNeedRoomOnDiskWhileDeletionsGoOn: with less room on the disk
// than --min-free-disk keeps, new inboxes and subscriptions are refused as
// Full and record nothing, while reads, deletions and unsubscribing go on.
func TestNewThingsNeedRoomOnDiskWhileDeletionsGoOn(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	cfg := backendtest.ConfigIn(dir)
	cfg.WebhookAllowPrivate = true
	svc := backendtest.Start(t, cfg)
	in := newInbox(t, svc, "kept")
	backendtest.Deliver(t, svc, in.Token, "before")
	hook, err := svc.Commands.Subscribe(t.Context(), command.Subscription{URL: "http://127.0.0.1:9/hook", Events: []string{mailbox.HookMessageReceived}})
	if err != nil {
		t.Fatal(err)
	}
	backendtest.Stop(svc)

	cfg.MinFreeDisk = 1 << 60 // more than any disk has
	svc = backendtest.Start(t, cfg)
	before := logEnd(t, svc)
	if _, err := svc.Commands.CreateInbox(t.Context(), command.Spec{Random: 10,
		Domain: domain(t, svc, "tempmail.test")}); tempmail.KindOf(err) != tempmail.Full {
		t.Errorf("a new inbox on a full disk: %v, want Full", err)
	}
	if _, err := svc.Commands.Subscribe(t.Context(), command.Subscription{URL: "http://127.0.0.1:9/other",
		Events: []string{mailbox.HookMessageReceived}}); tempmail.KindOf(err) != tempmail.Full {
		t.Errorf("a new subscription on a full disk: %v, want Full", err)
	}
	if got := logEnd(t, svc); got != before {
		t.Errorf("refusals recorded %d events", got-before)
	}

	in, err = svc.Views.Inbox(t.Context(), in.ID)
	if err != nil {
		t.Fatal(err)
	}
	m := latest(t, svc, in)
	if read, err := svc.Commands.MarkRead(t.Context(), m); err != nil || !read.IsRead {
		t.Errorf("marking read on a full disk: %+v %v", read, err)
	}
	if err := svc.Commands.DeleteMessage(t.Context(), m); err != nil {
		t.Errorf("deleting a message on a full disk: %v", err)
	}
	if h, err := svc.Views.Webhook(t.Context(), hook.ID); err != nil {
		t.Fatal(err)
	} else if err := svc.Commands.Unsubscribe(t.Context(), h); err != nil {
		t.Errorf("unsubscribing on a full disk: %v", err)
	}
	if err := svc.Commands.DeleteInbox(t.Context(), in); err != nil {
		t.Errorf("deleting an inbox on a full disk: %v", err)
	}
	if _, err := svc.Views.Inbox(t.Context(), in.ID); tempmail.KindOf(err) != tempmail.NotFound {
		t.Errorf("the inbox deleted on a full disk is still there: %v", err)
	}
}

// TestAnInboxIsRecordedWithItsRetentionNotItsFamily: the InboxCreated a
// creation stores in the log says what becomes of the inbox's messages
// ("retention", left out for the default) and not through which API the
// inbox was made ("family"); the views show the same retention.
func TestAnInboxIsRecordedWithItsRetentionNotItsFamily(t *testing.T) {
	t.Parallel()
	svc := start(t)
	d := domain(t, svc, "tempmail.test")
	for local, want := range map[string]mailbox.Retention{"kept-a-while": mailbox.RetainMessages, "kept-with-it": mailbox.RetainWithInbox} {
		in, err := svc.Commands.CreateInbox(t.Context(), command.Spec{Retention: want, Local: local, Domain: d})
		if err != nil {
			t.Fatal(err)
		}
		if in.Retention != want {
			t.Errorf("%s: the views show retention %q, want %q", local, in.Retention, want)
		}
		m, err := svc.Store.Stream().GetMsg(t.Context(), in.LifecycleSeq)
		if err != nil {
			t.Fatal(err)
		}
		var stored struct {
			Type string                     `json:"type"`
			Data map[string]json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(m.Data, &stored); err != nil || stored.Type != string(events.TypeInboxCreated) {
			t.Fatalf("%s: event %d is %s (%v)", local, in.LifecycleSeq, m.Data, err)
		}
		if _, ok := stored.Data["family"]; ok {
			t.Errorf("%s: stored with a family: %s", local, m.Data)
		}
		got, ok := stored.Data["retention"]
		if want == mailbox.RetainMessages && string(got) != `"messages"` || want == mailbox.RetainWithInbox && ok {
			t.Errorf("%s: stored retention %s, want %q: %s", local, got, want, m.Data)
		}
	}
}
