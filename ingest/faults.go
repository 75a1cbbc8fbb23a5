package ingest

import (
	"context"
	"errors"
	"io"
	"net/netip"
	"time"

	"github.com/emersion/go-smtp"

	"tempmail/command"
	"tempmail/events"
	"tempmail/faults"
	"tempmail/projections"
)

// Fault rules (package faults): what a test set on an inbox to make this
// server fail on purpose, acted on at RCPT, during DATA and after it. A
// rule only ever refuses, delays or drops; an inbox without rules costs
// nothing here (command.Commands.Fault answers at once).

// errFaultClosed is what a session answers once a rule closed its
// connection: nobody reads it.
var errFaultClosed = errors.New("the connection was closed by a fault rule")

// fault asks the rules of the inboxes for command, in order, and acts on
// the first rule that acts: it returns the reply to give, or nil.
func (s *session) fault(ins []*projections.Inbox, cmd string) error {
	client, _ := netip.ParseAddr(s.ip)
	for _, in := range ins {
		if len(in.Faults) == 0 {
			continue
		}
		ctx, cancel := context.WithTimeout(s.ctx, 5*time.Second)
		rule, err := s.srv.c.Fault(ctx, in, command.Attempt{Command: cmd, From: s.from, Client: client})
		cancel()
		if err != nil {
			return s.refuse(command.RejectUnavailable, errTempFail, err)
		}
		if rule != nil {
			return s.act(rule)
		}
	}
	return nil
}

// act does what a rule says: waits its delay, then closes the connection
// or gives its reply. After a 421 the connection is closed at the
// client's next command (RFC 5321 4.2.2: the server closes after 421),
// since the reply is written after this returns.
func (s *session) act(r *faults.Rule) error {
	if !s.wait(time.Duration(r.Delay)) {
		return errFaultClosed
	}
	if r.Close {
		_ = s.conn.Close()
		return errFaultClosed
	}
	reply, _ := faults.ParseReply(r.Reply) // checked when the rule was made
	if reply.Code == 421 {
		s.closing = true
	}
	code := smtp.EnhancedCodeNotSet
	if reply.Enhanced[0] != 0 {
		code = smtp.EnhancedCode(reply.Enhanced)
	}
	return &smtp.SMTPError{Code: reply.Code, EnhancedCode: code, Message: reply.Text}
}

// wait waits d, unless the session ends first.
func (s *session) wait(d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-s.ctx.Done():
		return false
	}
}

// closed closes a connection a 421 of a rule ended, at the client's next
// command; it reports whether it did.
func (s *session) closed() bool {
	if s.closing {
		_ = s.conn.Close()
	}
	return s.closing
}

// dataFault acts on the rules of the recipients at DATA, before the data
// is read: a delay, or closing the connection once part of the message has
// come (mid-message, as a server that crashed would).
func (s *session) dataFault(r io.Reader) error {
	client, _ := netip.ParseAddr(s.ip)
	for _, in := range s.rcpts {
		if len(in.Faults) == 0 {
			continue
		}
		ctx, cancel := context.WithTimeout(s.ctx, 5*time.Second)
		rule, err := s.srv.c.Fault(ctx, in, command.Attempt{Command: faults.DATA, From: s.from, Client: client})
		cancel()
		if err != nil {
			return s.refuse(command.RejectUnavailable, errTempFail, err)
		}
		if rule == nil {
			continue
		}
		if !s.wait(time.Duration(rule.Delay)) {
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

// recordStored adds a stored message to the attempt log of each recipient
// that has one (an inbox that has or had rules).
func (s *session) recordStored(res command.Delivered) {
	client, _ := netip.ParseAddr(s.ip)
	for _, in := range s.rcpts {
		if len(in.Faults) == 0 && len(in.Attempts) == 0 {
			continue
		}
		id := ""
		for _, m := range res.MessageIDs {
			if sameInbox(m, in.ID) {
				id = m
			}
		}
		ctx, cancel := context.WithTimeout(s.srv.ctx, 5*time.Second)
		err := s.srv.c.RecordStored(ctx, in, command.Attempt{Command: faults.AfterData, From: s.from, Client: client}, id)
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
