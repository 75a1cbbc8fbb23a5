package api

import (
	"net/http"
	"slices"
	"time"

	"tempmail"
)

// inboxByAddressA is an inbox as the operator's lookup by address answers
// it: its family A fields and the token the other families read it by.
type inboxByAddressA struct {
	inboxA
	Token string `json:"token"`
}

// inboxesByAddressA answers GET /api/inboxes/?email=: the live inboxes
// with that address, whichever family made them. It is how the operator
// finds the inboxes a catch-all domain made for mail (nobody was given
// their id or token), so it always takes the API token. An address has
// at most one live inbox; the answer is an array so that none is [].
func (s *Server) inboxesByAddressA(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	email := q.Get("email")
	if !q.Has("email") || email == "" {
		writeError(w, r, s.log, familyA, tempmail.Errorf(tempmail.Invalid, "email is required: GET /api/inboxes/?email=name@domain"))
		return
	}
	addr, err := tempmail.NormalizeAddress(email)
	if err != nil {
		writeError(w, r, s.log, familyA, err)
		return
	}
	out := []inboxByAddressA{}
	in, err := s.views.InboxByAddress(r.Context(), addr)
	switch {
	case tempmail.KindOf(err) == tempmail.NotFound:
	case err != nil:
		writeError(w, r, s.log, familyA, err)
		return
	case in.Live(time.Now()):
		a := toInboxA(in)
		a.EmailCount = &in.Count
		out = append(out, inboxByAddressA{inboxA: a, Token: in.Token})
	}
	writeJSON(w, http.StatusOK, out)
}

// catchAll says whether mail to any address on domain is taken.
func (s *Server) catchAll(domain string) bool { return slices.Contains(s.cfg.CatchAllDomains, domain) }
