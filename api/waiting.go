package api

import (
	"context"
	"crypto/subtle"
	"net/http"
	"strconv"
	"strings"
	"time"

	"tempmail"
	"tempmail/command"
	"tempmail/projections"
)

// Waiting for mail: a request with wait= is held until what it asks for
// arrives, up to its wait (API.md "Waiting for mail"). See doc.go for the
// path a held request takes; search.go finds codes and links.

// waitRequest is what latest, otp, link and address/latest are asked: how long
// to wait, for what newer than which message, matching what.
type waitRequest struct {
	wait   time.Duration
	after  string
	filter projections.Filter
}

// readParams checks the read key and reads wait, after and the match
// filters: the common start of latest, otp, link and address/latest. On failure
// it has answered.
func (s *Server) readParams(w http.ResponseWriter, r *http.Request) (q waitRequest, ok bool) {
	err := s.checkReadKey(r)
	if err == nil {
		q.wait, q.after, err = waitParams(r)
	}
	if err == nil {
		q.filter, err = matchFilter(r)
	}
	if err != nil {
		writeError(w, r, s.log, err)
		return q, false
	}
	return q, true
}

// waitParams reads wait (0-60 seconds) and after (a message id).
func waitParams(r *http.Request) (wait time.Duration, after string, err error) {
	q := r.URL.Query()
	if v := q.Get("wait"); v != "" {
		n, perr := strconv.Atoi(v)
		if perr != nil || n < 0 || n > 60 {
			return 0, "", tempmail.Errorf(tempmail.Invalid, "wait must be a whole number of seconds from 0 to 60")
		}
		wait = time.Duration(n) * time.Second
	}
	if after = strings.ToLower(q.Get("after")); after != "" && !validID(after) {
		return 0, "", tempmail.Errorf(tempmail.Invalid, "after must be a message id")
	}
	return wait, after, nil
}

// finder looks for an answer; found is false when there is none yet.
type finder func(ctx context.Context) (v any, found bool, err error)

// hold answers with find's result. With wait, while find has nothing yet, the
// request is held until the inbox changes (a Hub notification, no polling
// and no NATS consumer of its own) or the time is up, and then answered as
// without wait. Shutdown releases held requests at once.
func (s *Server) hold(r *http.Request, inboxID string, wait time.Duration, notFound error, find finder) (any, error) {
	ctx := r.Context()
	var changed <-chan struct{}
	if wait > 0 {
		ch, cancel := s.views.Hub().Subscribe(projections.InboxTopic(inboxID))
		defer cancel()
		changed = ch
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		v, found, err := find(ctx)
		if err != nil || found {
			return v, err
		}
		if wait == 0 {
			return nil, notFound
		}
		select {
		case <-changed:
			continue
		case <-timer.C:
		case <-s.stopping:
		case <-ctx.Done():
		}
		wait = 0 // one last look, then answer as without wait
	}
}

// latestOf finds the newest message of an inbox newer than q.after that
// passes q's filter. It reads the inbox afresh, so a held request sees
// expiry and new mail alike. token, when the caller holds it, gives the
// attachments their download URLs (an address and the read key do not
// reveal the token).
func (s *Server) latestOf(inboxID, token string, q waitRequest) finder {
	var sc scan
	return func(ctx context.Context) (any, bool, error) {
		in, err := liveInbox(s.views.Inbox(ctx, inboxID))
		if err != nil {
			return nil, false, asNotFound(err, "Inbox not found")
		}
		var latest string
		if q.filter.Empty() {
			s, err := s.views.Latest(ctx, in)
			if err != nil {
				return nil, false, err
			}
			if s != nil {
				latest = s.ID
			}
		} else {
			err := sc.newestFirst(ctx, s.views, in, q.after, func(m *projections.Summary) (bool, error) {
				if q.filter.Match(m, in.Address) {
					latest = m.ID
				}
				return latest != "", nil
			})
			if err != nil {
				return nil, false, err
			}
		}
		if latest == "" || (q.after != "" && latest <= q.after) {
			return nil, false, nil
		}
		m, err := s.views.MessageIn(ctx, in, latest)
		if tempmail.KindOf(err) == tempmail.NotFound {
			return nil, false, nil // deleted a moment ago; the next change tells
		}
		if err != nil {
			return nil, false, err
		}
		return toMessageC(m, token), true, nil
	}
}

func (s *Server) latestC(w http.ResponseWriter, r *http.Request) {
	q, ok := s.readParams(w, r)
	if !ok {
		return
	}
	in, err := s.tokenInboxOf(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	s.answerHeld(w, r, in.ID, q.wait, errNoMessages, s.latestOf(in.ID, in.Token, q))
}

func (s *Server) answerHeld(w http.ResponseWriter, r *http.Request, inboxID string, wait time.Duration, notFound error, find finder) {
	if wait > 0 {
		release, err := s.waiters.acquire(r, s.clientOf(r))
		if err != nil {
			writeError(w, r, s.log, err)
			return
		}
		defer release()
		holdOpen(w, wait)
	}
	v, err := s.hold(r, inboxID, wait, notFound, find)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

func (s *Server) addressLatestC(w http.ResponseWriter, r *http.Request) {
	q, ok := s.readParams(w, r)
	if !ok {
		return
	}
	raw := r.URL.Query().Get("address")
	if strings.TrimSpace(raw) == "" {
		writeError(w, r, s.log, tempmail.Errorf(tempmail.Invalid, "address is required"))
		return
	}
	addr, err := tempmail.NormalizeAddress(raw)
	var in *projections.Inbox
	if err == nil {
		in, err = credentialIn(r.Context()).visible(liveInbox(s.views.InboxByAddress(r.Context(), addr)))
	}
	if err == nil && !s.mayReadByAddress(r, in) {
		err = errNotFound
	}
	if err != nil {
		writeError(w, r, s.log, asNotFound(asNotFoundInvalid(err), "Inbox not found"))
		return
	}
	s.answerHeld(w, r, in.ID, q.wait, errNoMessages, s.latestOf(in.ID, "", q))
}

// mayReadByAddress says whether r may read in by its address alone. An
// inbox of a catch-all domain was made by mail to an address anyone may
// guess (signup-42@), and a tenant's inbox is its team's, whose address
// its team gives out to the sites it signs up on: either is read by
// address only with the API token or its own, in `Authorization: Token
// <token>`, or with a key of the tenant it belongs to. Without any of
// them it is answered as no inbox at all (404, and never held): not 401,
// which would say that it exists. Other inboxes' addresses are given out
// by whoever made them, and answer anyone (with the read key, when there
// is one): keyless clients' inboxes, the anonymous tenant's among them.
func (s *Server) mayReadByAddress(r *http.Request, in *projections.Inbox) bool {
	team := in.TenantID != "" && in.TenantID != command.AnonymousTenant
	if _, domain := tempmail.SplitAddress(in.Address); !team && !s.catchAllNamed(r.Context(), domain) {
		return true
	}
	c := credentialFrom(r)
	if c.isAdmin() || c.key != nil && in.TenantID != "" && in.TenantID == c.key.TenantID {
		return true // the admin, or a key of the tenant it belongs to
	}
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Token ")
	if !ok {
		return false
	}
	tok = strings.TrimSpace(tok)
	api := subtle.ConstantTimeCompare([]byte(tok), []byte(s.cfg.APIToken)) == 1 && s.cfg.APIToken != ""
	own := subtle.ConstantTimeCompare([]byte(tok), []byte(in.Token)) == 1 && in.Token != ""
	return api || own
}

// asNotFoundInvalid treats a malformed address as an unknown one: no inbox
// can have it.
func asNotFoundInvalid(err error) error {
	if tempmail.KindOf(err) == tempmail.Invalid {
		return errNotFound
	}
	return err
}

// errNotFoundInbox is family C's answer for unknown and expired tokens.
var errNotFoundInbox = tempmail.Errorf(tempmail.NotFound, "Inbox not found")
