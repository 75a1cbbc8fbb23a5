package projections

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"tempmail/events"
	"tempmail/mail"
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

func (in *Inbox) clone() record {
	c := *in
	c.Head, c.Pages = slices.Clone(in.Head), slices.Clone(in.Pages)
	c.Marks, c.Webhooks = slices.Clone(in.Marks), slices.Clone(in.Webhooks)
	return &c
}
func (a *Address) clone() record    { c := *a; return &c }
func (t *TokenRef) clone() record   { c := *t; return &c }
func (t *TagRef) clone() record     { c := *t; c.Inboxes = slices.Clone(t.Inboxes); return &c }
func (m *MessageRef) clone() record { c := *m; return &c }
func (p *Page) clone() record       { c := *p; c.Items = slices.Clone(p.Items); return &c }
func (c *Checkpoint) clone() record {
	d := *c
	if c.Counts != nil {
		n := *c.Counts
		d.Counts = &n
	}
	return &d
}
func (p *Pending) clone() record {
	c := *p
	c.Forget = events.Forget{Messages: slices.Clone(p.Forget.Messages), Seqs: slices.Clone(p.Forget.Seqs),
		Inboxes: slices.Clone(p.Forget.Inboxes), Claims: slices.Clone(p.Forget.Claims),
		Tenants: slices.Clone(p.Forget.Tenants), Domains: slices.Clone(p.Forget.Domains)}
	return &c
}
func (m *Meta) clone() record { c := *m; return &c }
func (w *Webhook) clone() record {
	c := *w
	c.Events, c.Later = slices.Clone(w.Events), slices.Clone(w.Later)
	return &c
}
func (l *WebhookList) clone() record {
	c := *l
	c.Items = slices.Clone(l.Items)
	return &c
}

// Inbox is one inbox: its fields, and everything a read of its mail starts
// from, in one entry, so that a message costs one view write (or less,
// when a batch brings several for one inbox): its newest messages (Head,
// the open page of its list), the index of its closed pages, what changed
// lately (for event streams), and its subscriptions.
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

	Count int `json:"count"`
	// Head is the open page of the list: the newest messages, newest
	// first, at most pageMaxItems. When it is full, it is written out as a
	// closed page and a new one begins.
	Head     []Summary `json:"head,omitempty"`
	Pages    []PageRef `json:"pages,omitempty"` // closed pages, newest first
	NextPage int64     `json:"next_page"`

	// Marks are the latest reads and deletions of its messages, oldest
	// first, at most marksKept (new messages are found in the list by
	// their sequences). Forgotten is the sequence of the newest mark no
	// longer kept: an event stream resuming from before it may have
	// missed reads and deletions, and starts over.
	Marks     []Mark `json:"marks,omitempty"`
	Forgotten uint64 `json:"forgotten,omitempty"`

	// Webhooks are the subscriptions to this inbox alone.
	Webhooks []WebhookRef `json:"webhooks,omitempty"`

	// TenantID is the tenant whose key made it; empty: made without one.
	TenantID string `json:"tenant_id,omitempty"`
	// PasswordHash is a mail.tm account's password, hashed
	// (events.InboxCreated); empty for every other inbox. No answer shows it.
	PasswordHash string `json:"password_hash,omitempty"`
	// Held is what it holds: the sum of its messages' sizes, and how
	// many of them came on Held.Day (a UTC day, its newest message's);
	// Claimed is what of it its tenant's claims counted. Kept for a
	// tenant's inbox alone: what its ending takes off its tenant's usage
	// (usage.go).
	Held    Claims `json:"held,omitzero"`
	Claimed Claims `json:"claimed,omitzero"`
}

// Latest is the id of the newest message, or "".
func (in *Inbox) Latest() string {
	if len(in.Head) > 0 {
		return in.Head[0].ID
	}
	return ""
}

// Live reports whether the inbox exists and has not expired at now. Expiry
// takes effect at ExpiresAt even before its InboxExpired event is applied.
func (in *Inbox) Live(now time.Time) bool {
	return !in.Gone && (in.ExpiresAt.IsZero() || now.Before(in.ExpiresAt))
}

// PageRef is one closed page of an inbox's list.
type PageRef struct {
	N    int64  `json:"n"`
	Size int    `json:"size"`
	Last string `json:"last"` // the id of its newest message: where to look for a message by id
}

// Mark is a read or a deletion of one message, named by the sequence of
// the event that made it. For a deletion, ContentSeq is when the message
// arrived, so that a stream that never told of it does not tell of its
// deletion either.
type Mark struct {
	Seq        uint64     `json:"s"`
	Kind       ChangeKind `json:"k"`
	ID         string     `json:"id"`
	ContentSeq uint64     `json:"cs,omitempty"`
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

// TagRef maps an inbox tag (events.InboxTag) to the live inboxes that
// have it: the way from a message id alone to its inbox. Tags are 48
// random bits, so it is one inbox all but always.
type TagRef struct {
	Meta
	Inboxes []string `json:"inboxes"`
}

// MessageRef finds the inbox of a message whose id carries no tag of its
// inbox: one received before message ids did (a log of format 2).
type MessageRef struct {
	Meta
	InboxID string `json:"inbox_id"`
}

// Summary is a message as lists show it, and all the views keep of it:
// where its content is and what happened to it. What lists show of what
// it says (sender, subject, preview, attachments) is joined in by
// Reader.List from its sealed content, never stored in a view: so
// deleting a message (erasing its key) leaves nothing of what it said in
// any view entry, old revisions included.
type Summary struct {
	ID         string    `json:"id"`
	ReceivedAt time.Time `json:"at"`
	Size       int64     `json:"size"`
	IsRead     bool      `json:"read,omitempty"`
	ReadSeq    uint64    `json:"read_seq,omitempty"` // the MarkedRead that marked it
	// ContentSeq is the sequence of its MailReceived, which holds its
	// sealed content, and Key the reference of that content's key.
	ContentSeq uint64 `json:"seq"`
	Key        uint64 `json:"key"`
	// RawObject names the sealed raw message in the object store when it
	// is large; a small one is in its content.
	RawObject string       `json:"raw,omitempty"`
	Print     events.Print `json:"print,omitzero"`
	// DeletedSeq marks a summary of a closed page deleted by the event at
	// that sequence: readers skip it, and the page drops it when it is
	// next written once that event is applied whole (so that applying the
	// event again still finds what it deleted).
	DeletedSeq uint64 `json:"deleted,omitempty"`
	// ClaimSeq is its tenant's claim of it (events.MailClaimed), which
	// leaves the log with it; 0: no claim counted it.
	ClaimSeq uint64 `json:"claim,omitempty"`

	// Joined by Reader; never stored.
	From        string            `json:"-"`
	FromName    string            `json:"-"`
	Subject     string            `json:"-"`
	Preview     string            `json:"-"`
	To          []string          `json:"-"`
	Cc          []string          `json:"-"`
	Attachments []mail.Attachment `json:"-"`
}

// ContentRef locates the summarised message's sealed content.
func (s *Summary) ContentRef() events.ContentRef {
	return events.ContentRef{MessageID: s.ID, Seq: s.ContentSeq, Key: s.Key}
}

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

// Page is one closed page of an inbox's list.
type Page struct {
	Meta
	Items []Summary `json:"items"` // newest first
}

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
	// Later are the sequences of its events after its WebhookCreated
	// (its newest secret's rotation: at most one), for the log to forget
	// with it.
	Later []uint64 `json:"later,omitempty"`
	// ClaimSeq is its inbox's tenant's claim of it, which leaves the log
	// with it; 0: none.
	ClaimSeq uint64 `json:"claim_seq,omitempty"`
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
	// Claimed: its inbox's tenant's quota counted it (its claim is
	// Webhook.ClaimSeq).
	Claimed bool `json:"claimed,omitempty"`
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

// Pending is what the log is still to forget of what a partition's views
// let go (events.Store.Forget): written before the views that let it go,
// done once the partition's checkpoint reaches UpTo (worker.go).
type Pending struct {
	Meta
	Forget events.Forget `json:"forget"`
	UpTo   uint64        `json:"up_to"`
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

// printable names a key in an error, which may reach a log: a token key
// holds an inbox's token, which no log may show.
func printable(key string) string {
	if strings.HasPrefix(key, "t.") {
		return "t.<token>"
	}
	return key
}
func messageRefKey(id string) string { return "m." + id }

// topicOf is the Hub topic a write of key changes, if any (the zero Topic):
// an inbox's entry its inbox's topic (every event that changes what its
// readers see writes it), a checkpoint its partition's.
func topicOf(key string) Topic {
	if id, ok := strings.CutPrefix(key, "i."); ok {
		return InboxTopic(id)
	}
	if part, ok := strings.CutPrefix(key, "c."); ok {
		return PartitionTopic(part)
	}
	return Topic{}
}
func checkpointKey(part string) string { return "c." + part }
func pendingKey(part string) string    { return "f." + part }
func webhookKey(id string) string      { return "w." + id }
func pageKey(inboxID string, n int64) string {
	return "l." + inboxID + "." + strconv.FormatInt(n, 10)
}

// writeRank orders the writes of a batch: the entries a reader reaches
// first (an address, then an inbox) are written after what they lead to
// (pages, subscriptions, tokens, tags), so that a reader that finds them
// finds the rest; the checkpoint, which says the batch is applied, last.
//
// A rank's writes are stored before the next rank's are sent (Views.write),
// so the ranks are also what entry may depend on what: an entry that says
// an event is applied (an inbox, for the mail in its pages; a tenant, for
// its list and keys) ranks after every entry the event changes. A key's
// entries are what authentication reaches first, so a key is written
// after its tenant, and taken away (gone) before it.
func writeRank(key string, gone bool) int {
	key_ := strings.HasPrefix(key, "kh.") || strings.HasPrefix(key, "ki.")
	switch {
	case strings.HasPrefix(key, "f."):
		return -1 // what the log is to forget, before the views let go of it
	case key_ && gone:
		return 0
	case strings.HasPrefix(key, "i."), strings.HasPrefix(key, "tenant."):
		return 1
	case strings.HasPrefix(key, "a."), key_:
		return 2 // an address, a key: what a reader reaches first
	case key == webhooksKey || key == publicDomainsKey || strings.HasPrefix(key, "dn.") || strings.HasPrefix(key, "dt."):
		return 3 // the lists and indexes that lead to entries
	case strings.HasPrefix(key, "c."), strings.HasPrefix(key, "x."):
		return 4 // what says which events are applied, or set aside
	}
	return 0
}
