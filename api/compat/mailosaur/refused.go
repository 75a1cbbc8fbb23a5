package mailosaur

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"tempmail/api/family"
)

// What the Mailosaur family refuses (mailosaur.go): the calls of the SDK
// and cypress-mailosaur that the service cannot honour without making
// something up or sending mail. Each is answered 400 with the call's name
// as the error's field, because that is the one answer both clients put in
// the error they throw ("(analysis.spam) …"): for any other status the SDK
// throws a generic message and cypress-mailosaur drops the body.

// refusal is one refused call: its route, the SDK's and Cypress's names
// for it, and why it is refused, with what to do instead.
type refusal struct {
	method, path  string
	call, cypress string
	why           string
}

const (
	noSending  = "tempmail never sends mail: it receives it. Send from your own code to an address of the server."
	noPreviews = "tempmail renders no email previews."
)

// refusals are the family's refused calls, each routed (mailosaurRoutes)
// and documented (Contract) from this one list.
func refusals() []refusal {
	return []refusal{
		{"GET", "/api/analysis/spam/{id}", "analysis.spam", "mailosaurGetSpamAnalysis",
			"tempmail runs no spam filter, and gives no made-up score."},
		{"GET", "/api/analysis/deliverability/{id}", "analysis.deliverability", "mailosaurGetDeliverabilityReport",
			"tempmail makes no deliverability report: the message's SPF, DKIM and DMARC results are in its metadata headers."},
		{"POST", "/api/messages", "messages.create", "mailosaurCreateMessage", noSending},
		{"POST", "/api/messages/{id}/forward", "messages.forward", "mailosaurForwardMessage", noSending},
		{"POST", "/api/messages/{id}/reply", "messages.reply", "mailosaurReplyToMessage", noSending},
		{"POST", "/api/messages/{id}/screenshots", "messages.generatePreviews", "mailosaurGenerateEmailPreviews", noPreviews},
		{"GET", "/api/screenshots/clients", "previews.listEmailClients", "mailosaurListPreviewEmailClients", noPreviews},
		{"GET", "/api/servers/{serverID}/password", "servers.getPassword", "mailosaurGetServerPassword",
			"tempmail's servers have no password: its SMTP takes mail for their addresses from anyone, without one."},
	}
}

// refuse routes each refusal.
func (s *API) refuse(r chi.Router) {
	for _, f := range refusals() {
		r.MethodFunc(f.method, f.path, func(w http.ResponseWriter, r *http.Request) {
			if err := mailosaurMay(r, false); err != nil {
				s.mailosaurFail(w, r, err)
				return
			}
			family.WriteJSON(w, http.StatusBadRequest, mailosaurError{Type: "NotSupportedError",
				Errors: []mailosaurFieldError{{Field: f.call, Detail: []mailosaurErrorDetail{{
					Description: f.call + " (cy." + f.cypress + ") is not supported by tempmail: " + f.why,
					Code:        "not_supported"}}}}})
		})
	}
}
