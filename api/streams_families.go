package api

import (
	"net/http"

	"tempmail/api/family"
	"tempmail/projections"
)

// The event streams of families A and C (family.Kit.Stream), each
// rendering a new message as its family lists it.

func renderC(in *projections.Inbox, m *projections.Summary) any { return summaryC(in, m) }

func renderA(_ *projections.Inbox, m *projections.Summary) any { return summaryA(m) }

// eventsC answers GET /inboxes/{token}/events.
func (s *Server) eventsC(w http.ResponseWriter, r *http.Request) {
	in, err := s.tokenInboxOf(r)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	s.Stream(w, r, in, renderC)
}

// eventsA answers GET /api/inboxes/{id}/events.
func (s *Server) eventsA(w http.ResponseWriter, r *http.Request) {
	if in, ok := s.lookupInboxA(w, r); ok {
		s.Stream(w, r, in, renderA)
	}
}
