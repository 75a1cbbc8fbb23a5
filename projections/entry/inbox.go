package entry

import (
	"slices"
	"time"

	"tempmail/events"
	"tempmail/mailbox"
	"tempmail/projections/view"
)

// Inbox is one inbox: its fields, and everything a read of its mail starts
// from, in one entry, so that a message costs one view write (or less,
// when a batch brings several for one inbox): its newest messages (Head,
// the open page of its list), the index of its closed pages, what changed
// lately (for event streams), and its subscriptions.
type Inbox struct {
	view.Meta
	ID        string    `json:"id"`
	Address   string    `json:"address"`
	Token     string    `json:"token"`
	DomainID  int       `json:"domain_id"`
	CreatedAt time.Time `json:"created_at"`
	ExpiresAt time.Time `json:"expires_at,omitzero"`
	TTL       int64     `json:"ttl,omitempty"`
	// Retention is what becomes of its messages (events.InboxCreated).
	Retention mailbox.Retention `json:"retention,omitempty"`
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

	// Faults are its SMTP fault rules and its attempt log.
	Faults FaultState `json:"faults,omitzero"`

	// TenantID is the tenant whose key made it; empty: made without one.
	TenantID string `json:"tenant_id,omitempty"`
	// PasswordHash is a mail.tm account's password, hashed
	// (events.InboxCreated); empty for every other inbox. No answer shows it.
	PasswordHash string `json:"password_hash,omitempty"`
	// Held is what it holds: the sum of its messages' sizes, and how
	// many of them came on Held.Day (a UTC day, its newest message's);
	// Claimed is what of it its tenant's claims counted. Kept for a
	// tenant's inbox alone: what its ending takes off its tenant's usage
	// (projections/usage.go).
	Held    Claims `json:"held,omitzero"`
	Claimed Claims `json:"claimed,omitzero"`
}

// Counts is what the inbox counts for in its partition's counts while it
// is live (engine.Counted): itself and its messages; its address names
// the partition.
func (in *Inbox) Counts() (view.Counts, string) {
	return view.Counts{Inboxes: 1, Messages: int64(in.Count)}, in.Address
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
	view.Meta
	InboxID      string `json:"inbox_id"`
	Live         bool   `json:"live"`
	LifecycleSeq uint64 `json:"lifecycle_seq"` // last event on the address's lifecycle subject
}

// TokenRef maps a family C token to its inbox.
type TokenRef struct {
	view.Meta
	InboxID string `json:"inbox_id"`
}

// TagRef maps an inbox tag (events.InboxTag) to the live inboxes that
// have it: the way from a message id alone to its inbox. Tags are 48
// random bits, so it is one inbox all but always.
type TagRef struct {
	view.Meta
	Inboxes []string `json:"inboxes"`
}

// MessageRef finds the inbox of a message whose id carries no tag of its
// inbox: one received before message ids did (a log of format 2).
type MessageRef struct {
	view.Meta
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

	// Head is what it says, joined by Reader from its content; never
	// stored.
	mailbox.Head `json:"-"`
}

// Shown is the message as lists show it, in the inbox at address.
func (s *Summary) Shown(address string) mailbox.Summary {
	return mailbox.Summary{ID: s.ID, Address: address, ReceivedAt: s.ReceivedAt, Size: s.Size, IsRead: s.IsRead,
		Head: s.Head}
}

// ContentRef locates the summarised message's sealed content.
func (s *Summary) ContentRef() mailbox.ContentRef {
	return mailbox.ContentRef{MessageID: s.ID, Seq: s.ContentSeq, Key: s.Key}
}

// Page is one closed page of an inbox's list.
type Page struct {
	view.Meta
	Items []Summary `json:"items"` // newest first
}

// Webhook is an outbound webhook subscription (events.WebhookCreated).
type Webhook struct {
	view.Meta
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
	view.Meta
	Items []WebhookRef `json:"items"`
}

// ChangeKind names what happened to a message.
type ChangeKind string

const (
	ChangeMessage ChangeKind = "message"
	ChangeRead    ChangeKind = "read"
	ChangeDeleted ChangeKind = "deleted"
	// ChangeReset says that what the client holds may be stale beyond
	// repair by changes: it resumed from before the oldest read or
	// deletion the views still keep (or from after what the inbox has
	// seen), and must load the list afresh.
	ChangeReset ChangeKind = "reset"
	// ChangeAttempt is an SMTP attempt at an inbox with fault rules, as
	// its attempt log shows it (not a change to a message).
	ChangeAttempt ChangeKind = "attempt"
)

func (in *Inbox) Clone() view.Record {
	c := *in
	c.Head, c.Pages = slices.Clone(in.Head), slices.Clone(in.Pages)
	c.Marks, c.Webhooks = slices.Clone(in.Marks), slices.Clone(in.Webhooks)
	c.Faults = in.Faults.clone()
	return &c
}
func (a *Address) Clone() view.Record    { c := *a; return &c }
func (t *TokenRef) Clone() view.Record   { c := *t; return &c }
func (t *TagRef) Clone() view.Record     { c := *t; c.Inboxes = slices.Clone(t.Inboxes); return &c }
func (m *MessageRef) Clone() view.Record { c := *m; return &c }
func (p *Page) Clone() view.Record       { c := *p; c.Items = slices.Clone(p.Items); return &c }
func (w *Webhook) Clone() view.Record {
	c := *w
	c.Events, c.Later = slices.Clone(w.Events), slices.Clone(w.Later)
	return &c
}
func (l *WebhookList) Clone() view.Record {
	c := *l
	c.Items = slices.Clone(l.Items)
	return &c
}
