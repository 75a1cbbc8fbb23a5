package events

import (
	"context"
	"errors"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"tempmail"
	"tempmail/broker"
)

// Domains. Each domain name has a subject of its own (domainSubject): a
// claim of the name expects the subject's last event, so that of two
// additions of one name exactly one wins, and a deactivated domain's
// events leave the log with the name (the views forget it), which is then
// free again. A log written before format 4 kept every domain's events on
// one subject (domainsSubject); they are read as they are, and leave the
// log as their domains go.

// domainSubject holds the events of one domain name.
func domainSubject(name string) string {
	return subjectRoot + "." + SysPartition + ".domain." + AddressKey(name)
}

// DomainLast returns the last event on a name's subject and its sequence;
// 0 and nil when there is none (a name never used, or forgotten).
func (s *Store) DomainLast(ctx context.Context, name string) (uint64, Payload, error) {
	m, err := s.stream.GetLastMsgForSubject(ctx, domainSubject(name))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return 0, nil, nil
	}
	if err != nil {
		return 0, nil, unavailable(err)
	}
	p, _, err := Decode(m.Data)
	if err != nil {
		return 0, nil, err
	}
	return m.Sequence, p, nil
}

// AddDomain records ev on its name's subject, expecting the subject at
// expectSeq (0: the name is free). A new domain's ev has ID 0 (its id is
// then the sequence its event gets, which the returned ack says). claim,
// when not nil, counts a tenant's private domain: stored just before, in
// one atomic batch. A subject or tenant that moved on is of kind
// Conflict: the caller reads them again.
func (s *Store) AddDomain(ctx context.Context, ev DomainAdded, expectSeq uint64, claim *Claim) (Ack, error) {
	subj := domainSubject(ev.Name)
	if claim != nil {
		ev.ClaimBack = 1
	}
	m, err := eventMsg(subj, ev)
	if err != nil {
		return Ack{}, err
	}
	expect(withID(m, ""), subj, expectSeq)
	if claim == nil {
		ack, err := s.publish(ctx, m)
		if broker.WrongLastSeq(err) {
			return Ack{}, tempmail.Wrap(tempmail.Conflict, err, "the domain changed concurrently")
		}
		return ack, err
	}
	return s.publishClaim(ctx, claim, "", m)
}

// RemoveDomain records a domain's deactivation on its name's subject,
// expecting the subject at expectSeq (the domain as the caller saw it);
// release, when not nil, stops counting a tenant's private domain, in one
// atomic batch. A subject that moved on is of kind Conflict.
func (s *Store) RemoveDomain(ctx context.Context, ev DomainDeactivated, expectSeq uint64, release *TenantDomainRemoved) (Ack, error) {
	subj := domainSubject(ev.Name)
	m, err := eventMsg(subj, ev)
	if err != nil {
		return Ack{}, err
	}
	expect(withID(m, ""), subj, expectSeq)
	if release == nil {
		ack, err := s.publish(ctx, m)
		if broker.WrongLastSeq(err) {
			return Ack{}, tempmail.Wrap(tempmail.Conflict, err, "the domain changed concurrently")
		}
		return ack, err
	}
	r, err := eventMsg(tenantSubject(release.TenantID), release)
	if err != nil {
		return Ack{}, err
	}
	acks, err := s.publishClaimed(ctx, []*nats.Msg{m, withID(r, "")})
	if err != nil {
		return Ack{}, err
	}
	return acks[0], nil
}

// ForgetDomain is a deactivated domain: its events up to its deactivation
// at Seq leave the log (a newer claim of the name keeps its own), and
// those a log before format 4 kept on the one subject of every domain
// (Legacy, by sequence).
type ForgetDomain struct {
	Name   string   `json:"name"`
	Seq    uint64   `json:"seq"`
	Legacy []uint64 `json:"legacy,omitempty"`
}

func (s *Store) purgeDomain(ctx context.Context, d ForgetDomain) error {
	if err := s.deleteSeqs(ctx, d.Legacy); err != nil {
		return err
	}
	err := s.stream.Purge(ctx, jetstream.WithPurgeSubject(domainSubject(d.Name)), jetstream.WithPurgeSequence(d.Seq+1))
	if err != nil {
		s.CountError("purge")
		return unavailable(err)
	}
	return nil
}

// AppendDomainEvent publishes a DomainAdded or DomainDeactivated on the
// one subject every domain's events had before format 4, expecting its
// last event at expectSeq. The service no longer writes there; tests
// write logs as earlier versions did with it, which this build must read.
func (s *Store) AppendDomainEvent(ctx context.Context, p Payload, expectSeq uint64) (Ack, error) {
	m, err := eventMsg(domainsSubject, p)
	if err != nil {
		return Ack{}, err
	}
	expect(withID(m, ""), domainsSubject, expectSeq)
	ack, err := s.publish(ctx, m)
	if broker.WrongLastSeq(err) {
		return Ack{}, tempmail.Wrap(tempmail.Conflict, err, "the domain list changed concurrently")
	}
	return ack, err
}
