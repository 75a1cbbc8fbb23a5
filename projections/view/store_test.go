package view

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"tempmail/broker"
	"tempmail/broker/natstest"
)

// jsonSchema stores records as JSON, for tests of the store alone.
type jsonSchema struct{}

func (jsonSchema) Encode(rec Record) ([]byte, error)    { return json.Marshal(rec) }
func (jsonSchema) Decode(data []byte, rec Record) error { return json.Unmarshal(data, rec) }
func (jsonSchema) Size(Record) int                      { return 64 }
func (jsonSchema) Keep(Record) bool                     { return true }
func (jsonSchema) Printable(key string) string          { return key }

// told is an Observer that keeps what it was told.
type told struct {
	stored []storedValue
	lost   int
}

type storedValue struct {
	key   string
	value []byte
	rev   uint64
}

func (o *told) Stored(key string, value []byte, rev uint64) {
	o.stored = append(o.stored, storedValue{key, value, rev})
}
func (o *told) Lost() { o.lost++ }

// What a KV's observer is told is what the bucket holds: every change
// stored, in order, with its value and revision; nothing of a change a
// compare-and-swap refused; and Lost when a write ended without knowing
// what was stored.
func TestAnObserverIsToldWhatTheBucketStored(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	node := natstest.StartNode(t, t.TempDir())
	kv, err := broker.OpenKV(ctx, node.JS, jetstream.KeyValueConfig{Bucket: "OBSERVED", History: 5, LimitMarkerTTL: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	entries, err := broker.NewEntries(ctx, node.JS, kv)
	if err != nil {
		t.Fatal(err)
	}
	st := NewKV(node.JS, entries, "OBSERVED", jsonSchema{})
	o := &told{}
	st.Observe(o)

	err = st.Write(ctx, []Change{
		{Key: "a", Rec: &Checkpoint{Meta: Meta{Seq: 1}}},
		{Key: "b", Rec: &Checkpoint{Meta: Meta{Seq: 2}}},
		{Key: "a", Rev: 0, Gone: true, Seq: 3, Blind: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.stored) != 3 || o.lost != 0 {
		t.Fatalf("told %+v, lost %d; want three changes stored", o.stored, o.lost)
	}
	for i, want := range []string{"a", "b", "a"} {
		s := o.stored[i]
		e, err := kv.GetRevision(ctx, want, s.rev)
		if err != nil || s.key != want || !bytes.Equal(e.Value(), s.value) {
			t.Errorf("change %d: told %s rev %d %q; the bucket holds %v %v", i, s.key, s.rev, s.value, e, err)
		}
	}

	// A compare-and-swap that fails stores nothing, and is told nothing.
	o.stored = nil
	err = st.Write(ctx, []Change{{Key: "b", Rev: 1, Rec: &Checkpoint{Meta: Meta{Seq: 4}}}})
	if !errors.Is(err, ErrConflict) || len(o.stored) != 0 || o.lost != 0 {
		t.Fatalf("a refused write: %v, told %+v, lost %d", err, o.stored, o.lost)
	}

	// A write nothing answers (no such bucket) may or may not be stored.
	missing := NewKV(node.JS, entries, "MISSING", jsonSchema{})
	missing.Observe(o)
	if err := missing.Write(ctx, []Change{{Key: "c", Rec: &Checkpoint{Meta: Meta{Seq: 5}}}}); err == nil {
		t.Fatal("a write to a missing bucket succeeded")
	}
	if o.lost != 1 || len(o.stored) != 0 {
		t.Fatalf("a failed write: told %+v, lost %d; want lost once", o.stored, o.lost)
	}
}
