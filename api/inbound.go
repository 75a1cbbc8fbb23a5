package api

import (
	"errors"
	"net"
	"net/http"

	"tempmail"
	"tempmail/api/family"
	"tempmail/command"
)

// The inbound webhook (API.md "The inbound webhook"): a message handed over
// HTTP by another MTA or a provider. Its request is read here
// (inbound_read.go) and the message delivered through command's one path,
// as SMTP's are.

type inboundResult struct {
	Success   bool   `json:"success"`
	MessageID string `json:"message_id"`
	EmailID   string `json:"email_id"`
}

// inboundA delivers one message handed over by another MTA or a provider
// (the inbound webhook, POST /api/webhook/email/).
func (s *Server) inboundA(w http.ResponseWriter, r *http.Request) {
	msg, err := readInbound(r, s.Config.MaxMessageBytes, s.Commands.Mail.Hostname)
	if err != nil {
		// Counted with SMTP's refusals, as the deliveries are.
		if tempmail.KindOf(err) == tempmail.TooLarge {
			s.Commands.Metrics.Reject(command.RejectTooLarge)
		} else {
			s.Commands.Metrics.Reject(command.RejectInvalid)
		}
		family.WriteError(w, r, s.Log, err)
		return
	}
	client, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		client = r.RemoteAddr
	}
	res, err := s.Commands.DeliverHandedOver(r.Context(), client, msg.To, msg.Raw)
	if errors.Is(err, command.ErrNoMailbox) {
		err = tempmail.Errorf(tempmail.NotFound, "Inbox not found or expired")
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	// Read-your-writes: the message is readable when the 201 arrives.
	if err := s.Commands.Shown(r.Context(), res, command.Timeout); err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	family.WriteJSON(w, http.StatusCreated, inboundResult{Success: true, MessageID: res.HeaderMessageID, EmailID: res.MessageIDs[0]})
}
