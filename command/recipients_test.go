package command_test

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"tempmail"
	"tempmail/backend"
	"tempmail/command"
	"tempmail/config"
	"tempmail/eventually"
	"tempmail/mailbox"
	"tempmail/projections"
)

// operator is the client the inbound webhook accepts for: the operator's
// own relay, which holds the API token and has no share to spend.
var operator = netip.Addr{}

// acceptAs asks svc's Accept for addr from client, and checks its answer:
// want nil and an inbox, or want's error and kind and no inbox.
func acceptAs(t *testing.T, svc *backend.Backend, client netip.Addr, addr string, want error) *projections.Inbox {
	t.Helper()
	in, err := svc.Commands.Accept(t.Context(), addr, client)
	switch {
	case want == nil && (err != nil || in == nil):
		t.Errorf("Accept %q: %+v %v, want an inbox", addr, in, err)
	case want != nil && (!errors.Is(err, want) || tempmail.KindOf(err) != tempmail.KindOf(want) || in != nil):
		t.Errorf("Accept %q: %+v %v, want %v", addr, in, err, want)
	}
	return in
}

// noInboxAt checks that the views show no live inbox at addr.
func noInboxAt(t *testing.T, svc *backend.Backend, addr string) {
	t.Helper()
	if in, err := svc.Views.InboxByAddress(t.Context(), addr); tempmail.KindOf(err) != tempmail.NotFound {
		t.Errorf("the views show %+v (%v) at %s, want none", in, err, addr)
	}
}

// TestAcceptTakesMailForLiveInboxesOnly: Accept finds a live inbox by its
// address in any case, and local+tag's is local's; another address on a
// served domain has no mailbox, one on any other domain is not served, and
// once the inbox is deleted its address has no mailbox either. Answering
// records nothing. With plus-addressing off, local+tag is an address of
// its own, which no inbox has.
func TestAcceptTakesMailForLiveInboxesOnly(t *testing.T) {
	t.Parallel()
	t.Run("plus-addressing on", func(t *testing.T) {
		t.Parallel()
		svc := start(t)
		alice := newInbox(t, svc, "alice")
		before := logEnd(t, svc)
		for _, c := range []struct {
			addr string
			want error
		}{
			{"alice@tempmail.test", nil},
			{"Alice@TempMail.TEST", nil},
			{" alice@tempmail.test ", nil},
			{"alice+news@tempmail.test", nil},
			{"ALICE+News+Letter@tempmail.test", nil},
			{"+news@tempmail.test", command.ErrNoMailbox},
			{"alicia@tempmail.test", command.ErrNoMailbox},
			{"alice.news@tempmail.test", command.ErrNoMailbox},
			{"not an address", command.ErrNoMailbox},
			{"alice@gmail.com", command.ErrNotServed},
			{"alice@mail.tempmail.test", command.ErrNotServed},
			{"alice@tempmail.test.evil.example", command.ErrNotServed},
		} {
			if in := acceptAs(t, svc, netip.MustParseAddr("192.0.2.1"), c.addr, c.want); in != nil && in.ID != alice.ID {
				t.Errorf("Accept %q: inbox %s (%s), want alice's %s", c.addr, in.ID, in.Address, alice.ID)
			}
		}
		if got := logEnd(t, svc); got != before {
			t.Errorf("Accept recorded %d events", got-before)
		}

		if err := svc.Commands.DeleteInbox(t.Context(), alice); err != nil {
			t.Fatal(err)
		}
		acceptAs(t, svc, operator, "alice@tempmail.test", command.ErrNoMailbox)
		acceptAs(t, svc, operator, "alice+news@tempmail.test", command.ErrNoMailbox)
	})
	t.Run("plus-addressing off", func(t *testing.T) {
		t.Parallel()
		svc := start(t, func(c *config.Config) { c.PlusAddressing = false })
		alice := newInbox(t, svc, "alice")
		if in := acceptAs(t, svc, operator, "Alice@tempmail.test", nil); in != nil && in.ID != alice.ID {
			t.Errorf("Accept alice: %s, want %s", in.ID, alice.ID)
		}
		acceptAs(t, svc, operator, "alice+news@tempmail.test", command.ErrNoMailbox)
	})
}

// TestAnExpiredInboxTakesNoMail: from the moment its time is up, whether
// or not the views have applied its expiry yet, an inbox's address has no
// mailbox.
func TestAnExpiredInboxTakesNoMail(t *testing.T) {
	t.Parallel()
	svc := start(t)
	in, err := svc.Commands.CreateInbox(t.Context(), command.Spec{Local: "brief",
		Domain: domain(t, svc, "tempmail.test"), TTL: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	// Until the views show it ended, each look past its end is refused:
	// Accept must not trust an entry whose time is up.
	eventually.Nil(t, "the views show the inbox expired", func() error {
		late := time.Now().After(in.ExpiresAt)
		got, err := svc.Commands.Accept(t.Context(), in.Address, operator)
		if late && !errors.Is(err, command.ErrNoMailbox) {
			t.Fatalf("Accept after the inbox's end: %+v %v, want ErrNoMailbox", got, err)
		}
		if _, err := svc.Views.InboxByAddress(t.Context(), in.Address); tempmail.KindOf(err) != tempmail.NotFound {
			return fmt.Errorf("the views still show it: %v", err)
		}
		return nil
	})
	acceptAs(t, svc, operator, in.Address, command.ErrNoMailbox)
}

// catchAll runs a service serving tempmail.test and catch.test, mail to
// any address of catch.test being taken, whose clients may each make
// creates inboxes an hour (0: no limit).
func catchAll(t *testing.T, creates int) *backend.Backend {
	t.Helper()
	return start(t, func(c *config.Config) {
		c.Domains = []string{"tempmail.test", "catch.test"}
		c.CatchAllDomains = []string{"catch.test"}
		c.CreateRatePerClient = config.Rate{N: creates, Per: time.Hour}
	})
}

// TestCatchAllMakesAnInboxForTheFirstMail: on a catch-all domain, Accept
// of a new address makes its inbox (family A, CatchAllTTL), which the
// views show at once and which takes the next mail, also to local+tag (a
// first mail to local+tag makes local's); racing Accepts of one new address make one inbox between them. Names an
// inbox may not have (reserved, outside the alphabet) get none, and so do
// unknown addresses on the other domain.
func TestCatchAllMakesAnInboxForTheFirstMail(t *testing.T) {
	t.Parallel()
	svc := catchAll(t, 0)
	noInboxAt(t, svc, "signup-7@catch.test")
	made := acceptAs(t, svc, netip.MustParseAddr("192.0.2.1"), "Signup-7@Catch.Test", nil)
	if made == nil {
		t.FailNow()
	}
	if made.Address != "signup-7@catch.test" || made.Retention != mailbox.RetainWithInbox || made.DomainID != domain(t, svc, "catch.test").ID ||
		made.ExpiresAt.Sub(made.CreatedAt) != command.CatchAllTTL || !made.Live(time.Now()) {
		t.Errorf("the inbox made by mail: %+v", made)
	}
	if in, err := svc.Views.InboxByAddress(t.Context(), "signup-7@catch.test"); err != nil || in.ID != made.ID {
		t.Errorf("the views show %+v (%v), want %s", in, err, made.ID)
	}
	before := logEnd(t, svc)
	for _, addr := range []string{"signup-7@catch.test", "SIGNUP-7+welcome@catch.test"} {
		if in := acceptAs(t, svc, netip.MustParseAddr("192.0.2.2"), addr, nil); in != nil && in.ID != made.ID {
			t.Errorf("Accept %s: a new inbox %s (%s), want %s", addr, in.ID, in.Address, made.ID)
		}
	}
	if got := logEnd(t, svc); got != before {
		t.Errorf("accepting the address again recorded %d events", got-before)
	}

	// A first mail to local+tag makes local's inbox, as any inbox takes
	// local+tag's mail.
	if in := acceptAs(t, svc, operator, "fresh+tag@catch.test", nil); in != nil && in.Address != "fresh@catch.test" {
		t.Errorf("the first mail to fresh+tag made %s, want fresh@catch.test", in.Address)
	}

	ins := make([]*projections.Inbox, 10)
	errs := race(len(ins), func(ctx context.Context, i int) (err error) {
		ins[i], err = svc.Commands.Accept(ctx, "racer@catch.test", operator)
		return err
	})
	for i, err := range errs {
		if err != nil || ins[i].ID != ins[0].ID {
			t.Errorf("racing Accept %d: %+v %v, want the inbox of the others", i, ins[i], err)
		}
	}
	if in, err := svc.Views.InboxByAddress(t.Context(), "racer@catch.test"); err != nil || in.ID != ins[0].ID {
		t.Errorf("after the race the views show %+v (%v), want %s", in, err, ins[0].ID)
	}

	for _, addr := range []string{"postmaster@catch.test", "Abuse+x@catch.test", "a..b@catch.test", "-a@catch.test",
		"under_score_@catch.test", "ünïcode@catch.test", "nobody@tempmail.test"} {
		acceptAs(t, svc, operator, addr, command.ErrNoMailbox)
		norm, _ := tempmail.NormalizeAddress(addr)
		noInboxAt(t, svc, norm)
	}
	noInboxAt(t, svc, "abuse@catch.test")
	acceptAs(t, svc, operator, "anyone@example.com", command.ErrNotServed)
}

// TestCatchAllCreationsAreTheClientsShare: a client makes at most its
// share of inboxes by mail; beyond it, a new address is refused as
// ErrTooManyInboxes (it may come back later) and gets no inbox, while the
// inboxes it made still take its mail and other clients make theirs. The
// operator's relay (an invalid client) has no share and no limit.
func TestCatchAllCreationsAreTheClientsShare(t *testing.T) {
	t.Parallel()
	svc := catchAll(t, 2)
	greedy, other := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("2001:db8::1")
	first := acceptAs(t, svc, greedy, "one@catch.test", nil)
	acceptAs(t, svc, greedy, "two@catch.test", nil)
	acceptAs(t, svc, greedy, "three@catch.test", command.ErrTooManyInboxes)
	noInboxAt(t, svc, "three@catch.test")
	if in := acceptAs(t, svc, greedy, "one+again@catch.test", nil); in != nil && first != nil && in.ID != first.ID {
		t.Errorf("the client's own inbox: %s, want %s", in.ID, first.ID)
	}
	acceptAs(t, svc, other, "three@catch.test", nil)
	for i := range 5 {
		acceptAs(t, svc, operator, fmt.Sprintf("relayed-%d@catch.test", i), nil)
	}
}
