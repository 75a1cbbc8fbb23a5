package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"tempmail"
	"tempmail/api/family"
	"tempmail/command"
	"tempmail/events"
	"tempmail/projections"
	"tempmail/webhooks"
	"tempmail/wire"
)

// Outbound webhook subscriptions (API.md "Outbound webhooks"): the
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

func (s *Server) rotateSecretA(w http.ResponseWriter, r *http.Request) {
	var body struct{}
	err := family.DecodeBody(r, &body)
	var h *projections.Webhook
	if err == nil {
		h, err = s.webhookByID(r)
		err = family.AsNotFound(err, family.NotFoundA)
	}
	var secret string
	if err == nil {
		h, secret, err = s.Commands.RotateSecret(r.Context(), h)
		err = family.AsNotFound(err, family.NotFoundA)
	}
	s.answerSubscription(w, r, http.StatusOK, h, secret, err)
}

func (s *Server) rotateSecretC(w http.ResponseWriter, r *http.Request) {
	var body struct{}
	err := family.DecodeBody(r, &body)
	var h *projections.Webhook
	if err == nil {
		h, err = s.inboxSubscription(r)
	}
	var secret string
	if err == nil {
		h, secret, err = s.Commands.RotateSecret(r.Context(), h)
		err = family.AsNotFound(err, "Webhook not found")
	}
	s.answerSubscription(w, r, http.StatusOK, h, secret, err)
}

// The subscriptions every event is matched against are bounded, by the
// views, where the events that make them are applied one at a time: of
// racing creations beyond a cap, the later are refused there. The checks
// here only answer early.
const (
	maxGlobalWebhooks = projections.MaxGlobalWebhooks
	maxInboxWebhooks  = projections.MaxInboxWebhooks
)

// subscription is a subscription as the API shows it.
type subscription struct {
	ID           string     `json:"id"`
	URL          string     `json:"url"`
	Events       []string   `json:"events"`
	InboxID      *string    `json:"inbox_id"`         // null: every inbox
	Secret       string     `json:"secret,omitempty"` // only when made, and when rotated (rotateSecretA, rotateSecretC)
	CreatedAt    wire.Time  `json:"created_at"`
	Failing      bool       `json:"failing"`
	FailingSince *wire.Time `json:"failing_since,omitempty"`
}

func (s *Server) subscriptionOf(ctx context.Context, h *projections.Webhook) (subscription, error) {
	out := subscription{ID: h.ID, URL: h.URL, Events: h.Events, CreatedAt: wire.At(h.CreatedAt)}
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

func (s *Server) subscriptionsOf(ctx context.Context, list []projections.Webhook) ([]subscription, error) {
	out := make([]subscription, 0, len(list))
	for i := range list {
		sub, err := s.subscriptionOf(ctx, &list[i])
		if err != nil {
			return nil, err
		}
		out = append(out, sub)
	}
	return out, nil
}

// subscribeRequest is the body of a new subscription.
type subscribeRequest struct {
	URL     string          `json:"url"`
	Events  json.RawMessage `json:"events"`
	InboxID *string         `json:"inbox_id"`
}

// hookKinds validates the kinds a subscription asks for; none given means
// message.received.
func hookKinds(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return []string{events.HookMessageReceived}, nil
	}
	return family.NamesOf(raw, "events", "event", events.HookKinds(), 0)
}

// subscribe records a subscription to in (nil: every inbox) and returns it
// as the views now show it.
func (s *Server) subscribe(ctx context.Context, req subscribeRequest, in *projections.Inbox) (*projections.Webhook, error) {
	kinds, err := hookKinds(req.Events)
	if err != nil {
		return nil, err
	}
	return s.Commands.Subscribe(ctx, command.Subscription{URL: req.URL, Events: kinds, Inbox: in})
}

// webhookByID resolves the {webhook} path parameter.
func (s *Server) webhookByID(r *http.Request) (*projections.Webhook, error) {
	id := chi.URLParam(r, "webhook")
	if !family.ValidID(id) {
		return nil, family.ErrNotFound
	}
	return s.Views.Webhook(r.Context(), strings.ToLower(id))
}

// Family A: the operator's subscriptions.

func (s *Server) createSubscriptionA(w http.ResponseWriter, r *http.Request) {
	var req subscribeRequest
	err := family.DecodeBody(r, &req)
	var in *projections.Inbox
	if err == nil && req.InboxID != nil {
		in, err = s.InboxByID(r.Context(), *req.InboxID)
		err = family.AsNotFound(err, "Inbox not found or expired")
	}
	var h *projections.Webhook
	if err == nil {
		h, err = s.subscribe(r.Context(), req, in)
		err = family.AsNotFound(err, "Inbox not found or expired")
	}
	s.answerSubscription(w, r, http.StatusCreated, h, secretOf(h), err)
}

// answerSubscription answers with h; secret, when not empty, is shown
// with it: a new subscription's, or a rotated one's. Nothing else ever
// shows a secret again.
func (s *Server) answerSubscription(w http.ResponseWriter, r *http.Request, status int, h *projections.Webhook, secret string, err error) {
	var out subscription
	if err == nil {
		out, err = s.subscriptionOf(r.Context(), h)
		out.Secret = secret
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	family.WriteJSON(w, status, out)
}

// secretOf is a subscription's secret, nil or not.
func secretOf(h *projections.Webhook) string {
	if h == nil {
		return ""
	}
	return h.Secret
}

func (s *Server) listSubscriptionsA(w http.ResponseWriter, r *http.Request) {
	var list []projections.Webhook
	var err error
	if id := r.URL.Query().Get("inbox_id"); id != "" {
		var in *projections.Inbox
		if in, err = s.InboxByID(r.Context(), id); err == nil {
			list, err = s.Views.InboxWebhooks(r.Context(), in)
		}
		err = family.AsNotFound(err, "Inbox not found or expired")
	} else {
		list, err = s.Views.Webhooks(r.Context())
	}
	var out []subscription
	if err == nil {
		out, err = s.subscriptionsOf(r.Context(), list)
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	family.WriteJSON(w, http.StatusOK, out)
}

func (s *Server) getSubscriptionA(w http.ResponseWriter, r *http.Request) {
	h, err := s.webhookByID(r)
	s.answerSubscription(w, r, http.StatusOK, h, "", family.AsNotFound(err, family.NotFoundA))
}

func (s *Server) deleteSubscriptionA(w http.ResponseWriter, r *http.Request) {
	h, err := s.webhookByID(r)
	if err == nil {
		err = s.Commands.Unsubscribe(r.Context(), h)
	}
	if err != nil {
		family.WriteError(w, r, s.Log, family.AsNotFound(err, family.NotFoundA))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) deliveriesA(w http.ResponseWriter, r *http.Request) {
	h, err := s.webhookByID(r)
	s.answerDeliveries(w, r, h, family.AsNotFound(err, family.NotFoundA))
}

// attempt is one delivery attempt as GET .../deliveries/ lists it.
type attempt struct {
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

func (s *Server) answerDeliveries(w http.ResponseWriter, r *http.Request, h *projections.Webhook, err error) {
	var list []webhooks.Attempt
	if err == nil {
		list, err = s.Hooks.Attempts(r.Context(), h.ID)
		if err != nil {
			err = tempmail.Wrap(tempmail.Unavailable, err, "the delivery log cannot be read now; try again")
		}
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	out := make([]attempt, 0, len(list))
	for _, a := range list {
		x := attempt{EventID: a.EventID, EventType: a.EventType, Attempt: a.Attempt, StatusCode: a.StatusCode,
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
	family.WriteJSON(w, http.StatusOK, out)
}

// Family C: an inbox owner's subscriptions, with the inbox's token.

func (s *Server) createSubscriptionC(w http.ResponseWriter, r *http.Request) {
	var req struct {
		URL    string          `json:"url"`
		Events json.RawMessage `json:"events"`
	}
	err := family.DecodeBody(r, &req)
	var in *projections.Inbox
	if err == nil {
		in, err = s.tokenInboxOf(r)
	}
	var h *projections.Webhook
	if err == nil {
		h, err = s.subscribe(r.Context(), subscribeRequest{URL: req.URL, Events: req.Events}, in)
		err = family.AsNotFound(err, "Inbox not found")
	}
	s.answerSubscription(w, r, http.StatusCreated, h, secretOf(h), err)
}

func (s *Server) listSubscriptionsC(w http.ResponseWriter, r *http.Request) {
	in, err := s.tokenInboxOf(r)
	var list []projections.Webhook
	if err == nil {
		list, err = s.Views.InboxWebhooks(r.Context(), in)
	}
	var out []subscription
	if err == nil {
		out, err = s.subscriptionsOf(r.Context(), list)
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	family.WriteJSON(w, http.StatusOK, out)
}

// inboxSubscription resolves {token} and {webhook} to a subscription of
// that inbox alone.
func (s *Server) inboxSubscription(r *http.Request) (*projections.Webhook, error) {
	in, err := s.tokenInboxOf(r)
	if err != nil {
		return nil, err
	}
	h, err := s.webhookByID(r)
	if err == nil && h.InboxID != in.ID {
		err = family.ErrNotFound
	}
	return h, family.AsNotFound(err, "Webhook not found")
}

func (s *Server) getSubscriptionC(w http.ResponseWriter, r *http.Request) {
	h, err := s.inboxSubscription(r)
	s.answerSubscription(w, r, http.StatusOK, h, "", err)
}

func (s *Server) deleteSubscriptionC(w http.ResponseWriter, r *http.Request) {
	h, err := s.inboxSubscription(r)
	if err == nil {
		err = family.AsNotFound(s.Commands.Unsubscribe(r.Context(), h), "Webhook not found")
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) deliveriesC(w http.ResponseWriter, r *http.Request) {
	h, err := s.inboxSubscription(r)
	s.answerDeliveries(w, r, h, err)
}
