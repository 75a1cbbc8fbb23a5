package inbound

import (
	"errors"
	"net"
	"net/http"

	"tempmail"
	"tempmail/api/family"
	"tempmail/command"
)

// API is the inbound webhook, over the Kit every family is given.
type API struct{ *family.Kit }

// New returns the inbound webhook.
func New(k *family.Kit) *API { return &API{Kit: k} }

type inboundResult struct {
	Success   bool   `json:"success"`
	MessageID string `json:"message_id"`
	EmailID   string `json:"email_id"`
}

// Receive delivers one message handed over by another MTA or a provider
// (the inbound webhook, POST /api/webhook/email/).
func (s *API) Receive(w http.ResponseWriter, r *http.Request) {
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
