package events

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"
)

// Subjects carry the aggregate and its partition:
//
//	ev.sys.domains                               domain list (DomainAdded, DomainDeactivated)
//	ev.sys.webhooks.<webhookID>                  a subscription to every inbox (WebhookCreated, WebhookSecretRotated, WebhookDeleted)
//	ev.<part>.<addrKey>.w.<inboxID>.<webhookID>  a subscription to one inbox (WebhookCreated, WebhookSecretRotated, WebhookDeleted)
//	ev.<part>.<addrKey>.inbox                    inbox lifecycle of one address (InboxCreated, InboxDeleted, InboxExpired)
//	ev.<part>.<addrKey>.m.<inboxID>.<messageID>  one message (MailReceived, MarkedRead, Deleted)
//	sched.<part>.<addrKey>.<inboxID>.<what>      schedules: the server publishes their event when due
//
// Every subject holds the events of one thing, so that when it is gone its
// events leave the log with one purge (Store.Purge): a deleted message's,
// a deleted subscription's, an ended inbox's (its messages, subscriptions
// and the lifecycle events up to its end). The log so holds what is live,
// not its history.
//
// The address is the aggregate: its lifecycle subject holds at most one live
// inbox at a time, so claiming an address is one publish with the subject's
// expected last sequence, and delivering mail is one publish that expects the
// lifecycle subject unchanged since the views last saw it. Message subjects
// carry the inbox id, so that an ended inbox's content can be purged
// exactly; schedules live outside ev.>, so that projections consume a
// schedule's event only when it fires. <part> is "p<n>" with
// n = xxhash(address) mod the partition count fixed at stream creation.
const (
	subjectRoot    = "ev"
	scheduleRoot   = "sched"
	SysPartition   = "sys"
	domainsSubject = subjectRoot + "." + SysPartition + ".domains"
	hooksRoot      = subjectRoot + "." + SysPartition + ".webhooks"
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

// PartitionFilter is the subject filter of one partition's events.
func PartitionFilter(part string) string { return subjectRoot + "." + part + ".>" }

func partitionFor(addr string, n int) string {
	return PartitionName(int(xxhash.Sum64String(addr) % uint64(n)))
}

func inboxSubject(part, addr string) string {
	return subjectRoot + "." + part + "." + AddressKey(addr) + ".inbox"
}

func messageSubject(part, addr, inboxID, messageID string) string {
	return messagesOf(part, addr, inboxID) + "." + messageID
}

// messagesOf is the prefix of every message subject of one inbox.
func messagesOf(part, addr, inboxID string) string {
	return subjectRoot + "." + part + "." + AddressKey(addr) + ".m." + inboxID
}

// hooksOf is the prefix of the subjects of one inbox's webhook
// subscriptions.
func hooksOf(part, addr, inboxID string) string {
	return subjectRoot + "." + part + "." + AddressKey(addr) + ".w." + inboxID
}

func scheduleSubject(part, addr, inboxID, what string) string {
	return schedulesOf(part, addr, inboxID) + "." + what
}

func schedulesOf(part, addr, inboxID string) string {
	return scheduleRoot + "." + part + "." + AddressKey(addr) + "." + inboxID
}
