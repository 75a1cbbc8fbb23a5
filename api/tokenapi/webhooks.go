package tokenapi

import (
	"encoding/json"
	"net/http"

	"tempmail/api/family"
	"tempmail/projections"
)

func (s *API) rotateSecretC(w http.ResponseWriter, r *http.Request) {
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
	s.AnswerSubscription(w, r, http.StatusOK, h, secret, err)
}

func (s *API) createSubscriptionC(w http.ResponseWriter, r *http.Request) {
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
		h, err = s.Subscribe(r.Context(), family.SubscribeRequest{URL: req.URL, Events: req.Events}, in)
		err = family.AsNotFound(err, "Inbox not found")
	}
	s.AnswerSubscription(w, r, http.StatusCreated, h, family.SecretOf(h), err)
}

func (s *API) listSubscriptionsC(w http.ResponseWriter, r *http.Request) {
	in, err := s.tokenInboxOf(r)
	var list []projections.Webhook
	if err == nil {
		list, err = s.Views.InboxWebhooks(r.Context(), in)
	}
	var out []family.Subscription
	if err == nil {
		out, err = s.SubscriptionsOf(r.Context(), list)
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	family.WriteJSON(w, http.StatusOK, out)
}

// inboxSubscription resolves {token} and {webhook} to a subscription of
// that inbox alone.
func (s *API) inboxSubscription(r *http.Request) (*projections.Webhook, error) {
	in, err := s.tokenInboxOf(r)
	if err != nil {
		return nil, err
	}
	h, err := s.WebhookByID(r)
	if err == nil && h.InboxID != in.ID {
		err = family.ErrNotFound
	}
	return h, family.AsNotFound(err, "Webhook not found")
}

func (s *API) getSubscriptionC(w http.ResponseWriter, r *http.Request) {
	h, err := s.inboxSubscription(r)
	s.AnswerSubscription(w, r, http.StatusOK, h, "", err)
}

func (s *API) deleteSubscriptionC(w http.ResponseWriter, r *http.Request) {
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

func (s *API) deliveriesC(w http.ResponseWriter, r *http.Request) {
	h, err := s.inboxSubscription(r)
	s.AnswerDeliveries(w, r, h, err)
}
