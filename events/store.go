package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

	stream, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        StreamName,
		Description: "tempmail events: the source of truth",
		Subjects:    []string{subjectRoot + ".>"},
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
		Metadata:           map[string]string{partitionsKey: strconv.Itoa(partitions)},
	})
	if err != nil {
		return nil, fmt.Errorf("create stream %s: %w", StreamName, err)
	}
	raw, err := js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{
		Bucket:      RawBucket,
		Description: "raw messages too large for their event",
		Storage:     jetstream.FileStorage,
		Replicas:    cfg.Replicas,
	})
	if err != nil {
		return nil, fmt.Errorf("create object store %s: %w", RawBucket, err)
	}
	return &Store{js: js, stream: stream, raw: raw, partitions: partitions}, nil
}

// Stream is the event stream, for consumers.
func (s *Store) Stream() jetstream.Stream { return s.stream }

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

// AppendDomainEvent publishes a DomainAdded or DomainDeactivated, expecting
// the domain list's last event to be at expectSeq (0: none yet).
func (s *Store) AppendDomainEvent(ctx context.Context, p Payload, expectSeq uint64) (Ack, error) {
	ack, err := s.publish(ctx, domainsSubject, p, jetstream.WithExpectLastSequencePerSubject(expectSeq))
	if isWrongLastSeq(err) {
		return ack, tempmail.Wrap(tempmail.Conflict, err, "the domain list changed concurrently")
	}
	return ack, err
}

// CreateInbox claims ev.Address for a new inbox. lastLifecycleSeq is the
// sequence of the event that ended the address's previous inbox (0 if it
// never had one): the claim succeeds only if nothing happened on the address
// since, so of two claims made from the same knowledge exactly one wins and
// the other gets an error of kind Conflict. The caller must not pass the
// sequence of an InboxCreated (the views never offer one for a free address).
func (s *Store) CreateInbox(ctx context.Context, ev InboxCreated, lastLifecycleSeq uint64) (Ack, error) {
	subj := inboxSubject(s.PartitionOfAddress(ev.Address), ev.Address)
	ack, err := s.publish(ctx, subj, ev, jetstream.WithExpectLastSequencePerSubject(lastLifecycleSeq))
	if isWrongLastSeq(err) {
		return ack, tempmail.Wrap(tempmail.Conflict, err, "address already taken")
	}
	return ack, err
}

// EndInbox publishes an InboxDeleted or InboxExpired for the inbox whose
// InboxCreated is at createdSeq. If the inbox already ended, the error is of
// kind NotFound.
func (s *Store) EndInbox(ctx context.Context, addr string, p Payload, createdSeq uint64) (Ack, error) {
	subj := inboxSubject(s.PartitionOfAddress(addr), addr)
	ack, err := s.publish(ctx, subj, p, jetstream.WithExpectLastSequencePerSubject(createdSeq))
	if isWrongLastSeq(err) {
		return ack, tempmail.Wrap(tempmail.NotFound, err, "inbox not found")
	}
	return ack, err
}

// DeliverMail publishes a MailReceived for the inbox created at createdSeq.
// If that inbox has ended meanwhile, nothing is stored and the error is of
// kind NotFound. dedupeID makes a retried delivery of the same bytes to the
// same recipient a no-op within DedupeWindow (Ack.Duplicate is then true).
func (s *Store) DeliverMail(ctx context.Context, ev MailReceived, createdSeq uint64, dedupeID string) (Ack, error) {
	part := s.PartitionOfAddress(ev.Address)
	ack, err := s.publish(ctx, messageSubject(part, ev.Address, ev.MessageID), ev,
		jetstream.WithExpectLastSequenceForSubject(createdSeq, inboxSubject(part, ev.Address)),
		jetstream.WithMsgID(dedupeID))
	if isWrongLastSeq(err) {
		return ack, tempmail.Wrap(tempmail.NotFound, err, "inbox not found or expired")
	}
	return ack, err
}

// Delivery is one recipient's copy of a received message.
type Delivery struct {
	Mail       MailReceived
	CreatedSeq uint64 // the recipient inbox's InboxCreated
	DedupeID   string // same bytes to the same inbox: same id
}

// Deliver publishes the MailReceived of every recipient of one message, all
// or nothing: one recipient is one publish, several are one atomic batch.
// If an inbox ended meanwhile, nothing is stored and the error is of kind
// NotFound; the caller may retry without it. A retry of deliveries already
// stored returns their acks with Duplicate set.
func (s *Store) Deliver(ctx context.Context, ds []Delivery) ([]Ack, error) {
	acks, err := s.deliver(ctx, ds)
	if err != nil {
		return nil, err
	}
	for i := range acks {
		acks[i].MessageID = ds[i].Mail.MessageID
		if acks[i].Duplicate {
			if acks[i].MessageID, err = s.storedMessageID(ctx, acks[i].Seq); err != nil {
				return nil, err
			}
		}
	}
	return acks, nil
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

func (s *Store) deliver(ctx context.Context, ds []Delivery) ([]Ack, error) {
	if len(ds) == 1 {
		ack, err := s.DeliverMail(ctx, ds[0].Mail, ds[0].CreatedSeq, ds[0].DedupeID)
		return []Ack{ack}, err
	}
	acks, err := s.deliverBatch(ctx, ds)
	if errors.Is(err, errBatchDuplicate) {
		// Some copies were stored by an earlier attempt (perhaps to other
		// recipients); a batch cannot mix duplicates and new messages, so
		// each goes on its own, deduplicated one by one.
		acks = acks[:0]
		for _, d := range ds {
			ack, err := s.DeliverMail(ctx, d.Mail, d.CreatedSeq, d.DedupeID)
			if err != nil {
				return nil, err
			}
			acks = append(acks, ack)
		}
		return acks, nil
	}
	return acks, err
}

var errBatchDuplicate = errors.New("batch holds a message stored before")

// deliverBatch publishes an atomic batch (ADR-50): every message carries the
// batch id and its position, the last one commits and is answered with the
// batch's ack. nats.go has no helper for it yet.
func (s *Store) deliverBatch(ctx context.Context, ds []Delivery) ([]Ack, error) {
	nc := s.js.Conn()
	batchID := nuid.Next()
	for i, d := range ds {
		data, err := Encode(d.Mail, time.Now())
		if err != nil {
			return nil, err
		}
		part := s.PartitionOfAddress(d.Mail.Address)
		m := nats.NewMsg(messageSubject(part, d.Mail.Address, d.Mail.MessageID))
		m.Data = data
		m.Header.Set(jetstream.MsgIDHeader, d.DedupeID)
		m.Header.Set(jetstream.ExpectedLastSubjSeqHeader, strconv.FormatUint(d.CreatedSeq, 10))
		m.Header.Set(jetstream.ExpectedLastSubjSeqSubjHeader, inboxSubject(part, d.Mail.Address))
		m.Header.Set("Nats-Batch-Id", batchID)
		m.Header.Set("Nats-Batch-Sequence", strconv.Itoa(i+1))
		if i < len(ds)-1 {
			if err := nc.PublishMsg(m); err != nil {
				return nil, unavailable(err)
			}
			continue
		}
		m.Header.Set("Nats-Batch-Commit", "1")
		reply, err := nc.RequestMsgWithContext(ctx, m)
		if err != nil {
			return nil, unavailable(err)
		}
		var res struct {
			Seq   uint64 `json:"seq"`
			Count int    `json:"count"`
			Error *struct {
				Code    int    `json:"err_code"`
				Message string `json:"description"`
			} `json:"error"`
		}
		if err := json.Unmarshal(reply.Data, &res); err != nil {
			return nil, unavailable(fmt.Errorf("batch ack %q: %w", reply.Data, err))
		}
		if res.Error != nil {
			apiErr := &jetstream.APIError{ErrorCode: jetstream.ErrorCode(res.Error.Code), Description: res.Error.Message}
			switch {
			case isWrongLastSeq(apiErr):
				return nil, tempmail.Wrap(tempmail.NotFound, apiErr, "inbox not found or expired")
			case res.Error.Code == jsErrBatchDuplicateMsgID:
				return nil, errBatchDuplicate
			}
			return nil, unavailable(apiErr)
		}
		// The batch's messages got consecutive sequences ending at Seq.
		acks := make([]Ack, len(ds))
		for j, d := range ds {
			acks[j] = Ack{Seq: res.Seq - uint64(len(ds)-1-j), Partition: s.PartitionOfAddress(d.Mail.Address)}
		}
		return acks, nil
	}
	return nil, nil
}

// jsErrBatchDuplicateMsgID is the server's "atomic publish batch contains
// duplicate message id".
const jsErrBatchDuplicateMsgID = 10201

// AppendMessageEvent publishes a MarkedRead or Deleted for one message.
func (s *Store) AppendMessageEvent(ctx context.Context, addr, messageID string, p Payload) (Ack, error) {
	return s.publish(ctx, messageSubject(s.PartitionOfAddress(addr), addr, messageID), p)
}

func (s *Store) publish(ctx context.Context, subject string, p Payload, opts ...jetstream.PublishOpt) (Ack, error) {
	data, err := Encode(p, time.Now())
	if err != nil {
		return Ack{}, err
	}
	pa, err := s.js.Publish(ctx, subject, data, opts...)
	if err != nil {
		if isWrongLastSeq(err) {
			return Ack{}, err
		}
		s.CountError("publish")
		return Ack{}, unavailable(err)
	}
	return Ack{Seq: pa.Sequence, Partition: PartitionOf(subject), Duplicate: pa.Duplicate}, nil
}

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
