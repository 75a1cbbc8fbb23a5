package backendtest

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tempmail/backend"
	"tempmail/command"
	"tempmail/events"
	"tempmail/mailbox"
	"tempmail/projections"
)

// What tests make through the back end's commands, as the API makes it
// for its callers, and read back through its views: every helper returns
// once the views show what it made.

// Domain returns b's active domain named name.
func Domain(t testing.TB, b *backend.Backend, name string) projections.Domain {
	t.Helper()
	d, err := b.Views.DomainByName(t.Context(), name)
	if err != nil {
		t.Fatalf("domain %s: %v", name, err)
	}
	return *d
}

// CreateInbox makes a family C inbox as POST /inboxes/ does: at addr (a
// local part on one of b's domains), or, when addr is empty, of a random
// name on the first configured domain; it lives Config.TokenInboxTTL.
func CreateInbox(t testing.TB, b *backend.Backend, addr string) *projections.Inbox {
	t.Helper()
	local, domain := "", b.Config.Domains[0]
	if addr != "" {
		local, domain, _ = strings.Cut(addr, "@")
	}
	in, err := b.Commands.CreateInbox(t.Context(), command.Spec{Local: local, Random: 10,
		Domain: Domain(t, b, domain), TTL: b.Config.TokenInboxTTL})
	if err != nil {
		t.Fatalf("create inbox %q: %v", addr, err)
	}
	return in
}

// CreateTenant makes a tenant of that name, with no quota of its own.
func CreateTenant(t testing.TB, b *backend.Backend, name string) *projections.Tenant {
	t.Helper()
	tn, err := b.Commands.CreateTenant(t.Context(), command.TenantSpec{Name: name})
	if err != nil {
		t.Fatalf("create tenant %q: %v", name, err)
	}
	return tn
}

// AddDomain adds a domain at runtime, as the admin API does: public when
// tenantID is empty, else that tenant's.
func AddDomain(t testing.TB, b *backend.Backend, name, tenantID string) projections.Domain {
	t.Helper()
	d, err := b.Commands.AddDomain(t.Context(), command.DomainSpec{Name: name, TenantID: tenantID})
	if err != nil {
		t.Fatalf("add domain %s: %v", name, err)
	}
	return d
}

// Deliver stores a small message for the inbox token names through the
// event store, as ingest does, and waits until the views have applied it.
func Deliver(t testing.TB, b *backend.Backend, token, subject string) events.Ack {
	t.Helper()
	ctx := t.Context()
	in, err := b.Views.InboxByToken(ctx, token)
	if err != nil {
		t.Fatal(err)
	}
	id := uuid.Must(uuid.NewV7()).String()
	acks, err := b.Store.AppendMail(ctx, []events.Copy{{Mail: events.MailReceived{InboxID: in.ID, MessageID: id, Address: in.Address,
		ReceivedAt: time.Now().UTC(), Size: 10, Content: mailbox.Content{Raw: []byte("Subject: " + subject + "\r\n\r\n."),
			From: "a@example.com", Subject: subject}}, LifecycleSeq: in.LifecycleSeq, DedupeID: id}})
	if err != nil {
		t.Fatal(err)
	}
	Applied(t, b, acks[0])
	return acks[0]
}
