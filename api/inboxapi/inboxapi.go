package inboxapi

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"tempmail/api/family"
	"tempmail/command"
)

// API is family A, over the Kit every family is given.
type API struct{ *family.Kit }

// New returns family A.
func New(k *family.Kit) *API { return &API{Kit: k} }

// Door registers the family with the server: every path under /api/ that
// no other family has (family B's, the admin's and the inbound webhook's
// errors are family A's too), and its errors' shape: {"detail": ...} for
// 401, 404, 405 and 415, {"error": ...} otherwise.
func Door() family.Door {
	return family.Door{Name: "A", Paths: []string{"/api/"}, NotFound: family.NotFoundA, Challenge: "Token", KeyInToken: true,
		Scope: scope,
		Body: func(w http.ResponseWriter, status int, msg string, detail bool) {
			if detail || status == http.StatusMethodNotAllowed {
				family.WriteJSON(w, status, map[string]string{"detail": msg})
				return
			}
			family.WriteJSON(w, status, map[string]string{"error": msg})
		}}
}

// scope is the scope a key needs on the family's paths (family.Door):
// none on the API token's (tenants and keys, which are the admin's, and
// webhooks, inbound and outbound), inboxes to make or end an inbox or
// a message, read (or inboxes) for the rest.
func scope(method, path string) string {
	switch {
	case strings.HasPrefix(path, "/api/tenants") || strings.HasPrefix(path, "/api/keys") || strings.HasPrefix(path, "/api/webhook"):
		return ""
	case method == http.MethodDelete || method == http.MethodPost && path == "/api/inboxes/create_inbox":
		return command.ScopeInboxes
	}
	return command.ScopeRead
}

// Routes registers the family's routes with the server's router.
func (s *API) Routes(r chi.Router) {
	// The admin's lookup by address, or a key's tenant's inboxes (usage.go).
	r.Get("/api/inboxes", s.inboxesA)
	r.Get("/api/usage", s.usageA)
	r.Group(func(r chi.Router) {
		// Outbound webhook subscriptions: always the operator's token.
		r.Use(s.RequireToken)
		r.With(s.LimitCreates).Post("/api/webhooks", s.createSubscriptionA)
		r.Get("/api/webhooks", s.listSubscriptionsA)
		r.Get("/api/webhooks/{webhook}", s.getSubscriptionA)
		r.Delete("/api/webhooks/{webhook}", s.deleteSubscriptionA)
		r.Get("/api/webhooks/{webhook}/deliveries", s.deliveriesA)
		r.Post("/api/webhooks/{webhook}/rotate-secret", s.rotateSecretA)
	})
	r.Group(func(r chi.Router) {
		r.Use(s.OptionalToken)
		r.Get("/api/domains", s.domainsA)
		r.With(s.LimitCreates).Post("/api/inboxes/create_inbox", s.createInboxA)
		// An inbox id is a UUID: the pattern keeps GET and DELETE off
		// create_inbox beside it, which is served with POST alone (405).
		r.Get("/api/inboxes/{id:"+family.UUIDPattern+"}", s.getInboxA)
		r.Delete("/api/inboxes/{id:"+family.UUIDPattern+"}", s.deleteInboxA)
		r.Get("/api/inboxes/{id}/emails", s.inboxEmailsA)
		r.Get("/api/inboxes/{id}/events", s.eventsA)
		r.Get("/api/emails/{id}", s.getEmailA)
		r.Delete("/api/emails/{id}", s.deleteEmailA)
		r.Post("/api/emails/{id}/mark_as_read", s.markReadA)
		r.Get("/api/emails/{id}/raw", s.rawEmailA)
		r.Get("/api/attachments/{id}/download", s.downloadAttachmentA)
	})
}
