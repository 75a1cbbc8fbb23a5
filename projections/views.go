package projections

import (
	"strconv"

	"tempmail/events"
)

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
