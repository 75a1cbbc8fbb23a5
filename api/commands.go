package api

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/google/uuid"

	"tempmail"
	"tempmail/events"
	"tempmail/projections"
)

// commandTimeout bounds a command's publish and its wait for the views. It
// is normally milliseconds; the bound is for a cluster riding out the loss of
// a node, which takes new stream leaders (5 to 11 s measured) or moves a
// partition to another process's worker (the pinned TTL, 5 s): a command
// that waits that long answers 201, where a shorter wait would answer 503
// for a change that was in fact stored.
const commandTimeout = 15 * time.Second

// inboxSpec is what a family asks of a new inbox.
type inboxSpec struct {
	Family events.Family
	Local  string // wanted local part; empty: random
	Random int    // length of a random local part
	Domain projections.Domain
	TTL    time.Duration // 0: never expires
}

// createInbox claims an address and records a new inbox, returning it as the
// views now show it. The stream decides races: of two concurrent claims of
// one address exactly one succeeds, and the other gets a Conflict (or, for a
// random name, another name).
func (s *Server) createInbox(ctx context.Context, spec inboxSpec) (*projections.Inbox, error) {
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	release, err := s.disk.Reserve(newThingBytes)
	if err != nil {
		return nil, err
	}
	defer release()
	for attempt := 0; attempt < 5; attempt++ {
		local := spec.Local
		if local == "" {
			local = randomName(spec.Random)
			if s.reserved[local] {
				continue // an operator's reserved name of that length, drawn by chance
			}
		}
		addr := local + "@" + spec.Domain.Name
		a, err := s.views.Address(ctx, addr)
		if err != nil {
			return nil, err
		}
		if a.Live {
			if spec.Local != "" {
				return nil, tempmail.Errorf(tempmail.Conflict, "Email name already taken")
			}
			continue
		}
		now := time.Now().UTC()
		ev := events.InboxCreated{
			InboxID: uuid.NewString(), Address: addr, Token: rand.Text(),
			Family: spec.Family, DomainID: spec.Domain.ID, CreatedAt: now,
		}
		if spec.TTL > 0 {
			ev.ExpiresAt, ev.TTL = now.Add(spec.TTL), int64(spec.TTL/time.Second)
		}
		ack, err := s.store.CreateInbox(ctx, ev, a.LifecycleSeq)
		if tempmail.KindOf(err) == tempmail.Conflict {
			// Either taken, or our view of the address lags its last
			// lifecycle event; look again after the views catch up.
			time.Sleep(time.Duration(attempt+1) * 20 * time.Millisecond)
			continue
		}
		if err != nil {
			return nil, err
		}
		if err := s.views.WaitApplied(ctx, ack); err != nil {
			return nil, err
		}
		return s.views.Inbox(ctx, ev.InboxID)
	}
	if spec.Local != "" {
		return nil, tempmail.Errorf(tempmail.Conflict, "Email name already taken")
	}
	return nil, tempmail.Errorf(tempmail.Unavailable, "could not find a free address; try again")
}

// newThingBytes is about what an inbox or a subscription takes on disk
// when it is made: its event and its view entries.
const newThingBytes = 16 << 10

const randomAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

// randomName returns n characters of [a-z0-9] from crypto/rand, without
// modulo bias.
func randomName(n int) string {
	out := make([]byte, 0, n)
	buf := make([]byte, n+8)
	for len(out) < n {
		_, _ = rand.Read(buf)
		for _, b := range buf {
			if int(b) < 256/len(randomAlphabet)*len(randomAlphabet) && len(out) < n {
				out = append(out, randomAlphabet[int(b)%len(randomAlphabet)])
			}
		}
	}
	return string(out)
}

// SyncDomains records the configured domains as events: a new name gets the
// next free id, a known one keeps its id (and is reactivated if needed), and
// a known active one missing from names is deactivated. Running it again
// with the same names publishes nothing.
func (s *Server) SyncDomains(ctx context.Context, names []string) error {
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	for attempt := 0; ; attempt++ {
		list, seq, err := s.views.Domains(ctx)
		if err != nil {
			return err
		}
		changes := domainChanges(list, names)
		var ack events.Ack
		for _, p := range changes {
			ack, err = s.store.AppendDomainEvent(ctx, p, seq)
			if err != nil {
				break
			}
			seq = ack.Seq
		}
		if err == nil {
			return s.views.WaitApplied(ctx, ack)
		}
		if tempmail.KindOf(err) != tempmail.Conflict || attempt == 5 {
			return fmt.Errorf("record domains: %w", err)
		}
		// Another node changed the list, or our view lags: wait and redo.
		time.Sleep(100 * time.Millisecond)
	}
}

func domainChanges(list []projections.Domain, names []string) []events.Payload {
	var out []events.Payload
	next := 1
	for _, d := range list {
		next = max(next, d.ID+1)
	}
	for _, name := range names {
		i := slices.IndexFunc(list, func(d projections.Domain) bool { return d.Name == name })
		switch {
		case i < 0:
			out = append(out, &events.DomainAdded{ID: next, Name: name})
			next++
		case !list[i].Active:
			out = append(out, &events.DomainAdded{ID: list[i].ID, Name: name})
		}
	}
	for _, d := range list {
		if d.Active && !slices.Contains(names, d.Name) {
			out = append(out, &events.DomainDeactivated{ID: d.ID, Name: d.Name})
		}
	}
	return out
}

// deleteInbox ends an inbox for good, with all its mail.
func (s *Server) deleteInbox(r *http.Request, in *projections.Inbox) error {
	ctx, cancel := context.WithTimeout(r.Context(), commandTimeout)
	defer cancel()
	ack, err := s.store.EndInbox(ctx, in.Address, &events.InboxDeleted{InboxID: in.ID, Address: in.Address}, in.LifecycleSeq)
	if err != nil {
		return err
	}
	return s.views.WaitApplied(ctx, ack)
}

// markRead marks a message read and returns it as the views now show it.
func (s *Server) markRead(r *http.Request, m *projections.Message) (*projections.Message, error) {
	if m.IsRead {
		return m, nil // idempotent, and nothing to record
	}
	ctx, cancel := context.WithTimeout(r.Context(), commandTimeout)
	defer cancel()
	ack, err := s.store.AppendMessageEvent(ctx, m.Address, m.InboxID, m.ID, &events.MarkedRead{InboxID: m.InboxID, MessageID: m.ID})
	if err != nil {
		return nil, err
	}
	if err := s.views.WaitApplied(ctx, ack); err != nil {
		return nil, err
	}
	in, err := s.views.Inbox(ctx, m.InboxID)
	if err != nil {
		return nil, err
	}
	return s.views.MessageIn(ctx, in, m.ID)
}

// deleteMessage deletes a message for good.
func (s *Server) deleteMessage(r *http.Request, m *projections.Message) error {
	ctx, cancel := context.WithTimeout(r.Context(), commandTimeout)
	defer cancel()
	ack, err := s.store.AppendMessageEvent(ctx, m.Address, m.InboxID, m.ID, &events.Deleted{InboxID: m.InboxID, MessageID: m.ID})
	if err != nil {
		return err
	}
	return s.views.WaitApplied(ctx, ack)
}
