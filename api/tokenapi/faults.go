package tokenapi

import (
	"net/http"
	"slices"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"tempmail"
	"tempmail/api/family"
	"tempmail/faults"
	"tempmail/projections"
	"tempmail/wire"
)

// An inbox's SMTP fault rules and its attempt log
// (docs/failing-on-purpose.md): the token is the credential, as for the
// inbox's subscriptions.

func faultRuleOf(r projections.FaultRule) wire.FaultRule {
	out := wire.FaultRule{ID: r.ID, Command: r.Command, Reply: r.Reply, Times: r.Times, Every: r.Every, Fraction: r.Fraction,
		Seed: r.Seed, Close: r.Close, From: r.From, CreatedAt: wire.At(r.CreatedAt), ExpiresAt: wire.At(r.ExpiresAt), Matched: r.N, Fired: r.Acted}
	if r.Delay > 0 {
		out.Delay = time.Duration(r.Delay).String()
	}
	return out
}

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
	family.WriteJSON(w, http.StatusCreated, faultRuleOf(projections.FaultRule{Rule: rule}))
}

func (s *API) listFaultsC(w http.ResponseWriter, r *http.Request) {
	in, err := s.tokenInboxOf(r)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	now := time.Now()
	out := []wire.FaultRule{}
	for _, f := range in.Faults {
		if now.Before(f.ExpiresAt) {
			out = append(out, faultRuleOf(f))
		}
	}
	family.WriteJSON(w, http.StatusOK, out)
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
	out := []wire.Attempt{}
	for _, a := range slices.Backward(in.Attempts) {
		if a.RuleID != "" && !a.Acted {
			continue // counted by a rule that let it pass: its outcome follows
		}
		out = append(out, wire.Attempt{At: wire.At(time.UnixMilli(a.At).UTC()), Client: nonEmpty(a.Client), From: a.From,
			Command: a.Command, Code: a.Code, Reply: a.Reply, RuleID: nonEmpty(a.RuleID), MessageID: nonEmpty(a.MessageID)})
	}
	family.WriteJSON(w, http.StatusOK, out)
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
