package sealed

import (
	"container/heap"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"tempmail"
	"tempmail/broker"
)

// Keys keeps the key each message's content is sealed under (seal.go), and
// erases it for good when the message is deleted. A key is found by the
// reference New returned, which the message's MailReceived carries; the
// message id is checked against what the reference holds, so a reference
// reused after an erasure never opens another message.
type Keys interface {
	New(ctx context.Context, messageID string) (ref uint64, key []byte, err error)
	// Get returns ErrErased when the key is gone.
	Get(ctx context.Context, ref uint64, messageID string) ([]byte, error)
	// Erase is idempotent; what it erased is gone from the disk once
	// Flush returns.
	Erase(ctx context.Context, ref uint64, messageID string) error
	// Flush returns once every key made and erased before it was called
	// is on the disk. Callers that come together share one disk flush.
	Flush() error
	Close() error
}

// ErrErased means a message's key is gone: the message was deleted, and
// what it said can no longer be read by anyone.
var ErrErased = tempmail.Errorf(tempmail.NotFound, "message not found")

// FileKeys keeps keys in one file of fixed-size slots in the data
// directory of a single node. Erasing overwrites the slot with zeros in
// place (ext4 and the like write data in place), and Flush puts that on the
// disk: the erased key is gone from the data directory within moments.
// A new key is written to the operating system at once; the event store
// flushes it to disk before the message it seals is acknowledged
// (events.Store.AppendMail, through broker.Flusher.FlushFiles), and a loop
// flushes whatever is left within a second.
//
// Slot layout (64 bytes): a state byte (1: in use), the message id (16
// bytes of its UUID), the key (32 bytes), zeros.
type FileKeys struct {
	mu   sync.Mutex
	f    *os.File
	used []bool    // by slot; the file holds len(used) slots
	free slotsHeap // erased slots below len(used), lowest reused first
	// writes counts the file's changes (keys made and erased, cuts);
	// flushed is how many of them are known to be on disk. One flush runs
	// at a time (flushing), and a caller that waited for it often finds
	// its own change flushed with it: a group commit.
	writes   uint64
	flushed  atomic.Uint64
	flushing sync.Mutex
	stop     chan struct{}
	done     chan struct{}
	once     sync.Once
	// failed hears of each background flush that failed: nobody waits on
	// those (an acknowledgment flushes its own key first), so they are
	// counted rather than returned. The next tick tries again.
	failed func(error)
}

// slotsHeap is a min-heap of slot numbers: new keys take the lowest free
// slot, so the slots in use gather at the start of the file and its end
// can be cut off as messages go (FileKeys.shrink).
type slotsHeap []uint32

func (h slotsHeap) Len() int           { return len(h) }
func (h slotsHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h slotsHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *slotsHeap) Push(x any)        { *h = append(*h, x.(uint32)) }
func (h *slotsHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

const (
	slotSize = 64
	keysFile = "keys"
)

// OpenFileKeys opens (or creates) the key file in dir; failed (nil: none)
// hears of background flushes that failed.
func OpenFileKeys(dir string, failed func(error)) (*FileKeys, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("key directory: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, keysFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("key file: %w", err)
	}
	// Two writers of one file would hand out one slot twice.
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("key file %s is in use by another store", f.Name())
	}
	// The file's name must outlast a power cut as its keys do.
	if err := errors.Join(broker.SyncDir(dir), broker.SyncDir(filepath.Dir(dir))); err != nil {
		f.Close()
		return nil, fmt.Errorf("key file: %w", err)
	}
	data, err := os.ReadFile(f.Name())
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("key file: %w", err)
	}
	if failed == nil {
		failed = func(error) {}
	}
	k := &FileKeys{f: f, used: make([]bool, len(data)/slotSize), stop: make(chan struct{}), done: make(chan struct{}), failed: failed}
	for i := range k.used {
		if k.used[i] = data[i*slotSize] == 1; !k.used[i] {
			k.free = append(k.free, uint32(i))
		}
	}
	heap.Init(&k.free)
	if err := k.shrink(); err != nil {
		f.Close()
		return nil, err
	}
	go k.flushLoop()
	return k, nil
}

// shrink cuts the free slots off the end of the file, so that the file
// follows what is live: a store whose messages are all deleted keeps an
// empty key file.
func (k *FileKeys) shrink() error {
	n := len(k.used)
	for n > 0 && !k.used[n-1] {
		n--
	}
	if n == len(k.used) {
		return nil
	}
	if err := k.f.Truncate(int64(n) * slotSize); err != nil {
		return tempmail.Wrap(tempmail.Unavailable, err, "could not shrink the key file")
	}
	k.used = k.used[:n]
	k.writes++
	return nil
}

func (k *FileKeys) New(_ context.Context, messageID string) (uint64, []byte, error) {
	id, err := uuid.Parse(messageID)
	if err != nil {
		return 0, nil, fmt.Errorf("key for message %q: %w", messageID, err)
	}
	key := make([]byte, keySize)
	if _, err := rand.Read(key); err != nil {
		return 0, nil, err
	}
	var slot [slotSize]byte
	slot[0] = 1
	copy(slot[1:17], id[:])
	copy(slot[17:17+keySize], key)
	k.mu.Lock()
	defer k.mu.Unlock()
	ref := uint32(len(k.used))
	for k.free.Len() > 0 {
		// Slots cut off by shrink, and so perhaps in use again since,
		// may still be on the heap: skip those.
		if s := heap.Pop(&k.free).(uint32); s < uint32(len(k.used)) && !k.used[s] {
			ref = s
			break
		}
	}
	if _, err := k.f.WriteAt(slot[:], int64(ref)*slotSize); err != nil {
		if ref < uint32(len(k.used)) {
			heap.Push(&k.free, ref)
		}
		return 0, nil, tempmail.Wrap(tempmail.Unavailable, err, "could not store the message's key")
	}
	if ref == uint32(len(k.used)) {
		k.used = append(k.used, true)
	}
	k.used[ref] = true
	k.writes++
	return uint64(ref), key, nil
}

func (k *FileKeys) Get(_ context.Context, ref uint64, messageID string) ([]byte, error) {
	id, err := uuid.Parse(messageID)
	if err != nil {
		return nil, ErrErased
	}
	var slot [slotSize]byte
	k.mu.Lock()
	defer k.mu.Unlock()
	if ref >= uint64(len(k.used)) {
		return nil, ErrErased
	}
	if _, err := k.f.ReadAt(slot[:], int64(ref)*slotSize); err != nil {
		return nil, tempmail.Wrap(tempmail.Unavailable, err, "could not read the message's key")
	}
	if slot[0] != 1 || [16]byte(slot[1:17]) != id {
		return nil, ErrErased
	}
	return slot[17 : 17+keySize], nil
}

func (k *FileKeys) Erase(_ context.Context, ref uint64, messageID string) error {
	id, err := uuid.Parse(messageID)
	if err != nil {
		return nil
	}
	var slot [slotSize]byte
	k.mu.Lock()
	defer k.mu.Unlock()
	if ref >= uint64(len(k.used)) {
		return nil
	}
	if _, err := k.f.ReadAt(slot[:], int64(ref)*slotSize); err != nil {
		return tempmail.Wrap(tempmail.Unavailable, err, "could not erase the message's key")
	}
	if slot[0] != 1 || [16]byte(slot[1:17]) != id {
		return nil // erased already (and perhaps reused)
	}
	if _, err := k.f.WriteAt(make([]byte, slotSize), int64(ref)*slotSize); err != nil {
		return tempmail.Wrap(tempmail.Unavailable, err, "could not erase the message's key")
	}
	k.used[ref] = false
	heap.Push(&k.free, uint32(ref))
	k.writes++
	return k.shrink()
}

// Flush puts what was written and erased before it was called on the disk.
func (k *FileKeys) Flush() error {
	k.mu.Lock()
	want := k.writes
	k.mu.Unlock()
	if k.flushed.Load() >= want {
		return nil
	}
	k.flushing.Lock()
	defer k.flushing.Unlock()
	if k.flushed.Load() >= want {
		return nil // the flush this caller waited for covered it
	}
	k.mu.Lock()
	upTo := k.writes
	k.mu.Unlock()
	if err := k.f.Sync(); err != nil {
		return tempmail.Wrap(tempmail.Unavailable, err, "could not flush the message keys")
	}
	k.flushed.Store(upTo)
	return nil
}

// flushLoop flushes what is left unflushed within a second.
func (k *FileKeys) flushLoop() {
	defer close(k.done)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-k.stop:
			return
		case <-t.C:
			if err := k.Flush(); err != nil {
				k.failed(err)
			}
		}
	}
}

func (k *FileKeys) Close() error {
	err := error(nil)
	k.once.Do(func() {
		close(k.stop)
		<-k.done
		err = errors.Join(k.Flush(), k.f.Close())
	})
	return err
}

// Path is the key file: without it, no message sealed under its keys can
// be read.
func (k *FileKeys) Path() string { return k.f.Name() }

// StreamKeys keeps keys in a JetStream stream, one message each, so that
// every process of a cluster (or sharing an external NATS) reads them and
// every replica holds them. The reference is the key message's sequence.
// Erasing overwrites the message in place on every replica (a secure
// delete), which rewrites its whole block: about 21 ms a key, measured on
// one node, so erasing is slower here than with a single node's key file.
type StreamKeys struct {
	js     jetstream.JetStream
	stream jetstream.Stream
	// publish stores a key's message and returns its sequence: the event
	// store's publish, which tries again while the outcome is unknown, and
	// is recognised by the message's Nats-Msg-Id when an earlier try
	// stored it.
	publish func(context.Context, *nats.Msg) (seq uint64, err error)
}

// KeysStream holds the keys of a cluster or an external NATS.
const KeysStream = "KEYS"

// OpenStreamKeys creates or updates the KEYS stream, with replicas and the
// window within which a retried publish is recognised (dedupe), and keeps
// keys there through publish.
func OpenStreamKeys(ctx context.Context, js jetstream.JetStream, replicas int, dedupe time.Duration,
	publish func(context.Context, *nats.Msg) (seq uint64, err error)) (*StreamKeys, error) {
	st, err := broker.EnsureStream(ctx, js, jetstream.StreamConfig{
		Name:        KeysStream,
		Description: "tempmail: the keys messages are sealed under, erased with their message",
		Subjects:    []string{"keys.>"},
		Storage:     jetstream.FileStorage,
		Replicas:    replicas,
		Duplicates:  dedupe,
		AllowDirect: replicas == 1,
	})
	if err != nil {
		return nil, err
	}
	return &StreamKeys{js: js, stream: st, publish: publish}, nil
}

func keySubject(messageID string) string { return "keys." + messageID }

func (k *StreamKeys) New(ctx context.Context, messageID string) (uint64, []byte, error) {
	key := make([]byte, keySize)
	if _, err := rand.Read(key); err != nil {
		return 0, nil, err
	}
	m := nats.NewMsg(keySubject(messageID))
	m.Data = key
	m.Header.Set(jetstream.MsgIDHeader, "key-"+messageID)
	seq, err := k.publish(ctx, m)
	if err != nil {
		return 0, nil, err
	}
	return seq, key, nil
}

func (k *StreamKeys) Get(ctx context.Context, ref uint64, messageID string) ([]byte, error) {
	m, err := k.stream.GetMsg(ctx, ref)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil, ErrErased
	}
	if err != nil {
		return nil, unavailable(err)
	}
	if m.Subject != keySubject(messageID) || len(m.Data) != keySize {
		return nil, ErrErased
	}
	return m.Data, nil
}

func (k *StreamKeys) Erase(ctx context.Context, ref uint64, messageID string) error {
	m, err := k.stream.GetMsg(ctx, ref)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil
	}
	if err != nil {
		return unavailable(err)
	}
	if m.Subject != keySubject(messageID) {
		return nil
	}
	if err := k.stream.SecureDeleteMsg(ctx, ref); err != nil && !broker.MsgGone(err) { // erased meanwhile
		return unavailable(err)
	}
	return nil
}

func (k *StreamKeys) Flush() error { return nil } // a secure delete is on disk when it returns
func (k *StreamKeys) Close() error { return nil }

// unavailable is broker.Unavailable for the keys, which users know as part
// of the event store.
func unavailable(err error) error { return broker.Unavailable("the event store", err) }
