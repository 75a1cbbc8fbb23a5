package command

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"tempmail"
	"tempmail/events"
	"tempmail/projections"
)

// Tenants and their API keys. Every change is an event of the tenant's
// aggregate, expecting the tenant's last event as the views show it: a
// change that loses a race to another reads the tenant again and is made
// anew (or refused, when the tenant is gone), so that the log, not a read
// made here, decides.

// The scopes a key may hold (docs/tenants.md "Tenants and keys").
const (
	ScopeInboxes  = "inboxes"  // create, read and delete the tenant's inboxes and mail
	ScopeRead     = "read"     // read them only
	ScopeWebhooks = "webhooks" // subscriptions to the tenant's inboxes
	ScopeAdmin    = "admin"    // tenants and keys: what the API token may do
	ScopeFaults   = "faults"   // SMTP fault rules on the mail of the tenant's inboxes
)

// Scopes lists every scope, in the order answers name them.
func Scopes() []string {
	return []string{ScopeInboxes, ScopeRead, ScopeWebhooks, ScopeAdmin, ScopeFaults}
}

// KeyPrefix begins every API key, so that a key is told from an inbox's
// token and a leaked one is recognised by scanners.
const KeyPrefix = "tm_"

// keyChars is how many base32 characters follow the prefix: 160 random bits.
const keyChars = 32

// KeyHash is what the views keep of a key, and look it up by: the hex
// SHA-256 of the key.
func KeyHash(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// LooksLikeKey reports whether s has a key's shape: the prefix and 32
// lower-case base32 characters.
func LooksLikeKey(s string) bool {
	rest, ok := strings.CutPrefix(s, KeyPrefix)
	if !ok || len(rest) != keyChars {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if c := rest[i]; !(c >= 'a' && c <= 'z' || c >= '2' && c <= '7') {
			return false
		}
	}
	return true
}

func newKey() string {
	b := make([]byte, keyChars*5/8)
	_, _ = rand.Read(b) // crypto/rand never fails (Go 1.24 and later)
	return KeyPrefix + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))
}

// AnonymousTenant is the tenant of the inboxes that clients without a key
// make while --anonymous-quota is set: they share its quota. It is made,
// and its quota set, by SetAnonymousQuota, never by the admin's API.
const AnonymousTenant = "00000000-0000-0000-0000-000000000000"

// SetAnonymousQuota makes the anonymous tenant with quota q, or sets its
// quota to q; when it has q already, it records nothing, so that every
// node may call it at every start.
func (c *Commands) SetAnonymousQuota(ctx context.Context, q events.Quota) error {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	return again(ctx, 10, func(int) (bool, error) {
		tn, seq, err := c.tenantNow(ctx, AnonymousTenant)
		var p events.Payload
		switch {
		case tempmail.KindOf(err) == tempmail.NotFound:
			p, seq = events.TenantCreated{TenantID: AnonymousTenant, Name: "anonymous", Quota: q, CreatedAt: time.Now().UTC()}, 0
		case err != nil:
			return false, err
		case tn == nil:
			return false, nil // the views are behind the tenant's subject
		case tn.Quota == q:
			return true, nil
		default:
			p = events.TenantChanged{TenantID: AnonymousTenant, Name: tn.Name, Quota: q}
		}
		ack, err := c.Store.AppendTenantEvent(ctx, p, seq)
		if tempmail.KindOf(err) == tempmail.Conflict {
			return false, nil // another node first, or views that lag it
		}
		return err == nil, c.applied(ctx, ack, err)
	})
}

// TenantSpec is what a new tenant, or a change of one, asks for; checked
// already.
type TenantSpec struct {
	Name  string
	Quota events.Quota
	// Domains are a new tenant's private domains (lower-case A-labels),
	// each added as AddDomain adds one.
	Domains []string
}

// CreateTenant records a new tenant and returns it as the views now show it.
func (c *Commands) CreateTenant(ctx context.Context, spec TenantSpec) (*projections.Tenant, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	release, err := c.Disk.Reserve(newThingBytes)
	if err != nil {
		return nil, err
	}
	defer release()
	// Refused before the tenant is made, so that a name taken makes
	// nothing; a name taken between here and its addition below is
	// refused there, the tenant made.
	for _, name := range spec.Domains {
		if _, err := c.domainFree(ctx, name); err != nil {
			return nil, err
		}
	}
	ev := events.TenantCreated{TenantID: uuid.NewString(), Name: spec.Name, Quota: spec.Quota, CreatedAt: time.Now().UTC()}
	ack, err := c.Store.AppendTenantEvent(ctx, ev, 0)
	if err := c.applied(ctx, ack, err); err != nil {
		return nil, err
	}
	for _, name := range spec.Domains {
		if _, err := c.AddDomain(ctx, DomainSpec{Name: name, TenantID: ev.TenantID}); err != nil {
			return nil, tempmail.Wrap(tempmail.KindOf(err), err, fmt.Sprintf("tenant %s was made, but not its domain %s", ev.TenantID, name))
		}
	}
	return c.Views.Tenant(ctx, ev.TenantID)
}

// ChangeTenant records what change makes of the tenant as it is (its name
// and quota), and returns the tenant as the views now show it. A tenant
// that does not exist, or was deleted meanwhile, is of kind NotFound.
func (c *Commands) ChangeTenant(ctx context.Context, id string, change func(TenantSpec) TenantSpec) (*projections.Tenant, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	err := c.onTenant(ctx, id, func(tn *projections.Tenant) (events.Payload, error) {
		next := change(TenantSpec{Name: tn.Name, Quota: tn.Quota})
		return events.TenantChanged{TenantID: id, Name: next.Name, Quota: next.Quota}, nil
	})
	if err != nil {
		return nil, err
	}
	return c.Views.Tenant(ctx, id)
}

// DeleteTenant ends a tenant: its keys are refused once its deletion is
// stored (the log refuses them: events.Store.KeyRefused), and its inboxes
// are ended with their mail, each as DeleteInbox ends one, and its private
// domains deactivated.
//
// The deletion expects nothing of the tenant's subject: it is final, and
// views that lag (or a partition held up) do not hold it up. The inboxes
// and domains end by events of their own, after the tenant's: a process
// stopped between them leaves some behind. The tenant's entry is gone by
// then, so a deletion of a tenant that no longer exists but left inboxes
// or active domains finishes the job (an operator's retry of a DELETE
// that got no answer), and is NotFound once nothing is left.
func (c *Commands) DeleteTenant(ctx context.Context, id string) error {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	_, err := c.Views.LatestTenant(ctx, id)
	switch {
	case err == nil:
		ack, err := c.Store.EndTenant(ctx, events.TenantDeleted{TenantID: id})
		if err != nil {
			return err
		}
		c.shown(ctx, ack, "tenant deleted (the log refuses its keys everywhere)", id)
	case tempmail.KindOf(err) == tempmail.NotFound:
		left, lerr := c.leftBehind(ctx, id)
		if lerr != nil {
			return lerr
		}
		if !left {
			return err
		}
	default:
		return err
	}
	c.Metrics.forget(id)
	if err := c.endInboxesOf(ctx, id); err != nil {
		return err
	}
	return c.dropDomainsOf(ctx, id)
}

// leftBehind says whether a tenant without an entry still has live inboxes
// or active domains: a deletion cut short.
func (c *Commands) leftBehind(ctx context.Context, id string) (bool, error) {
	left := false
	err := c.Views.TenantInboxes(ctx, id, func(projections.TenantInbox) bool {
		left = true
		return false
	})
	if err != nil || left {
		return left, err
	}
	list, err := c.Views.TenantDomains(ctx, id, true)
	return len(list) > 0, err
}

// endInboxesOf ends every live inbox of a tenant, a page of its list at a
// time, until its list is empty: those a key of the tenant made while the
// deletion was being applied included.
func (c *Commands) endInboxesOf(ctx context.Context, tenantID string) error {
	for {
		var ids []string
		err := c.Views.TenantInboxes(ctx, tenantID, func(in projections.TenantInbox) bool {
			ids = append(ids, in.ID)
			return len(ids) < 256
		})
		if err != nil || len(ids) == 0 {
			return err
		}
		ended := 0
		for _, id := range ids {
			in, err := c.Views.Inbox(ctx, id)
			if tempmail.KindOf(err) == tempmail.NotFound {
				// Ended already, its removal from the list not applied
				// yet: nothing more to do here.
				continue
			}
			if err != nil {
				return err
			}
			if err := c.DeleteInbox(ctx, in); err != nil && tempmail.KindOf(err) != tempmail.NotFound {
				return err
			}
			ended++
		}
		if ended == 0 {
			return nil // what is left is leaving the list on its own
		}
	}
}

// KeySpec is what a new key asks for; checked already.
type KeySpec struct {
	Name      string
	Scopes    []string
	ExpiresAt time.Time // zero: never
}

// CreateKey makes a key of a tenant and returns it, the only time it is
// told (the views keep its hash), with what the views now show of it.
// Beyond projections.MaxTenantKeys live keys, it is a Conflict.
func (c *Commands) CreateKey(ctx context.Context, tenantID string, spec KeySpec) (string, *projections.KeyInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	release, err := c.Disk.Reserve(newThingBytes)
	if err != nil {
		return "", nil, err
	}
	defer release()
	key := newKey()
	ev := events.KeyCreated{KeyID: uuid.NewString(), TenantID: tenantID, Name: spec.Name, Scopes: spec.Scopes,
		Hash: KeyHash(key), CreatedAt: time.Now().UTC(), ExpiresAt: spec.ExpiresAt}
	err = c.onTenant(ctx, tenantID, func(tn *projections.Tenant) (events.Payload, error) {
		if len(tn.Keys) >= projections.MaxTenantKeys {
			return nil, errKeyCap
		}
		return ev, nil
	})
	if err != nil {
		return "", nil, err
	}
	k, err := c.Views.KeyByHash(ctx, ev.Hash)
	if tempmail.KindOf(err) == tempmail.NotFound {
		// The views took no key: others took the last places first.
		return "", nil, errKeyCap
	}
	if err != nil {
		return "", nil, err
	}
	return key, &k.KeyInfo, nil
}

var errKeyCap = tempmail.Errorf(tempmail.Conflict, "the tenant has %d keys, the most it may have: revoke one first",
	projections.MaxTenantKeys)

// RevokeKey ends a key: once this returns, it is refused on every node,
// since authentication asks the log, which holds the revocation
// (events.Store.KeyRefused). A key that does not exist (or was revoked
// already) is of kind NotFound. The revocation expects nothing of the
// tenant's subject, so views that lag, or a partition held up, never
// hold it up; it waits a moment for the views to show it (the key gone
// from its tenant's list), and returns all the same if they do not.
func (c *Commands) RevokeKey(ctx context.Context, keyID string) error {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	ref, err := c.Views.KeyByID(ctx, keyID)
	if err != nil {
		return err
	}
	acks, err := c.Store.RevokeKey(ctx, events.KeyRevoked{KeyID: keyID, TenantID: ref.TenantID, Hash: ref.Hash})
	if err != nil {
		return err
	}
	for _, ack := range acks {
		c.shown(ctx, ack, "key revoked (the log refuses it everywhere)", keyID)
	}
	return nil
}

// shown waits a moment (revokeShown) for the views to show an end that
// is in force already: a key's revocation, a tenant's deletion. The
// caller answers all the same when they do not: it logs so.
func (c *Commands) shown(ctx context.Context, ack events.Ack, what, id string) {
	wctx, cancel := context.WithTimeout(ctx, revokeShown)
	defer cancel()
	if err := c.Views.WaitApplied(wctx, ack); err != nil {
		c.Log.Warn(what+", but the views do not show it yet", "id", id, "err", err)
	}
}

// KeyRefused reports whether the log refuses a key the views still hold:
// its revocation, or its tenant's deletion, is stored. Authentication
// asks it of every key, so that an end is in force on every node from the
// moment it is stored, whatever the views have applied.
func (c *Commands) KeyRefused(ctx context.Context, k *projections.KeyInfo) (bool, error) {
	return c.Store.KeyRefused(ctx, k.Hash, k.TenantID)
}

// revokeShown bounds the wait for the views to show a revocation, which
// is in force before they do.
const revokeShown = 2 * time.Second

// onTenant records the event that next makes of a tenant as the views
// show it, expecting the tenant's last event; when another change came
// first, it reads the tenant again and tries anew. A tenant absent or
// deleted is of kind NotFound.
func (c *Commands) onTenant(ctx context.Context, id string, next func(*projections.Tenant) (events.Payload, error)) error {
	return again(ctx, 10, func(int) (bool, error) {
		tn, last, err := c.tenantNow(ctx, id)
		if err != nil || tn == nil {
			return false, err
		}
		p, err := next(tn)
		if err != nil {
			return false, err
		}
		ack, err := c.Store.AppendTenantEvent(ctx, p, last)
		if tempmail.KindOf(err) == tempmail.Conflict {
			return false, nil // another change first, or views that lag it
		}
		return err == nil, c.applied(ctx, ack, err)
	})
}
