package family

import (
	"net/http"
	"strconv"
	"time"

	"tempmail"
	"tempmail/command"
	"tempmail/config"
	"tempmail/fairshare"
)

// errKeyNeeded refuses a keyless client's inbox under --anonymous off.
var errKeyNeeded = tempmail.Errorf(tempmail.Unauthorized,
	"an API key is needed to make an inbox on this server: send Authorization: Bearer <key>")

// InboxOwner returns the tenant a new inbox of r's belongs to: its key's;
// for a keyless client, none, or the anonymous tenant while
// --anonymous-quota is set, so that keyless clients share its quota;
// for the API token, none (the operator's inboxes count against nothing).
// Under --anonymous off a keyless client may make none.
func (s *Kit) InboxOwner(r *http.Request) (string, error) {
	c := CredentialFrom(r)
	switch {
	case c.Key != nil:
		return c.Key.TenantID, nil
	case c.Admin:
		return "", nil
	case s.Config.AnonymousOff:
		return "", errKeyNeeded
	case s.Config.AnonymousQuota != nil:
		return command.AnonymousTenant, nil
	}
	return "", nil
}

// LimitCreates refuses a creation beyond the client's share: 429 with
// Retry-After, in the family's shape.
func (s *Kit) LimitCreates(next http.Handler) http.Handler {
	return s.limitBy(s.Creates, "inboxes and webhooks made", next)
}

// LimitLogins refuses a login (mail.tm's POST /token) beyond the
// client's share, --login-rate-per-client: each costs a slow hash, and
// guessing a password takes many. Its own flag, never unlimited, so that
// lifting the creation limit (as load tests do) leaves logins bounded.
func (s *Kit) LimitLogins(next http.Handler) http.Handler {
	return s.limitBy(s.Logins, "logins", next)
}

// limitBy passes a request on while its client has a share of l (nil:
// unlimited), and otherwise answers 429 saying how many what the rate
// allows and when to try again.
func (s *Kit) limitBy(l *fairshare.Limiter, what string, next http.Handler) http.Handler {
	if l == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ok, wait := l.Take(s.ClientOf(r), time.Now()); !ok {
			WriteError(w, r, s.Log, TooMany(wait, "too many %s from your address (at most %s); try again in %d s",
				what, RateText(l.Rate()), RetryAfter(wait).Seconds()))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// RateText says a rate in words: "120 a minute".
func RateText(r config.Rate) string {
	per := map[time.Duration]string{time.Second: "a second", time.Minute: "a minute", time.Hour: "an hour"}[r.Per]
	return strconv.Itoa(r.N) + " " + per
}
