package mailslurp

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"tempmail"
	"tempmail/api/family"
	"tempmail/mailbox"
	"tempmail/projections"
)

// The MailSlurp family's paginated lists and look-ups (mailslurp.go): the
// tenant's inboxes by page (getAllInboxes), an inbox found by its address,
// an inbox's emails by page and their count, and its latest email. A page
// is Spring's (pages.go).

// inboxFunctions are the values of getAllInboxes' inboxFunction.
var inboxFunctions = []string{"ALIAS", "THREAD", "CATCH_ALL", "CONNECTOR", "ACCOUNT", "GUEST", "OAUTH_CONNECTION_GMAIL"}

// inboxFilter is what getAllInboxes selects beyond the tenant's live
// inboxes: made since and before a time, with search in their id or
// address. What tempmail's inboxes never are (favourites, tagged, SMTP
// inboxes, of a function, on a MailSlurp domain id: none has a domainId)
// selects none.
type inboxFilter struct {
	since, before time.Time
	search        string // lower case
	none          bool
}

func readInboxFilter(r *http.Request) (f inboxFilter, err error) {
	q := r.URL.Query()
	var favourite bool
	var tag, domainID string
	if favourite, err = mailslurpBool(r, "favourite"); err != nil {
		return f, err
	}
	if _, err = mailslurpBool(r, "teamAccess"); err != nil { // every inbox is its team's (the tenant's)
		return f, err
	}
	if f.since, err = mailslurpTime(r, "since"); err != nil {
		return f, err
	}
	if f.before, err = mailslurpTime(r, "before"); err != nil {
		return f, err
	}
	if f.search, err = mailslurpText(r, "search", family.MaxFilterLen); err != nil {
		return f, err
	}
	if tag, err = mailslurpText(r, "tag", family.MaxFilterLen); err != nil {
		return f, err
	}
	if domainID = q.Get("domainId"); domainID != "" && !family.ValidID(domainID) {
		return f, tempmail.Errorf(tempmail.Invalid, "domainId must be a domain's id, a UUID")
	}
	inboxType, function := q.Get("inboxType"), q.Get("inboxFunction")
	switch {
	case inboxType != "" && inboxType != "HTTP_INBOX" && inboxType != "SMTP_INBOX":
		return f, tempmail.Errorf(tempmail.Invalid, "inboxType must be HTTP_INBOX or SMTP_INBOX")
	case function != "" && !slices.Contains(inboxFunctions, function):
		return f, tempmail.Errorf(tempmail.Invalid, "inboxFunction must be one of %s", strings.Join(inboxFunctions, ", "))
	}
	f.search = strings.ToLower(f.search)
	f.none = favourite || tag != "" || domainID != "" || inboxType == "SMTP_INBOX" || function != ""
	return f, nil
}

// passes reports whether f selects in.
func (f inboxFilter) passes(in *projections.TenantInbox) bool {
	return !f.none && (f.since.IsZero() || !in.CreatedAt.Before(f.since)) &&
		(f.before.IsZero() || in.CreatedAt.Before(f.before)) &&
		(f.search == "" || strings.Contains(in.ID, f.search) || strings.Contains(in.Address, f.search))
}

// mailslurpAllInboxes is getAllInboxes (GET /inboxes/paginated): a page of
// the key's tenant's live inboxes that the filter selects, oldest first
// unless sort=DESC. The tenant's list is read whole (at most
// family.TenantScanMax inboxes), for the total; only the page's inboxes
// are read.
func (s *API) mailslurpAllInboxes(w http.ResponseWriter, r *http.Request) {
	t, err := s.mailslurpTenant(r)
	var q pageRequest
	if err == nil {
		q, err = readPage(r)
	}
	var f inboxFilter
	if err == nil {
		f, err = readInboxFilter(r)
	}
	now := time.Now()
	var list []projections.TenantInbox
	if err == nil {
		err = s.TenantInboxes(r.Context(), t.ID, func(in projections.TenantInbox) (bool, error) {
			if in.Live(now) && f.passes(&in) {
				list = append(list, in)
			}
			return true, nil
		})
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	if !q.desc {
		slices.Reverse(list) // the tenant's list is newest first
	}
	from, to := q.window(len(list))
	page := make([]mailslurpInboxPreview, 0, to-from)
	for _, ti := range list[from:to] {
		in, err := s.Views.Inbox(r.Context(), ti.ID)
		if tempmail.KindOf(err) == tempmail.NotFound || err == nil && !in.Live(now) {
			continue // ended as the page was read
		}
		if err != nil {
			family.WriteError(w, r, s.Log, err)
			return
		}
		page = append(page, toMailSlurpInboxPreview(in))
	}
	family.WriteJSON(w, http.StatusOK, pageOf(q, page, len(list)))
}

// mailslurpInboxByAddress is getInboxByEmailAddress (GET
// /inboxes/byEmailAddress?emailAddress=): whether a live inbox the key may
// see has the address, and its id. Another tenant's inbox is none, as
// everywhere: exists is false.
func (s *API) mailslurpInboxByAddress(w http.ResponseWriter, r *http.Request) {
	err := mailslurpMay(r, false)
	var addr string
	if err == nil {
		addr, err = mailslurpText(r, "emailAddress", maxAddressLen)
	}
	switch {
	case err == nil && addr == "":
		err = tempmail.Errorf(tempmail.Invalid, "emailAddress is required")
	case err == nil:
		addr, err = tempmail.NormalizeAddress(addr)
	}
	var in *projections.Inbox
	if err == nil {
		in, err = family.CredentialFrom(r).Visible(family.LiveInbox(s.Views.InboxByAddress(r.Context(), addr)))
	}
	var out mailslurpInboxByAddress
	switch {
	case err == nil:
		out = mailslurpInboxByAddress{InboxID: &in.ID, Exists: true}
	case tempmail.KindOf(err) != tempmail.NotFound:
		family.WriteError(w, r, s.Log, err)
		return
	}
	family.WriteJSON(w, http.StatusOK, out)
}

// mailslurpInboxEmailsPaginated is getInboxEmailsPaginated (GET
// /inboxes/{inboxId}/emails/paginated): a page of the inbox's emails
// received since and before a time, oldest first unless sort=DESC, as
// previews (none is marked read). syncConnectors is read, not heeded:
// there are no connectors.
func (s *API) mailslurpInboxEmailsPaginated(w http.ResponseWriter, r *http.Request) {
	in, err := s.mailslurpInboxOf(r, false)
	var q pageRequest
	if err == nil {
		q, err = readPage(r)
	}
	var which mailslurpWhich
	if err == nil {
		which.since, err = mailslurpTime(r, "since")
	}
	if err == nil {
		which.before, err = mailslurpTime(r, "before")
	}
	if err == nil {
		_, err = mailslurpBool(r, "syncConnectors")
	}
	var list []projections.Summary
	if err == nil {
		err = s.OldestFirst(r.Context(), in, func(m *projections.Summary) bool {
			if which.passes(m) {
				list = append(list, *m)
			}
			return false
		})
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	if q.desc {
		slices.Reverse(list)
	}
	from, to := q.window(len(list))
	page := make([]mailslurpPreview, 0, to-from)
	for i := from; i < to; i++ {
		page = append(page, toMailSlurpPreview(in, list[i].Shown(in.Address)))
	}
	family.WriteJSON(w, http.StatusOK, pageOf(q, page, len(list)))
}

// mailslurpInboxEmailCount is getInboxEmailCount (GET
// /inboxes/{inboxId}/emails/count).
func (s *API) mailslurpInboxEmailCount(w http.ResponseWriter, r *http.Request) {
	in, err := s.mailslurpInboxOf(r, false)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	family.WriteJSON(w, http.StatusOK, mailslurpCount{TotalElements: in.Count})
}

// mailslurpLatestIn is getLatestEmailInInbox1 (GET
// /emails/latestIn?inboxId=): the inbox's newest email, whole, now read,
// as getEmail answers it; 404 when it has none (waitForLatestEmail waits
// for one).
func (s *API) mailslurpLatestIn(w http.ResponseWriter, r *http.Request) {
	err := mailslurpMay(r, false)
	var in *projections.Inbox
	if err == nil {
		in, err = s.mailslurpInbox(r, r.URL.Query().Get("inboxId"))
	}
	var latest *projections.Summary
	if err == nil {
		latest, err = s.Views.Latest(r.Context(), in)
	}
	var m *mailbox.Message
	switch {
	case err == nil && latest == nil:
		err = tempmail.Errorf(tempmail.NotFound, "No email found in inbox %s", in.ID)
	case err == nil:
		m, err = s.Views.MessageIn(r.Context(), in, latest.ID)
		err = family.AsNotFound(err, "No email found in inbox "+in.ID) // deleted a moment ago
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	s.answerEmail(w, r, in, m)
}
