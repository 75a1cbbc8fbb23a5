package inboxapi

import (
	"net/http"

	"tempmail/api/family"
	"tempmail/projections"
)

func (s *API) rotateSecretA(w http.ResponseWriter, r *http.Request) {
	var body struct{}
	err := family.DecodeBody(r, &body)
	var h *projections.Webhook
	if err == nil {
		h, err = s.WebhookByID(r)
		err = family.AsNotFound(err, family.NotFoundA)
	}
	var secret string
	if err == nil {
		h, secret, err = s.Commands.RotateSecret(r.Context(), h)
		err = family.AsNotFound(err, family.NotFoundA)
	}
	s.AnswerSubscription(w, r, http.StatusOK, h, secret, err)
}

func (s *API) createSubscriptionA(w http.ResponseWriter, r *http.Request) {
	var req family.SubscribeRequest
	err := family.DecodeBody(r, &req)
	var in *projections.Inbox
	if err == nil && req.InboxID != nil {
		in, err = s.InboxByID(r.Context(), *req.InboxID)
		err = family.AsNotFound(err, "Inbox not found or expired")
	}
	var h *projections.Webhook
	if err == nil {
		h, err = s.Subscribe(r.Context(), req, in)
		err = family.AsNotFound(err, "Inbox not found or expired")
	}
	s.AnswerSubscription(w, r, http.StatusCreated, h, family.SecretOf(h), err)
}

func (s *API) listSubscriptionsA(w http.ResponseWriter, r *http.Request) {
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

func (s *API) getSubscriptionA(w http.ResponseWriter, r *http.Request) {
	h, err := s.WebhookByID(r)
	s.AnswerSubscription(w, r, http.StatusOK, h, "", family.AsNotFound(err, family.NotFoundA))
}

func (s *API) deleteSubscriptionA(w http.ResponseWriter, r *http.Request) {
	h, err := s.WebhookByID(r)
	if err == nil {
		err = s.Commands.Unsubscribe(r.Context(), h)
	}
	if err != nil {
		family.WriteError(w, r, s.Log, family.AsNotFound(err, family.NotFoundA))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *API) deliveriesA(w http.ResponseWriter, r *http.Request) {
	h, err := s.WebhookByID(r)
	s.AnswerDeliveries(w, r, h, family.AsNotFound(err, family.NotFoundA))
}
