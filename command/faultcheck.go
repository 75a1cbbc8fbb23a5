package command

import (
	"context"
	"net/netip"
	"slices"
	"sync"
	"time"

	"tempmail"
	"tempmail/config"
	"tempmail/events"
	"tempmail/fairshare"
	"tempmail/faults"
	"tempmail/projections"
)

// Asking the fault rules at each SMTP command (faults.go has the rules and
// their holders): the service's first, from memory (FaultCache), then the
// tenant's of the recipient's inbox, from the views' cache, then the
// inbox's own. An attempt that no rule can concern allocates nothing.

// FaultCache keeps the service's fault rules in this process until their
// entry changes (the views' watcher wakes its topic, within milliseconds of
// the change on every node), and the token buckets of their rates: a rate
// is counted per process.
type FaultCache struct {
	mu      sync.Mutex
	changed <-chan struct{} // the rules' entry was written since they were read
	list    *projections.FaultList
	rates   map[string]*fairshare.Limiter // by rule id
}

// NewFaultCache returns a cache of the rules views shows, which it
// watches from now on, for the life of the process (one subscription of
// the views' hub).
func NewFaultCache(views *projections.Reader) *FaultCache {
	changed, _ := views.Hub().Subscribe(projections.ServiceFaultsTopic())
	return &FaultCache{changed: changed}
}

// Acting is the rule that acts on an attempt, and whose it is
// (holder.key: "" for the service's).
type Acting struct {
	faults.Rule
	Holder string
}

// serviceRules returns the service's live rules, from memory while their
// entry has not changed since they were read. At a connection (fresh) the
// log is asked too, as authentication asks it of a key: a rule stored on
// another node a moment ago, which this node's views may not show yet, is
// waited for, so that a rule is in force for every connection on every
// node once its POST has answered. One read of the log per connection.
func (c *Commands) serviceRules(ctx context.Context, fresh bool) ([]projections.FaultRule, error) {
	fc := c.Faults
	if fc == nil {
		l, err := c.Views.ServiceFaults(ctx)
		if err != nil {
			return nil, err
		}
		return l.Rules, nil
	}
	var last events.Ack
	var lastErr error
	if fresh {
		// Read before the lock: connections do not queue behind each
		// other's reads of the log.
		last, lastErr = c.Store.FaultsLast(ctx, events.FaultHolder{})
	}
	fc.mu.Lock()
	defer fc.mu.Unlock()
	select {
	case <-fc.changed:
		fc.list = nil
	default:
	}
	if fresh && lastErr == nil && (fc.list == nil || last.Seq > fc.list.FaultState.Seq) {
		wctx, cancel := context.WithTimeout(ctx, faultTimeout)
		if c.Views.WaitApplied(wctx, last) == nil {
			fc.list = nil
		}
		cancel()
	}
	if fc.list != nil {
		return fc.list.Rules, nil
	}
	l, err := c.Views.ServiceFaults(ctx)
	if err != nil {
		return nil, err
	}
	fc.list = l
	return l.Rules, nil
}

// rate takes one from a client's bucket of a rate rule, in this process.
func (c *Commands) rate(r *faults.Rule, client netip.Addr, now time.Time) bool {
	fc := c.Faults
	if fc == nil {
		return true
	}
	fc.mu.Lock()
	if fc.rates == nil {
		fc.rates = map[string]*fairshare.Limiter{}
	}
	l := fc.rates[r.ID]
	if l == nil {
		// Rules are few (MaxServiceFaults); a deleted rule's bucket goes
		// when the set is full.
		if len(fc.rates) >= 2*projections.MaxServiceFaults {
			clear(fc.rates)
		}
		l = fairshare.New(config.Rate{N: r.Rate, Per: time.Minute})
		fc.rates[r.ID] = l
	}
	fc.mu.Unlock()
	ok, _ := l.Take(fairshare.Key(client), now)
	return ok
}

// Attempt is an SMTP attempt, as the SMTP server tells it.
type Attempt = faults.Attempt

// Fault says which rule acts on an attempt, if one does: the service's
// first, then those of the inbox, if the attempt is at one (from RCPT
// on). It records the attempt for every rule that counted it, and for the
// rule that acts, and waits for the views to show it: a client that got
// the reply finds it in the attempt log. Rules are asked by priority, then
// oldest first; the first that acts decides.
func (c *Commands) Fault(ctx context.Context, in *projections.Inbox, a Attempt) (*Acting, error) {
	rules, err := c.serviceRules(ctx, a.Command == faults.CONNECT)
	if err != nil {
		return nil, err
	}
	service := slices.ContainsFunc(rules, func(r projections.FaultRule) bool { return r.Command == a.Command })
	tenant := false
	if in != nil && in.TenantID != "" {
		// The tenant's, from the views' cache (a tenant without rules
		// is remembered as such there).
		l, err := c.Views.TenantFaults(ctx, in.TenantID)
		if err != nil {
			return nil, err
		}
		tenant = slices.ContainsFunc(l.Rules, func(r projections.FaultRule) bool { return r.Command == a.Command })
	}
	own := in != nil && len(in.Faults.Rules) > 0
	if !service && !tenant && !own {
		return nil, nil // what nearly every attempt finds: nothing to do, nothing allocated
	}
	ctx, cancel := context.WithTimeout(ctx, faultTimeout)
	defer cancel()
	// The service's rules first, then the tenant's, then the inbox's own.
	var asked []holder
	if service {
		asked = append(asked, holder{})
	}
	if tenant {
		asked = append(asked, holder{tenant: in.TenantID})
	}
	if own {
		asked = append(asked, holder{in: in})
	}
	for _, h := range asked {
		if r, err := c.fault(ctx, h, a); r != nil || err != nil {
			return r, err
		}
	}
	return nil, nil
}

// faultTimeout bounds what asking the rules for one attempt may take: a
// few reads of the views and the log, and the records of what they did.
const faultTimeout = 5 * time.Second

// fault asks one holder's rules.
func (c *Commands) fault(ctx context.Context, h holder, a Attempt) (*Acting, error) {
	var acted *Acting
	ids := h.ids()
	err := again(ctx, 20, func(int) (bool, error) {
		acted = nil
		st, err := c.faultState(ctx, h)
		if err != nil {
			return false, err
		}
		now, seq := time.Now().UTC(), st.Seq
		for _, r := range faults.Ordered(st.Rules, func(r *projections.FaultRule) *faults.Rule { return &r.Rule }) {
			if !r.Matches(a, now) || r.Spent(r.N) {
				continue
			}
			n := r.N + 1
			acts := r.Acts(n)
			switch {
			case r.Greylist > 0:
				to := a.To
				if h.in != nil {
					to = "" // an inbox's log is of its own address
				}
				acts = greylisted(st, &r.Rule, a, to, now)
			case r.Rate > 0:
				acts = !c.rate(&r.Rule, a.Client, now)
			case !acts && !r.Counts():
				continue
			}
			if !acts && !r.Counts() {
				continue // a greylisted triple's retry, or a client within its rate: nothing to count
			}
			ev := &events.Attempted{InboxID: ids.InboxID, Address: ids.Address, TenantID: ids.TenantID, At: now,
				Client: clientText(a.Client), From: a.From, Command: a.Command, RuleID: r.ID, N: n, Acted: acts}
			if h.in == nil {
				ev.To = a.To // an inbox's log is of its own address
			}
			if acts && !r.Close {
				reply, _ := faults.ParseReply(r.Reply) // checked when the rule was made
				ev.Code, ev.Reply = reply.Code, r.Reply
			}
			ack, err := c.appendFault(ctx, h, ev, seq)
			if tempmail.KindOf(err) == tempmail.Conflict {
				return false, nil // another attempt counted first: count again
			}
			if err != nil {
				return false, err
			}
			seq = ack.Seq
			if acts {
				acted = &Acting{Rule: r.Rule, Holder: h.key()}
				return true, c.Views.WaitApplied(ctx, ack)
			}
		}
		return true, nil
	})
	return acted, err
}

// greylisted says whether a greylisting rule refuses an attempt: the first
// of its client, sender and recipient, and each retry until the rule's
// time has passed since that first. The first is found among the
// holder's kept attempts (an attempt no longer kept counts as never made).
func greylisted(st *projections.FaultState, r *faults.Rule, a Attempt, to string, now time.Time) bool {
	client := clientText(a.Client)
	for _, seen := range st.Attempts {
		if seen.RuleID == r.ID && seen.Acted && seen.Client == client && seen.From == a.From && seen.To == to {
			return now.Before(time.UnixMilli(seen.At).Add(time.Duration(r.Greylist)))
		}
	}
	return true
}

// RecordStored records a message stored in an inbox that has, or had,
// fault rules, in its attempt log; other inboxes keep none.
func (c *Commands) RecordStored(ctx context.Context, in *projections.Inbox, a Attempt, messageID string) error {
	if len(in.Faults.Rules) == 0 && len(in.Faults.Attempts) == 0 {
		return nil
	}
	h := holder{in: in}
	ev := &events.Attempted{InboxID: in.ID, Address: in.Address, At: time.Now().UTC(), Client: clientText(a.Client),
		From: a.From, Command: faults.AfterData, Code: 250, MessageID: messageID}
	return again(ctx, 20, func(int) (bool, error) {
		st, err := c.faultState(ctx, h)
		if err != nil {
			return false, err
		}
		ack, err := c.appendFault(ctx, h, ev, st.Seq)
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
	return a.Unmap().String()
}
