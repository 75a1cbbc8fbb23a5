package projections

import (
	"tempmail/projections/entry"
	"tempmail/projections/view"
)

// The views' entries are package entry's, with their stored form; these
// names are the ones the rest of the service reads them by.
type (
	Inbox        = entry.Inbox
	PageRef      = entry.PageRef
	Mark         = entry.Mark
	Address      = entry.Address
	TokenRef     = entry.TokenRef
	TagRef       = entry.TagRef
	MessageRef   = entry.MessageRef
	Summary      = entry.Summary
	Page         = entry.Page
	Webhook      = entry.Webhook
	WebhookRef   = entry.WebhookRef
	FaultRule    = entry.FaultRule
	FaultState   = entry.FaultState
	FaultList    = entry.FaultList
	Attempt      = entry.Attempt
	WebhookList  = entry.WebhookList
	Domain       = entry.Domain
	DomainList   = entry.DomainList
	DomainIDs    = entry.DomainIDs
	Tenant       = entry.Tenant
	Claims       = entry.Claims
	TenantInbox  = entry.TenantInbox
	KeyInfo      = entry.KeyInfo
	Key          = entry.Key
	KeyRef       = entry.KeyRef
	TenantList   = entry.TenantList
	TenantPage   = entry.TenantPage
	TenantMember = entry.TenantMember
	TenantUsage  = entry.TenantUsage
	Device       = entry.Device
	DeviceList   = entry.DeviceList
	DeviceItem   = entry.DeviceItem
	ChangeKind   = entry.ChangeKind

	// Counts are what the views hold, as the partitions' checkpoints
	// count them (Views.Counts).
	Counts = view.Counts
	// Hub and Topic wake the waiters for a change (Reader.Hub).
	Hub   = view.Hub
	Topic = view.Topic
)

// What happened to a message, as Changes tells it (entry.ChangeKind).
const (
	AttemptsKept = entry.AttemptsKept
	// ServiceAttemptsKept bounds the service's attempt log.
	ServiceAttemptsKept = entry.ServiceAttemptsKept
	// AttemptLife is how long an attempt log keeps an attempt.
	AttemptLife   = entry.AttemptLife
	ChangeMessage = entry.ChangeMessage
	ChangeRead    = entry.ChangeRead
	ChangeDeleted = entry.ChangeDeleted
	ChangeReset   = entry.ChangeReset
	ChangeAttempt = entry.ChangeAttempt
)

// InboxTopic changes whenever an inbox or its messages do: every event that
// changes its messages writes its entry (Changes relies on it).
func InboxTopic(inboxID string) Topic { return view.EntryTopic(inboxKey(inboxID)) }

// AddressTopic changes when an inbox is made at addr (its address entry
// is written then): for a waiter on mail to an address that no inbox has
// yet, such as one of a catch-all domain.
func AddressTopic(addr string) Topic { return view.EntryTopic(addressKey(addr)) }

// PartitionTopic changes whenever a partition has applied more events.
func PartitionTopic(part string) Topic { return view.PartitionTopic(part) }
