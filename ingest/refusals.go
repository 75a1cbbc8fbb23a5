package ingest

import (
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-smtp"

	"tempmail/command"
	"tempmail/fairshare"
	"tempmail/logs"
)

// Every refusal is counted, by reason, in command.Metrics; few are logged.
// A client may refuse itself ten thousand recipients in seconds, and a line
// for each would bury the log (and fill its disk). So a session logs its
// first refusals, and at its end one line says how many more there were;
// a client (an IPv6 one by its /64) is logged a few times a minute over
// all its sessions and connections, and all clients together a hundred
// times, the next line of a client saying how many of its own were left
// out (suppressed=N).
const (
	refusalLinesPerSession = 3
	refusalLinesPerClient  = 10  // a minute
	refusalLinesPerMinute  = 100 // all clients together
)

func newRefusalLines() *logs.Limiter {
	return logs.NewLimiter(refusalLinesPerClient, refusalLinesPerMinute, time.Minute)
}

// keyOf is the key ip's client is counted under, for fairshare and for the
// log's bounds.
func keyOf(ip string) netip.Prefix {
	a, _ := netip.ParseAddr(ip)
	return fairshare.Key(a)
}

// refusedConnection counts a connection refused over the connection
// limits, and logs it within the client's bound.
func (s *SMTPServer) refusedConnection(ip, why string) {
	s.c.Metrics.Reject(command.RejectTooManyConn)
	if v := s.refusals.Allow(keyOf(ip), 1, time.Now()); v.Write {
		s.c.Log.Info("SMTP: rejected", append([]any{"reason", command.RejectTooManyConn, "reply", 421, "client", ip,
			"detail", why}, v.Attrs()...)...)
	}
}

// refuse counts a refusal and logs it with its reason and the client's
// address; never the recipient's: a family B address is all it takes to
// read its mailbox.
func (s *session) refuse(reason string, reply error, cause error) error {
	s.srv.c.Metrics.Reject(reason)
	s.logRefusal(reason, reply, cause)
	return reply
}

// sessionLines is what a session logged of its refusals: how many, and
// those left out past refusalLinesPerSession, by reason (a Reject
// constant: a few keys at most). Logout may run on another goroutine than
// the session's commands (when the server closes its connections), hence
// the lock.
type sessionLines struct {
	mu       sync.Mutex
	logged   int
	unlogged map[string]int
}

// logRefusal logs a refusal within the session's and the client's bounds:
// one past the session's is left for Logout to sum up, one past the
// client's for the client's next line.
func (s *session) logRefusal(reason string, reply error, cause error) {
	s.lines.mu.Lock()
	defer s.lines.mu.Unlock()
	if s.lines.logged >= refusalLinesPerSession {
		if s.lines.unlogged == nil {
			s.lines.unlogged = map[string]int{}
		}
		s.lines.unlogged[reason]++
		return
	}
	v := s.srv.refusals.Allow(s.client(), 1, time.Now())
	if !v.Write {
		return
	}
	s.lines.logged++
	code := 0
	var se *smtp.SMTPError
	if errors.As(reply, &se) {
		code = se.Code
	}
	attrs := append([]any{"reason", reason, "reply", code, "client", s.ip}, v.Attrs()...)
	if cause != nil {
		s.srv.c.Log.Warn("SMTP: rejected", append(attrs, "err", cause)...)
		return
	}
	s.srv.c.Log.Info("SMTP: rejected", attrs...)
}

// logUnlogged writes, at the session's end, how many of its refusals were
// not logged, by reason; within the client's bound too, so that a client
// opening session after session is not a line each.
func (s *session) logUnlogged() {
	s.lines.mu.Lock()
	defer s.lines.mu.Unlock()
	n := 0
	for _, c := range s.lines.unlogged {
		n += c
	}
	if n == 0 {
		return
	}
	if v := s.srv.refusals.Allow(s.client(), n, time.Now()); v.Write {
		s.srv.c.Log.Info("SMTP: more refusals in this session were not logged", append([]any{"client", s.ip,
			"not_logged", n, "reasons", reasonCounts(s.lines.unlogged)}, v.Attrs()...)...)
	}
	s.lines.unlogged = nil
}

// reasonCounts writes counts by reason as "no_mailbox:2,not_served:997",
// in the reasons' order.
func reasonCounts(counts map[string]int) string {
	var b strings.Builder
	for _, r := range slices.Sorted(maps.Keys(counts)) {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s:%d", r, counts[r])
	}
	return b.String()
}
