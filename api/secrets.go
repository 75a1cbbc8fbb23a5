package api

import (
	"net/http"

	"tempmail/projections"
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
		h, secret, err = s.commands.RotateSecret(r.Context(), h)
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
		h, secret, err = s.commands.RotateSecret(r.Context(), h)
		err = asNotFound(err, "Webhook not found")
	}
	s.answerSubscription(w, r, familyC, http.StatusOK, h, secret, err)
}
