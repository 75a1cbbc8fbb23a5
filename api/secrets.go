package api

import (
	"context"
	"net/http"
	"time"

	"tempmail"
	"tempmail/events"
	"tempmail/projections"
	"tempmail/webhooks"
)

// A subscription's signing secret is shown when the subscription is made,
// and never again: GET and the lists leave it out, so that whoever can read
// a subscription later (anyone with the inbox's token, or the operator's
// logs of answers) cannot sign deliveries as tempmail. A lost or leaked
// secret is replaced: POST .../rotate-secret/ records a new one (an event,
// so that a rebuild keeps it) and shows it, once. From then on deliveries,
// retries of earlier ones included, are signed with the new secret.

func (s *Server) rotateSecretA(w http.ResponseWriter, r *http.Request) {
	var body struct{}
	err := decodeBody(r, &body)
	var h *projections.Webhook
	if err == nil {
		h, err = s.webhookByID(r)
		err = asNotFound(err, notFoundA)
	}
	var secret string
	if err == nil {
		h, secret, err = s.rotateSecret(r.Context(), h)
		err = asNotFound(err, notFoundA)
	}
	s.answerSubscription(w, r, familyA, http.StatusOK, h, secret, err)
}

func (s *Server) rotateSecretC(w http.ResponseWriter, r *http.Request) {
	var body struct{}
	err := decodeBody(r, &body)
	var h *projections.Webhook
	if err == nil {
		h, err = s.inboxSubscription(r)
	}
	var secret string
	if err == nil {
		h, secret, err = s.rotateSecret(r.Context(), h)
		err = asNotFound(err, "Webhook not found")
	}
	s.answerSubscription(w, r, familyC, http.StatusOK, h, secret, err)
}

// rotateSecret records a new secret for h and returns h as the views now
// show it, and the secret. A subscription deleted meanwhile is not found;
// one rotated again by a request whose rotation was applied after this
// one is a Conflict: the secret shown is always the one in force.
func (s *Server) rotateSecret(ctx context.Context, h *projections.Webhook) (*projections.Webhook, string, error) {
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	ev := events.WebhookSecretRotated{WebhookID: h.ID, InboxID: h.InboxID, Address: h.Address,
		Secret: webhooks.NewSecret(), RotatedAt: time.Now().UTC()}
	ack, err := s.store.RotateWebhookSecret(ctx, ev)
	if err != nil {
		return nil, "", err
	}
	if err := s.views.WaitApplied(ctx, ack); err != nil {
		return nil, "", err
	}
	if h, err = s.views.Webhook(ctx, h.ID); err != nil {
		return nil, "", err
	}
	if h.Secret != ev.Secret {
		return nil, "", tempmail.Errorf(tempmail.Conflict, "the webhook's secret was rotated again meanwhile; rotate it once more to see the one in force")
	}
	return h, ev.Secret, nil
}
