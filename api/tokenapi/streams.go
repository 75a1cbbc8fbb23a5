package tokenapi

import (
	"net/http"

	"tempmail/api/family"
	"tempmail/projections"
)

func renderC(in *projections.Inbox, m *projections.Summary) any { return summaryC(in, m) }

// eventsC answers GET /inboxes/{token}/events.
func (s *API) eventsC(w http.ResponseWriter, r *http.Request) {
	in, err := s.tokenInboxOf(r)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	s.Stream(w, r, in, renderC)
}
