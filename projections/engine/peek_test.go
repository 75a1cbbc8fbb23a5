package engine

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"tempmail/broker"
	"tempmail/broker/natstest"
	"tempmail/projections/view"
)

// jsonSchema stores records as JSON, for tests of a batch on a store alone.
type jsonSchema struct{}

func (jsonSchema) Encode(rec view.Record) ([]byte, error)    { return json.Marshal(rec) }
func (jsonSchema) Decode(data []byte, rec view.Record) error { return json.Unmarshal(data, rec) }
func (jsonSchema) Size(view.Record) int                      { return 64 }
func (jsonSchema) Keep(view.Record) bool                     { return true }
func (jsonSchema) Printable(key string) string               { return key }

// Peek reads what Load would, without a copy of what the store keeps: a
// record the batch has not loaded is the store's own; one it loaded (and
// may have changed) is the batch's; an absent one is not live.
func TestPeekReadsWhatLoadWouldWithoutACopy(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	node := natstest.StartNode(t, t.TempDir())
	kv, err := broker.OpenKV(ctx, node.JS, jetstream.KeyValueConfig{Bucket: "PEEKED", History: 1})
	if err != nil {
		t.Fatal(err)
	}
	entries, err := broker.NewEntries(ctx, node.JS, kv)
	if err != nil {
		t.Fatal(err)
	}
	st := view.NewKV(node.JS, entries, "PEEKED", jsonSchema{})
	if err := st.Write(ctx, []view.Change{{Key: "a", Rec: &view.Checkpoint{Meta: view.Meta{Seq: 7}}}}); err != nil {
		t.Fatal(err)
	}
	b := &Batch{ctx: ctx, st: st, staged: map[string]*Staged{}}
	tx := b.tx(8, "s", time.Now())

	peeked, live, err := Peek[view.Checkpoint](tx, "a")
	kept, _ := st.Kept("a")
	if err != nil || !live || peeked.Seq != 7 || view.Record(peeked) != kept {
		t.Fatalf("peek at a kept entry: %+v live %v %v; want the store's own record at 7", peeked, live, err)
	}
	loaded, s, err := Load[view.Checkpoint](tx, "a")
	if err != nil || loaded == peeked || loaded.Seq != 7 {
		t.Fatalf("load after a peek: %+v %v; want a copy at 7", loaded, err)
	}
	loaded.Seq = 8
	tx.Save(s)
	if again, _, _ := Peek[view.Checkpoint](tx, "a"); again != loaded || peeked.Seq != 7 {
		t.Errorf("peek after a change in the batch: %+v (the store keeps %d); want the batch's record", again, peeked.Seq)
	}
	if none, live, err := Peek[view.Checkpoint](tx, "b"); err != nil || live || none == nil {
		t.Errorf("peek at an absent entry: %+v live %v %v; want an empty record, not live", none, live, err)
	}
}
