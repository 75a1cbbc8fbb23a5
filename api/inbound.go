package api

import (
	"context"
	"errors"
	"net/http"

	"tempmail"
	"tempmail/command"
	"tempmail/ingest"
)

// The inbound webhook (API.md "The inbound webhook"): a message handed over
// HTTP by another MTA or a provider, delivered through ingest's one path.

type inboundResult struct {
	Success   bool   `json:"success"`
	MessageID string `json:"message_id"`
	EmailID   string `json:"email_id"`
}

// inboundA delivers one message handed over by another MTA or a provider
// (the inbound webhook, POST /api/webhook/email/),
// through the same path as SMTP.
func (s *Server) inboundA(w http.ResponseWriter, r *http.Request) {
	msg, err := s.ingest.ReadInbound(r)
	if err != nil {
		writeError(w, r, s.log, familyA, err)
		return
	}
	res, err := s.ingest.DeliverInbound(r, msg)
	if errors.Is(err, ingest.ErrNoMailbox) {
		err = tempmail.Errorf(tempmail.NotFound, "Inbox not found or expired")
	}
	if err != nil {
		writeError(w, r, s.log, familyA, err)
		return
	}
	// Read-your-writes: the message is readable when the 201 arrives.
	ctx, cancel := context.WithTimeout(r.Context(), command.Timeout)
	defer cancel()
	for _, ack := range res.Acks {
		if err := s.views.WaitApplied(ctx, ack); err != nil {
			writeError(w, r, s.log, familyA, err)
			return
		}
	}
	writeJSON(w, http.StatusCreated, inboundResult{Success: true, MessageID: res.HeaderMessageID, EmailID: res.MessageIDs[0]})
}
