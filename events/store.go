package events

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"tempmail/broker"
	"tempmail/sealed"
)

const (
	// StreamName is the event stream.
	StreamName = "EVENTS"
	// RawBucket is the object store of raw messages too large to travel
	// inside their MailReceived event.
	RawBucket = "RAW"
	rawStream = "OBJ_" + RawBucket

	partitionsKey = "tempmail_partitions"
	// formatKey records the store's format in the stream's metadata: 4
	// claims what a tenant's quota counts, and removes an expiring tenant
	// inbox from its tenant's count by a schedule (claims.go); 3 kept one
	// subject per inbox (subjects.go); 2 had one per message. This build
	// reads 2 and 3, and brings them to 4 as it opens them (migrate.go);
	// all seal each message's content inside its MailReceived. Format 1
	// (no record) kept it in plain records beside, and is refused.
	formatKey = "tempmail_format"
	format    = "4"
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
	// KeyDir, when set, keeps message keys in a file there: a single node
	// that alone holds its data directory. Empty: in the KEYS stream, which
	// every process sharing the NATS reads.
	KeyDir string
	// AttemptTimeout bounds one try of a publish; an unanswered try is
	// tried again (the same message, recognised by its id) until the
	// caller's deadline. 0: 5 s.
	AttemptTimeout time.Duration
	// ContentCacheBytes bounds the opened contents kept in memory. 0: 8 MiB.
	ContentCacheBytes int
	// DedupeWindow is how long the stream recognises a publish by its
	// Nats-Msg-Id. 0: the const DedupeWindow. Tests shorten it, to show
	// what recognises a retry after it.
	DedupeWindow time.Duration
	// Flusher, when set, puts what the store writes on disk before the
	// store's calls return (broker.Node.Flusher); nil: the server does, or
	// nothing is promised.
	Flusher *broker.Flusher
}

// Store publishes events and owns the stream, the raw object store and the
// keys the content of messages is sealed under.
type Store struct {
	js             jetstream.JetStream
	stream         jetstream.Stream
	raw            jetstream.ObjectStore
	keys           sealed.Keys
	flusher        *broker.Flusher
	contents       *sealed.Cache
	partitions     int
	replicated     bool // R3: reads of the object store may reach a follower
	attemptTimeout time.Duration
	// errors is made with the store, not by Instrument: the views'
	// workers count errors from their start, which may come first.
	errors *prometheus.CounterVec // nil in a Store made by hand (tests)
}

// Instrument registers the event store's error counter with reg.
func (s *Store) Instrument(reg prometheus.Registerer) { reg.MustRegister(s.errors) }

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
	// MessageID, from AppendMail only: the id of the stored copy, which for a
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
	stored, partitions, err := existing(ctx, js, partitions)
	if err != nil {
		return nil, err
	}

	want := jetstream.StreamConfig{
		Name:        StreamName,
		Description: "tempmail events: the source of truth",
		Subjects:    []string{subjectRoot + ".>", scheduleRoot + ".>"},
		Storage:     jetstream.FileStorage,
		Replicas:    cfg.Replicas,
		Retention:   jetstream.LimitsPolicy,
		Discard:     jetstream.DiscardOld,
		Duplicates:  cmp.Or(cfg.DedupeWindow, DedupeWindow),
		// Expiry and retention are fired by the server itself (per-message
		// TTLs and schedules), so they survive restarts and fire once.
		AllowMsgTTL:       true,
		AllowMsgSchedules: true,
		// One message to several inboxes is stored all or nothing.
		AllowAtomicPublish: true,
		// Readers fetch a message's content by its event's sequence; a
		// direct get returns it raw, where the JSON API would base64 it.
		// Replicated, a direct get may be answered by a follower that has
		// not yet stored it, so there every read goes to the leader.
		AllowDirect: cfg.Replicas == 1,
		Metadata:    map[string]string{partitionsKey: strconv.Itoa(partitions), formatKey: stored},
	}
	stream, err := broker.EnsureStream(ctx, js, want)
	if err != nil {
		return nil, err
	}
	raw, err := broker.OpenObjectStore(ctx, js, jetstream.ObjectStoreConfig{
		Bucket:      RawBucket,
		Description: "raw messages too large for their event",
		Storage:     jetstream.FileStorage,
		Replicas:    cfg.Replicas,
	})
	if err != nil {
		return nil, err
	}
	s := &Store{js: js, stream: stream, raw: raw, partitions: partitions, replicated: cfg.Replicas > 1,
		flusher:        cfg.Flusher,
		attemptTimeout: cfg.AttemptTimeout, contents: sealed.NewCache(cfg.ContentCacheBytes),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tempmail_event_store_errors_total",
			Help: "Failed event store and view store operations, by operation."}, []string{"op"})}
	if s.attemptTimeout <= 0 {
		s.attemptTimeout = 5 * time.Second
	}
	if cfg.ContentCacheBytes <= 0 {
		s.contents = sealed.NewCache(8 << 20)
	}
	if s.keys, err = s.openKeys(ctx, cfg); err != nil {
		return nil, err
	}
	if stored != format {
		if err := s.migrate(ctx); err != nil {
			return nil, fmt.Errorf("bring the event store from format %s to %s: %w", stored, format, err)
		}
		want.Metadata[formatKey] = format
		if s.stream, err = broker.EnsureStream(ctx, js, want); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// existing reads what an existing event stream says of itself: the format
// its log is in (format for a new stream), and its partition count, which
// is part of every subject and so wins over the configuration's.
func existing(ctx context.Context, js jetstream.JetStream, partitions int) (string, int, error) {
	st, err := js.Stream(ctx, StreamName)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return format, partitions, nil
	}
	if err != nil {
		return "", 0, fmt.Errorf("look up stream %s: %w", StreamName, err)
	}
	info := st.CachedInfo()
	stored := format // the format the store is in: one before 4 until migrated
	f := info.Config.Metadata[formatKey]
	if f != format && f != "2" && f != "3" && info.State.Msgs > 0 {
		return "", 0, fmt.Errorf("the event stream %s was written by an earlier tempmail, which stored what messages say in plain records; this one seals it (format %s) and cannot read that log: start with an empty data directory (or NATS account)", StreamName, format)
	}
	if f != format && info.State.Msgs > 0 {
		stored = f
	}
	if n, err := strconv.Atoi(info.Config.Metadata[partitionsKey]); err == nil && n > 0 {
		partitions = n
	}
	return stored, partitions, nil
}

// openKeys opens the store's message keys: a file of the data directory
// on a single node, a stream that every replica holds otherwise.
func (s *Store) openKeys(ctx context.Context, cfg StoreConfig) (sealed.Keys, error) {
	if cfg.KeyDir == "" {
		return sealed.OpenStreamKeys(ctx, s.js, cfg.Replicas, DedupeWindow, func(ctx context.Context, m *nats.Msg) (uint64, error) {
			ack, err := s.publish(ctx, m)
			return ack.Seq, err
		})
	}
	keys, err := sealed.OpenFileKeys(cfg.KeyDir, func(error) { s.CountError("flush keys") })
	if err != nil {
		return nil, err
	}
	// A message's key on disk before its event (AppendMail).
	s.flusher.Attach(keys)
	return keys, nil
}

// KeyFile is the file of a single node's message keys; empty when they
// are kept in NATS.
func (s *Store) KeyFile() string {
	if k, ok := s.keys.(*sealed.FileKeys); ok {
		return k.Path()
	}
	return ""
}

// Close lets go of the keys; the stream and buckets stay.
func (s *Store) Close() error { return s.keys.Close() }

// Flush returns once what was written to streams before it is on disk,
// where the store promises that (--sync always on a single node); at once
// elsewhere.
func (s *Store) Flush(ctx context.Context, streams ...string) error {
	return s.flusher.Flush(ctx, streams...)
}

// Durable returns once the event at seq is on disk. A projection makes
// nothing of an event before: a view or a webhook delivery must not
// outlive, in a power cut, the event it came from. On a single node the
// server hands an event to consumers once the operating system has it,
// and the store's flush follows (broker.Flusher); a replicated stream hands out
// only what a majority holds on disk.
func (s *Store) Durable(ctx context.Context, seq uint64) error {
	return s.flusher.Await(ctx, StreamName, seq)
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

// Ping fails when the event stream cannot take events now: its leader
// is out of reach, or has lost touch with the majority of its copies
// (broker.Quorum).
func (s *Store) Ping(ctx context.Context) error {
	return broker.Quorum(ctx, s.js, StreamName)
}

// LastSeq is the sequence of the newest event in the stream.
//
// Replicated, it is the leader's, with a quorum (broker.LeaderInfo): a
// node restarting after a fault could otherwise be answered by its own
// copy, behind, and take the views for ahead of the log.
func (s *Store) LastSeq(ctx context.Context) (uint64, error) {
	info, err := broker.LeaderInfo(ctx, s.js, StreamName)
	if err != nil {
		return 0, unavailable(err)
	}
	return info.State.LastSeq, nil
}

// LastEventSeq is the sequence of the newest event (content records and
// schedules, which share the stream, are not events).
func (s *Store) LastEventSeq(ctx context.Context) (uint64, error) {
	return s.lastSeqOn(ctx, EventFilter)
}

// LastSeqOf is the sequence of the newest event of a partition, 0 when it
// has none.
func (s *Store) LastSeqOf(ctx context.Context, part string) (uint64, error) {
	return s.lastSeqOn(ctx, PartitionFilter(part))
}

// NextSeqOf is the sequence of the first event of a partition at or after
// seq, 0 when it has none.
func (s *Store) NextSeqOf(ctx context.Context, part string, seq uint64) (uint64, error) {
	m, err := s.stream.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(PartitionFilter(part)))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, unavailable(err)
	}
	return m.Sequence, nil
}

// ReadPartition reads the partition's events from seq from on, before
// seq before, at most limit of them, in order: what a views worker applies
// itself when its consumer does not hand them over (projections/engine/gap.go).
// Replicated, it asks the stream's leader.
func (s *Store) ReadPartition(ctx context.Context, part string, from, before uint64, limit int) ([]*jetstream.RawStreamMsg, error) {
	var out []*jetstream.RawStreamMsg
	for seq := from; seq < before && len(out) < limit; {
		m, err := s.stream.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(PartitionFilter(part)))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			break
		}
		if err != nil {
			return out, unavailable(err)
		}
		if m.Sequence >= before {
			break
		}
		out = append(out, m)
		seq = m.Sequence + 1
	}
	return out, nil
}

func (s *Store) lastSeqOn(ctx context.Context, filter string) (uint64, error) {
	m, err := s.stream.GetLastMsgForSubject(ctx, filter)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, unavailable(err)
	}
	return m.Sequence, nil
}
