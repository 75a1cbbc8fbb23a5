package admin

import (
	"net/http"
	"strings"

	"tempmail/api/family"
	"tempmail/api/inboxapi"
	"tempmail/command"
	"tempmail/projections"
)

// domainRequest is the body of POST /api/domains/.
type domainRequest struct {
	Name     string  `json:"name"`
	TenantID *string `json:"tenant_id"`
	CatchAll bool    `json:"catch_all"`
}

// domainAdded is the answer to POST /api/domains/: the domain, and the MX
// record to publish for it.
type domainAdded struct {
	inboxapi.Domain
	MX string `json:"mx"`
}

func (s *API) addDomainA(w http.ResponseWriter, r *http.Request) {
	var req domainRequest
	err := family.DecodeBody(r, &req)
	var spec command.DomainSpec
	if err == nil {
		spec.Name, err = family.CheckDomainName(req.Name)
		spec.CatchAll = req.CatchAll
	}
	if err == nil && req.TenantID != nil && *req.TenantID != "" {
		spec.TenantID = strings.ToLower(*req.TenantID)
		switch {
		case !family.ValidID(spec.TenantID):
			err = family.ErrNotFound
		case spec.TenantID == command.AnonymousTenant:
			err = errAnonymousTenant
		}
	}
	var d projections.Domain
	if err == nil {
		d, err = s.Commands.AddDomain(r.Context(), spec)
	}
	if err != nil {
		family.WriteError(w, r, s.Log, family.AsNotFound(err, family.NotFoundA))
		return
	}
	family.WriteJSON(w, http.StatusCreated, domainAdded{inboxapi.New(s.Kit).DomainOf(d), s.MXHost()})
}
