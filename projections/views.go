package projections

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"tempmail/events"
)

// Meta is carried by every view entry.
type Meta struct {
	Seq  uint64 `json:"seq"`            // stream sequence of the last event applied to this entry
	Gone bool   `json:"gone,omitempty"` // a tombstone: reads treat the entry as absent
}

func (m *Meta) meta() *Meta { return m }

// record is a view entry.
type record interface {
	meta() *Meta
	// clone copies the record so that the copy shares nothing the
	// appliers change in place (slices they insert into or edit).
	clone() record
}

func (d *Domains) clone() record { c := *d; c.List = slices.Clone(d.List); return &c }
func (in *Inbox) clone() record {
	c := *in
	c.Pages, c.PageSizes = slices.Clone(in.Pages), slices.Clone(in.PageSizes)
	c.Webhooks = slices.Clone(in.Webhooks)
	return &c
}
func (a *Address) clone() record  { c := *a; return &c }
func (t *TokenRef) clone() record { c := *t; return &c }
func (m *Message) clone() record  { c := *m; return &c }
func (p *Page) clone() record     { c := *p; c.Items = slices.Clone(p.Items); return &c }
func (c *Checkpoint) clone() record {
	d := *c
	if c.Counts != nil {
		n := *c.Counts
		d.Counts = &n
	}
	return &d
}
func (r *Removals) clone() record { c := *r; c.Items = slices.Clone(r.Items); return &c }
func (m *Meta) clone() record     { c := *m; return &c }
func (w *Webhook) clone() record  { c := *w; c.Events = slices.Clone(w.Events); return &c }
func (l *WebhookList) clone() record {
	c := *l
	c.Items = slices.Clone(l.Items)
	return &c
}

// Domain is one configured domain.
type Domain struct {
	ID     int    `json:"id"`
	Name   string `json:"name"`
	Active bool   `json:"is_active"`
}

// Domains is the whole domain list, in id order.
type Domains struct {
	Meta
	List []Domain `json:"domains"`
}

// Inbox is one inbox and the index of its messages.
type Inbox struct {
	Meta
	ID        string        `json:"id"`
	Address   string        `json:"address"`
	Token     string        `json:"token"`
	Family    events.Family `json:"family"`
	DomainID  int           `json:"domain_id"`
	CreatedAt time.Time     `json:"created_at"`
	ExpiresAt time.Time     `json:"expires_at,omitzero"`
	TTL       int64         `json:"ttl,omitempty"`
	// LifecycleSeq is the last event on the address's lifecycle subject:
	// what deliveries and deletion expect to be unchanged.
	LifecycleSeq uint64 `json:"lifecycle_seq"`

	Count     int     `json:"count"`
	Latest    string  `json:"latest,omitempty"`     // id of the newest message
	Pages     []int64 `json:"pages,omitempty"`      // list pages holding messages, newest first
	PageSizes []int   `json:"page_sizes,omitempty"` // how many messages each of Pages holds
	NextPage  int64   `json:"next_page"`

	// Webhooks are the subscriptions to this inbox alone.
	Webhooks []WebhookRef `json:"webhooks,omitempty"`
}

// Live reports whether the inbox exists and has not expired at now. Expiry
// takes effect at ExpiresAt even before its InboxExpired event is applied.
func (in *Inbox) Live(now time.Time) bool {
	return !in.Gone && (in.ExpiresAt.IsZero() || now.Before(in.ExpiresAt))
}

// Address says which inbox, if any, holds an address now.
type Address struct {
	Meta
	InboxID      string `json:"inbox_id"`
	Live         bool   `json:"live"`
	LifecycleSeq uint64 `json:"lifecycle_seq"` // last event on the address's lifecycle subject
}

// TokenRef maps a family C token to its inbox.
type TokenRef struct {
	Meta
	InboxID string `json:"inbox_id"`
}

// Message is one received message. Views hold only where it is and what
// happened to it; what it says stays sealed in its MailReceived (see
// events.Content), and Reader joins it in as it reads: so deleting a
// message (erasing its key) leaves nothing of what it said in any view
// entry, old revisions included.
type Message struct {
	Meta
	ID         string    `json:"id"`
	InboxID    string    `json:"inbox_id"`
	Address    string    `json:"address"`
	Page       int64     `json:"page"` // the list page that holds its summary
	IsRead     bool      `json:"is_read"`
	ReadSeq    uint64    `json:"read_seq,omitempty"` // the MarkedRead that marked it
	ReceivedAt time.Time `json:"received_at"`
	Size       int64     `json:"size"`
	// ContentSeq is the sequence of its MailReceived, which holds its
	// sealed content, and Key the reference of that content's key.
	ContentSeq uint64 `json:"content_seq"`
	Key        uint64 `json:"key"`
	// RawObject names the sealed raw message in the object store when it
	// is large; a small one is in its content.
	RawObject string `json:"raw_object,omitempty"`

	// Content is what the message says, joined in by Reader.Message;
	// never stored in a view.
	events.Content `json:"-"`
}

// ContentRef locates a message's sealed content.
func (m *Message) ContentRef() events.ContentRef {
	return events.ContentRef{MessageID: m.ID, Seq: m.ContentSeq, Key: m.Key}
}

// Summary is a message as lists show it. A page stores its place and
// state; what lists show of what it says (sender, subject, preview,
// attachments) is joined in by Reader.List.
type Summary struct {
	ID         string    `json:"id"`
	ReceivedAt time.Time `json:"received_at"`
	Size       int64     `json:"size"`
	IsRead     bool      `json:"is_read"`
	ReadSeq    uint64    `json:"read_seq,omitempty"`
	ContentSeq uint64    `json:"content_seq"`
	Key        uint64    `json:"key"`

	// Joined by Reader.List; never stored.
	From        string              `json:"-"`
	FromName    string              `json:"-"`
	Subject     string              `json:"-"`
	Preview     string              `json:"-"`
	To          []string            `json:"-"`
	Cc          []string            `json:"-"`
	Attachments []events.Attachment `json:"-"`
}

// ContentRef locates the summarised message's sealed content.
func (s *Summary) ContentRef() events.ContentRef {
	return events.ContentRef{MessageID: s.ID, Seq: s.ContentSeq, Key: s.Key}
}

// Page is one page of an inbox's list.
type Page struct {
	Meta
	Items []Summary `json:"items"` // newest first
}

// Removals are an inbox's most recent deletions, for event streams that
// reconnect and must learn of those they missed (API.md: "within what the
// inbox still holds").
type Removals struct {
	Meta
	Items []Removal `json:"items"` // oldest first
	// Dropped is the deletion of the newest removal no longer kept: a
	// stream that resumes from before it may have missed deletions.
	Dropped uint64 `json:"dropped,omitempty"`
}

// Removal is one message deleted by the event at Seq; ContentSeq is when
// it arrived, so that a stream that never told of it does not tell of its
// deletion either.
type Removal struct {
	ID         string `json:"id"`
	Seq        uint64 `json:"seq"`
	ContentSeq uint64 `json:"content_seq"`
}

// removalsKept bounds Removals: a stream away longer than this many
// deletions is told to load the list afresh (ChangeReset).
const removalsKept = 64

// Webhook is an outbound webhook subscription (events.WebhookCreated).
type Webhook struct {
	Meta
	ID        string    `json:"id"`
	URL       string    `json:"url"`
	Events    []string  `json:"events"`
	InboxID   string    `json:"inbox_id,omitempty"`
	Address   string    `json:"address,omitempty"`
	Secret    string    `json:"secret"`
	CreatedAt time.Time `json:"created_at"`
}

// Wants reports whether the subscription asks for events of kind.
func (w *Webhook) Wants(kind string) bool { return slices.Contains(w.Events, kind) }

// WebhookRef is what deciding who hears of an event needs of a
// subscription, kept where that decision reads: in its inbox's entry, or
// in the list of subscriptions to every inbox.
type WebhookRef struct {
	ID     string   `json:"id"`
	Events []string `json:"events"`
	Seq    uint64   `json:"seq"` // its WebhookCreated: it hears of later events only
}

// WebhookList is the subscriptions to every inbox, oldest first.
type WebhookList struct {
	Meta
	Items []WebhookRef `json:"items"`
}

// Checkpoint is the progress of one partition.
type Checkpoint struct {
	Meta
	// Counts are the partition's live inboxes and stored messages once
	// the events up to Seq are applied. Nil in a checkpoint written by a
	// version that did not count: then they are unknown until a rebuild.
	Counts *Counts `json:"counts,omitempty"`
}

// Counts are what the views hold, for the operator's gauges.
type Counts struct {
	Inboxes  int64 `json:"inboxes"`
	Messages int64 `json:"messages"`
}

func (c *Counts) add(d Counts) {
	c.Inboxes += d.Inboxes
	c.Messages += d.Messages
}

// A page closes when it holds this many summaries, which keeps each write
// small (so ingest cost does not grow with the inbox) and each value far
// below the 1 MiB KV limit.
const pageMaxItems = 32

const (
	domainsKey  = "domains"
	webhooksKey = "webhooks" // the WebhookList
)

func inboxKey(id string) string     { return "i." + id }
func addressKey(addr string) string { return "a." + events.AddressKey(addr) }
func tokenKey(tok string) string    { return "t." + tok }

// printable names a key in an error, which may reach a log: a token key
// holds an inbox's token, which no log may show.
func printable(key string) string {
	if strings.HasPrefix(key, "t.") {
		return "t.<token>"
	}
	return key
}
func messageKey(id string) string       { return "m." + id }
func checkpointKey(part string) string  { return "c." + part }
func removalsKey(inboxID string) string { return "r." + inboxID }
func webhookKey(id string) string       { return "w." + id }
func pageKey(inboxID string, n int64) string {
	return "l." + inboxID + "." + strconv.FormatInt(n, 10)
}

// encode and decode are a view entry's stored form: JSON, which never
// holds what a message says (Message and Summary leave it out).
func encode(rec record) ([]byte, error)    { return json.Marshal(rec) }
func decode(data []byte, rec record) error { return json.Unmarshal(data, rec) }
