package family

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"tempmail"
	"tempmail/mailbox"
	"tempmail/projections"
)

// Waiting for mail: a request with wait= is held until what it asks for
// arrives, up to its wait (docs/waiting.md "Waiting for mail"). See doc.go for the
// path a held request takes; search.go finds codes and links.

// WaitRequest is what latest, otp, link and address/latest are asked: how long
// to wait, for what newer than which message, matching what.
type WaitRequest struct {
	Wait   time.Duration
	After  string
	Filter mailbox.Filter
}

// ReadParams checks the read key and reads wait, after and the match
// filters: the common start of latest, otp, link and address/latest. On failure
// it has answered.
func (s *Kit) ReadParams(w http.ResponseWriter, r *http.Request) (q WaitRequest, ok bool) {
	err := s.CheckReadKey(r)
	if err == nil {
		q.Wait, q.After, err = WaitParams(r)
	}
	if err == nil {
		q.Filter, err = MatchFilter(r)
	}
	if err != nil {
		WriteError(w, r, s.Log, err)
		return q, false
	}
	return q, true
}

// WaitParams reads wait (0-60 seconds) and after (a message id).
func WaitParams(r *http.Request) (wait time.Duration, after string, err error) {
	q := r.URL.Query()
	if v := q.Get("wait"); v != "" {
		n, perr := strconv.Atoi(v)
		if perr != nil || n < 0 || n > 60 {
			return 0, "", tempmail.Errorf(tempmail.Invalid, "wait must be a whole number of seconds from 0 to 60")
		}
		wait = time.Duration(n) * time.Second
	}
	if after = strings.ToLower(q.Get("after")); after != "" && !ValidID(after) {
		return 0, "", tempmail.Errorf(tempmail.Invalid, "after must be a message id")
	}
	return wait, after, nil
}

// Finder looks for an answer; found is false when there is none yet.
type Finder func(ctx context.Context) (v any, found bool, err error)

// Hold answers with find's result. With wait, while find has nothing yet, the
// request is held until the inbox changes (a Hub notification, no polling
// and no NATS consumer of its own) or the time is up, and then answered as
// without wait. Shutdown releases held requests at once.
func (s *Kit) Hold(r *http.Request, inboxID string, wait time.Duration, notFound error, find Finder) (any, error) {
	ctx := r.Context()
	var changed <-chan struct{}
	if wait > 0 {
		ch, cancel := s.Views.Hub().Subscribe(projections.InboxTopic(inboxID))
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
		case <-s.Closing:
		case <-ctx.Done():
		}
		wait = 0 // one last look, then answer as without wait
	}
}

func (s *Kit) AnswerHeld(w http.ResponseWriter, r *http.Request, inboxID string, wait time.Duration, notFound error, find Finder) {
	if wait > 0 {
		release, err := s.Waiters.Acquire(r, s.ClientOf(r))
		if err != nil {
			WriteError(w, r, s.Log, err)
			return
		}
		defer release()
		HoldOpen(w, wait)
	}
	v, err := s.Hold(r, inboxID, wait, notFound, find)
	if err != nil {
		WriteError(w, r, s.Log, err)
		return
	}
	WriteJSON(w, http.StatusOK, v)
}

// AsNotFoundInvalid treats a malformed address as an unknown one: no inbox
// can have it.
func AsNotFoundInvalid(err error) error {
	if tempmail.KindOf(err) == tempmail.Invalid {
		return ErrNotFound
	}
	return err
}

// ErrNotFoundInbox is family C's answer for unknown and expired tokens.
var ErrNotFoundInbox = tempmail.Errorf(tempmail.NotFound, "Inbox not found")
