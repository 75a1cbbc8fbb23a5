package tokenapi

import (
	"context"
	"net/http"
	"regexp"
	"strings"

	"tempmail"
	"tempmail/api/family"
	"tempmail/mailbox"
	"tempmail/projections"
	"tempmail/wire"
)

// Family C's held reads (docs/waiting.md "Waiting for mail"): the latest message,
// a one-time code, a link, and the latest by address, each found by a
// Finder that family.Kit.AnswerHeld looks with once, and again on every
// change of the inbox while the request may wait.

// findOTPC answers GET /inboxes/{token}/otp.
func (s *API) findOTPC(w http.ResponseWriter, r *http.Request) {
	q, ok := s.ReadParams(w, r)
	if !ok {
		return
	}
	re, err := family.PatternParam(r, family.DefaultOTPPattern)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	in, err := s.tokenInboxOf(r)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	s.AnswerHeld(w, r, in.ID, q.Wait, family.ErrNoCode, s.findOTP(in.ID, re, q))
}

// findLinkC answers GET /inboxes/{token}/link.
func (s *API) findLinkC(w http.ResponseWriter, r *http.Request) {
	q, ok := s.ReadParams(w, r)
	if !ok {
		return
	}
	re, err := family.PatternParam(r, "")
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	in, err := s.tokenInboxOf(r)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	s.AnswerHeld(w, r, in.ID, q.Wait, family.ErrNoLink, s.findLink(in.ID, re, q))
}

// latestC answers GET /inboxes/{token}/latest.
func (s *API) latestC(w http.ResponseWriter, r *http.Request) {
	q, ok := s.ReadParams(w, r)
	if !ok {
		return
	}
	in, err := s.tokenInboxOf(r)
	if err != nil {
		family.WriteError(w, r, s.Log, err)
		return
	}
	s.AnswerHeld(w, r, in.ID, q.Wait, family.ErrNoMessages, s.latestOf(in.ID, in.Token, q))
}

// addressLatestC answers GET /address/latest?address=..., the latest
// message of an inbox known by its address (family.Kit.MayReadByAddress).
func (s *API) addressLatestC(w http.ResponseWriter, r *http.Request) {
	q, ok := s.ReadParams(w, r)
	if !ok {
		return
	}
	raw := r.URL.Query().Get("address")
	if strings.TrimSpace(raw) == "" {
		family.WriteError(w, r, s.Log, tempmail.Errorf(tempmail.Invalid, "address is required"))
		return
	}
	addr, err := tempmail.NormalizeAddress(raw)
	var in *projections.Inbox
	if err == nil {
		in, err = family.CredentialIn(r.Context()).Visible(family.LiveInbox(s.Views.InboxByAddress(r.Context(), addr)))
	}
	if err == nil && !s.MayReadByAddress(r, in) {
		err = family.ErrNotFound
	}
	if err != nil {
		family.WriteError(w, r, s.Log, family.AsNotFound(family.AsNotFoundInvalid(err), "Inbox not found"))
		return
	}
	s.AnswerHeld(w, r, in.ID, q.Wait, family.ErrNoMessages, s.latestOf(in.ID, "", q))
}

// findOTP finds the newest message newer than q.after, passing q's filter,
// whose subject or text matches re, trying the subject first. The code is
// the first capture group if the pattern has one, else the whole match.
func (s *API) findOTP(inboxID string, re *regexp.Regexp, q family.WaitRequest) family.Finder {
	code := func(text string) (string, bool) {
		codes := family.CodesIn(re, text, 1)
		if len(codes) == 0 {
			return "", false
		}
		return codes[0], true
	}
	var sc family.Scan
	return func(ctx context.Context) (any, bool, error) {
		in, err := family.LiveInbox(s.Views.Inbox(ctx, inboxID))
		if err != nil {
			return nil, false, family.AsNotFound(err, "Inbox not found")
		}
		var out *wire.Code
		err = sc.NewestFirst(ctx, s.Views, in, q.After, func(sum *projections.Summary) (bool, error) {
			if !q.Filter.Match(&sum.Head, in.Address) {
				return false, nil
			}
			otp, ok := code(sum.Subject)
			if !ok {
				m, err := s.Views.MessageIn(ctx, in, sum.ID)
				if tempmail.KindOf(err) == tempmail.NotFound {
					return false, nil
				}
				if err != nil {
					return false, err
				}
				if otp, ok = code(m.Text); !ok {
					return false, nil
				}
			}
			shown := sum.Shown(in.Address)
			c := wire.CodeOf(otp, &shown)
			out = &c
			return true, nil
		})
		if err != nil || out == nil {
			return nil, false, err
		}
		return *out, true, nil
	}
}

// findLink finds the newest message newer than q.after, passing q's
// filter, that has a link whose URL matches re (any link when re is nil),
// and answers that message's first such link. A held request looks again
// at every change of the inbox; messages do not change, so each later look
// reads only the messages that arrived since the one before.
func (s *API) findLink(inboxID string, re *regexp.Regexp, q family.WaitRequest) family.Finder {
	after := q.After
	return func(ctx context.Context) (any, bool, error) {
		in, err := family.LiveInbox(s.Views.Inbox(ctx, inboxID))
		if err != nil {
			return nil, false, family.AsNotFound(err, "Inbox not found")
		}
		newest := ""
	pages:
		for offset := 0; offset < family.LinkSearch; offset += family.LinkPage {
			l, err := s.Views.List(ctx, in, mailbox.Query{Offset: offset, Limit: family.LinkPage, Filter: q.Filter})
			if err != nil {
				return nil, false, err
			}
			for _, sum := range l.Items {
				if after != "" && sum.ID <= after {
					break pages // newest first: the rest are older still
				}
				newest = max(newest, sum.ID)
				m, err := s.Views.MessageIn(ctx, in, sum.ID)
				if tempmail.KindOf(err) == tempmail.NotFound {
					continue // deleted a moment ago
				}
				if err != nil {
					return nil, false, err
				}
				for _, link := range m.Links {
					if re == nil || re.MatchString(link.URL) {
						shown := sum.Shown(in.Address)
						return wire.FoundLinkOf(link, &shown), true, nil
					}
				}
			}
			if len(l.Items) < family.LinkPage {
				break
			}
		}
		after = max(after, newest)
		return nil, false, nil
	}
}

// latestOf finds the newest message of an inbox newer than q.after that
// passes q's filter. It reads the inbox afresh, so a held request sees
// expiry and new mail alike. token, when the caller holds it, gives the
// attachments their download URLs (an address and the read key do not
// reveal the token).
func (s *API) latestOf(inboxID, token string, q family.WaitRequest) family.Finder {
	var sc family.Scan
	return func(ctx context.Context) (any, bool, error) {
		in, err := family.LiveInbox(s.Views.Inbox(ctx, inboxID))
		if err != nil {
			return nil, false, family.AsNotFound(err, "Inbox not found")
		}
		var latest string
		if q.Filter.Empty() {
			s, err := s.Views.Latest(ctx, in)
			if err != nil {
				return nil, false, err
			}
			if s != nil {
				latest = s.ID
			}
		} else {
			err := sc.NewestFirst(ctx, s.Views, in, q.After, func(m *projections.Summary) (bool, error) {
				if q.Filter.Match(&m.Head, in.Address) {
					latest = m.ID
				}
				return latest != "", nil
			})
			if err != nil {
				return nil, false, err
			}
		}
		if latest == "" || (q.After != "" && latest <= q.After) {
			return nil, false, nil
		}
		m, err := s.Views.MessageIn(ctx, in, latest)
		if tempmail.KindOf(err) == tempmail.NotFound {
			return nil, false, nil // deleted a moment ago; the next change tells
		}
		if err != nil {
			return nil, false, err
		}
		return wire.MessageOf(m, token), true, nil
	}
}
