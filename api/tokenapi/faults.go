package tokenapi

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"tempmail"
	"tempmail/api/family"
	"tempmail/faults"
	"tempmail/projections"
)

// An inbox's SMTP fault rules and its attempt log
// (docs/failing-on-purpose.md): the token is the credential, as for the
// inbox's subscriptions.

func (s *API) createFaultC(w http.ResponseWriter, r *http.Request) {
	var req faults.Request
	err := family.DecodeBody(r, &req)
	var in *projections.Inbox
	if err == nil {
		in, err = s.tokenInboxOf(r)
	}
	var rule faults.Rule
	if err == nil {
		rule, err = s.Commands.AddFault(r.Context(), in, req)
		err = family.AsNotFound(err, "Inbox not found")
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	family.WriteJSON(w, http.StatusCreated, family.FaultRuleOf(projections.FaultRule{Rule: rule}))
}

func (s *API) listFaultsC(w http.ResponseWriter, r *http.Request) {
	in, err := s.tokenInboxOf(r)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	family.WriteJSON(w, http.StatusOK, family.FaultRulesOf(&in.Faults, time.Now()))
}

func (s *API) deleteFaultC(w http.ResponseWriter, r *http.Request) {
	in, err := s.tokenInboxOf(r)
	if err == nil {
		id := chi.URLParam(r, "fault")
		if _, perr := uuid.Parse(id); perr != nil || len(id) != 36 {
			err = tempmail.Errorf(tempmail.NotFound, "fault rule not found")
		} else {
			err = s.Commands.DeleteFault(r.Context(), in, id)
		}
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *API) attemptsC(w http.ResponseWriter, r *http.Request) {
	in, err := s.tokenInboxOf(r)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	family.WriteJSON(w, http.StatusOK, family.AttemptsOf(&in.Faults, nil))
}
