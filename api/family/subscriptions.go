package family

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"tempmail"
	"tempmail/command"
	"tempmail/mailbox"
	"tempmail/projections"
	"tempmail/webhooks"
	"tempmail/wire"

	"github.com/go-chi/chi/v5"
)

// Outbound webhook subscriptions (docs/webhooks.md "Outbound webhooks"): the
// operator's, with the family A token, to every inbox or one; an inbox
// owner's, with the inbox's token, to that inbox. A subscription is
// recorded as events like everything else; package webhooks delivers.
//
// A subscription's signing secret is shown when the subscription is made,
// and never again: GET and the lists leave it out, so that whoever can read
// a subscription later (anyone with the inbox's token, or the operator's
// logs of answers) cannot sign deliveries as tempmail. A lost or leaked
// secret is replaced: POST .../rotate-secret/ records a new one (an event,
// so that a rebuild keeps it) and shows it, once. From then on deliveries,
// retries of earlier ones included, are signed with the new secret.

// The subscriptions every event is matched against are bounded, by the
// views, where the events that make them are applied one at a time: of
// racing creations beyond a cap, the later are refused there. The checks
// here only answer early.
const (
	maxGlobalWebhooks = projections.MaxGlobalWebhooks
	maxInboxWebhooks  = projections.MaxInboxWebhooks
)

// subscription is a subscription as the API shows it.
type Subscription struct {
	ID           string     `json:"id"`
	URL          string     `json:"url"`
	Events       []string   `json:"events"`
	InboxID      *string    `json:"inbox_id"`         // null: every inbox
	Secret       string     `json:"secret,omitempty"` // only when made, and when rotated (rotateSecretA, rotateSecretC)
	CreatedAt    wire.Time  `json:"created_at"`
	Failing      bool       `json:"failing"`
	FailingSince *wire.Time `json:"failing_since,omitempty"`
}

func (s *Kit) SubscriptionOf(ctx context.Context, h *projections.Webhook) (Subscription, error) {
	out := Subscription{ID: h.ID, URL: h.URL, Events: h.Events, CreatedAt: wire.At(h.CreatedAt)}
	if h.InboxID != "" {
		out.InboxID = &h.InboxID
	}
	st, err := s.Hooks.State(ctx, h.ID)
	if err != nil {
		return out, tempmail.Wrap(tempmail.Unavailable, err, "the delivery log cannot be read now; try again")
	}
	if st.Failing {
		since := wire.At(st.Since)
		out.Failing, out.FailingSince = true, &since
	}
	return out, nil
}

func (s *Kit) SubscriptionsOf(ctx context.Context, list []projections.Webhook) ([]Subscription, error) {
	out := make([]Subscription, 0, len(list))
	for i := range list {
		sub, err := s.SubscriptionOf(ctx, &list[i])
		if err != nil {
			return nil, err
		}
		out = append(out, sub)
	}
	return out, nil
}

// subscribeRequest is the body of a new subscription.
type SubscribeRequest struct {
	URL     string          `json:"url"`
	Events  json.RawMessage `json:"events"`
	InboxID *string         `json:"inbox_id"`
}

// hookKinds validates the kinds a subscription asks for; none given means
// message.received.
func HookKinds(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return []string{mailbox.HookMessageReceived}, nil
	}
	return NamesOf(raw, "events", "event", mailbox.HookKinds(), 0)
}

// subscribe records a subscription to in (nil: every inbox) and returns it
// as the views now show it.
func (s *Kit) Subscribe(ctx context.Context, req SubscribeRequest, in *projections.Inbox) (*projections.Webhook, error) {
	kinds, err := HookKinds(req.Events)
	if err != nil {
		return nil, err
	}
	return s.Commands.Subscribe(ctx, command.Subscription{URL: req.URL, Events: kinds, Inbox: in})
}

// Family A: the operator's subscriptions.

// answerSubscription answers with h; secret, when not empty, is shown
// with it: a new subscription's, or a rotated one's. Nothing else ever
// shows a secret again.
func (s *Kit) AnswerSubscription(w http.ResponseWriter, r *http.Request, status int, h *projections.Webhook, secret string, err error) {
	var out Subscription
	if err == nil {
		out, err = s.SubscriptionOf(r.Context(), h)
		out.Secret = secret
	}
	if err != nil {
		WriteError(w, r, s.Log, err)
		return
	}
	WriteJSON(w, status, out)
}

// secretOf is a subscription's secret, nil or not.
func SecretOf(h *projections.Webhook) string {
	if h == nil {
		return ""
	}
	return h.Secret
}

// Attempt is one delivery attempt as GET .../deliveries/ lists it.
type Attempt struct {
	EventID     string     `json:"webhook_event_id"` // its webhook-id header
	EventType   string     `json:"event_type"`
	Attempt     int        `json:"attempt"`
	StatusCode  int        `json:"status_code"` // 0: no answer
	Error       string     `json:"error"`       // empty on success
	DurationMS  int64      `json:"duration_ms"`
	At          wire.Time  `json:"at"`
	Response    string     `json:"response"` // the start of a 2xx answer, at most 1 KiB; empty otherwise
	GaveUp      bool       `json:"gave_up"`
	NextAttempt *wire.Time `json:"next_attempt_at"` // when it is tried again, if it is
}

func (s *Kit) AnswerDeliveries(w http.ResponseWriter, r *http.Request, h *projections.Webhook, err error) {
	var list []webhooks.Attempt
	if err == nil {
		list, err = s.Hooks.Attempts(r.Context(), h.ID)
		if err != nil {
			err = tempmail.Wrap(tempmail.Unavailable, err, "the delivery log cannot be read now; try again")
		}
	}
	if err != nil {
		WriteError(w, r, s.Log, err)
		return
	}
	out := make([]Attempt, 0, len(list))
	for _, a := range list {
		x := Attempt{EventID: a.EventID, EventType: a.EventType, Attempt: a.Attempt, StatusCode: a.StatusCode,
			Error: a.Error, DurationMS: a.DurationMS, At: wire.At(a.At), GaveUp: a.GaveUp}
		if a.StatusCode >= 200 && a.StatusCode <= 299 {
			// Only a receiver that took the delivery has its answer shown
			// (older logs kept every answer's start).
			x.Response = a.Response
		}
		if a.Next != nil {
			next := wire.At(*a.Next)
			x.NextAttempt = &next
		}
		out = append(out, x)
	}
	WriteJSON(w, http.StatusOK, out)
}

// Family C: an inbox owner's subscriptions, with the inbox's token.

// webhookByID resolves the {webhook} path parameter.
func (s *Kit) WebhookByID(r *http.Request) (*projections.Webhook, error) {
	id := chi.URLParam(r, "webhook")
	if !ValidID(id) {
		return nil, ErrNotFound
	}
	return s.Views.Webhook(r.Context(), strings.ToLower(id))
}
