package events

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"tempmail/mailbox"
	"time"
)

// Type names an event. Each type has a schema version (schema); decoding an
// event of an unknown type or version is an error, never a silent skip, so
// that an old binary cannot quietly build wrong views from a newer log.
type Type string

const (
	TypeDomainAdded       Type = "DomainAdded"
	TypeDomainDeactivated Type = "DomainDeactivated"
	TypeInboxCreated      Type = "InboxCreated"
	TypeInboxDeleted      Type = "InboxDeleted"
	TypeInboxExpired      Type = "InboxExpired"
	TypeMailReceived      Type = "MailReceived"
	TypeMarkedRead        Type = "MarkedRead"
	TypeDeleted           Type = "Deleted"
	TypeWebhookCreated    Type = "WebhookCreated"
	TypeWebhookDeleted    Type = "WebhookDeleted"
	// TypeWebhookSecretRotated gives a subscription a new signing secret.
	TypeWebhookSecretRotated Type = "WebhookSecretRotated"
	// Tenants and their keys (tenants.go).
	TypeTenantCreated Type = "TenantCreated"
	TypeTenantChanged Type = "TenantChanged"
	TypeTenantDeleted Type = "TenantDeleted"
	TypeKeyCreated    Type = "KeyCreated"
	TypeKeyRevoked    Type = "KeyRevoked"
	// A tenant's inboxes, counted on its own subject for its quota.
	TypeTenantInboxAdded   Type = "TenantInboxAdded"
	TypeTenantInboxRemoved Type = "TenantInboxRemoved"
	// What else a tenant's quota counts, claimed on its subject
	// (claims.go), and a revoked key and a deleted tenant each barred on a
	// subject of its own.
	TypeMailClaimed         Type = "MailClaimed"
	TypeWebhookClaimed      Type = "WebhookClaimed"
	TypeTenantDomainAdded   Type = "TenantDomainAdded"
	TypeTenantDomainRemoved Type = "TenantDomainRemoved"
	TypeKeyBarred           Type = "KeyBarred"
	TypeTenantBarred        Type = "TenantBarred"
	// A tenant's virtual security devices (devices.go).
	TypeDeviceCreated Type = "DeviceCreated"
	TypeDeviceDeleted Type = "DeviceDeleted"
	// An inbox's SMTP fault rules and the attempts they saw (faults.go).
	TypeFaultAdded   Type = "FaultAdded"
	TypeFaultDeleted Type = "FaultDeleted"
	TypeAttempted    Type = "Attempted"
)

// Payload is the body of one event.
type Payload interface {
	// EventType is the Type the payload is recorded under.
	EventType() Type
}

// DomainAdded records a domain, active from now on: a configured one
// (--domains), or one the admin added at runtime (API set). It is stored
// on the domain's own subject (domains.go), expecting the subject's last
// event, so that of two claims of one name exactly one wins. A new
// domain's event has ID 0: its id is the event's own sequence, unique
// without a counter; a DomainAdded of a live domain's id changes it (a new
// label). A log written before names had subjects of their own gave ids
// from 1 on, and kept every domain's events on one subject. The optional
// fields are left out when empty, so that the events written before they
// existed read as they did: configured, public, not catch-all.
type DomainAdded struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
	// API: added through POST /api/domains/, so that a restart's
	// SyncDomains, which knows only --domains, leaves it alone.
	API bool `json:"api,omitempty"`
	// TenantID makes the domain private to that tenant.
	TenantID string `json:"tenant_id,omitempty"`
	// CatchAll: the first mail to an address makes its inbox.
	CatchAll bool `json:"catch_all,omitempty"`
	// Label is a name its tenant gave the domain (a Mailosaur server's
	// name); a DomainAdded of an active domain's id with another label
	// renames it. Optional as the two above, so no new version: a build
	// before it reads the event as the domain without its label.
	Label string `json:"label,omitempty"`
	// ClaimBack, when not 0, says its tenant's count of private domains
	// claimed it: its TenantDomainAdded is the event that many before it.
	ClaimBack uint64 `json:"claim_back,omitempty"`
	// Server: a Mailosaur server, which its tenant's count of servers
	// counts too.
	Server bool `json:"server,omitempty"`
}

// DomainDeactivated records that a domain left the configuration.
type DomainDeactivated struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

// InboxCreated claims an address for a new inbox. It is published on the
// address's lifecycle subject with the expected last sequence of that subject,
// so two claims of one address cannot both succeed.
//
// It says what the inbox is, never through which API it was made: its
// lifetime (ExpiresAt, TTL) and what becomes of its messages (Retention)
// are each a field of their own. Events written before Retention existed
// said it with a letter, "family": "B" for the mailbox API, whose messages
// are retained; UnmarshalJSON reads that letter as Retention, and no
// event is written with it any more.
type InboxCreated struct {
	InboxID   string    `json:"inbox_id"`
	Address   string    `json:"address"`
	Token     string    `json:"token"`
	DomainID  int       `json:"domain_id"`
	CreatedAt time.Time `json:"created_at"`
	ExpiresAt time.Time `json:"expires_at,omitzero"` // zero: never
	TTL       int64     `json:"ttl,omitempty"`       // seconds, as asked through the inbox API
	// Retention is what becomes of its messages; left out for the
	// default (mailbox.RetainWithInbox).
	Retention mailbox.Retention `json:"retention,omitempty"`
	// TenantID is the tenant whose key made the inbox; empty: made
	// without a key (anonymous), as every inbox of version 1 was.
	TenantID string `json:"tenant_id,omitempty"`
	// PasswordHash is the slow salted hash of the password a mail.tm
	// account was made with (api/compat/mailtm/accounts.go makes and
	// checks it), never the password; empty for every other inbox, as
	// for every inbox of versions 1 and 2.
	PasswordHash string `json:"password_hash,omitempty"`
}

// UnmarshalJSON reads an InboxCreated of any version, mapping the letter
// of those written before Retention ("family") to it. The letter is read
// here and dropped, rather than kept as a field beside Retention, so that
// nothing decoded has two fields that say one thing, and no code can come
// to branch on the API an inbox was made through again: "B" (the
// mailbox API) meant that each message is kept for --message-retention;
// "A" and "C" meant the default.
func (ev *InboxCreated) UnmarshalJSON(b []byte) error {
	type plain InboxCreated // the fields, without this method
	var v struct {
		plain
		Family string `json:"family"` // versions 1 to 3
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*ev = InboxCreated(v.plain)
	if v.Family == "B" && ev.Retention == mailbox.RetainWithInbox {
		ev.Retention = mailbox.RetainMessages
	}
	return nil
}

// InboxDeleted ends an inbox at a user's request.
type InboxDeleted struct {
	InboxID string `json:"inbox_id"`
	Address string `json:"address"`
}

// InboxExpired ends an inbox whose lifetime ran out.
type InboxExpired struct {
	InboxID string `json:"inbox_id"`
	Address string `json:"address"`
}

// MailReceived records one message delivered to one inbox.
//
// Its JSON says only where the message is (inbox, id, time, size, the key
// its content is sealed under); what the message says, everything a person
// wrote, follows the JSON in the same stored message, sealed (sealed.Seal).
// Deleting the message erases its key: the event stays, and nothing of what
// it said can be read back from it, so a rebuild after deletions replays the
// very history the live views saw. Store.AppendMail seals the Content of a
// MailReceived; Store.Content opens it again.
type MailReceived struct {
	InboxID    string    `json:"inbox_id"`
	MessageID  string    `json:"message_id"` // UUIDv7, sorts by arrival
	Address    string    `json:"address"`    // the recipient inbox address
	ReceivedAt time.Time `json:"received_at"`
	Size       int64     `json:"size"`                 // bytes of the raw message
	RawObject  string    `json:"raw_object,omitempty"` // where the sealed raw bytes are, when not in the content
	Key        uint64    `json:"key"`                  // the content's key (sealed.Keys)
	// Print recognises a sender's retry of this very message (Print).
	Print Print `json:"print,omitzero"`
	// ClaimBack, when not 0, says its tenant's quota claimed it: its
	// MailClaimed is the event that many before it, in the same batch.
	// TenantID names that tenant, for the views to count the claim out
	// where the message goes (a message that finds its inbox ended).
	ClaimBack uint64 `json:"claim_back,omitempty"`
	TenantID  string `json:"tenant_id,omitempty"`

	// Content is what to seal, when delivering; it is never part of the
	// event's JSON.
	Content mailbox.Content `json:"-"`
	// Sealed is the content as stored after the JSON; Decode leaves it
	// sealed.
	Sealed []byte `json:"-"`
}

// Print identifies a message as its sender sent it, so that a retry is
// recognised for the inbox's life, long after the stream's dedupe window:
// an MTA that lost our 250 sends the same bytes again minutes or days
// later. Raw is a hash of the bytes the sender sent; Body, when the message
// has a Message-ID, a hash of that id and the body below the header block,
// which stays the same when a relay's retry changes a trace header. Hashes,
// not content: they say nothing of what the message says.
type Print struct {
	Raw  uint64 `json:"raw"`
	Body uint64 `json:"body,omitempty"`
}

// Matches reports whether p and q print the same message.
func (p Print) Matches(q Print) bool {
	return p.Raw != 0 && (p.Raw == q.Raw || (p.Body != 0 && p.Body == q.Body))
}

// MarkedRead records that a message was read.
type MarkedRead struct {
	InboxID   string `json:"inbox_id"`
	MessageID string `json:"message_id"`
}

// Deleted records that a message was deleted.
type Deleted struct {
	InboxID   string `json:"inbox_id"`
	MessageID string `json:"message_id"`
	Reason    string `json:"reason,omitempty"` // empty: a user deleted it
}

// WebhookCreated records an outbound webhook subscription: events of the
// kinds it names are delivered to URL, signed with Secret. With an inbox it
// follows that inbox alone and ends with it, and is recorded among the
// inbox's events (so after the inbox's own creation, in its partition);
// without, it follows every inbox and is recorded with the domain list.
// The secret is part of the event so that a rebuild restores the
// subscription whole.
type WebhookCreated struct {
	WebhookID string    `json:"webhook_id"`
	URL       string    `json:"url"`
	Events    []string  `json:"events"`
	InboxID   string    `json:"inbox_id,omitempty"`
	Address   string    `json:"address,omitempty"` // the inbox's address, when InboxID is set
	Secret    string    `json:"secret"`
	CreatedAt time.Time `json:"created_at"`
	// ClaimBack, when not 0, says its inbox's tenant's quota claimed it:
	// its WebhookClaimed is the event that many before it; TenantID names
	// that tenant.
	ClaimBack uint64 `json:"claim_back,omitempty"`
	TenantID  string `json:"tenant_id,omitempty"`
}

// WebhookDeleted ends a subscription at its owner's request.
type WebhookDeleted struct {
	WebhookID string `json:"webhook_id"`
	InboxID   string `json:"inbox_id,omitempty"`
	Address   string `json:"address,omitempty"`
}

// WebhookSecretRotated replaces a subscription's signing secret: the API
// shows a secret only when it is made, so a lost or leaked one is
// replaced, not read again. It is recorded on the subscription's own
// subject, so it leaves the log with the subscription.
type WebhookSecretRotated struct {
	WebhookID string    `json:"webhook_id"`
	InboxID   string    `json:"inbox_id,omitempty"`
	Address   string    `json:"address,omitempty"`
	Secret    string    `json:"secret"`
	RotatedAt time.Time `json:"rotated_at"`
}

func (DomainAdded) EventType() Type       { return TypeDomainAdded }
func (DomainDeactivated) EventType() Type { return TypeDomainDeactivated }
func (InboxCreated) EventType() Type      { return TypeInboxCreated }
func (InboxDeleted) EventType() Type      { return TypeInboxDeleted }
func (InboxExpired) EventType() Type      { return TypeInboxExpired }
func (MailReceived) EventType() Type      { return TypeMailReceived }
func (MarkedRead) EventType() Type        { return TypeMarkedRead }
func (Deleted) EventType() Type           { return TypeDeleted }
func (WebhookCreated) EventType() Type    { return TypeWebhookCreated }
func (WebhookDeleted) EventType() Type    { return TypeWebhookDeleted }
func (WebhookSecretRotated) EventType() Type {
	return TypeWebhookSecretRotated
}

// envelope is the JSON form of an event in the stream.
type envelope struct {
	Type    Type            `json:"type"`
	Version int             `json:"v"`
	Time    time.Time       `json:"time"`
	Data    json.RawMessage `json:"data"`
}

// Event is a decoded event with its place in the stream.
type Event struct {
	Seq       uint64 // stream sequence
	Subject   string
	Partition string
	Time      time.Time // when it was published
	Payload   Payload
}

// Encode returns the stored form of p, stamped with time at: its JSON, and
// for a MailReceived its sealed content after a newline (JSON never holds
// a raw one).
func Encode(p Payload, at time.Time) ([]byte, error) {
	data, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	// The envelope is written as json.Marshal writes the envelope type
	// (a test holds them equal), in one buffer with room for a
	// MailReceived's sealed content: marshalling it copied data once more
	// to check it, and appending the content copied the whole again.
	var sealed []byte
	if m, ok := p.(*MailReceived); ok {
		sealed = m.Sealed
	}
	t := p.EventType()
	out := make([]byte, 0, len(`{"type":"","v":,"time":"","data":}`)+len(t)+20+len(time.RFC3339Nano)+len(data)+1+len(sealed))
	out = append(append(append(out, `{"type":"`...), t...), `","v":`...)
	out = strconv.AppendInt(out, int64(writtenVersion(p)), 10)
	out = append(out, `,"time":"`...)
	out = at.UTC().AppendFormat(out, time.RFC3339Nano)
	out = append(append(append(out, `","data":`...), data...), '}')
	if len(sealed) > 0 {
		out = append(append(out, '\n'), sealed...)
	}
	return out, nil
}

// Decode parses an event written by Encode. The payload is a pointer
// (*InboxCreated, *MailReceived, ...); a MailReceived's content stays
// sealed, and shares b's memory.
func Decode(b []byte) (Payload, time.Time, error) {
	b, sealed, _ := bytes.Cut(b, []byte("\n"))
	var env envelope
	if err := json.Unmarshal(b, &env); err != nil {
		return nil, time.Time{}, fmt.Errorf("decode event: %w", err)
	}
	v, p := schema(env.Type)
	if v == 0 {
		return nil, env.Time, fmt.Errorf("decode event: unknown type %q", env.Type)
	} else if env.Version != v && !readable(env.Type, env.Version) {
		return nil, env.Time, fmt.Errorf("decode event: %s version %d is not supported (this build reads version %d)", env.Type, env.Version, v)
	}
	if err := json.Unmarshal(env.Data, p); err != nil {
		return nil, env.Time, fmt.Errorf("decode %s: %w", env.Type, err)
	}
	if m, ok := p.(*MailReceived); ok {
		m.Sealed = sealed
	}
	return p, env.Time, nil
}

// writtenVersion is the version p is written in: an inbox of no tenant and
// no password is written as version 1, which it is, so that a binary of
// the version before tenants still reads it (in a cluster being
// upgraded); one of a tenant, as version 2, which such a binary refuses
// rather than take the inbox for anonymous; one with a password (a
// mail.tm account), as version 3, which a binary of version 2 refuses
// rather than take the account for one anyone may log in to; one whose
// messages are retained, as version 4, which a binary of version 3
// refuses (it sets the event aside, to try again once upgraded) rather
// than take the inbox for one whose messages are kept as long as it
// lives, which for a mailbox is for ever. Versions 1 to 3 said so with
// "family": "B", which no version 4 event has.
func writtenVersion(p Payload) int {
	var ev *InboxCreated
	switch e := p.(type) {
	case InboxCreated:
		ev = &e
	case *InboxCreated:
		ev = e
	default:
		v, _ := schema(p.EventType())
		return v
	}
	switch {
	case ev.Retention != mailbox.RetainWithInbox:
		return 4
	case ev.PasswordHash != "":
		return 3
	case ev.TenantID != "":
		return 2
	}
	return 1
}

// readable reports an older version of t that this build still reads.
func readable(t Type, v int) bool {
	return t == TypeInboxCreated && v >= 1 && v <= 3
}

// schema is what this build knows of events of type t: the version it
// writes (version 0: t is unknown), and an empty payload to decode one
// into, a pointer, so that consumers switch on *InboxCreated and the like.
// One table, so that no type has a version without a payload or the
// reverse.
func schema(t Type) (version int, p Payload) {
	switch t {
	case TypeDomainAdded:
		return 1, &DomainAdded{}
	case TypeDomainDeactivated:
		return 1, &DomainDeactivated{}
	case TypeInboxCreated:
		// 1 had no tenant_id, 2 no password_hash, 3 no retention (its
		// "family" said it, InboxCreated.UnmarshalJSON): all still read
		// (readable), and written for an inbox without what came after
		// them (writtenVersion).
		return 4, &InboxCreated{}
	case TypeInboxDeleted:
		return 1, &InboxDeleted{}
	case TypeInboxExpired:
		return 1, &InboxExpired{}
	case TypeMailReceived:
		return 2, &MailReceived{} // 1 had its content in a record beside it
	case TypeMarkedRead:
		return 1, &MarkedRead{}
	case TypeDeleted:
		return 1, &Deleted{}
	case TypeWebhookCreated:
		return 1, &WebhookCreated{}
	case TypeWebhookDeleted:
		return 1, &WebhookDeleted{}
	case TypeWebhookSecretRotated:
		return 1, &WebhookSecretRotated{}
	case TypeTenantCreated:
		return 1, &TenantCreated{}
	case TypeTenantChanged:
		return 1, &TenantChanged{}
	case TypeTenantDeleted:
		return 1, &TenantDeleted{}
	case TypeKeyCreated:
		return 1, &KeyCreated{}
	case TypeKeyRevoked:
		return 1, &KeyRevoked{}
	case TypeTenantInboxAdded:
		return 1, &TenantInboxAdded{}
	case TypeTenantInboxRemoved:
		return 1, &TenantInboxRemoved{}
	case TypeMailClaimed:
		return 1, &MailClaimed{}
	case TypeWebhookClaimed:
		return 1, &WebhookClaimed{}
	case TypeTenantDomainAdded:
		return 1, &TenantDomainAdded{}
	case TypeTenantDomainRemoved:
		return 1, &TenantDomainRemoved{}
	case TypeKeyBarred:
		return 1, &KeyBarred{}
	case TypeTenantBarred:
		return 1, &TenantBarred{}
	case TypeDeviceCreated:
		return 1, &DeviceCreated{}
	case TypeDeviceDeleted:
		return 1, &DeviceDeleted{}
	case TypeFaultAdded:
		return 1, &FaultAdded{}
	case TypeFaultDeleted:
		return 1, &FaultDeleted{}
	case TypeAttempted:
		return 1, &Attempted{}
	}
	return 0, nil
}
