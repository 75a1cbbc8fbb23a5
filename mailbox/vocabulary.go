package mailbox

// Words the log, the views and the families share.

// Retention is what becomes of an inbox's messages as they age. How long
// the inbox itself lives is said apart (events.InboxCreated.ExpiresAt).
type Retention string

const (
	// RetainWithInbox, the zero value: a message lives as long as its
	// inbox, unless a user deletes it or a newer one evicts it
	// (--max-messages-per-inbox). The inbox and token APIs' inboxes.
	RetainWithInbox Retention = ""
	// RetainMessages: each message is kept for the service's
	// --message-retention from its arrival, then deleted; the inbox stays.
	// The mailbox API's inboxes, which never expire.
	RetainMessages Retention = "messages"
)

// Reasons a message is deleted other than a user's request.
const (
	ReasonRetention = "retention" // older than --message-retention (mailbox.RetainMessages)
	ReasonCap       = "cap"       // evicted by a newer one beyond --max-messages-per-inbox
)

// The kinds of change a webhook subscription can ask for (docs/webhooks.md
// "Outbound webhooks"), each told by one kind of event.
const (
	HookMessageReceived = "message.received" // events.MailReceived
	HookMessageRead     = "message.read"     // events.MarkedRead
	HookMessageDeleted  = "message.deleted"  // events.Deleted
	HookInboxExpired    = "inbox.expired"    // events.InboxExpired
	HookInboxDeleted    = "inbox.deleted"    // events.InboxDeleted
)

// HookKinds lists every kind a subscription may name.
func HookKinds() []string {
	return []string{HookMessageReceived, HookMessageRead, HookMessageDeleted, HookInboxExpired, HookInboxDeleted}
}
