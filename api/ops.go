package api

import (
	"net/http"

	"tempmail/api/family"
)

// What operators and orchestrators ask: /livez (the process runs) and
// /readyz (it can serve, or what keeps it from serving).

// livez answers while the process runs: a supervisor restarts it when it
// does not.
func (s *Server) livez(w http.ResponseWriter, r *http.Request) {
	family.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// health is the body of /readyz.
type health struct {
	Status  string   `json:"status"` // ok, starting, stopping or failing
	Failing []string `json:"failing,omitempty"`
	// Warnings are what it serves around, ready all the same: events the
	// views set aside.
	Warnings []string `json:"warnings,omitempty"`
}

// readyz answers 200 only while the service can do its work: started and
// not stopping, and nothing the probe checks is failing. A load balancer
// sends traffic elsewhere while it answers 503.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	h := health{Status: "ok"}
	select {
	case <-s.Closing:
		h = health{Status: "stopping", Failing: []string{"shutting down"}}
	default:
		if !s.ready.Load() {
			h = health{Status: "starting", Failing: []string{"starting up"}}
		} else if s.probe != nil {
			if failing := s.probe(r.Context()); len(failing) > 0 {
				h = health{Status: "failing", Failing: failing}
			}
		}
	}
	if h.Status == "ok" && s.advise != nil {
		h.Warnings = s.advise(r.Context())
	}
	if h.Status != "ok" {
		w.Header().Set("Retry-After", "5")
		family.WriteJSON(w, http.StatusServiceUnavailable, h)
		return
	}
	family.WriteJSON(w, http.StatusOK, h)
}
