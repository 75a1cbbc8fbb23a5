package projections

import (
	"slices"

	"tempmail/events"
	"tempmail/faults"
)

// Applying an inbox's fault rules and the attempts they saw: each event of
// the inbox's fault subject changes its entry, one at a time, so a rule's
// count and the cap of live rules hold against racing writers (the
// events expect the subject's last sequence, FaultsSeq). What no view
// shows any more leaves the log: a deleted or expired rule's addition,
// attempts beyond AttemptsKept; an event's own sequence only once a newer
// one is applied (Inbox.Moot), since the next expects it.

// faultEvent applies one event of an inbox's fault subject through change.
func (t *tx) faultEvent(inboxID string, change func(in *Inbox)) error {
	in, is, err := t.liveInbox(inboxID)
	if err != nil || (in == nil && is == nil) {
		return err // applied before
	}
	if in == nil {
		t.Moot() // the inbox ended: its subject leaves the log with it
		return nil
	}
	t.Forget.Seqs = append(t.Forget.Seqs, in.Moot...)
	in.Moot = nil
	in.Faults = slices.DeleteFunc(in.Faults, func(r FaultRule) bool {
		if t.At.Before(r.ExpiresAt) {
			return false
		}
		t.Forget.Seqs = append(t.Forget.Seqs, r.Seq)
		return true
	})
	change(in)
	in.FaultsSeq = t.Seq
	t.Save(is)
	return nil
}

func (t *tx) faultAdded(ev *events.FaultAdded) error {
	return t.faultEvent(ev.InboxID, func(in *Inbox) {
		if len(in.Faults) >= faults.MaxPerInbox || slices.ContainsFunc(in.Faults, func(r FaultRule) bool { return r.ID == ev.Rule.ID }) {
			in.Moot = append(in.Moot, t.Seq) // beyond the cap (the command checks it first), or a repeat
			return
		}
		in.Faults = append(in.Faults, FaultRule{Rule: ev.Rule, Seq: t.Seq})
	})
}

func (t *tx) faultDeleted(ev *events.FaultDeleted) error {
	return t.faultEvent(ev.InboxID, func(in *Inbox) {
		in.Faults = slices.DeleteFunc(in.Faults, func(r FaultRule) bool {
			if r.ID != ev.RuleID {
				return false
			}
			t.Forget.Seqs = append(t.Forget.Seqs, r.Seq)
			return true
		})
		in.Moot = append(in.Moot, t.Seq)
	})
}

func (t *tx) attempted(ev *events.Attempted) error {
	return t.faultEvent(ev.InboxID, func(in *Inbox) {
		if ev.RuleID != "" {
			if i := slices.IndexFunc(in.Faults, func(r FaultRule) bool { return r.ID == ev.RuleID }); i >= 0 {
				r := &in.Faults[i]
				r.N = max(r.N, ev.N)
				if ev.Acted {
					r.Acted++
				}
			}
		}
		in.Attempts = append(in.Attempts, Attempt{Seq: t.Seq, At: ev.At.UnixMilli(), Client: ev.Client, From: ev.From,
			Command: ev.Command, Code: ev.Code, Reply: ev.Reply, RuleID: ev.RuleID, Acted: ev.Acted, MessageID: ev.MessageID})
		if n := len(in.Attempts) - AttemptsKept; n > 0 {
			for _, a := range in.Attempts[:n] {
				t.Forget.Seqs = append(t.Forget.Seqs, a.Seq)
			}
			in.Attempts = slices.Delete(in.Attempts, 0, n)
		}
	})
}
