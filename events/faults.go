package events

import (
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"tempmail"
	"tempmail/broker"
	"tempmail/faults"
)

// An inbox's SMTP fault rules (package faults) and what they did are
// events of the inbox, on a subject of their own (faultsOf), which leaves
// the log with the inbox; a tenant's (TenantID, no InboxID) on
// ev.sys.faults.<tenantID>, which leaves the log with the tenant; the
// service's (the admin's, neither) on ev.sys.faults. Every event on it expects the subject's last
// sequence as the views show it (the inbox's FaultsSeq): so a rule's count
// of attempts is claimed, as a quota is, one attempt at a time across a
// cluster (a rule for two refusals refuses two), and the cap of live rules
// holds against racing additions. What leaves the log while the inbox
// lives: a deleted rule's events, and attempts beyond the few the views
// keep (the views forget them by sequence).

// FaultAdded records a rule on an inbox, a tenant (TenantID alone) or
// the service (neither).
type FaultAdded struct {
	TenantID string      `json:"tenant_id,omitempty"`
	InboxID  string      `json:"inbox_id,omitempty"`
	Address  string      `json:"address,omitempty"`
	Rule     faults.Rule `json:"rule"`
}

// FaultDeleted ends a rule before it expires.
type FaultDeleted struct {
	TenantID string `json:"tenant_id,omitempty"`
	InboxID  string `json:"inbox_id,omitempty"`
	Address  string `json:"address,omitempty"`
	RuleID   string `json:"rule_id"`
}

// Attempted records one SMTP attempt at an inbox that has fault rules:
// one a rule acted on (RuleID, the reply it gave), one a counting rule
// let pass (RuleID, N, not Acted), or one whose message was stored
// (MessageID, code 250, no rule).
type Attempted struct {
	TenantID string    `json:"tenant_id,omitempty"`
	InboxID  string    `json:"inbox_id,omitempty"`
	Address  string    `json:"address,omitempty"`
	At       time.Time `json:"at"`
	Client   string    `json:"client,omitempty"`
	From     string    `json:"from"`
	To       string    `json:"to,omitempty"` // the recipient, at the service's rules
	Command  string    `json:"command"`
	Code     int       `json:"code,omitempty"` // 0: the connection was closed
	Reply    string    `json:"reply,omitempty"`
	RuleID   string    `json:"rule_id,omitempty"`
	// N is the rule's count of matching attempts with this one; Acted
	// says whether the rule acted on it.
	N         uint64 `json:"n,omitempty"`
	Acted     bool   `json:"acted,omitempty"`
	MessageID string `json:"message_id,omitempty"`
}

func (FaultAdded) EventType() Type   { return TypeFaultAdded }
func (FaultDeleted) EventType() Type { return TypeFaultDeleted }
func (Attempted) EventType() Type    { return TypeAttempted }

// AppendFault records one of the events above on the inbox's fault
// subject, expecting it at seq (the views' FaultsSeq of the inbox). A
// subject that moved on is of kind Conflict: another attempt or change
// came first, and the caller reads the inbox again.
func (s *Store) AppendFault(ctx context.Context, h FaultHolder, p Payload, seq uint64) (Ack, error) {
	subj, _ := s.faultSubject(h)
	m, err := eventMsg(subj, p)
	if err != nil {
		return Ack{}, err
	}
	expect(withID(m, ""), subj, seq)
	ack, err := s.publish(ctx, m)
	if broker.WrongLastSeq(err) {
		return Ack{}, tempmail.Wrap(tempmail.Conflict, err, "the inbox's fault rules changed concurrently")
	}
	return ack, err
}

// FaultsLast is the sequence of the last event on an inbox's fault
// subject; 0 when it has none.
func (s *Store) FaultsLast(ctx context.Context, h FaultHolder) (Ack, error) {
	subj, part := s.faultSubject(h)
	m, err := s.stream.GetLastMsgForSubject(ctx, subj)
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
		return Ack{Partition: part}, nil
	case err != nil:
		return Ack{}, unavailable(err)
	}
	return Ack{Seq: m.Sequence, Partition: part}, nil
}

// FaultHolder names whose fault rules: an inbox's (InboxID and its
// Address), a tenant's (TenantID alone) or the service's (neither).
type FaultHolder struct{ InboxID, Address, TenantID string }

// faultSubject is where the events of a holder's rules go, and its
// partition.
func (s *Store) faultSubject(h FaultHolder) (subject, part string) {
	switch {
	case h.InboxID != "":
		part = s.PartitionOfAddress(h.Address)
		return faultsOf(part, h.Address, h.InboxID), part
	case h.TenantID != "":
		return serviceFaultsSubject + "." + h.TenantID, SysPartition
	}
	return serviceFaultsSubject, SysPartition
}
