package events

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
	"github.com/prometheus/client_golang/prometheus"

	"tempmail"
)

const (
	// StreamName is the event stream.
	StreamName = "EVENTS"
	// RawBucket is the object store of raw messages too large to travel
	// inside their MailReceived event.
	RawBucket = "RAW"

	partitionsKey = "tempmail_partitions"
	// DefaultPartitions is the partition count of a new stream.
	DefaultPartitions = 16
	// DedupeWindow bounds how long a retried ingest is recognised by its
	// Nats-Msg-Id.
	DedupeWindow = 2 * time.Minute
)

// StoreConfig shapes the stream when it is first created.
type StoreConfig struct {
	Partitions int // used only when the stream is created; fixed afterwards
	Replicas   int // 1, or 3 on a cluster
}

// Store publishes events and owns the stream and raw object store.
type Store struct {
	js         jetstream.JetStream
	stream     jetstream.Stream
	raw        jetstream.ObjectStore
	partitions int
	replicated bool                   // R3: reads of the object store may reach a follower
	errors     *prometheus.CounterVec // nil until Instrument
}

// Instrument registers the event store's error counter with reg.
func (s *Store) Instrument(reg prometheus.Registerer) {
	s.errors = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tempmail_event_store_errors_total",
		Help: "Failed event store and view store operations, by operation."}, []string{"op"})
	reg.MustRegister(s.errors)
}

// CountError records a failed operation (publish, apply, read) for metrics.
func (s *Store) CountError(op string) {
	if s.errors != nil {
		s.errors.WithLabelValues(op).Inc()
	}
}

// Ack says where an event landed.
type Ack struct {
	Seq       uint64
	Partition string
	Duplicate bool // a retry of an event already in the stream
	// MessageID, from Deliver only: the id of the stored copy, which for a
	// duplicate is the earlier attempt's, not the one just offered.
	MessageID string
}

// OpenStore creates or updates the stream and the raw object store. Running it
// again, or on several nodes at once, changes nothing.
func OpenStore(ctx context.Context, js jetstream.JetStream, cfg StoreConfig) (*Store, error) {
	if cfg.Replicas == 0 {
		cfg.Replicas = 1
	}
	partitions := cfg.Partitions
	if partitions <= 0 {
		partitions = DefaultPartitions
	}
	if st, err := js.Stream(ctx, StreamName); err == nil {
		// The partition count is part of every subject, so the stream's own
		// record wins over configuration.
		if n, err := strconv.Atoi(st.CachedInfo().Config.Metadata[partitionsKey]); err == nil && n > 0 {
			partitions = n
		}
	} else if !errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, fmt.Errorf("look up stream %s: %w", StreamName, err)
	}

	want := jetstream.StreamConfig{
		Name:        StreamName,
		Description: "tempmail events: the source of truth",
		Subjects:    []string{subjectRoot + ".>", contentRoot + ".>", scheduleRoot + ".>"},
		Storage:     jetstream.FileStorage,
		Replicas:    cfg.Replicas,
		Retention:   jetstream.LimitsPolicy,
		Discard:     jetstream.DiscardOld,
		Duplicates:  DedupeWindow,
		// Expiry and retention are fired by the server itself (per-message
		// TTLs and schedules), so they survive restarts and fire once.
		AllowMsgTTL:       true,
		AllowMsgSchedules: true,
		// One message to several inboxes is stored all or nothing.
		AllowAtomicPublish: true,
		// Projections read a message's content record as they apply its
		// event; a direct get returns it raw, where the JSON API would
		// base64 it (a tenth of all ingest CPU, measured). Replicated, a
		// direct get may be answered by a follower that has not yet
		// stored the record, so there every read goes to the leader.
		AllowDirect: cfg.Replicas == 1,
		Metadata:    map[string]string{partitionsKey: strconv.Itoa(partitions)},
	}
	stream, err := ensureStream(ctx, js, want)
	if err != nil {
		return nil, err
	}
	raw, err := openObjectStore(ctx, js, jetstream.ObjectStoreConfig{
		Bucket:      RawBucket,
		Description: "raw messages too large for their event",
		Storage:     jetstream.FileStorage,
		Replicas:    cfg.Replicas,
	})
	if err != nil {
		return nil, err
	}
	return &Store{js: js, stream: stream, raw: raw, partitions: partitions, replicated: cfg.Replicas > 1}, nil
}

// ensureStream creates the stream, or updates it when its configuration
// differs from want. It leaves an equal stream alone: when several nodes of a
// new cluster create or update the same stream at once, the server answers
// only one of them (the others retry, see cmd/tempmail's settle, and then
// find it in place).
func ensureStream(ctx context.Context, js jetstream.JetStream, want jetstream.StreamConfig) (jetstream.Stream, error) {
	st, err := js.Stream(ctx, want.Name)
	if err == nil && sameStream(st.CachedInfo().Config, want) {
		return st, nil
	}
	if err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, fmt.Errorf("look up stream %s: %w", want.Name, err)
	}
	if st, err = js.CreateOrUpdateStream(ctx, want); err != nil {
		return nil, fmt.Errorf("create stream %s: %w", want.Name, err)
	}
	return st, nil
}

// sameStream compares what OpenStore sets; the server fills in the rest.
func sameStream(have, want jetstream.StreamConfig) bool {
	return slices.Equal(have.Subjects, want.Subjects) && have.Replicas == want.Replicas &&
		have.Duplicates == want.Duplicates && have.AllowDirect == want.AllowDirect &&
		have.AllowMsgTTL == want.AllowMsgTTL && have.AllowMsgSchedules == want.AllowMsgSchedules &&
		have.AllowAtomicPublish == want.AllowAtomicPublish && have.Metadata[partitionsKey] == want.Metadata[partitionsKey]
}

// OpenKV binds to a KV bucket, creating it first if it does not exist.
// Replicated, its Get goes to the bucket's leader (see leaderKV).
func OpenKV(ctx context.Context, js jetstream.JetStream, cfg jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	kv, err := js.KeyValue(ctx, cfg.Bucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) || (err == nil && replicasDiffer(ctx, js, "KV_"+cfg.Bucket, cfg.Replicas)) {
		kv, err = js.CreateOrUpdateKeyValue(ctx, cfg)
	}
	if err != nil {
		return nil, fmt.Errorf("open KV %s: %w", cfg.Bucket, err)
	}
	if cfg.Replicas > 1 {
		return &leaderKV{KeyValue: kv, nc: js.Conn()}, nil
	}
	return kv, nil
}

// replicasDiffer reports whether an existing bucket's stream keeps another
// number of copies than asked for (--replicas changed): then it is updated,
// or losing a node would lose what only the old copies held.
func replicasDiffer(ctx context.Context, js jetstream.JetStream, stream string, want int) bool {
	st, err := js.Stream(ctx, stream)
	return err == nil && st.CachedInfo().Config.Replicas != max(want, 1)
}

func openObjectStore(ctx context.Context, js jetstream.JetStream, cfg jetstream.ObjectStoreConfig) (jetstream.ObjectStore, error) {
	obs, err := js.ObjectStore(ctx, cfg.Bucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) || (err == nil && replicasDiffer(ctx, js, "OBJ_"+cfg.Bucket, cfg.Replicas)) {
		obs, err = js.CreateOrUpdateObjectStore(ctx, cfg)
	}
	if err != nil {
		return nil, fmt.Errorf("open object store %s: %w", cfg.Bucket, err)
	}
	return obs, nil
}

// Stream is the event stream, for consumers.
func (s *Store) Stream() jetstream.Stream { return s.stream }

// OpenRaw streams a large message's raw bytes from the object store.
//
// The client library looks objects up with direct gets, which a follower
// may answer before it holds an object the leader acknowledged; so in a
// cluster, "not found" for an object a view names is asked again for a
// moment before it is believed.
func (s *Store) OpenRaw(ctx context.Context, name string) (io.ReadCloser, error) {
	for attempt := 0; ; attempt++ {
		obj, err := s.raw.Get(ctx, name)
		if err == nil {
			return obj, nil
		}
		if !s.replicated || !errors.Is(err, jetstream.ErrObjectNotFound) || attempt == 10 {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Raw is the object store of large raw messages.
func (s *Store) Raw() jetstream.ObjectStore { return s.raw }

// Partitions lists every partition token: "sys" first, then p0..pN-1.
func (s *Store) Partitions() []string {
	parts := []string{SysPartition}
	for i := 0; i < s.partitions; i++ {
		parts = append(parts, PartitionName(i))
	}
	return parts
}

// PartitionOfAddress returns the partition holding an address's events.
func (s *Store) PartitionOfAddress(addr string) string { return partitionFor(addr, s.partitions) }

// LastSeq is the sequence of the newest event in the stream.
func (s *Store) LastSeq(ctx context.Context) (uint64, error) {
	info, err := s.stream.Info(ctx)
	if err != nil {
		return 0, unavailable(err)
	}
	return info.State.LastSeq, nil
}

// LastEventSeq is the sequence of the newest event (content records and
// schedules, which share the stream, are not events).
func (s *Store) LastEventSeq(ctx context.Context) (uint64, error) {
	m, err := s.stream.GetLastMsgForSubject(ctx, EventFilter)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, unavailable(err)
	}
	return m.Sequence, nil
}

// AppendDomainEvent publishes a DomainAdded or DomainDeactivated, expecting
// the domain list's last event to be at expectSeq (0: none yet).
func (s *Store) AppendDomainEvent(ctx context.Context, p Payload, expectSeq uint64) (Ack, error) {
	m, err := eventMsg(domainsSubject, p)
	if err != nil {
		return Ack{}, err
	}
	expect(m, domainsSubject, expectSeq)
	acks, err := s.publishMsgs(ctx, m)
	if isWrongLastSeq(err) {
		return Ack{}, tempmail.Wrap(tempmail.Conflict, err, "the domain list changed concurrently")
	}
	return first(acks), err
}

// CreateInbox claims ev.Address for a new inbox. lastLifecycleSeq is the
// sequence of the last event on the address's lifecycle subject (0 if it
// never had an inbox), which the views record: the claim succeeds only if
// nothing happened on the address since, so of two claims made from the same
// knowledge exactly one wins and the other gets an error of kind Conflict.
// The caller must claim only addresses the views show as free.
//
// An inbox with an expiry gets its InboxExpired scheduled first, which the
// server itself publishes when the time comes (a message schedule): it
// survives restarts, fires once in a cluster, and costs no loop. Scheduled
// before the claim, it cannot be missing for a created inbox; if the claim
// then fails, it is withdrawn (and should that fail too, the lone expiry of
// an inbox that never was is ignored by the views).
func (s *Store) CreateInbox(ctx context.Context, ev InboxCreated, lastLifecycleSeq uint64) (Ack, error) {
	part := s.PartitionOfAddress(ev.Address)
	lifecycle := inboxSubject(part, ev.Address)
	var withdraw []string
	if !ev.ExpiresAt.IsZero() {
		subj := scheduleSubject(part, ev.Address, ev.InboxID, "expire")
		expiry, err := scheduleMsg(subj, lifecycle, ev.ExpiresAt, InboxExpired{InboxID: ev.InboxID, Address: ev.Address})
		if err != nil {
			return Ack{}, err
		}
		if _, err := s.publishMsgs(ctx, expiry); err != nil {
			return Ack{}, err
		}
		withdraw = append(withdraw, subj)
	}
	created, err := eventMsg(lifecycle, ev)
	if err != nil {
		return Ack{}, err
	}
	expect(created, lifecycle, lastLifecycleSeq)
	acks, err := s.publishMsgs(ctx, created)
	if err != nil {
		s.withdraw(withdraw...)
	}
	if isWrongLastSeq(err) {
		return Ack{}, tempmail.Wrap(tempmail.Conflict, err, "address already taken")
	}
	return first(acks), err
}

// withdraw removes what a failed or duplicate publish left behind: a content
// record or a schedule that no event refers to. It is best effort; what it
// cannot remove is never shown (no event refers to it).
func (s *Store) withdraw(subjects ...string) {
	if len(subjects) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, subj := range subjects {
		_ = s.purgeSubject(ctx, subj)
	}
}

// EndInbox publishes an InboxDeleted for the inbox whose lifecycle subject
// was last at lifecycleSeq. If the inbox already ended, the error is of kind
// NotFound.
func (s *Store) EndInbox(ctx context.Context, addr string, p Payload, lifecycleSeq uint64) (Ack, error) {
	subj := inboxSubject(s.PartitionOfAddress(addr), addr)
	m, err := eventMsg(subj, p)
	if err != nil {
		return Ack{}, err
	}
	expect(m, subj, lifecycleSeq)
	acks, err := s.publishMsgs(ctx, m)
	if isWrongLastSeq(err) {
		return Ack{}, tempmail.Wrap(tempmail.NotFound, err, "inbox not found")
	}
	return first(acks), err
}

// Delivery is one recipient's copy of a received message.
type Delivery struct {
	Mail         MailReceived
	LifecycleSeq uint64    // the last event on the recipient inbox's lifecycle subject
	DedupeID     string    // same bytes to the same inbox: same id
	RetainUntil  time.Time // when set, the copy is deleted then (family B retention)
}

// Deliver publishes the MailReceived of every recipient of one message, with
// its content record and the retention schedules some copies carry, all or
// nothing: one copy in order (deliverOne), several as one atomic batch. Each copy expects its inbox's
// lifecycle subject unchanged; if an inbox ended meanwhile, nothing is stored
// and the error is of kind NotFound (the caller may retry without it). A
// retry of deliveries already stored returns their acks with Duplicate set
// and the stored message ids.
func (s *Store) Deliver(ctx context.Context, ds []Delivery) ([]Ack, error) {
	if len(ds) == 1 {
		ack, err := s.deliverOne(ctx, ds[0])
		if err != nil {
			return nil, err
		}
		return []Ack{ack}, nil
	}
	var msgs []*nats.Msg
	var eventAt []int // where each delivery's event is in msgs
	for _, d := range ds {
		part := s.PartitionOfAddress(d.Mail.Address)
		content, err := contentMsg(contentSubject(part, d.Mail.Address, d.Mail.InboxID, d.Mail.MessageID), d.Mail.Content)
		if err != nil {
			return nil, err
		}
		// Only the event carries the dedupe id: a retried batch then fails
		// whole as a duplicate, and the stored copy is found alone below.
		msgs = append(msgs, content)
		ev := d.Mail
		ev.Content = Content{} // the event itself says nothing of what the message says
		m, err := eventMsg(messageSubject(part, d.Mail.Address, d.Mail.InboxID, d.Mail.MessageID), ev)
		if err != nil {
			return nil, err
		}
		expect(m, inboxSubject(part, d.Mail.Address), d.LifecycleSeq)
		m.Header.Set(jetstream.MsgIDHeader, d.DedupeID)
		eventAt = append(eventAt, len(msgs))
		msgs = append(msgs, m)
		if !d.RetainUntil.IsZero() {
			sched, err := scheduleMsg(scheduleSubject(part, d.Mail.Address, d.Mail.InboxID, d.Mail.MessageID),
				m.Subject, d.RetainUntil, Deleted{InboxID: d.Mail.InboxID, MessageID: d.Mail.MessageID, Reason: ReasonRetention})
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, sched)
		}
	}
	all, err := s.publishMsgs(ctx, msgs...)
	if errors.Is(err, errBatchDuplicate) {
		// Some copies were stored by an earlier attempt (perhaps to other
		// recipients); a batch cannot mix duplicates and new messages, so
		// each delivery goes on its own, deduplicated one by one.
		acks := make([]Ack, 0, len(ds))
		for _, d := range ds {
			a, err := s.Deliver(ctx, []Delivery{d})
			if err != nil {
				return nil, err
			}
			acks = append(acks, a[0])
		}
		return acks, nil
	}
	if isWrongLastSeq(err) {
		return nil, tempmail.Wrap(tempmail.NotFound, err, "inbox not found or expired")
	}
	if err != nil {
		return nil, err
	}
	acks := make([]Ack, len(ds))
	for i, d := range ds {
		acks[i] = all[eventAt[i]]
		acks[i].MessageID = d.Mail.MessageID
		if acks[i].Duplicate {
			if acks[i].MessageID, err = s.storedMessageID(ctx, acks[i].Seq); err != nil {
				return nil, err
			}
		}
	}
	return acks, nil
}

// deliverOne stores one copy without an atomic batch, which on a
// single-replica stream costs a fresh on-disk store per batch (about 3 ms,
// against 0.03 ms a publish). The order keeps it safe: the content record and
// the retention schedule go first, the event last; until the event is stored
// nothing refers to them, and when it is not stored (refused, failed, or a
// retry of a copy stored before) they are withdrawn.
func (s *Store) deliverOne(ctx context.Context, d Delivery) (Ack, error) {
	part := s.PartitionOfAddress(d.Mail.Address)
	contentSubj := contentSubject(part, d.Mail.Address, d.Mail.InboxID, d.Mail.MessageID)
	content, err := contentMsg(contentSubj, d.Mail.Content)
	if err != nil {
		return Ack{}, err
	}
	ev := d.Mail
	ev.Content = Content{}
	event, err := eventMsg(messageSubject(part, d.Mail.Address, d.Mail.InboxID, d.Mail.MessageID), ev)
	if err != nil {
		return Ack{}, err
	}
	before := []*nats.Msg{content}
	if !d.RetainUntil.IsZero() {
		sched, err := scheduleMsg(scheduleSubject(part, d.Mail.Address, d.Mail.InboxID, d.Mail.MessageID), event.Subject,
			d.RetainUntil, Deleted{InboxID: d.Mail.InboxID, MessageID: d.Mail.MessageID, Reason: ReasonRetention})
		if err != nil {
			return Ack{}, err
		}
		before = append(before, sched)
	}
	// What must precede the event is sent without waiting: the stream
	// stores one connection's messages in order, so the event, sent next and
	// waited for, lands after them. Their acks are checked afterwards.
	var futures []jetstream.PubAckFuture
	var written []string
	for _, m := range before {
		f, err := s.js.PublishMsgAsync(m)
		if err != nil {
			s.withdraw(written...)
			return Ack{}, unavailable(err)
		}
		futures = append(futures, f)
		written = append(written, m.Subject)
	}
	expect(event, inboxSubject(part, d.Mail.Address), d.LifecycleSeq)
	event.Header.Set(jetstream.MsgIDHeader, d.DedupeID)
	acks, err := s.publishMsgs(ctx, event)
	failed := s.awaitAll(ctx, futures)
	if err != nil {
		s.withdraw(written...)
		if isWrongLastSeq(err) {
			return Ack{}, tempmail.Wrap(tempmail.NotFound, err, "inbox not found or expired")
		}
		return Ack{}, err
	}
	ack := acks[0]
	ack.MessageID = d.Mail.MessageID
	if ack.Duplicate {
		s.withdraw(written...) // the stored copy has its own
		if ack.MessageID, err = s.storedMessageID(ctx, ack.Seq); err != nil {
			return Ack{}, err
		}
		return ack, nil
	}
	// The event is stored; what should have preceded it must exist too.
	for _, i := range failed {
		if _, err := s.publishMsgs(ctx, before[i]); err != nil {
			return Ack{}, err
		}
	}
	return ack, nil
}

// awaitAll waits for asynchronous publishes and returns the positions of
// those that failed.
func (s *Store) awaitAll(ctx context.Context, futures []jetstream.PubAckFuture) []int {
	var failed []int
	for i, f := range futures {
		select {
		case <-f.Ok():
		case <-f.Err():
			failed = append(failed, i)
		case <-ctx.Done():
			failed = append(failed, i)
		}
	}
	return failed
}

// storedMessageID reads the message id of the MailReceived at seq.
func (s *Store) storedMessageID(ctx context.Context, seq uint64) (string, error) {
	m, err := s.stream.GetMsg(ctx, seq)
	if err != nil {
		return "", unavailable(err)
	}
	p, _, err := Decode(m.Data)
	if err != nil {
		return "", err
	}
	mr, ok := p.(*MailReceived)
	if !ok {
		return "", fmt.Errorf("event %d is a %s, not the MailReceived it was deduplicated against", seq, p.EventType())
	}
	return mr.MessageID, nil
}

// AppendMessageEvent publishes a MarkedRead or Deleted for one message.
func (s *Store) AppendMessageEvent(ctx context.Context, addr, inboxID, messageID string, p Payload) (Ack, error) {
	m, err := eventMsg(messageSubject(s.PartitionOfAddress(addr), addr, inboxID, messageID), p)
	if err != nil {
		return Ack{}, err
	}
	acks, err := s.publishMsgs(ctx, m)
	return first(acks), err
}

// contentRecord is the head of a message's stored Content: this JSON on
// one line (json.Marshal never writes a raw newline), then the text body, the
// HTML body and the raw message as they are, their lengths in the head.
// Bodies kept out of the JSON are neither escaped when stored nor unescaped
// when read (JSON's string handling was a quarter of a rebuild's CPU).
// Version 2 had the bodies in the JSON; it is still read.
type contentRecord struct {
	Version int `json:"v"`
	TextLen int `json:"text_len,omitempty"`
	HTMLLen int `json:"html_len,omitempty"`
	Content
}

const contentV = 3

func contentMsg(subject string, c Content) (*nats.Msg, error) {
	raw, text, html := c.Raw, c.Text, c.HTML
	c.Raw, c.Text, c.HTML = nil, "", ""
	head, err := json.Marshal(contentRecord{Version: contentV, TextLen: len(text), HTMLLen: len(html), Content: c})
	if err != nil {
		return nil, err
	}
	m := nats.NewMsg(subject)
	data := make([]byte, 0, len(head)+1+len(text)+len(html)+len(raw))
	data = append(append(append(data, head...), '\n'), text...)
	m.Data = append(append(data, html...), raw...)
	return m, nil
}

// Content fills in what a MailReceived event read from the log does not
// carry: the message's content. After the message was deleted there is
// none, and ev is left as it is.
func (s *Store) Content(ctx context.Context, ev *MailReceived) error {
	subj := contentSubject(s.PartitionOfAddress(ev.Address), ev.Address, ev.InboxID, ev.MessageID)
	m, err := s.stream.GetLastMsgForSubject(ctx, subj)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil
	}
	if err != nil {
		return unavailable(err)
	}
	c, err := DecodeContent(m.Data)
	if err != nil {
		return fmt.Errorf("content of message %s: %w", ev.MessageID, err)
	}
	ev.Content = c
	return nil
}

// RawOf returns the raw bytes of a small message, kept in its content record
// (a large one is in the object store under RawObjectName). Views leave the
// raw message out: it is read rarely, and would make every view entry of a
// message larger to write, cache and decode.
func (s *Store) RawOf(ctx context.Context, addr, inboxID, messageID string) ([]byte, error) {
	ev := MailReceived{InboxID: inboxID, MessageID: messageID, Address: addr}
	if err := s.Content(ctx, &ev); err != nil {
		return nil, err
	}
	if ev.Raw == nil {
		return nil, tempmail.Errorf(tempmail.NotFound, "message not found")
	}
	return ev.Raw, nil
}

// DecodeContent parses a content record as stored on a content subject.
func DecodeContent(data []byte) (Content, error) {
	head, rest, found := bytes.Cut(data, []byte("\n"))
	if !found {
		return Content{}, errors.New("content record without its raw part")
	}
	var rec contentRecord
	if err := json.Unmarshal(head, &rec); err != nil {
		return Content{}, err
	}
	switch rec.Version {
	case 2: // bodies in the JSON
	case contentV:
		if rec.TextLen < 0 || rec.HTMLLen < 0 || rec.TextLen > len(rest) || rec.HTMLLen > len(rest)-rec.TextLen {
			return Content{}, fmt.Errorf("content record: bodies of %d and %d bytes in %d", rec.TextLen, rec.HTMLLen, len(rest))
		}
		rec.Text = string(rest[:rec.TextLen])
		rec.HTML = string(rest[rec.TextLen : rec.TextLen+rec.HTMLLen])
		rest = rest[rec.TextLen+rec.HTMLLen:]
	default:
		return Content{}, fmt.Errorf("content version %d is not supported (this build reads versions 2 and %d)", rec.Version, contentV)
	}
	if len(rest) > 0 {
		rec.Raw = rest
	}
	return rec.Content, nil
}

func eventMsg(subject string, p Payload) (*nats.Msg, error) {
	data, err := Encode(p, time.Now())
	if err != nil {
		return nil, err
	}
	m := nats.NewMsg(subject)
	m.Data = data
	return m, nil
}

// scheduleMsg is a message the server keeps until at and then publishes, as
// the event p, on target (ADR-51). @at has whole seconds; rounding up means
// it never fires early.
func scheduleMsg(subject, target string, at time.Time, p Payload) (*nats.Msg, error) {
	data, err := Encode(p, at)
	if err != nil {
		return nil, err
	}
	m := nats.NewMsg(subject)
	m.Data = data
	fire := at.UTC().Truncate(time.Second)
	if fire.Before(at) {
		fire = fire.Add(time.Second)
	}
	m.Header.Set("Nats-Schedule", "@at "+fire.Format(time.RFC3339))
	m.Header.Set("Nats-Schedule-Target", target)
	return m, nil
}

// expect makes m conditional on subject's last sequence being seq.
func expect(m *nats.Msg, subject string, seq uint64) {
	m.Header.Set(jetstream.ExpectedLastSubjSeqHeader, strconv.FormatUint(seq, 10))
	if subject != m.Subject {
		m.Header.Set(jetstream.ExpectedLastSubjSeqSubjHeader, subject)
	}
}

func first(acks []Ack) Ack {
	if len(acks) == 0 {
		return Ack{}
	}
	return acks[0]
}

var errBatchDuplicate = errors.New("batch holds a message stored before")

// publishMsgs publishes one message, or several as one atomic batch (ADR-50):
// every message carries the batch id and its position, the last one commits
// and is answered with the batch's ack; nats.go has no helper for it yet. A
// failed expectation comes back as is (isWrongLastSeq); other failures as
// errors of kind Unavailable.
func (s *Store) publishMsgs(ctx context.Context, msgs ...*nats.Msg) ([]Ack, error) {
	if len(msgs) == 1 {
		for _, h := range []string{"Nats-Batch-Id", "Nats-Batch-Sequence", "Nats-Batch-Commit"} {
			msgs[0].Header.Del(h) // left by a batch this message was part of
		}
		// No responders means no stream leader, as while a cluster elects
		// a new one (a few seconds after a node dies): nothing was stored,
		// so trying again is safe, and spares the caller a 503.
		pa, err := s.js.PublishMsg(ctx, msgs[0], jetstream.WithRetryAttempts(12), jetstream.WithRetryWait(250*time.Millisecond))
		if err != nil {
			if isWrongLastSeq(err) {
				return nil, err
			}
			s.CountError("publish")
			return nil, unavailable(err)
		}
		return []Ack{{Seq: pa.Sequence, Partition: PartitionOf(msgs[0].Subject), Duplicate: pa.Duplicate}}, nil
	}
	nc := s.js.Conn()
	batchID := nuid.Next()
	var reply *nats.Msg
	for i, m := range msgs {
		m.Header.Set("Nats-Batch-Id", batchID)
		m.Header.Set("Nats-Batch-Sequence", strconv.Itoa(i+1))
		var err error
		if i < len(msgs)-1 {
			err = nc.PublishMsg(m)
		} else {
			m.Header.Set("Nats-Batch-Commit", "1")
			reply, err = nc.RequestMsgWithContext(ctx, m)
		}
		if err != nil {
			s.CountError("publish")
			return nil, unavailable(err)
		}
	}
	var res struct {
		Seq   uint64 `json:"seq"`
		Error *struct {
			Code    int    `json:"err_code"`
			Message string `json:"description"`
		} `json:"error"`
	}
	if err := json.Unmarshal(reply.Data, &res); err != nil {
		s.CountError("publish")
		return nil, unavailable(fmt.Errorf("batch ack %q: %w", reply.Data, err))
	}
	if res.Error != nil {
		apiErr := &jetstream.APIError{ErrorCode: jetstream.ErrorCode(res.Error.Code), Description: res.Error.Message}
		switch {
		case isWrongLastSeq(apiErr):
			return nil, apiErr
		case res.Error.Code == jsErrBatchDuplicateMsgID || res.Error.Code == jsErrBatchIncomplete:
			// A message with a known Nats-Msg-Id is refused, or dropped
			// (leaving the batch incomplete): a retry of one stored.
			return nil, errBatchDuplicate
		}
		s.CountError("publish")
		return nil, unavailable(apiErr)
	}
	// A batch's messages get consecutive sequences ending at Seq.
	acks := make([]Ack, len(msgs))
	for i, m := range msgs {
		acks[i] = Ack{Seq: res.Seq - uint64(len(msgs)-1-i), Partition: PartitionOf(m.Subject)}
	}
	return acks, nil
}

// The server's "atomic publish batch contains duplicate message id" and
// "atomic publish batch is incomplete".
const (
	jsErrBatchDuplicateMsgID = 10201
	jsErrBatchIncomplete     = 10176
)

// isWrongLastSeq reports a failed expected-sequence check: 10071 on a single
// node, 10164 on replicated streams.
func isWrongLastSeq(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && (apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
		apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant)
}

func unavailable(err error) error {
	return tempmail.Wrap(tempmail.Unavailable, err, "the event store is unavailable; try again")
}
