package events

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/google/uuid"
)

// Subjects carry the aggregate and its partition, one subject per inbox
// (never per message), so that the server's index of subjects grows with
// inboxes, not with the mail they hold:
//
//	ev.sys.domain.<nameKey>               one domain name (DomainAdded, DomainDeactivated); before format 4, every domain's were on ev.sys.domains
//	ev.sys.webhooks                       subscriptions to every inbox (WebhookCreated, WebhookSecretRotated, WebhookDeleted)
//	ev.sys.faults                         the service's fault rules and the attempts they saw (FaultAdded, FaultDeleted, Attempted)
//	ev.sys.faults.<tenantID>              a tenant's (the same)
//	ev.sys.tenant.<tenantID>              one tenant, its keys, its devices and what its quota counts (TenantCreated, TenantChanged, TenantDeleted, KeyCreated, KeyRevoked, DeviceCreated, DeviceDeleted, and the claims of claims.go)
//	ev.sys.barred.<hash>                  a revoked key (KeyBarred), which authentication reads
//	ev.sys.ended.<tenantID>               a deleted tenant (TenantBarred), which authentication reads
//	ev.<part>.<addrKey>.inbox             inbox lifecycle of one address (InboxCreated, InboxDeleted, InboxExpired)
//	ev.<part>.<addrKey>.m.<inboxID>       every message event of one inbox (MailReceived, MarkedRead, Deleted)
//	ev.<part>.<addrKey>.w.<inboxID>       subscriptions to one inbox (the same)
//	ev.<part>.<addrKey>.f.<inboxID>       fault rules of one inbox and the SMTP attempts they saw (FaultAdded, FaultDeleted, Attempted)
//	sched.<part>.<addrKey>.<inboxID>.<what>  schedules: the server publishes their event when due
//	sched.sys.tenant.<tenantID>.<inboxID>    an expiring tenant inbox's removal from its tenant's count
//
// What is gone leaves the log: a deleted message's events (and a deleted
// subscription's, and a deleted device's, its secret with it) by their
// sequences, which the views know; an ended inbox's with one purge of
// each of its subjects; a deactivated domain's and a deleted tenant's
// subjects (its devices' with them); a tenant's claims of what is gone,
// and its events that later ones made moot (Store.Forget). The log so
// holds what is live, not its history.
//
// The address is the aggregate: its lifecycle subject holds at most one live
// inbox at a time, so claiming an address is one publish with the subject's
// expected last sequence, and delivering mail is one publish that expects the
// lifecycle subject unchanged since the views last saw it. Schedules live
// outside ev.>, so that projections consume a schedule's event only when it
// fires. <part> is "p<n>" with n = xxhash(address) mod the partition count
// fixed at stream creation.
//
// A log written before format 3 has a subject per message
// (ev.<part>.<addrKey>.m.<inboxID>.<messageID>) and per subscription (one
// more token after the inbox, or after ev.sys.webhooks); they are read as
// they are, and leave the log as their messages and subscriptions go.
const (
	subjectRoot    = "ev"
	scheduleRoot   = "sched"
	SysPartition   = "sys"
	domainsSubject = subjectRoot + "." + SysPartition + ".domains"
	hooksSubject   = subjectRoot + "." + SysPartition + ".webhooks"
	// serviceFaultsSubject holds the service's fault rules (the admin's)
	// and the attempts they saw.
	serviceFaultsSubject = subjectRoot + "." + SysPartition + ".faults"
)

// AddressKey encodes a normalised address as a subject token and KV key:
// exact (no hashing, no collisions) and free of '.', '*', '>' and spaces.
func AddressKey(addr string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(addr))
}

// PartitionName is the subject token of partition i.
func PartitionName(i int) string { return "p" + strconv.Itoa(i) }

// PartitionOf returns the partition token of an event subject.
func PartitionOf(subject string) string {
	rest, ok := strings.CutPrefix(subject, subjectRoot+".")
	if !ok {
		return ""
	}
	part, _, _ := strings.Cut(rest, ".")
	return part
}

// EventFilter matches every event, and nothing else the stream holds.
const EventFilter = subjectRoot + ".>"

// IsEvent says whether a message of the event stream, on subject, is an
// event (and not a schedule, which the stream holds too).
func IsEvent(subject string) bool { return strings.HasPrefix(subject, subjectRoot+".") }

// PartitionFilter is the subject filter of one partition's events.
func PartitionFilter(part string) string { return subjectRoot + "." + part + ".>" }

func partitionFor(addr string, n int) string {
	return PartitionName(int(xxhash.Sum64String(addr) % uint64(n)))
}

// tenantSubject holds every event of one tenant's aggregate: in the sys
// partition, whose one worker applies a tenant's events in order.
func tenantSubject(tenantID string) string {
	return subjectRoot + "." + SysPartition + ".tenant." + tenantID
}

func inboxSubject(part, addr string) string {
	return subjectRoot + "." + part + "." + AddressKey(addr) + ".inbox"
}

// messagesSubject holds every message event of one inbox.
func messagesSubject(part, addr, inboxID string) string {
	return subjectRoot + "." + part + "." + AddressKey(addr) + ".m." + inboxID
}

// hooksOf holds the events of one inbox's webhook subscriptions.
func hooksOf(part, addr, inboxID string) string {
	return subjectRoot + "." + part + "." + AddressKey(addr) + ".w." + inboxID
}

// faultsOf holds the fault rules of one inbox and the attempts they saw.
func faultsOf(part, addr, inboxID string) string {
	return subjectRoot + "." + part + "." + AddressKey(addr) + ".f." + inboxID
}

func scheduleSubject(part, addr, inboxID, what string) string {
	return schedulesOf(part, addr, inboxID) + "." + what
}

func schedulesOf(part, addr, inboxID string) string {
	return scheduleRoot + "." + part + "." + AddressKey(addr) + "." + inboxID
}

// NewMessageID returns the id of a new message of inbox inboxID: a UUIDv7
// (it sorts by arrival) whose last 48 bits are the inbox id's last 48 bits
// (InboxTag), so that a message found by its id alone (family A) leads to
// its inbox without an index entry per message. Within a process ids are
// unique and increasing (the version 7 clock and sequence); across
// processes the 14 bits still random keep them apart.
func NewMessageID(inboxID string) string {
	id := uuid.Must(uuid.NewV7())
	if in, err := uuid.Parse(inboxID); err == nil {
		copy(id[10:], in[10:])
	}
	return id.String()
}

// InboxTag is the part of a message id (or an inbox id) that names the
// inbox: the last group of its canonical form. Ids that are not canonical
// UUIDs have none.
func InboxTag(id string) string {
	if len(id) != 36 || id[23] != '-' {
		return ""
	}
	return id[24:]
}
