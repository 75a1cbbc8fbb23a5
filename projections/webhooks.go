package projections

import (
	"context"
	"time"

	"tempmail"
	"tempmail/events"
)

// Outbound webhooks, as the views see them: the subscriptions (read by the
// API and by the deliverer), and which of them an event concerns. That is
// decided here, by the partition's worker, just before it applies the
// event: the views it reads then are exactly as they were when the event
// happened (a subscription made later does not hear of it, one whose inbox
// ends hears of that end). Delivering is the webhooks package's.

// Webhook returns a subscription by id.
func (r *Reader) Webhook(ctx context.Context, id string) (*Webhook, error) {
	var w Webhook
	if err := r.get(ctx, webhookKey(id), &w, "webhook"); err != nil {
		return nil, err
	}
	return &w, nil
}

// Webhooks returns the subscriptions to every inbox, oldest first.
func (r *Reader) Webhooks(ctx context.Context) ([]Webhook, error) {
	refs, err := r.globalWebhooks(ctx)
	if err != nil {
		return nil, err
	}
	return r.webhooksOf(ctx, refs)
}

// InboxWebhooks returns the subscriptions to in alone, oldest first.
func (r *Reader) InboxWebhooks(ctx context.Context, in *Inbox) ([]Webhook, error) {
	return r.webhooksOf(ctx, in.Webhooks)
}

func (r *Reader) globalWebhooks(ctx context.Context) ([]WebhookRef, error) {
	var l WebhookList
	err := r.get(ctx, webhooksKey, &l, "webhook list")
	if tempmail.KindOf(err) == tempmail.NotFound {
		return nil, nil
	}
	return l.Items, err
}

func (r *Reader) webhooksOf(ctx context.Context, refs []WebhookRef) ([]Webhook, error) {
	out := make([]Webhook, 0, len(refs))
	for _, ref := range refs {
		w, err := r.Webhook(ctx, ref.ID)
		if tempmail.KindOf(err) == tempmail.NotFound {
			continue // being deleted
		}
		if err != nil {
			return nil, err
		}
		out = append(out, *w)
	}
	return out, nil
}

// Delivery is one event to tell one subscription of: what an outbox
// (package webhooks) needs to deliver it, then and on every retry. It
// carries ids, never what a message says.
type Delivery struct {
	Webhook   string    `json:"webhook"`
	Kind      string    `json:"kind"` // events.HookMessageReceived, ...
	Seq       uint64    `json:"seq"`  // the event's stream sequence
	Partition string    `json:"partition"`
	At        time.Time `json:"at"` // when the event happened
	InboxID   string    `json:"inbox_id"`
	Address   string    `json:"address"`
	MessageID string    `json:"message_id,omitempty"`
	Reason    string    `json:"reason,omitempty"` // of a deletion
	// ReceivedAt and Size are a new message's own: what its delivery
	// says of it when the message is deleted before the attempt.
	ReceivedAt time.Time `json:"received_at,omitzero"`
	Size       int64     `json:"size,omitempty"`
	// Final is set on the end of an inbox told to that inbox's own
	// subscriptions: they end with it, so the delivery brings what it
	// needs of them.
	Final *FinalTarget `json:"final,omitempty"`
}

// FinalTarget is where an inbox's own subscription hears of the inbox's end.
type FinalTarget struct {
	URL    string `json:"url"`
	Secret string `json:"secret"`
}

// Outbox takes the deliveries an event calls for, durably: once Enqueue
// returns nil they will be made (at least once) whatever happens to this
// process. Enqueueing the same delivery again (same subscription and
// sequence) must be harmless.
type Outbox interface {
	Enqueue(ctx context.Context, ds []Delivery) error
}

// deliveries returns what an event at seq, published at at, calls for: a
// delivery to every subscription, of its inbox or of every inbox, made
// before the event and asking for its kind. It only reads.
func (v *Views) deliveries(ctx context.Context, st viewStore, seq uint64, part string, at time.Time, p events.Payload) ([]Delivery, error) {
	d := Delivery{Seq: seq, Partition: part, At: at}
	switch ev := p.(type) {
	case *events.MailReceived:
		d.Kind, d.InboxID, d.Address, d.MessageID = events.HookMessageReceived, ev.InboxID, ev.Address, ev.MessageID
		d.ReceivedAt, d.Size = ev.ReceivedAt, ev.Size
	case *events.MarkedRead:
		d.Kind, d.InboxID, d.MessageID = events.HookMessageRead, ev.InboxID, ev.MessageID
	case *events.Deleted:
		d.Kind, d.InboxID, d.MessageID, d.Reason = events.HookMessageDeleted, ev.InboxID, ev.MessageID, ev.Reason
	case *events.InboxDeleted:
		d.Kind, d.InboxID, d.Address = events.HookInboxDeleted, ev.InboxID, ev.Address
	case *events.InboxExpired:
		d.Kind, d.InboxID, d.Address = events.HookInboxExpired, ev.InboxID, ev.Address
	default:
		return nil, nil
	}
	global, err := v.Reader.globalWebhooks(ctx)
	if err != nil {
		return nil, err
	}
	var in Inbox
	found := false
	if _, found, err = st.get(ctx, inboxKey(d.InboxID), &in); err != nil {
		return nil, err
	}
	if !found || in.Gone {
		return nil, nil // an inbox that ended: a late event about it tells no one
	}
	d.Address = in.Address
	var out []Delivery
	add := func(ref WebhookRef, final bool) error {
		if ref.Seq >= seq || !refWants(ref, d.Kind) {
			return nil
		}
		x := d
		x.Webhook = ref.ID
		if final {
			var w Webhook
			if _, ok, err := st.get(ctx, webhookKey(ref.ID), &w); err != nil || !ok || w.Gone {
				return err
			}
			x.Final = &FinalTarget{URL: w.URL, Secret: w.Secret}
		}
		out = append(out, x)
		return nil
	}
	ending := d.Kind == events.HookInboxDeleted || d.Kind == events.HookInboxExpired
	for _, ref := range in.Webhooks {
		if err := add(ref, ending); err != nil {
			return nil, err
		}
	}
	for _, ref := range global {
		if err := add(ref, false); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func refWants(ref WebhookRef, kind string) bool {
	for _, k := range ref.Events {
		if k == kind {
			return true
		}
	}
	return false
}
