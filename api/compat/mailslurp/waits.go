package mailslurp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"tempmail"
	"tempmail/api/family"
	"tempmail/mailbox"
	"tempmail/projections"
)

// The MailSlurp family's waits (mailslurp.go): waitForLatestEmail,
// waitForNthEmail, waitForMatchingFirstEmail, waitForEmailCount and
// waitForMatchingEmails. A wait is a held request (hold, waiting.go), for
// at most the client's timeout and mailslurpMaxWait; nothing found is 408,
// as MailSlurp answers. An email a wait answers whole is marked read
// (answerEmail), so that unreadOnly waits for the next one.

// mailslurpWait reads what every wait is asked: the inbox, the timeout
// and which messages count. On failure it has answered.
func (s *API) mailslurpWait(w http.ResponseWriter, r *http.Request) (*projections.Inbox, mailslurpWaitRequest, bool) {
	var q mailslurpWaitRequest
	err := mailslurpMay(r, false)
	if err == nil {
		q.wait, err = mailslurpTimeout(r, "timeout", mailslurpMaxWait)
	}
	if err == nil {
		q.which, err = readWhich(r)
	}
	var in *projections.Inbox
	if err == nil {
		in, err = s.mailslurpInbox(r, r.URL.Query().Get("inboxId"))
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return nil, q, false
	}
	return in, q, true
}

type mailslurpWaitRequest struct {
	wait  time.Duration
	which mailslurpWhich
}

// timedOutMsg is a wait's 408: what it waited for, and how long.
func timedOutMsg(in *projections.Inbox, what string, q mailslurpWaitRequest) string {
	return fmt.Sprintf("Failed to satisfy email query for inbox %s (%s): %s after %d ms", in.ID, in.Address, what,
		q.wait.Milliseconds())
}

func (s *API) mailslurpWaitForLatest(w http.ResponseWriter, r *http.Request) {
	in, q, ok := s.mailslurpWait(w, r)
	if !ok {
		return
	}
	s.mailslurpHeld(w, r, in.ID, q.wait, timedOutMsg(in, "no email arrived", q), s.latestMailSlurp(in.ID, q.which),
		func(v any) { s.answerEmail(w, r, in, v.(*mailbox.Message)) })
}

// latestMailSlurp finds the newest message q looks for.
func (s *API) latestMailSlurp(inboxID string, q mailslurpWhich) family.Finder {
	var sc family.Scan
	return func(ctx context.Context) (any, bool, error) {
		in, err := family.LiveInbox(s.Views.Inbox(ctx, inboxID))
		if err != nil {
			return nil, false, family.AsNotFound(err, "Inbox not found")
		}
		var latest string
		if !q.any() {
			m, err := s.Views.Latest(ctx, in)
			if err != nil || m == nil {
				return nil, false, err
			}
			latest = m.ID
		} else {
			err := sc.NewestFirst(ctx, s.Views, in, "", func(m *projections.Summary) (bool, error) {
				if q.passes(m) {
					latest = m.ID
				}
				return latest != "", nil
			})
			if err != nil || latest == "" {
				return nil, false, err
			}
		}
		return s.foundMessage(ctx, in, latest)
	}
}

// foundMessage reads the message a finder found; one deleted a moment
// ago is none (the next change tells).
func (s *API) foundMessage(ctx context.Context, in *projections.Inbox, id string) (any, bool, error) {
	m, err := s.Views.MessageIn(ctx, in, id)
	if tempmail.KindOf(err) == tempmail.NotFound {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return m, true, nil
}

func (s *API) mailslurpWaitForNth(w http.ResponseWriter, r *http.Request) {
	in, q, ok := s.mailslurpWait(w, r)
	if !ok {
		return
	}
	index, err := mailslurpInt(r, "index", 0, 0, s.Config.MaxMessagesPerInbox)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	s.mailslurpHeld(w, r, in.ID, q.wait, timedOutMsg(in, fmt.Sprintf("no email at index %d", index), q),
		s.nthMailSlurp(in.ID, index, q.which),
		func(v any) { s.answerEmail(w, r, in, v.(*mailbox.Message)) })
}

// nthMailSlurp finds the index-th message (from 0, oldest first) of those
// q looks for.
func (s *API) nthMailSlurp(inboxID string, index int, q mailslurpWhich) family.Finder {
	return func(ctx context.Context) (any, bool, error) {
		in, err := family.LiveInbox(s.Views.Inbox(ctx, inboxID))
		if err != nil {
			return nil, false, family.AsNotFound(err, "Inbox not found")
		}
		if !q.any() {
			// Newest first: the index-th oldest is a page of one.
			if index >= in.Count {
				return nil, false, nil
			}
			l, err := s.Views.List(ctx, in, mailbox.Query{Offset: in.Count - 1 - index, Limit: 1})
			if err != nil || len(l.Items) == 0 {
				return nil, false, err
			}
			return s.foundMessage(ctx, in, l.Items[0].ID)
		}
		var id string
		err = s.OldestFirst(ctx, in, func(m *projections.Summary) bool {
			if q.passes(m) {
				if index == 0 {
					id = m.ID
					return true
				}
				index--
			}
			return false
		})
		if err != nil || id == "" {
			return nil, false, err
		}
		return s.foundMessage(ctx, in, id)
	}
}

// mailslurpMatchOption is one of MatchOptions' matches: field should
// CONTAIN or EQUAL value.
type mailslurpMatchOption struct {
	Field  string `json:"field"`
	Should string `json:"should"`
	Value  string `json:"value"`
}

// Bounds on MatchOptions.
const (
	maxMatchOptions = 16
	maxMatchValue   = 256
)

// readMatchOptions reads MatchOptions: matches on SUBJECT, TO, CC or FROM,
// each CONTAIN or EQUAL; conditions are not supported.
func readMatchOptions(r *http.Request) ([]mailslurpMatchOption, error) {
	var body struct {
		Matches    []mailslurpMatchOption `json:"matches"`
		Conditions []json.RawMessage      `json:"conditions"`
	}
	if err := family.DecodeBody(r, &body); err != nil {
		return nil, err
	}
	switch {
	case len(body.Conditions) > 0:
		return nil, tempmail.Errorf(tempmail.Invalid, "matchOptions.conditions are not supported by tempmail's MailSlurp family: use matches")
	case len(body.Matches) > maxMatchOptions:
		return nil, tempmail.Errorf(tempmail.Invalid, "matchOptions.matches holds at most %d matches", maxMatchOptions)
	}
	for _, m := range body.Matches {
		switch {
		case !slices.Contains([]string{"SUBJECT", "TO", "CC", "FROM"}, m.Field):
			return nil, tempmail.Errorf(tempmail.Invalid, "match field %q is not supported: SUBJECT, TO, CC or FROM",
				tempmail.Excerpt(m.Field, 32))
		case m.Should != "CONTAIN" && m.Should != "EQUAL":
			return nil, tempmail.Errorf(tempmail.Invalid, "match should %q is not supported: CONTAIN or EQUAL",
				tempmail.Excerpt(m.Should, 32))
		case len(m.Value) > maxMatchValue:
			return nil, tempmail.Errorf(tempmail.Invalid, "a match value is at most %d bytes", maxMatchValue)
		}
	}
	return body.Matches, nil
}

// matches reports whether a message to address passes every option: a
// subject is compared as it is, addresses in any case.
func matches(opts []mailslurpMatchOption, m *projections.Summary, address string) bool {
	for _, o := range opts {
		var values []string
		fold := true
		switch o.Field {
		case "SUBJECT":
			values, fold = []string{m.Subject}, false
		case "FROM":
			values = []string{m.From}
		case "TO":
			values = append([]string{address}, m.To...)
		case "CC":
			values = m.Cc
		}
		if !slices.ContainsFunc(values, func(v string) bool {
			want := o.Value
			if fold {
				v, want = strings.ToLower(v), strings.ToLower(want)
			}
			if o.Should == "EQUAL" {
				return v == want
			}
			return strings.Contains(v, want)
		}) {
			return false
		}
	}
	return true
}

func (s *API) mailslurpWaitForMatchingFirst(w http.ResponseWriter, r *http.Request) {
	in, q, ok := s.mailslurpWait(w, r)
	if !ok {
		return
	}
	opts, err := readMatchOptions(r)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	s.mailslurpHeld(w, r, in.ID, q.wait, timedOutMsg(in, "no email matched", q), s.matchingMailSlurp(in.ID, opts, q.which),
		func(v any) { s.answerEmail(w, r, in, v.(*mailbox.Message)) })
}

// matchingMailSlurp finds the oldest message q looks for that passes opts.
func (s *API) matchingMailSlurp(inboxID string, opts []mailslurpMatchOption, q mailslurpWhich) family.Finder {
	return func(ctx context.Context) (any, bool, error) {
		in, err := family.LiveInbox(s.Views.Inbox(ctx, inboxID))
		if err != nil {
			return nil, false, family.AsNotFound(err, "Inbox not found")
		}
		var id string
		err = s.OldestFirst(ctx, in, func(m *projections.Summary) bool {
			if q.passes(m) && matches(opts, m, in.Address) {
				id = m.ID
			}
			return id != ""
		})
		if err != nil || id == "" {
			return nil, false, err
		}
		return s.foundMessage(ctx, in, id)
	}
}

func (s *API) mailslurpWaitForCount(w http.ResponseWriter, r *http.Request) {
	s.mailslurpWaitForMany(w, r, nil)
}

func (s *API) mailslurpWaitForMatching(w http.ResponseWriter, r *http.Request) {
	opts, err := readMatchOptions(r)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	s.mailslurpWaitForMany(w, r, opts)
}

// mailslurpWaitForMany answers waitForEmailCount and waitForMatchingEmails:
// the oldest count messages q looks for that pass opts (none: every one),
// once there are that many, as previews; none is marked read.
func (s *API) mailslurpWaitForMany(w http.ResponseWriter, r *http.Request, opts []mailslurpMatchOption) {
	in, q, ok := s.mailslurpWait(w, r)
	if !ok {
		return
	}
	count, err := mailslurpInt(r, "count", 0, 1, family.MaxLimit)
	if err == nil && count == 0 {
		err = tempmail.Errorf(tempmail.Invalid, "count is required: a whole number from 1 to %d", family.MaxLimit)
	}
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	find := func(ctx context.Context) (any, bool, error) {
		in, err := family.LiveInbox(s.Views.Inbox(ctx, in.ID))
		if err != nil {
			return nil, false, family.AsNotFound(err, "Inbox not found")
		}
		var list []projections.Summary
		err = s.OldestFirst(ctx, in, func(m *projections.Summary) bool {
			if q.which.passes(m) && matches(opts, m, in.Address) {
				list = append(list, *m)
			}
			return len(list) == count
		})
		if err != nil || len(list) < count {
			return nil, false, err
		}
		return list, true, nil
	}
	s.mailslurpHeld(w, r, in.ID, q.wait, timedOutMsg(in, fmt.Sprintf("fewer than %d emails", count), q), find, func(v any) {
		list := v.([]projections.Summary)
		family.WritePage(w, len(list), func(i int) any { return toMailSlurpPreview(in, list[i].Shown(in.Address)) })
	})
}
