package api

import (
	"net/http"
	"time"

	"tempmail/api/family"
)

// pageConfig is what the page (package web) needs to know of the service:
// the domains an address may be made on, the first being the default, and
// how long an address lives, and whether it may make one without a key
// (--anonymous).
type pageConfigBody struct {
	Anonymous     bool     `json:"anonymous"`
	Domains       []string `json:"domains"`
	DefaultDomain string   `json:"default_domain"`
	InboxTTL      int64    `json:"inbox_ttl"` // seconds
	MaxNameLength int      `json:"max_name_length"`
}

func (s *Server) pageConfig(w http.ResponseWriter, r *http.Request) {
	list, err := s.DomainsFor(r)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	out := pageConfigBody{Anonymous: !s.Config.AnonymousOff, Domains: []string{}, InboxTTL: int64(s.Config.TokenInboxTTL / time.Second), MaxNameLength: 64}
	for _, d := range list {
		out.Domains = append(out.Domains, d.Name)
	}
	if len(out.Domains) > 0 {
		out.DefaultDomain = s.Config.Domains[0]
	}
	w.Header().Set("Cache-Control", "no-cache")
	family.WriteJSON(w, http.StatusOK, out)
}
