package api

import (
	"context"
	"net/http"
	"regexp"

	"tempmail"
	"tempmail/events"
	"tempmail/links"
	"tempmail/projections"
	"tempmail/wire"
)

// Links: a message's http and https links in its details (families A and
// C), and GET /inboxes/<token>/link/, which finds one as otp finds a code
// (API.md "Additions (third round)").

// messageLink is one link of a message as the details show it.
type messageLink struct {
	URL  string `json:"url"`
	Text string `json:"text"`
}

// storedLinks are a message's links. Content stored before links were
// kept has none (nil, not empty): they are found in its bodies now, which
// costs what ingest would have spent, once per read.
func storedLinks(m *projections.Message) []events.Link {
	if m.Links == nil {
		return links.Extract(m.Text, m.HTML)
	}
	return m.Links
}

// linksOf is a message's links for its details; never null.
func linksOf(m *projections.Message) []messageLink {
	list := storedLinks(m)
	out := make([]messageLink, 0, len(list))
	for _, l := range list {
		out = append(out, messageLink{URL: l.URL, Text: l.Text})
	}
	return out
}

type linkC struct {
	Link       string    `json:"link"`
	Text       string    `json:"text"`
	MessageID  string    `json:"message_id"`
	Subject    string    `json:"subject"`
	From       string    `json:"from"`
	ReceivedAt wire.Time `json:"received_at"`
}

var errNoLink = tempmail.Errorf(tempmail.NotFound, "No link")

// Bounds on one look for a link: the newest messages that pass the
// filters, read linkPage at a time, at most linkSearch of them. A code
// or link worth waiting for is in one of the newest; a look through an
// inbox of thousands would cost as many content reads at every wake.
const (
	linkPage   = 20
	linkSearch = 200
)

func (s *Server) findLinkC(w http.ResponseWriter, r *http.Request) {
	q, ok := s.readParams(w, r)
	if !ok {
		return
	}
	re, err := patternParam(r, "")
	if err != nil {
		writeError(w, r, s.log, familyC, err)
		return
	}
	in, err := s.tokenInboxOf(r)
	if err != nil {
		writeError(w, r, s.log, familyC, err)
		return
	}
	s.answerHeld(w, r, in.ID, q.wait, errNoLink, s.findLink(in.ID, re, q))
}

// patternParam compiles the pattern parameter (RE2, at most 512 bytes), or
// def when it is absent; nil when both are empty.
func patternParam(r *http.Request, def string) (*regexp.Regexp, error) {
	pattern := r.URL.Query().Get("pattern")
	if pattern == "" {
		pattern = def
	}
	if pattern == "" {
		return nil, nil
	}
	if len(pattern) > 512 {
		return nil, tempmail.Errorf(tempmail.Invalid, "invalid pattern: longer than 512 bytes")
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, tempmail.Errorf(tempmail.Invalid, "invalid pattern: %v", err)
	}
	return re, nil
}

// findLink finds the newest message newer than q.after, passing q's
// filter, that has a link whose URL matches re (any link when re is nil),
// and answers that message's first such link. A held request looks again
// at every change of the inbox; messages do not change, so each later look
// reads only the messages that arrived since the one before.
func (s *Server) findLink(inboxID string, re *regexp.Regexp, q waitRequest) finder {
	after := q.after
	return func(ctx context.Context) (any, bool, error) {
		in, err := liveInbox(s.views.Inbox(ctx, inboxID))
		if err != nil {
			return nil, false, asNotFound(err, "Inbox not found")
		}
		newest := ""
	pages:
		for offset := 0; offset < linkSearch; offset += linkPage {
			l, err := s.views.List(ctx, in, projections.Query{Offset: offset, Limit: linkPage, Filter: q.filter})
			if err != nil {
				return nil, false, err
			}
			for _, sum := range l.Items {
				if after != "" && sum.ID <= after {
					break pages // newest first: the rest are older still
				}
				newest = max(newest, sum.ID)
				m, err := s.views.MessageIn(ctx, in, sum.ID)
				if tempmail.KindOf(err) == tempmail.NotFound {
					continue // deleted a moment ago
				}
				if err != nil {
					return nil, false, err
				}
				for _, link := range storedLinks(m) {
					if re == nil || re.MatchString(link.URL) {
						return linkC{Link: link.URL, Text: link.Text, MessageID: sum.ID, Subject: sum.Subject,
							From: sum.From, ReceivedAt: wire.Time(sum.ReceivedAt)}, true, nil
					}
				}
			}
			if len(l.Items) < linkPage {
				break
			}
		}
		after = max(after, newest)
		return nil, false, nil
	}
}
