package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/emersion/go-smtp"

	"tempmail/command"
	"tempmail/events"
	"tempmail/faults"
	"tempmail/projections"
)

// Fault rules (package faults): what a test asked of this server, to fail
// on purpose. The service's rules (the admin's) act at any command, an
// inbox's from RCPT on, at its recipient. A rule only ever refuses, delays
// or drops: each is asked only where the server would go on otherwise.
// Without rules this costs a look at memory per command
// (command.Commands.Fault).

// errFaultClosed is what a session answers once a rule closed its
// connection: nobody reads it.
var errFaultClosed = errors.New("the connection was closed by a fault rule")

// attempt is the session's attempt at cmd, to recipient to.
func (s *session) attempt(cmd, to string) faults.Attempt {
	client, _ := netip.ParseAddr(s.ip)
	return faults.Attempt{Command: cmd, From: s.from, To: to, Client: client}
}

// fault asks the rules for an attempt, at inbox in (nil before RCPT), and
// acts on the rule that acts: it returns the reply to give, or nil.
func (s *session) fault(in *projections.Inbox, a faults.Attempt) error {
	rule, err := s.srv.c.Fault(s.ctx, in, a) // bounded there, when there is anything to ask
	if err != nil {
		return s.refuse(command.RejectUnavailable, errTempFail, err)
	}
	if rule == nil {
		return nil
	}
	return s.act(rule)
}

// act does what a rule says: waits its delay, then closes the connection
// or gives its reply (after a 421 the connection closes: faultConn).
func (s *session) act(r *command.Acting) error {
	if !s.srv.stall(s.ctx, r) {
		return errFaultClosed
	}
	if r.Close {
		_ = s.conn.Close()
		return errFaultClosed
	}
	return replyOf(&r.Rule)
}

// replyOf is a rule's reply as go-smtp writes it.
func replyOf(r *faults.Rule) *smtp.SMTPError {
	reply, _ := faults.ParseReply(r.Reply) // checked when the rule was made
	code := smtp.EnhancedCodeNotSet
	if reply.Enhanced[0] != 0 {
		code = smtp.EnhancedCode(reply.Enhanced)
	}
	return &smtp.SMTPError{Code: reply.Code, EnhancedCode: code, Message: reply.Text}
}

// replyLine is a rule's reply as a line on the wire, for a greeting.
func replyLine(r *faults.Rule) string {
	reply, _ := faults.ParseReply(r.Reply)
	line := strconv.Itoa(reply.Code)
	if e := reply.Enhanced; e[0] != 0 {
		line += fmt.Sprintf(" %d.%d.%d", e[0], e[1], e[2])
	}
	return line + " " + reply.Text + "\r\n"
}

// maxStalled bounds the sessions the delays of one inbox's rules, or of
// one tenant's, hold at once: beyond, their replies come at once. Rules
// that stall every delivery to a tenant's inboxes could otherwise hold
// every connection of a relay that brings every tenant's mail (one
// client, within its connection limit), and delay the others' mail with
// their own. The service's rules (the operator's, who may want a slow
// server for everyone) count each on its own.
const maxStalled = 2

// stalled counts the sessions the rules' delays hold now.
type stalled struct {
	mu    sync.Mutex
	count map[string]int // by holder, or by rule for the service's; gone at 0
}

// stall waits a rule's delay, if it has one and holds fewer than
// maxStalled sessions; it reports false if ctx ended first.
func (s *SMTPServer) stall(ctx context.Context, r *command.Acting) bool {
	if r.Delay <= 0 {
		return true
	}
	key := r.Holder
	if key == "" {
		key = "rule " + r.ID
	}
	st := &s.stalled
	st.mu.Lock()
	if st.count[key] >= maxStalled {
		st.mu.Unlock()
		return true // enough held by these rules: answered at once
	}
	if st.count == nil {
		st.count = map[string]int{}
	}
	st.count[key]++
	st.mu.Unlock()
	defer func() {
		st.mu.Lock()
		if st.count[key]--; st.count[key] == 0 {
			delete(st.count, key)
		}
		st.mu.Unlock()
	}()
	return wait(ctx, time.Duration(r.Delay))
}

// wait waits d, unless ctx ends first.
func wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// dataFault acts on the rules at DATA, for each recipient, before the data
// is read: a delay, or closing the connection once part of the message has
// come (mid-message, as a server that crashed would).
func (s *session) dataFault(r io.Reader) error {
	for _, in := range s.rcpts {
		rule, err := s.srv.c.Fault(s.ctx, in, s.attempt(faults.DATA, in.Address))
		if err != nil {
			return s.refuse(command.RejectUnavailable, errTempFail, err)
		}
		if rule == nil {
			continue
		}
		if !s.srv.stall(s.ctx, rule) {
			return errFaultClosed
		}
		if rule.Close {
			var part [512]byte
			_, _ = io.ReadFull(r, part[:])
			_ = s.conn.Close()
			return errFaultClosed
		}
		return nil // a delay only: the data is read as usual
	}
	return nil
}

// afterDataFault asks the rules at the end of the data, for each
// recipient: one that acts refuses the whole message.
func (s *session) afterDataFault() error {
	for _, in := range s.rcpts {
		if err := s.fault(in, s.attempt(faults.AfterData, in.Address)); err != nil {
			return err
		}
	}
	return nil
}

// recordStored adds a stored message to the attempt log of each recipient
// that has one (an inbox that has or had rules).
func (s *session) recordStored(res command.Delivered) {
	for _, in := range s.rcpts {
		if len(in.Faults.Rules) == 0 && len(in.Faults.Attempts) == 0 {
			continue
		}
		id := ""
		for _, m := range res.MessageIDs {
			if sameInbox(m, in.ID) {
				id = m
			}
		}
		ctx, cancel := context.WithTimeout(s.srv.ctx, 5*time.Second)
		err := s.srv.c.RecordStored(ctx, in, s.attempt(faults.AfterData, ""), id)
		cancel()
		if err != nil {
			s.srv.c.Log.Warn("SMTP: a stored message is missing from its inbox's attempt log", "inbox", in.ID, "err", err)
		}
	}
}

// sameInbox says whether a message id was made for an inbox: it carries
// the inbox's tag (events.NewMessageID).
func sameInbox(messageID, inboxID string) bool {
	tag := events.InboxTag(inboxID)
	return tag != "" && events.InboxTag(messageID) == tag
}

// faultConn is a connection as the SMTP server writes to it: its first
// write, the greeting, is where the service's CONNECT rules act (in the
// connection's own goroutine, not the listener's), and a 421 reply,
// whoever gave it, closes it once written (RFC 5321 3.8: the server
// closes after 421).
type faultConn struct {
	net.Conn
	srv  *SMTPServer
	once sync.Once
	done bool // the CONNECT rule closed or answered it
}

func (c *faultConn) Write(b []byte) (int, error) {
	c.once.Do(func() { c.done = c.connect() })
	if c.done {
		return 0, net.ErrClosed
	}
	n, err := c.Conn.Write(b)
	if err == nil && bytes.HasPrefix(b, []byte("421")) {
		_ = c.Conn.Close()
	}
	return n, err
}

// connect asks the service's rules at CONNECT; it reports whether one
// answered (or closed) the connection in place of the greeting.
func (c *faultConn) connect() bool {
	client, _ := netip.ParseAddr(hostOf(c.RemoteAddr()))
	rule, err := c.srv.c.Fault(c.srv.ctx, nil, faults.Attempt{Command: faults.CONNECT, Client: client})
	if err != nil || rule == nil {
		return false // a rule that cannot be read never refuses
	}
	if !c.srv.stall(c.srv.ctx, rule) || rule.Close {
		_ = c.Conn.Close()
		return true
	}
	_ = c.Conn.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = c.Conn.Write([]byte(replyLine(&rule.Rule)))
	_ = c.Conn.Close()
	return true
}

// ehloFault asks the service's rules at EHLO (or HELO), as the session
// begins: a reply in place of the greeting's, or the connection closed.
func (s *SMTPServer) ehloFault(c *smtp.Conn) error {
	client, _ := netip.ParseAddr(hostOf(c.Conn().RemoteAddr()))
	rule, err := s.c.Fault(s.ctx, nil, faults.Attempt{Command: faults.EHLO, Client: client})
	if err != nil || rule == nil {
		return nil
	}
	if !s.stall(s.ctx, rule) || rule.Close {
		_ = c.Close()
		return errFaultClosed
	}
	return replyOf(&rule.Rule)
}
