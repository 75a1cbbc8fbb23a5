package projections

import (
	"strconv"
	"time"

	"tempmail/events"
	"tempmail/mail"
)

// Message is one message, as Reader.Message returns it: its summary's
// place and state, its inbox, and what it says. It is never stored.
type Message struct {
	ID         string
	InboxID    string
	Address    string
	IsRead     bool
	ReadSeq    uint64
	ReceivedAt time.Time
	Size       int64
	ContentSeq uint64
	Key        uint64
	RawObject  string
	mail.Message
}

// ContentRef locates a message's sealed content.
func (m *Message) ContentRef() events.ContentRef {
	return events.ContentRef{MessageID: m.ID, Seq: m.ContentSeq, Key: m.Key}
}

const (
	// A page closes when it holds this many summaries, which keeps each
	// write small (so ingest cost does not grow with the inbox) and each
	// value far below the 1 MiB KV limit.
	pageMaxItems = 32
	// marksKept bounds an inbox's Marks: a stream away for longer than
	// this many reads and deletions is told to reset (load the list
	// afresh).
	marksKept = 32
)

const webhooksKey = "webhooks" // the WebhookList

func inboxKey(id string) string     { return "i." + id }
func addressKey(addr string) string { return "a." + events.AddressKey(addr) }
func tokenKey(tok string) string    { return "t." + tok }
func tagKey(tag string) string      { return "n." + tag }

func messageRefKey(id string) string { return "m." + id }

func webhookKey(id string) string { return "w." + id }
func pageKey(inboxID string, n int64) string {
	return "l." + inboxID + "." + strconv.FormatInt(n, 10)
}
