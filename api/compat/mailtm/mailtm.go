package mailtm

import (
	"crypto/subtle"
	"encoding/json"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"tempmail"
	"tempmail/api/family"
	"tempmail/command"
	"tempmail/projections"
)

// The family's routes, who its requests come from, and its errors.

// mailtmPrefix is where the family lives. The IRIs it gives (@id,
// downloadUrl, hydra:view's pages) are paths under it, as mail.tm's are
// under its API's root: clients written for mail.tm join them to their
// base URL (https://<site>/compat/mailtm) to follow them.
const mailtmPrefix = family.CompatPrefix + "mailtm"

// mailtmPageSize is how many messages a page of GET /messages holds, as
// on mail.tm.
const mailtmPageSize = 30

// API is the family, over the Kit every family is given.
type API struct {
	*family.Kit
	// passwords hashes and checks accounts' passwords (accounts.go).
	passwords passwords
}

// New returns the family; passwordCost is the bcrypt cost of accounts'
// passwords (0: bcrypt's default; tests lower it).
func New(k *family.Kit, passwordCost int) *API {
	return &API{Kit: k, passwords: newPasswords(passwordCost)}
}

// Door registers the family with the server (family.CompatDoor).
func (s *API) Door() family.Door {
	return family.CompatDoor("mailtm", writeMailTMError, s.mailtmCredential, s.mailtmRoutes)
}

func (s *API) mailtmRoutes(r chi.Router) {
	r.Use(mailtmNegotiate)
	r.Get("/domains", s.mailtmDomains)
	r.Get("/domains/{id}", s.mailtmDomain)
	r.With(s.LimitCreates).Post("/accounts", s.mailtmCreateAccount)
	r.With(s.LimitLogins).Post("/token", s.mailtmToken)
	r.Get("/me", s.mailtmMe)
	r.Get("/accounts/{id}", s.mailtmGetAccount)
	r.Delete("/accounts/{id}", s.mailtmDeleteAccount)
	r.Get("/messages", s.mailtmMessages)
	r.Get("/messages/{id}", s.mailtmMessage)
	r.Patch("/messages/{id}", s.mailtmMarkSeen)
	r.Delete("/messages/{id}", s.mailtmDeleteMessage)
	r.Get("/messages/{id}/download", s.mailtmDownload)
	r.Get("/messages/{id}/attachment/{attachment}", s.mailtmAttachment)
	r.Get("/sources/{id}", s.mailtmSource)
	r.Get("/.well-known/mercure", s.mailtmEvents) // events.go
}

// mailtmCredential is who a request of the family comes from: a tenant's
// key or the API token in Bearer; anything else in Bearer is an
// account's token, which the handlers resolve (mailtmCallerOf).
func (s *API) mailtmCredential(r *http.Request) (family.Credential, error) {
	secret, ok := mailtmBearer(r)
	switch {
	case !ok:
		return family.Credential{}, nil
	case strings.HasPrefix(secret, command.KeyPrefix):
		k, err := s.KeyOf(r.Context(), secret)
		return family.Credential{Key: k}, err
	case len(secret) <= family.MaxCredentialBytes && s.Config.APIToken != "" &&
		subtle.ConstantTimeCompare([]byte(secret), []byte(s.Config.APIToken)) == 1:
		return family.Credential{Admin: true}, nil
	}
	return family.Credential{}, nil
}

// mailtmBearer is the secret of r's Authorization: Bearer, if any.
func mailtmBearer(r *http.Request) (string, bool) {
	scheme, secret, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	secret = strings.TrimSpace(secret)
	if !ok || !strings.EqualFold(scheme, "Bearer") || secret == "" {
		return "", false
	}
	return secret, true
}

var (
	errMailTMNoToken  = tempmail.Errorf(tempmail.Unauthorized, "JWT Token not found")
	errMailTMBadToken = tempmail.Errorf(tempmail.Unauthorized, "Invalid JWT Token")
	errMailTMNotFound = tempmail.Errorf(tempmail.NotFound, "Not Found")
)

// mailtmCaller is who acts on the family's resources: an account (by its
// token), or a credential (a tenant's key, the API token).
type mailtmCaller struct {
	c       family.Credential
	account *projections.Inbox // nil for a credential
}

// mailtmCallerOf resolves r's caller: a key or the API token as
// authenticate found it, or else the account whose token Bearer holds;
// none is 401.
func (s *API) mailtmCallerOf(r *http.Request) (mailtmCaller, error) {
	c := family.CredentialFrom(r)
	if c.Admin || c.Key != nil {
		return mailtmCaller{c: c}, nil
	}
	tok, ok := mailtmBearer(r)
	if !ok {
		return mailtmCaller{}, errMailTMNoToken
	}
	if !family.ValidToken(tok) {
		return mailtmCaller{}, errMailTMBadToken
	}
	in, err := family.LiveInbox(s.Views.InboxByToken(r.Context(), tok))
	switch {
	case tempmail.KindOf(err) == tempmail.NotFound:
		return mailtmCaller{}, errMailTMBadToken
	case err != nil:
		return mailtmCaller{}, err
	}
	return mailtmCaller{account: in}, nil
}

// sees reports whether the caller may reach inbox in: an account its
// own alone; a credential as everywhere (credential.sees).
func (m mailtmCaller) sees(in *projections.Inbox) bool {
	if m.account != nil {
		return m.account.ID == in.ID
	}
	return m.c.Sees(in)
}

// may checks a key's scopes for what the caller asks: making and deleting
// need the inboxes scope; reading (and marking seen, which is reading)
// the read scope or the inboxes one. An account may do all of it to
// itself.
func (m mailtmCaller) may(write bool) error {
	if m.account != nil || m.c.Key == nil || m.c.IsAdmin() {
		return nil
	}
	if !write && m.c.Key.Has(command.ScopeRead) {
		return nil
	}
	return m.c.Need(command.ScopeInboxes)
}

// mailtmSelf is the account the request's own token names, for the paths
// that have no id (GET /me, GET /messages): a key or the API token names
// no account there.
func (s *API) mailtmSelf(r *http.Request) (*projections.Inbox, error) {
	m, err := s.mailtmCallerOf(r)
	if err != nil {
		return nil, err
	}
	if m.account == nil {
		return nil, tempmail.Errorf(tempmail.Unauthorized,
			"this path is an account's: send the token POST /token gives for it (a key reaches accounts and messages by id)")
	}
	return m.account, nil
}

// mailtmLD is the writer of an answer in JSON-LD: the answer's JSON
// content type becomes application/ld+json, and errors take hydra's
// shape (writeMailTMError).
type mailtmLD struct {
	http.ResponseWriter
	wrote bool
}

func (w *mailtmLD) WriteHeader(code int) {
	if !w.wrote {
		w.wrote = true
		if strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
			w.Header().Set("Content-Type", "application/ld+json; charset=utf-8")
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *mailtmLD) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap gives http.ResponseController the writer underneath.
func (w *mailtmLD) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// mailtmNegotiate answers in JSON-LD unless Accept prefers
// application/json to application/ld+json (by q, then by order), as
// API Platform, which serves mail.tm, chooses between its formats.
func mailtmNegotiate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !mailtmWantsJSON(r.Header.Get("Accept")) {
			w = &mailtmLD{ResponseWriter: w}
		}
		next.ServeHTTP(w, r)
	})
}

// maxAcceptBytes bounds what is read of Accept.
const maxAcceptBytes = 1024

// mailtmWantsJSON reports whether accept prefers plain JSON: a higher q
// than JSON-LD's, or the same q and named first.
func mailtmWantsJSON(accept string) bool {
	if len(accept) > maxAcceptBytes {
		return false
	}
	qJSON, qLD := -1.0, -1.0
	jsonFirst := false
	for part := range strings.SplitSeq(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 && f <= 1 {
				q = f
			}
		}
		switch {
		case mt == "application/json" && q > qJSON:
			jsonFirst = jsonFirst || qLD < 0
			qJSON = q
		case mt == "application/ld+json" && q > qLD:
			qLD = q
		}
	}
	return qJSON > 0 && (qJSON > qLD || qJSON == qLD && jsonFirst)
}

// jsonLD reports whether w answers in JSON-LD.
func jsonLD(w http.ResponseWriter) bool {
	_, ok := w.(*mailtmLD)
	return ok
}

// writeMailTMError answers with status and msg in the family's error
// shape: a 401 as mail.tm's JWT layer words it ({code, message}); others
// as a hydra:Error in JSON-LD, or a problem ({type, title, detail}) in
// JSON, with status beside them.
func writeMailTMError(w http.ResponseWriter, status int, msg string) {
	switch {
	case status == http.StatusUnauthorized:
		family.WriteJSON(w, status, mailtmAuthError{Code: status, Message: msg})
	case jsonLD(w):
		family.WriteJSON(w, status, mailtmError{Context: "/contexts/Error", Type: "hydra:Error", Title: "An error occurred",
			Description: msg, Detail: msg, Status: status})
	default:
		family.WriteJSON(w, status, mailtmError{ProblemType: "https://tools.ietf.org/html/rfc2616#section-10",
			ProblemTitle: "An error occurred", Detail: msg, Status: status})
	}
}

// mailtmViolation is one field's problem in a 422 answer.
type mailtmViolation struct {
	PropertyPath string `json:"propertyPath"`
	Message      string `json:"message"`
}

// writeMailTMViolations answers 422 with what was wrong with the body, as
// the original's validation does.
func writeMailTMViolations(w http.ResponseWriter, list ...mailtmViolation) {
	var detail []string
	for _, v := range list {
		detail = append(detail, v.PropertyPath+": "+v.Message)
	}
	out := mailtmError{Detail: strings.Join(detail, "\n"), Status: http.StatusUnprocessableEntity, Violations: list}
	if jsonLD(w) {
		out.Context, out.Type, out.Title, out.Description = "/contexts/ConstraintViolationList", "ConstraintViolationList",
			"An error occurred", out.Detail
	} else {
		out.ProblemType, out.ProblemTitle = "https://symfony.com/errors/validation", "An error occurred"
	}
	family.WriteJSON(w, http.StatusUnprocessableEntity, out)
}

// mailtmJSONString reads a string field of a body: absent or null is "",
// another type a violation.
func mailtmJSONString(raw json.RawMessage, field string) (string, *mailtmViolation) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", &mailtmViolation{field, "This value should be of type string."}
	}
	return v, nil
}
