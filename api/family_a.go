package api

import (
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"

	"tempmail"
	"tempmail/ingest"
)

// Family A: the inbox API (API.md "Family A").

var (
	errNoCredentials = tempmail.Errorf(tempmail.Unauthorized, "Authentication credentials were not provided.")
	errBadToken      = tempmail.Errorf(tempmail.Unauthorized, "Invalid token.")
)

// checkToken verifies `Authorization: Token <API_TOKEN>` in constant time.
func (s *Server) checkToken(r *http.Request) error {
	h := r.Header.Get("Authorization")
	if h == "" {
		return errNoCredentials
	}
	tok, ok := strings.CutPrefix(h, "Token ")
	if !ok || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(tok)), []byte(s.cfg.APIToken)) != 1 {
		return errBadToken
	}
	return nil
}

// requireToken guards endpoints that always need the API token.
func (s *Server) requireToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := s.checkToken(r); err != nil {
			writeError(w, r, s.log, familyA, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

type webhookResult struct {
	Success   bool   `json:"success"`
	MessageID string `json:"message_id"`
	EmailID   string `json:"email_id"`
}

// webhook delivers one message handed over by another MTA or a provider,
// through the same path as SMTP.
func (s *Server) webhook(w http.ResponseWriter, r *http.Request) {
	msg, err := s.ingest.ReadWebhook(r)
	if err != nil {
		writeError(w, r, s.log, familyA, err)
		return
	}
	res, err := s.ingest.DeliverWebhook(r, msg)
	if errors.Is(err, ingest.ErrNoMailbox) {
		err = tempmail.Errorf(tempmail.NotFound, "Inbox not found or expired")
	}
	if err != nil {
		writeError(w, r, s.log, familyA, err)
		return
	}
	// Read-your-writes: the message is readable when the 201 arrives.
	for _, ack := range res.Acks {
		if err := s.waitApplied(r, ack); err != nil {
			writeError(w, r, s.log, familyA, err)
			return
		}
	}
	writeJSON(w, http.StatusCreated, webhookResult{Success: true, MessageID: res.HeaderMessageID, EmailID: res.MessageIDs[0]})
}
