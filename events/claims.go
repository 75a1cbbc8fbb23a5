package events

import (
	"bytes"
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"tempmail"
	"tempmail/broker"
)

// A tenant's quota is claimed, not read: what counts against it (an inbox,
// a message, a subscription, a private domain) is recorded with a claim on
// the tenant's subject, in one atomic batch with the thing itself, the
// claim expecting the tenant's last event. The count a command checks is
// the one the views hold at that event, so of racing claims at the quota
// the stream takes one at a time, each checked against a count that holds
// every other: none passes the quota. A claim leaves the log with what it
// claimed (its seq is found from the claimed event: ClaimBack events
// before it, in the same batch, and checked before it is deleted).
//
// What stops counting (a message deleted, a subscription ended) is
// counted by the views where it ends, in its own partition; an inbox or a
// private domain that ends is recorded on the tenant's subject too
// (TenantInboxRemoved, TenantDomainRemoved), so that the tenant's own
// partition keeps its list.

// MailClaimed counts one recipient's copy of a message against its
// tenant's messages_per_day and storage_bytes.
type MailClaimed struct {
	TenantID  string `json:"tenant_id"`
	InboxID   string `json:"inbox_id"`
	MessageID string `json:"message_id"`
	Size      int64  `json:"size"`
	Day       string `json:"day"` // the UTC day it came (2006-01-02), which messages_per_day counts
}

// WebhookClaimed counts a subscription to a tenant's inbox against its
// quota.webhooks.
type WebhookClaimed struct {
	TenantID  string `json:"tenant_id"`
	WebhookID string `json:"webhook_id"`
	InboxID   string `json:"inbox_id"`
}

// TenantDomainAdded counts a private domain of a tenant (a Mailosaur
// server, when Server) against the most it may have.
type TenantDomainAdded struct {
	TenantID string `json:"tenant_id"`
	Name     string `json:"name"`
	Server   bool   `json:"server,omitempty"`
}

// TenantDomainRemoved stops counting a private domain that was
// deactivated (stored with its DomainDeactivated).
type TenantDomainRemoved struct {
	TenantID string `json:"tenant_id"`
	Name     string `json:"name"`
	Server   bool   `json:"server,omitempty"`
}

func (MailClaimed) EventType() Type         { return TypeMailClaimed }
func (WebhookClaimed) EventType() Type      { return TypeWebhookClaimed }
func (TenantDomainAdded) EventType() Type   { return TypeTenantDomainAdded }
func (TenantDomainRemoved) EventType() Type { return TypeTenantDomainRemoved }

// Claim is a claim to store before what it claims, in the same batch.
type Claim struct {
	Payload Payload
	// Expect says the claim expects its tenant's subject at ExpectSeq:
	// the first claim of a tenant in a batch does; the others follow it.
	Expect    bool
	ExpectSeq uint64
}

// claimMsg is a claim as a message of a batch, deduplicated by id.
func claimMsg(c *Claim, id string) (*nats.Msg, error) {
	subj := tenantSubject(TenantOf(c.Payload))
	m, err := eventMsg(subj, c.Payload)
	if err != nil {
		return nil, err
	}
	withID(m, id)
	if c.Expect {
		expect(m, subj, c.ExpectSeq)
	}
	return m, nil
}

// TenantLast is the sequence of the last event on a tenant's subject, 0
// when it has none: what a claim expects, read from the log itself (its
// leader), since the log forgets claims as what they claimed goes, the
// last one included.
func (s *Store) TenantLast(ctx context.Context, tenantID string) (uint64, error) {
	m, err := s.stream.GetLastMsgForSubject(ctx, tenantSubject(tenantID))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, unavailable(err)
	}
	return m.Sequence, nil
}

// removalSchedule is where an expiring tenant inbox's removal waits: apart
// from the inbox's own schedules, which leave the log with it (perhaps
// before this one fired).
func removalSchedule(tenantID, inboxID string) string {
	return scheduleRoot + "." + SysPartition + ".tenant." + tenantID + "." + inboxID
}

// scheduleRemoval schedules a tenant inbox's TenantInboxRemoved at its
// expiry, and returns the schedule's subject to withdraw should its claim
// be refused.
func (s *Store) scheduleRemoval(ctx context.Context, tenantID, inboxID string, at time.Time) ([]string, error) {
	if at.IsZero() {
		return nil, nil
	}
	subj := removalSchedule(tenantID, inboxID)
	m, err := scheduleMsg(subj, tenantSubject(tenantID), at, TenantInboxRemoved{TenantID: tenantID, InboxID: inboxID})
	if err != nil {
		return nil, err
	}
	if _, err := s.write(ctx, withID(m, "removal-"+inboxID)); err != nil {
		return nil, err
	}
	return []string{subj}, nil
}

// RevokeKey records a key's revocation: its KeyRevoked on the tenant's
// subject and its KeyBarred on its own, one atomic batch. It expects
// nothing: a revocation is final, and may be recorded again (the views
// take the second for what it is), so it is never refused for a race, nor
// held up by views that lag.
func (s *Store) RevokeKey(ctx context.Context, ev KeyRevoked) ([]Ack, error) {
	revoked, err := eventMsg(tenantSubject(ev.TenantID), ev)
	if err != nil {
		return nil, err
	}
	barred, err := eventMsg(barredSubject(ev.Hash), KeyBarred{KeyID: ev.KeyID, TenantID: ev.TenantID, Hash: ev.Hash})
	if err != nil {
		return nil, err
	}
	acks, err := s.publishBatch(ctx, []*nats.Msg{withID(revoked, "revoked-"+ev.KeyID), withID(barred, "barred-"+ev.KeyID)})
	if errors.Is(err, errBatchDuplicate) {
		// Recorded by an earlier try (within the dedupe window).
		return nil, nil
	}
	return acks, err
}

// EndTenant records a tenant's deletion, expecting nothing: it is final,
// and its keys are refused from the moment it is stored (KeyRefused). Its
// TenantDeleted, on the tenant's subject, and its TenantBarred, on its
// own, are one atomic batch; the Ack is the TenantDeleted's, zero when an
// earlier try stored them (within the dedupe window).
func (s *Store) EndTenant(ctx context.Context, ev TenantDeleted) (Ack, error) {
	deleted, err := eventMsg(tenantSubject(ev.TenantID), ev)
	if err != nil {
		return Ack{}, err
	}
	barred, err := eventMsg(tenantBarredSubject(ev.TenantID), TenantBarred{TenantID: ev.TenantID})
	if err != nil {
		return Ack{}, err
	}
	acks, err := s.publishBatch(ctx, []*nats.Msg{withID(deleted, "tenant-deleted-"+ev.TenantID),
		withID(barred, "tenant-barred-"+ev.TenantID)})
	switch {
	case errors.Is(err, errBatchDuplicate):
		return Ack{}, nil
	case err != nil:
		return Ack{}, err
	}
	return acks[0], nil
}

// KeyRefused reports whether the log refuses a key, whatever the views
// say: its revocation is stored (its KeyBarred), or its tenant's deletion
// (its TenantBarred; for a deletion stored before tenants were barred,
// the tenant's last event is its TenantDeleted; or the tenant has no
// events left: the log forgot it once deleted). Up to three reads of the
// log, from the stream's leader when replicated.
func (s *Store) KeyRefused(ctx context.Context, hash, tenantID string) (bool, error) {
	for _, subj := range []string{barredSubject(hash), tenantBarredSubject(tenantID)} {
		_, err := s.stream.GetLastMsgForSubject(ctx, subj)
		switch {
		case err == nil:
			return true, nil
		case !errors.Is(err, jetstream.ErrMsgNotFound):
			return false, unavailable(err)
		}
	}
	m, err := s.stream.GetLastMsgForSubject(ctx, tenantSubject(tenantID))
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
		return true, nil
	case err != nil:
		return false, unavailable(err)
	}
	return bytes.Contains(firstLine(m.Data), []byte(`"type":"`+TypeTenantDeleted+`"`)), nil
}

func firstLine(b []byte) []byte {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	return line
}

// barredSubject holds the KeyBarred of one key, by its hash.
func barredSubject(hash string) string {
	return subjectRoot + "." + SysPartition + ".barred." + hash
}

// tenantBarredSubject holds the TenantBarred of one deleted tenant.
func tenantBarredSubject(tenantID string) string {
	return subjectRoot + "." + SysPartition + ".ended." + tenantID
}

// ForgetClaim is a claim to delete from its tenant's subject once what it
// claimed is gone: at Seq, of type Type, claiming ID (an inbox, a
// message, a subscription or a domain name). It is deleted only if the
// event at Seq is that claim, so that a sequence found by its distance
// from the claimed event never deletes another.
type ForgetClaim struct {
	Seq  uint64 `json:"seq"`
	Type Type   `json:"type"`
	ID   string `json:"id"`
}

// forgetClaims deletes the claims that are what they say.
func (s *Store) forgetClaims(ctx context.Context, claims []ForgetClaim) error {
	for _, c := range claims {
		m, err := s.stream.GetMsg(ctx, c.Seq)
		if broker.MsgGone(err) {
			continue // forgotten already
		}
		if err != nil {
			return unavailable(err)
		}
		p, _, err := Decode(m.Data)
		if err != nil || p.EventType() != c.Type || claimed(p) != c.ID {
			continue // not that claim: left alone
		}
		if err := s.deleteSeqs(ctx, []uint64{c.Seq}); err != nil {
			return err
		}
	}
	return nil
}

// claimed names what a claim claims.
func claimed(p Payload) string {
	switch ev := p.(type) {
	case *TenantInboxAdded:
		return ev.InboxID
	case *MailClaimed:
		return ev.MessageID
	case *WebhookClaimed:
		return ev.WebhookID
	case *TenantDomainAdded:
		return ev.Name
	}
	return ""
}

// purgeTenant takes a deleted tenant's events out of the log: its
// subject, up to through (Forget). Its inboxes' removals still scheduled
// stay, to take them out of its list as they expire, should the deletion
// not end them first.
func (s *Store) purgeTenant(ctx context.Context, tenantID string, through uint64) error {
	if err := s.purgeSubjectThrough(ctx, tenantSubject(tenantID), through); err != nil {
		return err
	}
	subj, _ := s.faultSubject(FaultHolder{TenantID: tenantID}) // its fault rules, and what they saw
	return s.purgeSubjectThrough(ctx, subj, through)
}

// publishClaim stores claim (deduplicated by id; "": none) just before m,
// which it claims, as one atomic batch, and returns m's ack.
func (s *Store) publishClaim(ctx context.Context, claim *Claim, id string, m *nats.Msg) (Ack, error) {
	c, err := claimMsg(claim, id)
	if err != nil {
		return Ack{}, err
	}
	acks, err := s.publishClaimed(ctx, []*nats.Msg{c, m})
	if err != nil {
		return Ack{}, err
	}
	return acks[1], nil
}

// publishClaimed stores claims and what they claim as one atomic batch,
// each claim just before its thing (so that its thing's ClaimBack is 1).
// A claim's expectation refused is of kind Conflict: the tenant changed,
// another claim first; the caller reads the count again.
func (s *Store) publishClaimed(ctx context.Context, msgs []*nats.Msg) ([]Ack, error) {
	acks, err := s.publishBatch(ctx, msgs)
	if broker.WrongLastSeq(err) {
		return nil, tempmail.Wrap(tempmail.Conflict, err, "the tenant changed, or what was claimed was taken, concurrently")
	}
	if errors.Is(err, errBatchDuplicate) {
		return nil, unknown(err) // an earlier try of this very batch was stored
	}
	return acks, err
}
