package mailosaur

import (
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/cespare/xxhash/v2"

	"tempmail/api/family"
	"tempmail/projections"
)

// Held searches (messages.go): how a search that finds nothing is answered
// as soon as a match is stored, although the SDK never says how long it
// will wait. messages.get, and search with a timeout, search again after
// the delay X-Ms-Delay gives, with the very same request, until a match
// or their timeout; a search without a timeout asks once. So a search that
// finds nothing is answered at once, with a delay of a millisecond, and
// the same search asked again within recentFor is a client waiting: it is
// held, until the views store a message it may match or for searchHold,
// and answered as then. A client waiting makes one request a second at
// most, and learns of a match as soon as it is stored; its own timeout is
// passed by searchHold at most, as it looks at the clock only between
// answers.

const (
	// searchHold is the longest a repeated search is held: what a
	// client's timeout can be overrun by.
	searchHold = time.Second
	// recentFor is how long a search counts as recent.
	recentFor = 10 * time.Second
	// maxRecent bounds the searches remembered. Beyond it, a search is
	// answered as before the holds, with mailosaurDelay.
	maxRecent = 10_000
	// repollDelay is X-Ms-Delay when the same search again will be held.
	repollDelay = "1"
	// maxHeldTopics bounds the inboxes a held search watches.
	maxHeldTopics = 100
)

// recentSearches remembers the searches of the last recentFor, by a
// hash of who asked what.
type recentSearches struct {
	mu   sync.Mutex
	seen map[uint64]time.Time
}

func newRecentSearches() *recentSearches { return &recentSearches{seen: map[uint64]time.Time{}} }

// note records the search fp at now. It reports whether fp was asked
// within recentFor, and whether it could be remembered.
func (rs *recentSearches) note(fp uint64, now time.Time) (repeated, remembered bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if at, ok := rs.seen[fp]; ok && now.Sub(at) < recentFor {
		rs.seen[fp] = now
		return true, true
	}
	if len(rs.seen) >= maxRecent {
		for k, at := range rs.seen {
			if now.Sub(at) >= recentFor {
				delete(rs.seen, k)
			}
		}
		if len(rs.seen) >= maxRecent {
			return false, false
		}
	}
	rs.seen[fp] = now
	return false, true
}

// searchPrint is the hash of who asks which search: the key, the query
// (server, page, receivedAfter, …) and the criteria.
func searchPrint(r *http.Request, crit mailosaurCriteria) uint64 {
	body, _ := json.Marshal(crit)
	h := xxhash.New()
	_, _ = h.WriteString(family.CredentialFrom(r).Key.ID)
	_, _ = h.WriteString("\x00" + r.URL.RawQuery + "\x00")
	_, _ = h.Write(body)
	return h.Sum64()
}

// searchWithHold answers a search: at once when it finds something or is
// asked for the first time, held (searchHold) when it is asked again.
func (s *API) searchWithHold(w http.ResponseWriter, r *http.Request, l mailosaurListing, crit mailosaurCriteria, all bool) {
	find := func() ([]mailosaurFound, error) { return s.mailosaurFind(r, l, crit, all) }
	found, err := find()
	if err != nil || len(found) > 0 {
		s.answerSearch(w, r, l, found, err, mailosaurDelay)
		return
	}
	repeated, remembered := s.recent.note(searchPrint(r, crit), time.Now())
	switch {
	case !remembered:
		s.answerSearch(w, r, l, found, nil, mailosaurDelay)
		return
	case !repeated:
		s.answerSearch(w, r, l, found, nil, repollDelay)
		return
	}
	release, err := s.Waiters.Acquire(r, s.ClientOf(r))
	if err != nil {
		s.answerSearch(w, r, l, nil, err, "")
		return
	}
	defer release()
	family.HoldOpen(w, searchHold)
	timer := time.NewTimer(searchHold)
	defer timer.Stop()
	for waiting := true; waiting; {
		// The topics are read again after each change: the mail that
		// makes the inbox a search waits on is stored after it.
		var topics []projections.Topic
		if topics, err = s.searchTopics(r, l, crit, all); err != nil {
			break
		}
		changed, cancel := s.Views.Hub().SubscribeAll(topics)
		// Looked at after subscribing, so that nothing stored meanwhile
		// is missed.
		if found, err = find(); err == nil && len(found) == 0 {
			select {
			case <-changed:
			case <-timer.C:
				waiting = false
			case <-s.Closing:
				waiting = false
			case <-r.Context().Done():
				waiting = false
			}
		} else {
			waiting = false
		}
		cancel()
	}
	s.answerSearch(w, r, l, found, err, repollDelay)
}

// answerSearch answers a search's page, or its error.
func (s *API) answerSearch(w http.ResponseWriter, r *http.Request, l mailosaurListing, found []mailosaurFound, err error, delay string) {
	if err != nil {
		s.mailosaurFail(w, r, err)
		return
	}
	s.mailosaurPage(w, l, found, delay)
}

// searchTopics are what changes when a message a search may match is
// stored: the inbox at the address it looks for (made by that mail, if it
// is on the server's catch-all domain), or the server's inboxes and its
// tenant's list of inboxes, which a new one joins. A page of that list
// begun after the topics are read is missed until the search is asked
// again, a second later at most.
func (s *API) searchTopics(r *http.Request, l mailosaurListing, crit mailosaurCriteria, all bool) ([]projections.Topic, error) {
	ctx := r.Context()
	if addr, one := oneAddress(l, crit, all); one {
		topics := []projections.Topic{projections.AddressTopic(addr)}
		if in, err := s.Views.InboxByAddress(ctx, addr); err == nil {
			topics = append(topics, projections.InboxTopic(in.ID))
		}
		return topics, nil
	}
	topics, err := s.Views.TenantInboxesTopics(ctx, l.server.TenantID)
	if err != nil {
		return nil, err
	}
	inboxes, err := s.mailosaurServerInboxes(r, l.server, maxHeldTopics)
	for _, in := range inboxes {
		topics = append(topics, projections.InboxTopic(in.ID))
	}
	return topics, err
}
