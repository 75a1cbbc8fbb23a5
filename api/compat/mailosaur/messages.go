package mailosaur

import (
	"cmp"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"tempmail"
	"tempmail/api/family"
	"tempmail/mailbox"
	"tempmail/projections"
)

// Mailosaur messages (mailosaur.go): a server's messages are those
// of the inboxes on its domain, listed and searched newest first across
// them, read, and deleted one by one or all at once. The SDK waits for a
// message by searching again after the delay X-Ms-Delay gives; a search
// asked again is held until a match is stored (held.go).

const (
	mailosaurPerInbox     = 100  // newest messages of each inbox a list or search looks at
	mailosaurBodyReads    = 200  // contents a search by body reads, at most
	mailosaurMaxPerPage   = 1000 // itemsPerPage, at most
	mailosaurDefaultItems = 50
	// mailosaurDelay is X-Ms-Delay for a list, and for a search that
	// cannot be held: the milliseconds the SDK waits before each next
	// search while nothing matches (the last one repeated).
	mailosaurDelay = "200,300,500,1000"
)

// mailosaurCriteria is the body of a search (the SDK's SearchCriteria).
type mailosaurCriteria struct {
	SentFrom string `json:"sentFrom"`
	SentTo   string `json:"sentTo"`
	Subject  string `json:"subject"`
	Body     string `json:"body"`
	Match    string `json:"match"`
}

// mailosaurListing is what a list or search asks: whose messages, which
// page, received after when.
type mailosaurListing struct {
	server        projections.Domain
	page, perPage int
	after         time.Time
	oldestFirst   bool
}

// mailosaurListParams reads server, page, itemsPerPage, receivedAfter and
// dir.
func (s *API) mailosaurListParams(r *http.Request) (mailosaurListing, error) {
	q := r.URL.Query()
	out := mailosaurListing{perPage: mailosaurDefaultItems}
	var err error
	if v := q.Get("page"); v != "" {
		if out.page, err = strconv.Atoi(v); err != nil || out.page < 0 || out.page > 1_000_000 {
			return out, tempmail.Errorf(tempmail.Invalid, "page: must be a whole number from 0")
		}
	}
	if v := q.Get("itemsPerPage"); v != "" {
		if out.perPage, err = strconv.Atoi(v); err != nil || out.perPage < 1 || out.perPage > mailosaurMaxPerPage {
			return out, tempmail.Errorf(tempmail.Invalid, "itemsPerPage: must be a whole number from 1 to %d", mailosaurMaxPerPage)
		}
	}
	if v := q.Get("receivedAfter"); v != "" {
		if out.after, err = time.Parse(time.RFC3339Nano, strings.ReplaceAll(v, " ", "+")); err != nil {
			return out, tempmail.Errorf(tempmail.Invalid, "receivedAfter: must be a time as ISO 8601 writes it")
		}
	}
	switch dir := q.Get("dir"); dir {
	case "", "desc", "Descending", "descending":
	case "asc", "Ascending", "ascending":
		out.oldestFirst = true
	default:
		return out, tempmail.Errorf(tempmail.Invalid, "dir: must be asc or desc")
	}
	id := q.Get("server")
	if id == "" {
		return out, tempmail.Errorf(tempmail.Invalid, "server: the server's id is required")
	}
	out.server, err = s.mailosaurServerDomain(r, id)
	return out, err
}

// checkCriteria bounds a search's criteria and reads its match.
func checkCriteria(c mailosaurCriteria) (all bool, err error) {
	for name, v := range map[string]string{"sentFrom": c.SentFrom, "sentTo": c.SentTo, "subject": c.Subject, "body": c.Body} {
		if len(v) > family.MaxFilterLen {
			return false, tempmail.Errorf(tempmail.Invalid, "%s: must be at most %d bytes", name, family.MaxFilterLen)
		}
	}
	switch strings.ToUpper(c.Match) {
	case "", "ALL":
		return true, nil
	case "ANY":
		return false, nil
	}
	return false, tempmail.Errorf(tempmail.Invalid, "match: must be ALL or ANY")
}

// mailosaurFound is a message a list or search found, and its inbox.
type mailosaurFound struct {
	sum projections.Summary
	in  *projections.Inbox
}

// mailosaurSearched are the inboxes a search looks in: the one inbox a
// search for ALL of its criteria names by its address on the server, or
// the server's inboxes.
func (s *API) mailosaurSearched(r *http.Request, l mailosaurListing, crit mailosaurCriteria, all bool) ([]*projections.Inbox, error) {
	addr, one := oneAddress(l, crit, all)
	if !one {
		return s.mailosaurServerInboxes(r, l.server, mailosaurMaxInboxes)
	}
	in, err := s.Views.InboxByAddress(r.Context(), addr)
	switch {
	case tempmail.KindOf(err) == tempmail.NotFound:
		return nil, nil
	case err != nil:
		return nil, err
	case in.Live(time.Now()) && in.TenantID == l.server.TenantID:
		return []*projections.Inbox{in}, nil
	}
	return nil, nil
}

// oneAddress is the address on l's server a search for ALL of crit
// names, in lower case, if it names one: the one inbox it looks in.
func oneAddress(l mailosaurListing, crit mailosaurCriteria, all bool) (string, bool) {
	_, domain := tempmail.SplitAddress(crit.SentTo)
	return strings.ToLower(crit.SentTo), all && strings.EqualFold(domain, l.server.Name)
}

// mailosaurFind returns the messages of l's server received after l.after
// that crit selects, newest first (oldest first with dir=asc): the
// newest mailosaurPerInbox of each of its newest mailosaurMaxInboxes
// inboxes. A search for one address on the server (sentTo, matching all)
// looks at its inbox alone.
func (s *API) mailosaurFind(r *http.Request, l mailosaurListing, crit mailosaurCriteria, all bool) ([]mailosaurFound, error) {
	ctx := r.Context()
	inboxes, err := s.mailosaurSearched(r, l, crit, all)
	if err != nil {
		return nil, err
	}
	reads := 0
	// body reports whether the message's text or HTML holds crit.Body.
	body := func(in *projections.Inbox, sum *projections.Summary) (bool, error) {
		if reads == mailosaurBodyReads {
			return false, nil
		}
		reads++
		m, err := s.Views.MessageIn(ctx, in, sum.ID)
		if tempmail.KindOf(err) == tempmail.NotFound {
			return false, nil
		}
		return err == nil && (containsFold(m.Text, crit.Body) || containsFold(m.HTML, crit.Body)), err
	}
	var out []mailosaurFound
	for _, in := range inboxes {
		list, err := s.Views.List(ctx, in, mailbox.Query{Limit: mailosaurPerInbox})
		if tempmail.KindOf(err) == tempmail.NotFound {
			continue
		}
		if err != nil {
			return nil, err
		}
		for i := range list.Items {
			sum := &list.Items[i]
			if !sum.ReceivedAt.After(l.after) {
				break // newest first: the rest are older still
			}
			checks := []func() (bool, error){}
			if crit.SentFrom != "" {
				checks = append(checks, func() (bool, error) { return strings.EqualFold(sum.From, crit.SentFrom), nil })
			}
			if crit.SentTo != "" {
				checks = append(checks, func() (bool, error) {
					return strings.EqualFold(in.Address, crit.SentTo) || slices.ContainsFunc(slices.Concat(sum.To, sum.Cc),
						func(a string) bool { return strings.EqualFold(a, crit.SentTo) }), nil
				})
			}
			if crit.Subject != "" {
				checks = append(checks, func() (bool, error) { return containsFold(sum.Subject, crit.Subject), nil })
			}
			if crit.Body != "" {
				checks = append(checks, func() (bool, error) { return body(in, sum) })
			}
			ok := len(checks) == 0 || all
			for _, check := range checks {
				yes, err := check()
				if err != nil {
					return nil, err
				}
				if yes != all { // a miss decides ALL, a hit ANY
					ok = yes
					break
				}
			}
			if ok {
				out = append(out, mailosaurFound{*sum, in})
			}
		}
	}
	slices.SortFunc(out, func(a, b mailosaurFound) int {
		return cmp.Or(b.sum.ReceivedAt.Compare(a.sum.ReceivedAt), strings.Compare(b.sum.ID, a.sum.ID))
	})
	if l.oldestFirst {
		slices.Reverse(out)
	}
	return out, nil
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// mailosaurPage answers the page l asks of found.
func (s *API) mailosaurPage(w http.ResponseWriter, l mailosaurListing, found []mailosaurFound, delay string) {
	out := mailosaurSummaries{Items: []mailosaurSummary{}}
	for i := l.page * l.perPage; i < len(found) && len(out.Items) < l.perPage; i++ {
		out.Items = append(out.Items, s.mailosaurSummaryOut(&found[i].sum, found[i].in.Address))
	}
	w.Header().Set("X-Ms-Delay", delay)
	family.WriteJSON(w, http.StatusOK, out)
}

func (s *API) mailosaurMessages(w http.ResponseWriter, r *http.Request) {
	err := mailosaurMay(r, false)
	var l mailosaurListing
	if err == nil {
		l, err = s.mailosaurListParams(r)
	}
	var found []mailosaurFound
	if err == nil {
		found, err = s.mailosaurFind(r, l, mailosaurCriteria{}, true)
	}
	s.answerSearch(w, r, l, found, err, mailosaurDelay)
}

func (s *API) mailosaurSearch(w http.ResponseWriter, r *http.Request) {
	err := mailosaurMay(r, false)
	var l mailosaurListing
	if err == nil {
		l, err = s.mailosaurListParams(r)
	}
	var crit mailosaurCriteria
	if err == nil {
		err = family.DecodeBody(r, &crit)
	}
	var all bool
	if err == nil {
		all, err = checkCriteria(crit)
	}
	if err != nil {
		s.mailosaurFail(w, r, err)
		return
	}
	s.searchWithHold(w, r, l, crit, all)
}

// mailosaurDeleteMessages deletes all of a server's messages: its
// inboxes, which the next mail to their addresses makes again.
func (s *API) mailosaurDeleteMessages(w http.ResponseWriter, r *http.Request) {
	err := mailosaurMay(r, true)
	var d projections.Domain
	if err == nil {
		id := r.URL.Query().Get("server")
		if id == "" {
			err = tempmail.Errorf(tempmail.Invalid, "server: the server's id is required")
		} else {
			d, err = s.mailosaurServerDomain(r, id)
		}
	}
	if err == nil {
		err = s.mailosaurEndInboxes(r, d)
	}
	if err != nil {
		s.mailosaurFail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// mailosaurLookup finds the message of the path's {id}: one of the key's
// tenant's inboxes (MessageByID shows no other).
func (s *API) mailosaurLookup(r *http.Request) (*mailbox.Message, error) {
	m, _, err := s.MessageByID(r.Context(), chi.URLParam(r, "id"))
	return m, family.AsNotFound(err, "message not found")
}

func (s *API) mailosaurMessage(w http.ResponseWriter, r *http.Request) {
	err := mailosaurMay(r, false)
	var m *mailbox.Message
	if err == nil {
		m, err = s.mailosaurLookup(r)
	}
	if err != nil {
		s.mailosaurFail(w, r, err)
		return
	}
	family.WriteJSON(w, http.StatusOK, s.mailosaurMessageOut(m))
}

func (s *API) mailosaurDeleteMessage(w http.ResponseWriter, r *http.Request) {
	err := mailosaurMay(r, true)
	var m *mailbox.Message
	if err == nil {
		m, err = s.mailosaurLookup(r)
	}
	if err == nil {
		err = family.AsNotFound(s.Commands.DeleteMessage(r.Context(), m), "message not found")
	}
	if err != nil {
		s.mailosaurFail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
