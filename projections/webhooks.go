package projections

import (
	"context"
	"time"

	"tempmail"
	"tempmail/events"
	"tempmail/mailbox"
)

// Outbound webhooks, as the views see them: the subscriptions (read by the
// API and by the deliverer), and which of them an event concerns. That is
// decided here, as the partition's worker applies the event: the views
// then are exactly as they were when the event happened (a subscription
// made later does not hear of it, one whose inbox ends hears of that end).
// Delivering is the webhooks package's.

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
	Kind      string    `json:"kind"` // mailbox.HookMessageReceived, ...
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

// tell adds the deliveries of an event of kind about in (and a message of
// it) to the batch: to every subscription, of the inbox or of every inbox,
// made before the event and asking for its kind. An inbox's own
// subscriptions hear of its end with what they need of themselves, as
// they end with it.
func (t *tx) tell(in *Inbox, kind string, m *Summary, reason string) error {
	if t.globals == nil {
		return nil // not dispatching (a rebuild)
	}
	d := Delivery{Kind: kind, Seq: t.Seq, Partition: events.PartitionOf(t.Subject), At: t.At, InboxID: in.ID,
		Address: in.Address, Reason: reason}
	if m != nil {
		d.MessageID, d.ReceivedAt, d.Size = m.ID, m.ReceivedAt, m.Size
	}
	ending := kind == mailbox.HookInboxDeleted || kind == mailbox.HookInboxExpired
	for _, ref := range in.Webhooks {
		if ref.Seq >= t.Seq || !refWants(ref, kind) {
			continue
		}
		x := d
		x.Webhook = ref.ID
		if ending {
			w, ws, err := load[Webhook](t, webhookKey(ref.ID))
			if err != nil {
				return err
			}
			if !ws.Live() {
				continue
			}
			x.Final = &FinalTarget{URL: w.URL, Secret: w.Secret}
		}
		t.deliveries = append(t.deliveries, x)
	}
	global, err := t.globals(t.Context())
	if err != nil {
		return err
	}
	for _, ref := range global {
		if ref.Seq < t.Seq && refWants(ref, kind) {
			x := d
			x.Webhook = ref.ID
			t.deliveries = append(t.deliveries, x)
		}
	}
	return nil
}

func refWants(ref WebhookRef, kind string) bool {
	for _, k := range ref.Events {
		if k == kind {
			return true
		}
	}
	return false
}
