package admin

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"tempmail"
	"tempmail/api/family"
	"tempmail/command"
	"tempmail/faults"
	"tempmail/projections"
	"tempmail/wire"
)

// SMTP fault rules (docs/failing-on-purpose.md): the admin's, the
// service's, at any SMTP command, for every client, sender and recipient
// they match; a tenant's (its key with the faults scope), on the mail of
// its inboxes, from RCPT on; and their attempt logs, with an inbox's by its
// address.

// requireFaults lets the admin in, and a tenant's key with the faults
// scope.
func (s *API) requireFaults(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := family.CredentialFrom(r)
		if !c.IsAdmin() {
			err := s.CheckAdmin(r) // the admin's answer to no credential, or a bad one
			if c.Key != nil {
				err = c.Need(command.ScopeFaults)
			}
			if err != nil {
				family.WriteError(w, r, s.Log, err)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// faultsOf is whose rules a request is about: the service's for the
// admin, its tenant's for a tenant's key.
func faultsOf(r *http.Request) (tenant string) {
	if c := family.CredentialFrom(r); !c.IsAdmin() {
		return c.Owner()
	}
	return ""
}

func (s *API) createFaultA(w http.ResponseWriter, r *http.Request) {
	var req faults.Request
	err := family.DecodeBody(r, &req)
	var rule faults.Rule
	if err == nil {
		if tenant := faultsOf(r); tenant != "" {
			rule, err = s.Commands.AddTenantFault(r.Context(), tenant, req)
		} else {
			rule, err = s.Commands.AddServiceFault(r.Context(), req)
		}
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	family.WriteJSON(w, http.StatusCreated, family.FaultRuleOf(projections.FaultRule{Rule: rule}))
}

func (s *API) listFaultsA(w http.ResponseWriter, r *http.Request) {
	l, err := s.list(r)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	family.WriteJSON(w, http.StatusOK, family.FaultRulesOf(&l.FaultState, time.Now()))
}

func (s *API) deleteFaultA(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "fault")
	var err error
	if tenant := faultsOf(r); tenant != "" {
		err = s.Commands.DeleteTenantFault(r.Context(), tenant, id)
	} else {
		err = s.Commands.DeleteServiceFault(r.Context(), id)
	}
	if err != nil {
		family.WriteError(w, r, s.Log, family.AsNotFound(err, family.NotFoundA))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// maxRcptQuery bounds ?rcpt=: an address's longest.
const maxRcptQuery = 254

// attemptsA lists attempts, newest first: those the service's rules acted
// on, and with ?rcpt= those at that address alone, with its inbox's own
// log when it has one; ?since= (RFC 3339) keeps those at or after it.
func (s *API) attemptsA(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	rcpt := strings.ToLower(strings.TrimSpace(q.Get("rcpt")))
	var since time.Time
	var err error
	switch {
	case len(rcpt) > maxRcptQuery:
		err = tempmail.Errorf(tempmail.Invalid, "rcpt is longer than %d bytes", maxRcptQuery)
	case q.Get("since") != "":
		since, err = time.Parse(time.RFC3339Nano, q.Get("since"))
		if err != nil {
			err = tempmail.Errorf(tempmail.Invalid, "since must be a time such as 2026-11-29T12:00:00Z")
		}
	}
	var l *projections.FaultList
	if err == nil {
		l, err = s.list(r)
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	keep := func(a *projections.Attempt) bool {
		return (rcpt == "" || a.To == rcpt) && !time.UnixMilli(a.At).Before(since)
	}
	out := family.AttemptsOf(&l.FaultState, keep)
	if rcpt != "" {
		if in, err := s.Views.InboxByAddress(r.Context(), rcpt); err == nil && family.CredentialFrom(r).Sees(in) {
			out = append(out, family.AttemptsOf(&in.Faults, func(a *projections.Attempt) bool {
				return !time.UnixMilli(a.At).Before(since)
			})...)
			slices.SortStableFunc(out, func(a, b wire.Attempt) int { return b.At.Compare(a.At.Time) })
		}
	}
	family.WriteJSON(w, http.StatusOK, out)
}

// list is the rules and attempt log the request is about (faultsOf).
func (s *API) list(r *http.Request) (*projections.FaultList, error) {
	if tenant := faultsOf(r); tenant != "" {
		return s.Commands.TenantFaults(r.Context(), tenant)
	}
	return s.Commands.ServiceFaults(r.Context())
}
