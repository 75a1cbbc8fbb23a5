package events

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"tempmail"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// contentRecord is the head of a message's stored Content: this JSON on
// one line (json.Marshal never writes a raw newline), then the text body, the
// HTML body and the raw message as they are, their lengths in the head.
// Bodies kept out of the JSON are neither escaped when stored nor unescaped
// when read (JSON's string handling was a quarter of a rebuild's CPU).
// Version 2 had the bodies in the JSON; it is still read.
type contentRecord struct {
	Version int `json:"v"`
	TextLen int `json:"text_len,omitempty"`
	HTMLLen int `json:"html_len,omitempty"`
	Content
}

const contentV = 3

func contentMsg(subject string, c Content) (*nats.Msg, error) {
	raw, text, html := c.Raw, c.Text, c.HTML
	c.Raw, c.Text, c.HTML = nil, "", ""
	head, err := json.Marshal(contentRecord{Version: contentV, TextLen: len(text), HTMLLen: len(html), Content: c})
	if err != nil {
		return nil, err
	}
	m := nats.NewMsg(subject)
	data := make([]byte, 0, len(head)+1+len(text)+len(html)+len(raw))
	data = append(append(append(data, head...), '\n'), text...)
	m.Data = append(append(data, html...), raw...)
	return m, nil
}

// Content fills in what a MailReceived event read from the log does not
// carry: the message's content. After the message was deleted there is
// none, and ev is left as it is.
func (s *Store) Content(ctx context.Context, ev *MailReceived) error {
	subj := contentSubject(s.PartitionOfAddress(ev.Address), ev.Address, ev.InboxID, ev.MessageID)
	m, err := s.stream.GetLastMsgForSubject(ctx, subj)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil
	}
	if err != nil {
		return unavailable(err)
	}
	c, err := DecodeContent(m.Data)
	if err != nil {
		return fmt.Errorf("content of message %s: %w", ev.MessageID, err)
	}
	ev.Content = c
	return nil
}

// RawOf returns the raw bytes of a small message, kept in its content record
// (a large one is in the object store under RawObjectName). Views leave the
// raw message out: it is read rarely, and would make every view entry of a
// message larger to write, cache and decode.
func (s *Store) RawOf(ctx context.Context, addr, inboxID, messageID string) ([]byte, error) {
	ev := MailReceived{InboxID: inboxID, MessageID: messageID, Address: addr}
	if err := s.Content(ctx, &ev); err != nil {
		return nil, err
	}
	if ev.Raw == nil {
		return nil, tempmail.Errorf(tempmail.NotFound, "message not found")
	}
	return ev.Raw, nil
}

// DecodeContent parses a content record as stored on a content subject.
func DecodeContent(data []byte) (Content, error) {
	head, rest, found := bytes.Cut(data, []byte("\n"))
	if !found {
		return Content{}, errors.New("content record without its raw part")
	}
	var rec contentRecord
	if err := json.Unmarshal(head, &rec); err != nil {
		return Content{}, err
	}
	switch rec.Version {
	case 2: // bodies in the JSON
	case contentV:
		if rec.TextLen < 0 || rec.HTMLLen < 0 || rec.TextLen > len(rest) || rec.HTMLLen > len(rest)-rec.TextLen {
			return Content{}, fmt.Errorf("content record: bodies of %d and %d bytes in %d", rec.TextLen, rec.HTMLLen, len(rest))
		}
		rec.Text = string(rest[:rec.TextLen])
		rec.HTML = string(rest[rec.TextLen : rec.TextLen+rec.HTMLLen])
		rest = rest[rec.TextLen+rec.HTMLLen:]
	default:
		return Content{}, fmt.Errorf("content version %d is not supported (this build reads versions 2 and %d)", rec.Version, contentV)
	}
	if len(rest) > 0 {
		rec.Raw = rest
	}
	return rec.Content, nil
}
