package command

import (
	"context"
	"net/netip"
	"slices"
	"time"

	"github.com/google/uuid"

	"tempmail"
	"tempmail/events"
	"tempmail/faults"
	"tempmail/projections"
)

// An inbox's SMTP fault rules (package faults, docs/failing-on-purpose.md):
// made and ended through the token API, asked by the SMTP server at each
// command for an inbox that has any. Every event of an inbox's fault
// subject expects the subject's last event as the views show it
// (events.Store.AppendFault): a rule's count of attempts, and the cap of live
// rules, are claimed one attempt at a time, across processes, and a
// claim that lost its race reads the inbox again once the views have the
// winner. An inbox that never had a rule costs the SMTP path nothing.

var errFaultCap = tempmail.Errorf(tempmail.Forbidden, "the inbox has %d fault rules, the most it may have: delete one first",
	faults.MaxPerInbox)

// faultsNow returns the inbox as the views show it once they have applied
// every event of its fault subject.
func (c *Commands) faultsNow(ctx context.Context, in *projections.Inbox) (*projections.Inbox, error) {
	last, err := c.Store.FaultsLast(ctx, in.ID, in.Address)
	if err != nil || last.Seq <= in.FaultsSeq {
		return in, err
	}
	if err := c.Views.WaitApplied(ctx, last); err != nil {
		return nil, err
	}
	return c.Views.Inbox(ctx, in.ID)
}

// liveFaults counts an inbox's rules not yet expired at now.
func liveFaults(in *projections.Inbox, now time.Time) int {
	n := 0
	for _, r := range in.Faults {
		if now.Before(r.ExpiresAt) {
			n++
		}
	}
	return n
}

// AddFault makes a fault rule on an inbox and returns it. A request that
// does not read as a rule is Invalid; an inbox with faults.MaxPerInbox
// live rules, Forbidden; one that ended, NotFound.
func (c *Commands) AddFault(ctx context.Context, in *projections.Inbox, q faults.Request) (faults.Rule, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	rule, err := q.Rule(uuid.NewString(), time.Now().UTC().Truncate(time.Millisecond), in.ExpiresAt)
	if err != nil {
		return faults.Rule{}, err
	}
	ev := &events.FaultAdded{InboxID: in.ID, Address: in.Address, Rule: rule}
	err = again(ctx, 20, func(int) (bool, error) {
		cur, err := c.faultsNow(ctx, in)
		if err != nil {
			return false, err
		}
		if liveFaults(cur, time.Now()) >= faults.MaxPerInbox {
			return false, errFaultCap
		}
		ack, err := c.Store.AppendFault(ctx, in.ID, in.Address, ev, cur.FaultsSeq)
		if tempmail.KindOf(err) == tempmail.Conflict {
			return false, nil
		}
		return true, c.applied(ctx, ack, err)
	})
	if err != nil {
		return faults.Rule{}, err
	}
	cur, err := c.Views.Inbox(ctx, in.ID)
	if err != nil {
		return faults.Rule{}, err
	}
	if !slices.ContainsFunc(cur.Faults, func(r projections.FaultRule) bool { return r.ID == rule.ID }) {
		return faults.Rule{}, errFaultCap // others took the last places first
	}
	return rule, nil
}

// DeleteFault ends one of an inbox's rules; one it does not have is
// NotFound.
func (c *Commands) DeleteFault(ctx context.Context, in *projections.Inbox, ruleID string) error {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	ev := &events.FaultDeleted{InboxID: in.ID, Address: in.Address, RuleID: ruleID}
	return again(ctx, 20, func(int) (bool, error) {
		cur, err := c.faultsNow(ctx, in)
		if err != nil {
			return false, err
		}
		if !slices.ContainsFunc(cur.Faults, func(r projections.FaultRule) bool { return r.ID == ruleID }) {
			return false, tempmail.Errorf(tempmail.NotFound, "fault rule not found")
		}
		ack, err := c.Store.AppendFault(ctx, in.ID, in.Address, ev, cur.FaultsSeq)
		if tempmail.KindOf(err) == tempmail.Conflict {
			return false, nil
		}
		return true, c.applied(ctx, ack, err)
	})
}

// Attempt is an SMTP attempt at an inbox, as the SMTP server tells it.
type Attempt struct {
	Command string // faults.RCPT, faults.DATA or faults.AfterData
	From    string // the envelope sender
	Client  netip.Addr
}

// Fault says which of an inbox's rules acts on an attempt, if one does,
// and records the attempt for every rule that counted it. The rules are
// tried oldest first; the first that acts decides. An inbox without rules
// costs nothing.
func (c *Commands) Fault(ctx context.Context, in *projections.Inbox, a Attempt) (*faults.Rule, error) {
	if len(in.Faults) == 0 {
		return nil, nil
	}
	var acted *faults.Rule
	err := again(ctx, 20, func(int) (bool, error) {
		acted = nil
		cur, err := c.faultsNow(ctx, in)
		if err != nil {
			return false, err
		}
		now, seq := time.Now().UTC(), cur.FaultsSeq
		for _, r := range cur.Faults {
			if !r.Matches(a.Command, a.From, now) || r.Spent(r.N) {
				continue
			}
			n := r.N + 1
			acts := r.Acts(n)
			if !acts && !r.Counts() {
				continue
			}
			ev := &events.Attempted{InboxID: in.ID, Address: in.Address, At: now, Client: clientText(a.Client),
				From: a.From, Command: a.Command, RuleID: r.ID, N: n, Acted: acts}
			if acts && !r.Close {
				reply, _ := faults.ParseReply(r.Reply) // checked when the rule was made
				ev.Code, ev.Reply = reply.Code, r.Reply
			}
			ack, err := c.Store.AppendFault(ctx, in.ID, in.Address, ev, seq)
			if tempmail.KindOf(err) == tempmail.Conflict {
				return false, nil // another attempt counted first: count again
			}
			if err != nil {
				return false, err
			}
			seq = ack.Seq
			if acts {
				// Shown before the reply: a client that got it finds the
				// attempt in the log.
				rule := r.Rule
				acted = &rule
				return true, c.Views.WaitApplied(ctx, ack)
			}
		}
		return true, nil
	})
	return acted, err
}

// RecordStored records a message stored in an inbox that has, or had,
// fault rules, in its attempt log; other inboxes keep none.
func (c *Commands) RecordStored(ctx context.Context, in *projections.Inbox, a Attempt, messageID string) error {
	if len(in.Faults) == 0 && len(in.Attempts) == 0 {
		return nil
	}
	ev := &events.Attempted{InboxID: in.ID, Address: in.Address, At: time.Now().UTC(), Client: clientText(a.Client),
		From: a.From, Command: faults.AfterData, Code: 250, MessageID: messageID}
	return again(ctx, 20, func(int) (bool, error) {
		cur, err := c.faultsNow(ctx, in)
		if err != nil {
			return false, err
		}
		ack, err := c.Store.AppendFault(ctx, in.ID, in.Address, ev, cur.FaultsSeq)
		if tempmail.KindOf(err) == tempmail.Conflict {
			return false, nil
		}
		return true, c.applied(ctx, ack, err)
	})
}

func clientText(a netip.Addr) string {
	if !a.IsValid() {
		return ""
	}
	return a.String()
}
