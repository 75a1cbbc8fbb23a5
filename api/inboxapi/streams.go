package inboxapi

import (
	"net/http"

	"tempmail/projections"
)

// The event streams of families A and C (family.Kit.Stream), each
// rendering a new message as its family lists it.

func renderA(in *projections.Inbox, m *projections.Summary) any { return summaryA(in, m) }

// eventsA answers GET /api/inboxes/{id}/events.
func (s *API) eventsA(w http.ResponseWriter, r *http.Request) {
	if in, ok := s.lookupInboxA(w, r); ok {
		s.Stream(w, r, in, renderA)
	}
}
