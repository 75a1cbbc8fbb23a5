package tokenapi

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"tempmail/api/family"
	"tempmail/command"
)

// API is family C, over the Kit every family is given.
type API struct{ *family.Kit }

// New returns family C.
func New(k *family.Kit) *API { return &API{Kit: k} }

// Door registers the family with the server: its paths, and its errors'
// shape, {"error": ...}.
func Door() family.Door {
	return family.Door{Name: "C", Paths: []string{"/inboxes", "/address/"}, NotFound: "Not found",
		Scope: scope,
		Body: func(w http.ResponseWriter, status int, msg string, _ bool) {
			family.WriteJSON(w, status, map[string]string{"error": msg})
		}}
}

// scope is the scope a key needs on the family's paths (family.Door):
// webhooks for an inbox's subscriptions, inboxes to make or end an inbox
// or a message, read (or inboxes) for the rest.
func scope(method, path string) string {
	switch {
	case strings.HasPrefix(path, "/inboxes/") && strings.Contains(path, "/webhooks"):
		return command.ScopeWebhooks
	case method == http.MethodDelete || method == http.MethodPost && (path == "/inboxes" || strings.Contains(path, "/faults")):
		return command.ScopeInboxes
	}
	return command.ScopeRead
}

// Routes registers the family's routes with the server's router: what
// the token alone authorizes (tokenInboxOf, inboxes.go), and the reads by
// address.
func (s *API) Routes(r chi.Router) {
	r.With(s.LimitCreates).Post("/inboxes", s.createTokenInbox)
	r.Get("/inboxes/{token}", s.getTokenInbox)
	r.Delete("/inboxes/{token}", s.deleteTokenInbox)
	r.Get("/inboxes/{token}/messages", s.tokenMessages)
	r.Get("/inboxes/{token}/events", s.eventsC)
	r.Get("/inboxes/{token}/messages/{id}", s.tokenMessage)
	r.Delete("/inboxes/{token}/messages/{id}", s.deleteMessageC)
	r.Post("/inboxes/{token}/messages/{id}/read", s.markReadC)
	r.Get("/inboxes/{token}/messages/{id}/raw", s.rawC)
	r.Get("/inboxes/{token}/messages/{id}/body.html", s.bodyHTML)
	r.Get("/inboxes/{token}/messages/{id}/attachments/{n}", s.downloadAttachmentC)
	r.With(s.LimitCreates).Post("/inboxes/{token}/webhooks", s.createSubscriptionC)
	r.Get("/inboxes/{token}/webhooks", s.listSubscriptionsC)
	r.Get("/inboxes/{token}/webhooks/{webhook}", s.getSubscriptionC)
	r.Delete("/inboxes/{token}/webhooks/{webhook}", s.deleteSubscriptionC)
	r.Get("/inboxes/{token}/webhooks/{webhook}/deliveries", s.deliveriesC)
	r.Post("/inboxes/{token}/webhooks/{webhook}/rotate-secret", s.rotateSecretC)
	r.With(s.LimitCreates).Post("/inboxes/{token}/faults", s.createFaultC)
	r.Get("/inboxes/{token}/faults", s.listFaultsC)
	r.Delete("/inboxes/{token}/faults/{fault}", s.deleteFaultC)
	r.Get("/inboxes/{token}/attempts", s.attemptsC)
	r.Get("/inboxes/{token}/latest", s.latestC)
	r.Get("/inboxes/{token}/otp", s.findOTPC)
	r.Get("/inboxes/{token}/link", s.findLinkC)
	r.Get("/address/latest", s.addressLatestC)
}
