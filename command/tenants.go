package command

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"fmt"
	"slices"
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

// The scopes a key may hold (API.md "Tenants and keys").
const (
	ScopeInboxes  = "inboxes"  // create, read and delete the tenant's inboxes and mail
	ScopeRead     = "read"     // read them only
	ScopeWebhooks = "webhooks" // subscriptions to the tenant's inboxes
	ScopeAdmin    = "admin"    // tenants and keys: what the API token may do
)

// Scopes lists every scope, in the order answers name them.
func Scopes() []string { return []string{ScopeInboxes, ScopeRead, ScopeWebhooks, ScopeAdmin} }

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
		tn, err := c.Views.Tenant(ctx, AnonymousTenant)
		var p events.Payload
		var seq uint64
		switch {
		case tempmail.KindOf(err) == tempmail.NotFound:
			p = events.TenantCreated{TenantID: AnonymousTenant, Name: "anonymous", Quota: q, CreatedAt: time.Now().UTC()}
		case err != nil:
			return false, err
		case tn.Quota == q:
			return true, nil
		default:
			p, seq = events.TenantChanged{TenantID: AnonymousTenant, Name: tn.Name, Quota: q}, tn.Seq
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
	if len(spec.Domains) > 0 {
		// Refused before the tenant is made, so that a name taken makes
		// nothing; a name taken between here and its addition below is
		// refused there, the tenant made.
		list, _, err := c.Views.Domains(ctx)
		if err != nil {
			return nil, err
		}
		for _, d := range list {
			if d.Active && slices.Contains(spec.Domains, d.Name) {
				return nil, tempmail.Errorf(tempmail.Conflict, "domain %s exists already", d.Name)
			}
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

// DeleteTenant ends a tenant: its keys are refused once this returns, and
// its inboxes are ended with their mail, each as DeleteInbox ends one, and
// its private domains deactivated.
//
// The inboxes and domains end by events of their own, after the tenant's:
// a process stopped between them leaves some behind. The tenant's entry is
// gone by then, so a deletion of a tenant that no longer exists but left
// inboxes or active domains finishes the job (an operator's retry of a
// DELETE that got no answer), and is NotFound once nothing is left.
func (c *Commands) DeleteTenant(ctx context.Context, id string) error {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	err := c.onTenant(ctx, id, func(*projections.Tenant) (events.Payload, error) {
		return events.TenantDeleted{TenantID: id}, nil
	})
	if tempmail.KindOf(err) == tempmail.NotFound {
		left, lerr := c.leftBehind(ctx, id)
		if lerr != nil {
			return lerr
		}
		if !left {
			return err
		}
	} else if err != nil {
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
	ids, err := c.Views.TenantInboxes(ctx, id)
	if err != nil || len(ids) > 0 {
		return len(ids) > 0, err
	}
	list, _, err := c.Views.Domains(ctx)
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(list, func(d projections.Domain) bool { return d.Active && d.TenantID == id }), nil
}

// endInboxesOf ends every live inbox of a tenant. A second look ends those
// a key of the tenant made while the first ended the others: the key was
// taken just before the tenant's deletion was applied.
func (c *Commands) endInboxesOf(ctx context.Context, tenantID string) error {
	for range 2 {
		ids, err := c.Views.TenantInboxes(ctx, tenantID)
		if err != nil {
			return err
		}
		for _, id := range ids {
			in, err := c.Views.Inbox(ctx, id)
			if tempmail.KindOf(err) == tempmail.NotFound {
				continue
			}
			if err != nil {
				return err
			}
			if err := c.DeleteInbox(ctx, in); err != nil && tempmail.KindOf(err) != tempmail.NotFound {
				return err
			}
		}
	}
	return nil
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

// RevokeKey ends a key: once this returns, it is refused. A key that does
// not exist (or was revoked already) is of kind NotFound.
func (c *Commands) RevokeKey(ctx context.Context, keyID string) error {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	ref, err := c.Views.KeyByID(ctx, keyID)
	if err != nil {
		return err
	}
	return c.onTenant(ctx, ref.TenantID, func(tn *projections.Tenant) (events.Payload, error) {
		for _, k := range tn.Keys {
			if k.ID == keyID {
				return events.KeyRevoked{KeyID: keyID, TenantID: tn.ID}, nil
			}
		}
		return nil, tempmail.Errorf(tempmail.NotFound, "key not found")
	})
}

// onTenant records the event that next makes of a tenant as the views
// show it, expecting the tenant's last event; when another change came
// first, it reads the tenant again and tries anew. A tenant absent or
// deleted is of kind NotFound.
func (c *Commands) onTenant(ctx context.Context, id string, next func(*projections.Tenant) (events.Payload, error)) error {
	return again(ctx, 10, func(int) (bool, error) {
		tn, err := c.Views.Tenant(ctx, id)
		if err != nil {
			return false, err
		}
		p, err := next(tn)
		if err != nil {
			return false, err
		}
		ack, err := c.Store.AppendTenantEvent(ctx, p, tn.Seq)
		if tempmail.KindOf(err) == tempmail.Conflict {
			return false, nil // another change first, or views that lag it
		}
		return err == nil, c.applied(ctx, ack, err)
	})
}
