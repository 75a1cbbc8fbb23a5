package command

import (
	"context"
	"slices"
	"time"

	"github.com/google/uuid"

	"tempmail"
	"tempmail/events"
	"tempmail/faults"
	"tempmail/projections"
)

// SMTP fault rules (package faults, docs/failing-on-purpose.md), made
// and ended: an inbox's, through the token API with its token; a
// tenant's, with its key's faults scope; the service's, the admin's. The
// SMTP server asks them at each command (faultcheck.go). Every event of a
// holder's fault subject expects the subject's last event as the views
// show it (events.Store.AppendFault): a rule's count of attempts, and the
// cap of live rules, are claimed one attempt at a time across processes,
// and a claim that lost its race reads the holder again once the views
// have the winner.

var (
	errTenantFaultCap = tempmail.Errorf(tempmail.Forbidden, "the tenant has %d fault rules, the most it may have: delete one first",
		projections.MaxTenantFaults)
	errFaultCap = tempmail.Errorf(tempmail.Forbidden, "the inbox has %d fault rules, the most it may have: delete one first",
		faults.MaxPerInbox)
	errServiceFaultCap = tempmail.Errorf(tempmail.Forbidden, "the service has %d fault rules, the most it may have: delete one first",
		projections.MaxServiceFaults)
	errNoFault = tempmail.Errorf(tempmail.NotFound, "fault rule not found")
)

// holder is whose fault rules: an inbox's, a tenant's, or the service's
// (neither).
type holder struct {
	in     *projections.Inbox
	tenant string
}

func (h holder) ids() events.FaultHolder {
	if h.in != nil {
		return events.FaultHolder{InboxID: h.in.ID, Address: h.in.Address}
	}
	return events.FaultHolder{TenantID: h.tenant}
}

// key names the holder among others: "" for the service.
func (h holder) key() string {
	switch {
	case h.in != nil:
		return "inbox " + h.in.ID
	case h.tenant != "":
		return "tenant " + h.tenant
	}
	return ""
}

// scope is what the holder's rules may do, and how many it may have.
func (h holder) scope() (faults.Scope, int, error) {
	switch {
	case h.in != nil:
		return faults.InboxScope, faults.MaxPerInbox, errFaultCap
	case h.tenant != "":
		return faults.TenantScope, projections.MaxTenantFaults, errTenantFaultCap
	}
	return faults.ServiceScope, projections.MaxServiceFaults, errServiceFaultCap
}

// read returns the holder's rules as the views show them now.
func (c *Commands) readFaults(ctx context.Context, h holder) (*projections.FaultState, error) {
	switch {
	case h.in != nil:
		in, err := c.Views.Inbox(ctx, h.in.ID)
		if err != nil {
			return nil, err
		}
		return &in.Faults, nil
	case h.tenant != "":
		l, err := c.Views.TenantFaults(ctx, h.tenant)
		if err != nil {
			return nil, err
		}
		return &l.FaultState, nil
	}
	l, err := c.Views.ServiceFaults(ctx)
	if err != nil {
		return nil, err
	}
	return &l.FaultState, nil
}

// faultState returns the holder's rules as the views show them once they
// have applied every event of its fault subject.
func (c *Commands) faultState(ctx context.Context, h holder) (*projections.FaultState, error) {
	last, err := c.Store.FaultsLast(ctx, h.ids())
	if err != nil {
		return nil, err
	}
	if h.in != nil && last.Seq <= h.in.Faults.Seq {
		return &h.in.Faults, nil
	}
	if err := c.Views.WaitApplied(ctx, last); err != nil {
		return nil, err
	}
	return c.readFaults(ctx, h)
}

// append records one event of the holder's fault subject, expecting it at
// seq: tempmail.Conflict when another came first.
func (c *Commands) appendFault(ctx context.Context, h holder, p events.Payload, seq uint64) (events.Ack, error) {
	return c.Store.AppendFault(ctx, h.ids(), p, seq)
}

// liveFaults counts the rules not yet expired at now.
func liveFaults(st *projections.FaultState, now time.Time) int {
	n := 0
	for _, r := range st.Rules {
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
	return c.addFault(ctx, holder{in: in}, q)
}

// AddServiceFault makes one of the service's fault rules (the admin's).
func (c *Commands) AddServiceFault(ctx context.Context, q faults.Request) (faults.Rule, error) {
	return c.addFault(ctx, holder{}, q)
}

// AddTenantFault makes one of a tenant's fault rules, which act on the
// mail of its inboxes.
func (c *Commands) AddTenantFault(ctx context.Context, tenantID string, q faults.Request) (faults.Rule, error) {
	return c.addFault(ctx, holder{tenant: tenantID}, q)
}

func (c *Commands) addFault(ctx context.Context, h holder, q faults.Request) (faults.Rule, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	var until time.Time
	if h.in != nil {
		until = h.in.ExpiresAt
	}
	scope, cap, capErr := h.scope()
	rule, err := q.Rule(uuid.NewString(), time.Now().UTC().Truncate(time.Millisecond), until, scope)
	if err != nil {
		return faults.Rule{}, err
	}
	ids := h.ids()
	ev := &events.FaultAdded{InboxID: ids.InboxID, Address: ids.Address, TenantID: ids.TenantID, Rule: rule}
	var st *projections.FaultState
	err = again(ctx, 20, func(int) (bool, error) {
		st, err = c.faultState(ctx, h)
		if err != nil {
			return false, err
		}
		if liveFaults(st, time.Now()) >= cap {
			return false, capErr
		}
		ack, err := c.appendFault(ctx, h, ev, st.Seq)
		if tempmail.KindOf(err) == tempmail.Conflict {
			return false, nil
		}
		if err == nil {
			st, err = c.stateAfter(ctx, h, ack)
		}
		return true, err
	})
	if err != nil {
		return faults.Rule{}, err
	}
	if !slices.ContainsFunc(st.Rules, func(r projections.FaultRule) bool { return r.ID == rule.ID }) {
		return faults.Rule{}, capErr // others took the last places first (or the tenant was deleted)
	}
	return rule, nil
}

// stateAfter is the holder's rules once the views have applied ack.
func (c *Commands) stateAfter(ctx context.Context, h holder, ack events.Ack) (*projections.FaultState, error) {
	if err := c.Views.WaitApplied(ctx, ack); err != nil {
		return nil, err
	}
	return c.readFaults(ctx, h)
}

// DeleteFault ends one of an inbox's rules; one it does not have is
// NotFound.
func (c *Commands) DeleteFault(ctx context.Context, in *projections.Inbox, ruleID string) error {
	return c.deleteFault(ctx, holder{in: in}, ruleID)
}

// DeleteServiceFault ends one of the service's rules.
func (c *Commands) DeleteServiceFault(ctx context.Context, ruleID string) error {
	return c.deleteFault(ctx, holder{}, ruleID)
}

// DeleteTenantFault ends one of a tenant's rules.
func (c *Commands) DeleteTenantFault(ctx context.Context, tenantID, ruleID string) error {
	return c.deleteFault(ctx, holder{tenant: tenantID}, ruleID)
}

func (c *Commands) deleteFault(ctx context.Context, h holder, ruleID string) error {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	ids := h.ids()
	ev := &events.FaultDeleted{InboxID: ids.InboxID, Address: ids.Address, TenantID: ids.TenantID, RuleID: ruleID}
	return again(ctx, 20, func(int) (bool, error) {
		st, err := c.faultState(ctx, h)
		if err != nil {
			return false, err
		}
		if !slices.ContainsFunc(st.Rules, func(r projections.FaultRule) bool { return r.ID == ruleID }) {
			return false, errNoFault
		}
		ack, err := c.appendFault(ctx, h, ev, st.Seq)
		if tempmail.KindOf(err) == tempmail.Conflict {
			return false, nil
		}
		return true, c.applied(ctx, ack, err)
	})
}

// ServiceFaults returns the service's rules and attempt log as the views
// show them now.
func (c *Commands) ServiceFaults(ctx context.Context) (*projections.FaultList, error) {
	return c.Views.ServiceFaults(ctx)
}

// TenantFaults returns a tenant's rules and attempt log as the views show
// them now.
func (c *Commands) TenantFaults(ctx context.Context, tenantID string) (*projections.FaultList, error) {
	return c.Views.TenantFaults(ctx, tenantID)
}
