package projections

import (
	"slices"

	"tempmail/events"
	"tempmail/faults"
	"tempmail/projections/engine"
)

// Applying fault rules and the attempts they saw, an inbox's (in its
// entry), a tenant's or the service's (a FaultList each, in the system
// partition): each event
// of a holder's fault subject changes it, one at a time, so a rule's count
// and the cap of live rules hold against racing writers (the events
// expect the subject's last sequence, FaultState.Seq). What no view shows
// any more leaves the log: a deleted or expired rule's addition, attempts
// beyond the holder's bound; an event's own sequence only once a newer one
// is applied (FaultState.Moot), since the next expects it.

const faultsKey = "faults" // the service's FaultList

// tenantFaultsKey is a tenant's FaultList.
func tenantFaultsKey(tenantID string) string { return faultsKey + "." + tenantID }

// Bounds of the service's and of each tenant's rules, and of the attempts
// each keeps.
const (
	MaxServiceFaults   = 50
	MaxTenantFaults    = 10
	TenantAttemptsKept = 100
)

// faultEvent applies one event of a holder's fault subject through change:
// an inbox's (inboxID), a tenant's (tenantID alone) or the service's.
func (t *tx) faultEvent(inboxID, tenantID string, change func(st *FaultState, cap, kept int)) error {
	var st *FaultState
	var staged *engine.Staged
	cap, kept := faults.MaxPerInbox, AttemptsKept
	switch {
	case inboxID != "":
		in, is, err := t.liveInbox(inboxID)
		if err != nil || (in == nil && is == nil) {
			return err // applied before
		}
		if in == nil {
			t.Moot() // the inbox ended: its subject leaves the log with it
			return nil
		}
		st, staged = &in.Faults, is
	default:
		key, limit, keep := faultsKey, MaxServiceFaults, ServiceAttemptsKept
		if tenantID != "" {
			_, ts, err := load[Tenant](t, tenantKey(tenantID))
			if err != nil {
				return err
			}
			if !ts.Live() {
				t.Moot() // a deleted tenant's: its subject leaves the log with it
				return nil
			}
			key, limit, keep = tenantFaultsKey(tenantID), MaxTenantFaults, TenantAttemptsKept
		}
		l, ls, err := load[FaultList](t, key)
		if err != nil || t.Applied(ls) {
			return err
		}
		st, staged, cap, kept = &l.FaultState, ls, limit, keep
	}
	t.Forget.Seqs = append(t.Forget.Seqs, st.Moot...)
	st.Moot = nil
	st.Rules = slices.DeleteFunc(st.Rules, func(r FaultRule) bool {
		if t.At.Before(r.ExpiresAt) {
			return false
		}
		t.Forget.Seqs = append(t.Forget.Seqs, r.Seq)
		return true
	})
	st.Attempts = slices.DeleteFunc(st.Attempts, func(a Attempt) bool {
		if !a.Expired(t.At) {
			return false
		}
		t.Forget.Seqs = append(t.Forget.Seqs, a.Seq)
		return true
	})
	change(st, cap, kept)
	st.Seq = t.Seq
	t.Save(staged)
	return nil
}

func (t *tx) faultAdded(ev *events.FaultAdded) error {
	return t.faultEvent(ev.InboxID, ev.TenantID, func(st *FaultState, cap, _ int) {
		if len(st.Rules) >= cap || slices.ContainsFunc(st.Rules, func(r FaultRule) bool { return r.ID == ev.Rule.ID }) {
			st.Moot = append(st.Moot, t.Seq) // beyond the cap (the command checks it first), or a repeat
			return
		}
		st.Rules = append(st.Rules, FaultRule{Rule: ev.Rule, Seq: t.Seq})
	})
}

func (t *tx) faultDeleted(ev *events.FaultDeleted) error {
	return t.faultEvent(ev.InboxID, ev.TenantID, func(st *FaultState, _, _ int) {
		st.Rules = slices.DeleteFunc(st.Rules, func(r FaultRule) bool {
			if r.ID != ev.RuleID {
				return false
			}
			t.Forget.Seqs = append(t.Forget.Seqs, r.Seq)
			return true
		})
		st.Moot = append(st.Moot, t.Seq)
	})
}

func (t *tx) attempted(ev *events.Attempted) error {
	return t.faultEvent(ev.InboxID, ev.TenantID, func(st *FaultState, _, kept int) {
		if ev.RuleID != "" {
			if i := slices.IndexFunc(st.Rules, func(r FaultRule) bool { return r.ID == ev.RuleID }); i >= 0 {
				r := &st.Rules[i]
				r.N = max(r.N, ev.N)
				if ev.Acted {
					r.Acted++
				}
			}
		}
		st.Attempts = append(st.Attempts, Attempt{Seq: t.Seq, At: ev.At.UnixMilli(), Client: ev.Client, From: ev.From, To: ev.To,
			Command: ev.Command, Code: ev.Code, Reply: ev.Reply, RuleID: ev.RuleID, Acted: ev.Acted, MessageID: ev.MessageID})
		if n := len(st.Attempts) - kept; n > 0 {
			for _, a := range st.Attempts[:n] {
				t.Forget.Seqs = append(t.Forget.Seqs, a.Seq)
			}
			st.Attempts = slices.Delete(st.Attempts, 0, n)
		}
	})
}
