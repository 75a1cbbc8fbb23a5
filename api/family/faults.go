package family

import (
	"slices"
	"time"

	"tempmail/projections"
	"tempmail/wire"
)

// FaultRulesOf is the live rules of a holder, as the API shows them,
// oldest first.
func FaultRulesOf(st *projections.FaultState, now time.Time) []wire.FaultRule {
	out := []wire.FaultRule{}
	for _, r := range st.Rules {
		if now.Before(r.ExpiresAt) {
			out = append(out, FaultRuleOf(r))
		}
	}
	return out
}

// FaultRuleOf is one rule as the API shows it.
func FaultRuleOf(r projections.FaultRule) wire.FaultRule {
	out := wire.FaultRule{ID: r.ID, Command: r.Command, Reply: r.Reply, Times: r.Times, Every: r.Every, Fraction: r.Fraction,
		Seed: r.Seed, Close: r.Close, From: r.From, To: r.To, Client: r.Client, Rate: r.Rate, Priority: r.Priority,
		CreatedAt: wire.At(r.CreatedAt), ExpiresAt: wire.At(r.ExpiresAt), Matched: r.N, Fired: r.Acted}
	if r.Delay > 0 {
		out.Delay = time.Duration(r.Delay).String()
	}
	if r.Greylist > 0 {
		out.Greylist = time.Duration(r.Greylist).String()
	}
	return out
}

// AttemptsOf is a holder's attempt log as the API shows it, newest first
// and of the last week (projections.AttemptLife),
// keeping those keep says (all: nil): the attempts a rule acted on and the
// messages stored, not those a counting rule let pass (their outcome is
// another attempt).
func AttemptsOf(st *projections.FaultState, keep func(*projections.Attempt) bool) []wire.Attempt {
	out := []wire.Attempt{}
	now := time.Now()
	for _, a := range slices.Backward(st.Attempts) {
		if a.RuleID != "" && !a.Acted || a.Expired(now) || keep != nil && !keep(&a) {
			continue
		}
		out = append(out, AttemptOf(&a))
	}
	return out
}

// AttemptOf is one attempt as the API shows it.
func AttemptOf(a *projections.Attempt) wire.Attempt {
	return wire.Attempt{At: wire.At(time.UnixMilli(a.At).UTC()), Client: nonEmpty(a.Client), From: a.From,
		To: a.To, Command: a.Command, Code: a.Code, Reply: a.Reply, RuleID: nonEmpty(a.RuleID), MessageID: nonEmpty(a.MessageID)}
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
