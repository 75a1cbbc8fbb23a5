package family

import (
	"net/http"
	"strconv"

	"tempmail"
	"tempmail/mailbox"
	"tempmail/projections"
)

// Lists are paged (docs/waiting.md "Lists: pages and filters"): limit (default 50,
// at most 200) and offset, newest first, and optional match filters.
const (
	defaultLimit = 50
	MaxLimit     = 200
	MaxOffset    = 1_000_000
	MaxFilterLen = 256
)

// ListQuery reads limit, offset and the match filters of a list request.
func ListQuery(r *http.Request) (mailbox.Query, error) {
	q := r.URL.Query()
	out := mailbox.Query{Limit: defaultLimit}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxLimit {
			return out, tempmail.Errorf(tempmail.Invalid, "limit must be a whole number from 1 to %d", MaxLimit)
		}
		out.Limit = n
	}
	if v := q.Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > MaxOffset {
			return out, tempmail.Errorf(tempmail.Invalid, "offset must be a whole number from 0 to %d", MaxOffset)
		}
		out.Offset = n
	}
	f, err := MatchFilter(r)
	out.Filter = f
	return out, err
}

// MatchFilter reads the from, to and subject filters of lists and waits.
func MatchFilter(r *http.Request) (mailbox.Filter, error) {
	q := r.URL.Query()
	f := mailbox.Filter{From: q.Get("from"), To: q.Get("to"), Subject: q.Get("subject")}
	for name, v := range map[string]string{"from": f.From, "to": f.To, "subject": f.Subject} {
		if len(v) > MaxFilterLen {
			return f, tempmail.Errorf(tempmail.Invalid, "%s must be at most %d bytes", name, MaxFilterLen)
		}
	}
	return f, nil
}

// List answers a paged list request: the page of in's messages, and the
// total in X-Total-Count. On failure it has answered in fam's shape.
func (s *Kit) List(w http.ResponseWriter, r *http.Request, in *projections.Inbox) (projections.Listing, bool) {
	q, err := ListQuery(r)
	var l projections.Listing
	if err == nil {
		l, err = s.Views.List(r.Context(), in, q)
	}
	if err != nil {
		WriteError(w, r, s.Log, err)
		return l, false
	}
	w.Header().Set("X-Total-Count", strconv.Itoa(l.Total))
	return l, true
}
