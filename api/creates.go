package api

import (
	"net/http"
	"strconv"
	"time"

	"tempmail/config"
)

// limitCreates refuses a creation beyond the client's share: 429 with
// Retry-After, in the family's shape.
func (s *Server) limitCreates(next http.Handler) http.Handler {
	if s.creates == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ok, wait := s.creates.Take(s.clientOf(r), time.Now()); !ok {
			writeError(w, r, s.log, familyOf(r), tooMany(wait,
				"too many inboxes and webhooks made from your address (at most %s); try again in %d s",
				rateText(s.cfg.CreateRatePerClient), retryAfter(wait).seconds()))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// rateText says a rate in words: "120 a minute".
func rateText(r config.Rate) string {
	per := map[time.Duration]string{time.Second: "a second", time.Minute: "a minute", time.Hour: "an hour"}[r.Per]
	return strconv.Itoa(r.N) + " " + per
}
