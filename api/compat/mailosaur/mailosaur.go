package mailosaur

import (
	"net/http"
	"strings"
	"time"
	"unicode"

	"github.com/go-chi/chi/v5"

	"tempmail"
	"tempmail/api/family"
	"tempmail/command"
	"tempmail/mailbox"
	"tempmail/projections"
	"tempmail/wire"
)

// API is the family, over the Kit every family is given.
type API struct {
	*family.Kit
	recent *recentSearches // the searches asked lately (held.go)
}

// New returns the family.
func New(k *family.Kit) *API { return &API{Kit: k, recent: newRecentSearches()} }

// Door registers the family with the server (family.CompatDoor).
func (s *API) Door() family.Door {
	return family.CompatDoor("mailosaur", writeMailosaurError, s.mailosaurCredential, s.mailosaurRoutes)
}

func (s *API) mailosaurRoutes(r chi.Router) {
	r.Get("/api/servers", s.mailosaurServers)
	r.With(s.LimitCreates).Post("/api/servers", s.mailosaurCreateServer)
	r.Get("/api/servers/{serverID}", s.mailosaurServer)
	r.Put("/api/servers/{serverID}", s.mailosaurUpdateServer)
	r.Delete("/api/servers/{serverID}", s.mailosaurDeleteServer)
	r.Get("/api/messages", s.mailosaurMessages)
	r.Delete("/api/messages", s.mailosaurDeleteMessages)
	r.Post("/api/messages/search", s.mailosaurSearch)
	r.Get("/api/messages/{id}", s.mailosaurMessage)
	r.Delete("/api/messages/{id}", s.mailosaurDeleteMessage)
	r.Get("/api/usage/limits", s.mailosaurLimits)
	r.Get("/api/usage/transactions", s.mailosaurTransactions)
	r.Get("/api/files/email/{id}", s.mailosaurRawEmail)
	r.Get("/api/files/attachments/{id}", s.mailosaurAttachmentFile)
	r.Post("/api/devices/otp", s.mailosaurDeviceOTP)
	r.Get("/api/devices", s.mailosaurDevices)
	r.With(s.LimitCreates).Post("/api/devices", s.mailosaurCreateDevice)
	r.Get("/api/devices/{id}/otp", s.mailosaurStoredDeviceOTP)
	r.Delete("/api/devices/{id}", s.mailosaurDeleteDevice)
	s.refuse(r)
}

// errMailosaurAuth is every refused credential: the SDK says "check your
// API key" for any 401.
var errMailosaurAuth = tempmail.Errorf(tempmail.Unauthorized,
	"Authentication failed: give a tenant's API key as the user name of HTTP Basic authentication")

// mailosaurCredential is who a request of the family comes from: HTTP
// Basic with a tenant's key as the user name (the password is not
// looked at; the SDK sends none). Nothing else is taken, the API token
// included: a server belongs to a tenant.
func (s *API) mailosaurCredential(r *http.Request) (family.Credential, error) {
	if len(r.Header.Get("Authorization")) > family.MaxCredentialBytes {
		return family.Credential{}, errMailosaurAuth
	}
	user, _, ok := r.BasicAuth()
	if !ok || !strings.HasPrefix(user, command.KeyPrefix) {
		return family.Credential{}, errMailosaurAuth
	}
	k, err := s.KeyOf(r.Context(), user)
	if tempmail.KindOf(err) == tempmail.Unauthorized {
		return family.Credential{}, errMailosaurAuth
	}
	return family.Credential{Key: k}, err
}

// mailosaurMay checks the key's scopes: reading takes read or inboxes,
// a change inboxes (admin covers both).
func mailosaurMay(r *http.Request, change bool) error {
	c := family.CredentialFrom(r)
	switch {
	case c.Key == nil:
		return errMailosaurAuth
	case c.IsAdmin() || c.Key.Has(command.ScopeInboxes):
		return nil
	case !change && c.Key.Has(command.ScopeRead):
		return nil
	}
	return c.Need(command.ScopeInboxes)
}

// mailosaurError is Mailosaur's error body, which the SDK reads for a 400
// ("(field) description" for each of errors) and passes on as the error's
// httpResponseBody otherwise.
type mailosaurError struct {
	Type   string                `json:"type"`
	Errors []mailosaurFieldError `json:"errors"`
}

type mailosaurFieldError struct {
	Field  string                 `json:"field"`
	Detail []mailosaurErrorDetail `json:"detail"`
}

type mailosaurErrorDetail struct {
	Description string `json:"description"`
	Code        string `json:"code"`
}

// writeMailosaurError answers with status and msg in the family's error
// shape. A 400's message "field: description" names its field; any other
// names the request.
func writeMailosaurError(w http.ResponseWriter, status int, msg string) {
	field, desc := "request", msg
	if f, d, ok := strings.Cut(msg, ": "); ok && status == http.StatusBadRequest && f != "" && strings.IndexFunc(f, func(r rune) bool {
		return !unicode.IsLetter(r)
	}) < 0 {
		field, desc = f, d
	}
	kind := map[int]string{
		http.StatusBadRequest: "ValidationError", http.StatusUnauthorized: "AuthenticationError",
		http.StatusForbidden: "PermissionError", http.StatusNotFound: "NotFoundError",
		http.StatusTooManyRequests: "RateLimitError",
	}[status]
	if kind == "" {
		kind = "ApiError"
	}
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Basic realm="tempmail"`)
	}
	family.WriteJSON(w, status, mailosaurError{Type: kind,
		Errors: []mailosaurFieldError{{Field: field, Detail: []mailosaurErrorDetail{{Description: desc, Code: strings.ToLower(kind)}}}}})
}

// mailosaurFail answers err in the family's shape.
func (s *API) mailosaurFail(w http.ResponseWriter, r *http.Request, err error) {
	family.WriteError(w, r, s.Log, err)
}

// mailosaurLimit is one of the usage limits: what is used and how much
// may be (0: no limit).
type mailosaurLimit struct {
	Limit   int64 `json:"limit"`
	Current int64 `json:"current"`
}

type mailosaurLimits struct {
	Servers mailosaurLimit `json:"servers"`
	Users   mailosaurLimit `json:"users"`
	Email   mailosaurLimit `json:"email"`
	SMS     mailosaurLimit `json:"sms"`
}

// mailosaurLimits answers GET api/usage/limits from the tenant's quota:
// its servers against mailosaurMaxServers, its mail today against its
// messages a day; it has no users or SMS.
func (s *API) mailosaurLimits(w http.ResponseWriter, r *http.Request) {
	err := mailosaurMay(r, false)
	var t *projections.Tenant
	var use mailbox.Usage
	if err == nil {
		t, use, err = s.tenantUsage(r, time.Now())
	}
	if err != nil {
		s.mailosaurFail(w, r, err)
		return
	}
	family.WriteJSON(w, http.StatusOK, mailosaurLimits{
		Servers: mailosaurLimit{Limit: command.MaxTenantServers, Current: t.Servers},
		Email:   mailosaurLimit{Limit: t.Quota.MessagesPerDay, Current: use.MessagesToday},
	})
}

// tenantUsage is the key's tenant and what it used on the day of at.
func (s *API) tenantUsage(r *http.Request, at time.Time) (*projections.Tenant, mailbox.Usage, error) {
	t, err := s.KeyTenant(r)
	if err != nil {
		return nil, mailbox.Usage{}, err
	}
	use, err := s.Views.Usage(r.Context(), t.ID, at)
	return t, use, err
}

// mailosaurTransaction is one day of the SDK's usage transactions.
type mailosaurTransaction struct {
	Timestamp wire.Time `json:"timestamp"`
	Email     int64     `json:"email"`
	SMS       int64     `json:"sms"`
}

type mailosaurTransactions struct {
	Items []mailosaurTransaction `json:"items"`
}

// mailosaurTransactions answers GET api/usage/transactions: the tenant's
// messages of today (a UTC day, as its quota counts them), the one day
// the service counts; it has no SMS.
func (s *API) mailosaurTransactions(w http.ResponseWriter, r *http.Request) {
	err := mailosaurMay(r, false)
	now := time.Now().UTC()
	var use mailbox.Usage
	if err == nil {
		_, use, err = s.tenantUsage(r, now)
	}
	if err != nil {
		s.mailosaurFail(w, r, err)
		return
	}
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	family.WriteJSON(w, http.StatusOK, mailosaurTransactions{Items: []mailosaurTransaction{{Timestamp: wire.At(day), Email: use.MessagesToday}}})
}
