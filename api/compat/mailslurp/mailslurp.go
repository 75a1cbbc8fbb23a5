package mailslurp

import (
	"crypto/subtle"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"

	"tempmail"
	"tempmail/api/family"
	"tempmail/command"
	"tempmail/projections"
)

// API is the family, over the Kit every family is given.
type API struct{ *family.Kit }

// New returns the family.
func New(k *family.Kit) *API { return &API{Kit: k} }

// Door registers the family with the server (family.CompatDoor).
func (s *API) Door() family.Door {
	return family.CompatDoor("mailslurp", writeMailSlurpError, s.mailslurpCredential, s.mailslurpRoutes)
}

func (s *API) mailslurpRoutes(r chi.Router) {
	id := "{inboxId:" + family.UUIDPattern + "}"
	r.With(s.LimitCreates).Post("/inboxes", s.mailslurpCreateInbox)
	r.With(s.LimitCreates).Post("/inboxes/withOptions", s.mailslurpCreateInboxWithOptions)
	r.With(s.LimitCreates).Post("/inboxes/withDefaults", s.mailslurpCreateInboxWithDefaults)
	r.Get("/inboxes", s.mailslurpInboxes)
	r.Get("/inboxes/paginated", s.mailslurpAllInboxes)
	r.Get("/inboxes/byEmailAddress", s.mailslurpInboxByAddress)
	r.Get("/inboxes/"+id, s.mailslurpGetInbox)
	r.Delete("/inboxes/"+id, s.mailslurpDeleteInbox)
	r.Get("/inboxes/"+id+"/emails", s.mailslurpInboxEmails)
	r.Get("/inboxes/"+id+"/emails/paginated", s.mailslurpInboxEmailsPaginated)
	r.Get("/inboxes/"+id+"/emails/count", s.mailslurpInboxEmailCount)
	r.Delete("/inboxes/"+id+"/deleteAllInboxEmails", s.mailslurpEmptyInbox)
	r.Delete("/emptyInbox", s.mailslurpEmptyInbox)

	r.Get("/waitForLatestEmail", s.mailslurpWaitForLatest)
	r.Get("/waitForNthEmail", s.mailslurpWaitForNth)
	r.Post("/waitForMatchingFirstEmail", s.mailslurpWaitForMatchingFirst)
	r.Get("/waitForEmailCount", s.mailslurpWaitForCount)
	r.Post("/waitForMatchingEmails", s.mailslurpWaitForMatching)

	r.Get("/emails/latestIn", s.mailslurpLatestIn)
	email := "/emails/{emailId:" + family.UUIDPattern + "}"
	r.Get(email, s.mailslurpGetEmail)
	r.Delete(email, s.mailslurpDeleteEmail)
	r.Patch(email+"/read", s.mailslurpMarkAsRead)
	r.Post(email+"/codes", s.mailslurpEmailCodes)
	r.Post(email+"/contentMatch", s.mailslurpContentMatch)
	r.Get(email+"/textLines", s.mailslurpTextLines)
	r.Get(email+"/links", s.mailslurpLinks)
	r.Get(email+"/html", s.mailslurpEmailHTML)
	r.Get(email+"/html/json", s.mailslurpEmailHTMLJSON)
	r.Get(email+"/htmlQuery", s.mailslurpEmailHTMLQuery)
	r.Get(email+"/raw", s.mailslurpRawEmail)
	r.Get(email+"/raw/json", s.mailslurpRawEmailJSON)

	// Attachments: by their email, or by their id alone (attachments.go).
	// An attachment's id is checked by the handlers, which say what one
	// looks like, rather than by the route, which would answer 501.
	att := email + "/attachments/{attachmentId}"
	r.Get(email+"/attachments", s.mailslurpAttachments)
	r.Get(att, s.mailslurpDownloadAttachment)
	r.Get(att+"/base64", s.mailslurpAttachmentBase64)
	r.Get(att+"/metadata", s.mailslurpAttachmentMetadata)
	r.Get("/attachments/{attachmentId}", s.mailslurpAttachmentEntity)
	r.Get("/attachments/{attachmentId}/bytes", s.mailslurpDownloadAttachment)
	r.Get("/attachments/{attachmentId}/base64", s.mailslurpAttachmentBase64)
	r.Get("/attachments/{attachmentId}/metadata", s.mailslurpAttachmentMetadata)

	// Everything else: 501, after the key is checked like any other. Not
	// OPTIONS, which the router answers for every served path (api/routes.go).
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		r.MethodFunc(m, "/*", s.mailslurpUnsupported)
	}
}

// errMailSlurpNoKey is the answer without x-api-key.
var errMailSlurpNoKey = tempmail.Errorf(tempmail.Unauthorized,
	"an API key is needed: send x-api-key: <key> (a tenant's key, or the API token)")

// mailslurpCredential is who a request of the family comes from: the key
// in x-api-key (none is 401, as an unknown one is).
func (s *API) mailslurpCredential(r *http.Request) (family.Credential, error) {
	key := strings.TrimSpace(r.Header.Get("x-api-key"))
	switch {
	case key == "":
		return family.Credential{}, errMailSlurpNoKey
	case strings.HasPrefix(key, command.KeyPrefix):
		k, err := s.KeyOf(r.Context(), key)
		return family.Credential{Key: k}, err
	case len(key) <= family.MaxCredentialBytes && s.Config.APIToken != "" &&
		subtle.ConstantTimeCompare([]byte(key), []byte(s.Config.APIToken)) == 1:
		return family.Credential{Admin: true}, nil
	}
	return family.Credential{}, family.ErrBadKey
}

// mailslurpMay checks that the request's key may read (write false) or
// make and delete (write true): the inboxes scope does both, the read
// scope reads.
func mailslurpMay(r *http.Request, write bool) error {
	c := family.CredentialFrom(r)
	switch {
	case c.IsAdmin():
		return nil
	case c.Key == nil:
		return errMailSlurpNoKey // authenticate has refused it already
	case !write && c.Key.Has(command.ScopeRead):
		return nil
	}
	return c.Need(command.ScopeInboxes)
}

// writeMailSlurpError answers with status and msg in the family's error
// shape: MailSlurp's service answers as Spring does, with the status, its
// reason and the message, which the SDK hands to the caller as the
// thrown value (its wrapper throws the parsed body).
func writeMailSlurpError(w http.ResponseWriter, status int, msg string) {
	family.WriteJSON(w, status, mailslurpError{Status: status, Error: http.StatusText(status), Message: msg})
}

// maxUnsupportedPath bounds how much of an unsupported path the 501 names.
const maxUnsupportedPath = 200

// mailslurpUnsupported answers what the family does not serve: 501, with
// the endpoint as the SDK names it (the path under the base path). The
// family's own status, like the 408 of a wait that found nothing: no
// error kind of the service's is either.
func (s *API) mailslurpUnsupported(w http.ResponseWriter, r *http.Request) {
	p := strings.TrimPrefix(r.URL.Path, family.CompatPrefix+"mailslurp")
	if p == "" {
		p = "/"
	}
	writeMailSlurpError(w, http.StatusNotImplemented, family.MethodLabel(r.Method)+" "+tempmail.Excerpt(p, maxUnsupportedPath)+
		" is not supported by tempmail's MailSlurp family")
}

// mailslurpMaxWait bounds a wait, whatever timeout the client asks for:
// the longest any family holds a request (WaitParams).
const mailslurpMaxWait = 60 * time.Second

// mailslurpTimeout reads a wait's timeout in milliseconds (the SDK's
// timeout, retryTimeout), held to mailslurpMaxWait; absent, def.
func mailslurpTimeout(r *http.Request, name string, def time.Duration) (time.Duration, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, tempmail.Errorf(tempmail.Invalid, "%s must be a whole number of milliseconds", name)
	}
	return min(time.Duration(min(n, int64(mailslurpMaxWait/time.Millisecond)))*time.Millisecond, mailslurpMaxWait), nil
}

// mailslurpBool reads a boolean query parameter ("true" or "false").
func mailslurpBool(r *http.Request, name string) (bool, error) {
	switch v := r.URL.Query().Get(name); v {
	case "", "false":
		return false, nil
	case "true":
		return true, nil
	}
	return false, tempmail.Errorf(tempmail.Invalid, "%s must be true or false", name)
}

// mailslurpInt reads a whole number query parameter in [lo, hi]; absent,
// def.
func mailslurpInt(r *http.Request, name string, def, lo, hi int) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, tempmail.Errorf(tempmail.Invalid, "%s must be a whole number from %d to %d", name, lo, hi)
	}
	return n, nil
}

// mailslurpDesc reads sort, the order on createdAt: ASC (the default) or
// DESC, which it reports.
func mailslurpDesc(r *http.Request) (bool, error) {
	switch r.URL.Query().Get("sort") {
	case "", "ASC":
		return false, nil
	case "DESC":
		return true, nil
	}
	return false, tempmail.Errorf(tempmail.Invalid, "sort must be ASC or DESC")
}

// mailslurpText reads a query parameter that is text: at most max bytes
// of UTF-8, without control characters; absent, "".
func mailslurpText(r *http.Request, name string, max int) (string, error) {
	v := r.URL.Query().Get(name)
	if len(v) > max || !utf8.ValidString(v) || strings.ContainsFunc(v, unicode.IsControl) {
		return "", tempmail.Errorf(tempmail.Invalid, "%s must be text of at most %d bytes, without control characters", name, max)
	}
	return v, nil
}

// mailslurpTime reads a time query parameter as the SDK sends it (ISO
// 8601, Date.toISOString); absent, the zero time.
func mailslurpTime(r *http.Request, name string) (time.Time, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return t, tempmail.Errorf(tempmail.Invalid, "%s must be a time as ISO 8601 writes it (2024-01-02T03:04:05.000Z)", name)
	}
	return t, nil
}

// mailslurpWhich is what a wait or a list looks for beyond the inbox:
// unread messages alone, received since and before a time.
type mailslurpWhich struct {
	unreadOnly    bool
	since, before time.Time
}

// readWhich reads unreadOnly, since and before.
func readWhich(r *http.Request) (q mailslurpWhich, err error) {
	if q.unreadOnly, err = mailslurpBool(r, "unreadOnly"); err != nil {
		return q, err
	}
	if q.since, err = mailslurpTime(r, "since"); err != nil {
		return q, err
	}
	q.before, err = mailslurpTime(r, "before")
	return q, err
}

func (q mailslurpWhich) any() bool { return q.unreadOnly || !q.since.IsZero() || !q.before.IsZero() }

// passes reports whether a message is one q looks for.
func (q mailslurpWhich) passes(m *projections.Summary) bool {
	return (!q.unreadOnly || !m.IsRead) && (q.since.IsZero() || !m.ReceivedAt.Before(q.since)) &&
		(q.before.IsZero() || m.ReceivedAt.Before(q.before))
}

// mailslurpInbox finds the inbox a query parameter or the path names, as
// the request may see it; NotFound otherwise, worded for the family. An
// id that is no UUID is refused, as MailSlurp's service (Spring) refuses
// one it cannot read as a UUID.
func (s *API) mailslurpInbox(r *http.Request, id string) (*projections.Inbox, error) {
	switch {
	case id == "":
		return nil, tempmail.Errorf(tempmail.Invalid, "inboxId is required")
	case !family.ValidID(id):
		return nil, tempmail.Errorf(tempmail.Invalid, "inboxId must be an inbox's id, a UUID")
	}
	in, err := s.InboxByID(r.Context(), id)
	return in, family.AsNotFound(err, "Inbox not found: "+tempmail.Excerpt(id, 64))
}

// mailslurpHeld answers a wait: find is looked at once, and, while it
// finds nothing, again on each change of the inbox until wait is over
// (hold, as every family's held requests), counted against --max-waiters
// and the client's share. found writes the answer; nothing found is 408
// with msg, as MailSlurp answers a wait that timed out.
func (s *API) mailslurpHeld(w http.ResponseWriter, r *http.Request, inboxID string, wait time.Duration, msg string,
	find family.Finder, found func(v any)) {
	if wait > 0 {
		release, err := s.Waiters.Acquire(r, s.ClientOf(r))
		if err != nil {
			family.WriteError(w, r, s.Log, err)
			return
		}
		defer release()
		family.HoldOpen(w, wait)
	}
	timedOut := tempmail.Errorf(tempmail.NotFound, "%s", msg)
	v, err := s.Hold(r, inboxID, wait, timedOut, find)
	switch {
	case err == timedOut:
		writeMailSlurpError(w, http.StatusRequestTimeout, msg)
	case err != nil:
		family.WriteError(w, r, s.Log, err)
	default:
		found(v)
	}
}
