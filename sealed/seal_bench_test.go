package sealed

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
)

// The two ways to make a deletion erase (docs/BENCHMARKS.md, "Deletion"):
// sealing every message under a key of its own, whose erasure is one small
// write, against erasing the message itself in place in JetStream, which
// rewrites its block.

// BenchmarkSeal4KiB is the ingest cost of sealing a 4 KiB message:
// compression and AES-256-GCM.
func BenchmarkSeal4KiB(b *testing.B) {
	key := make([]byte, keySize)
	plain := bytes.Repeat([]byte("The quick brown fox jumps over the lazy dog. 0123456789012345678901234567\r\n"), 4096/76)
	b.SetBytes(int64(len(plain)))
	for b.Loop() {
		seal(key, "01a20600-2418-71bb-a7cc-ca9f4db98f10", plain)
	}
}

// BenchmarkEraseKey is what erasing one message costs with keys in a
// file: a slot overwritten and flushed to disk (a deleted inbox's messages
// share one flush).
func BenchmarkEraseKey(b *testing.B) {
	k, err := OpenFileKeys(b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer k.Close()
	ctx := context.Background()
	type made struct {
		ref uint64
		id  string
	}
	var keys []made
	for i := range b.N {
		id := fmt.Sprintf("01a20600-2418-71bb-a7cc-%012d", i)
		ref, _, err := k.New(ctx, id)
		if err != nil {
			b.Fatal(err)
		}
		keys = append(keys, made{ref, id})
	}
	b.ResetTimer()
	for _, m := range keys {
		if err := k.Erase(ctx, m.ref, m.id); err != nil {
			b.Fatal(err)
		}
		if err := k.Flush(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSecureDeleteInPlace is what erasing a message costs in
// JetStream itself: a secure delete of one 4 KiB message among 20,000,
// which rewrites its whole block (8 MB) and flushes it.
func BenchmarkSecureDeleteInPlace(b *testing.B) {
	js := embeddedJS(b, b.TempDir())
	ctx := context.Background()
	st, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "S", Subjects: []string{"s.>"}})
	if err != nil {
		b.Fatal(err)
	}
	data := bytes.Repeat([]byte("x"), 4096)
	const n = 20000
	for i := range n {
		if _, err := js.PublishAsync(fmt.Sprintf("s.%d", i), data); err != nil {
			b.Fatal(err)
		}
	}
	<-js.PublishAsyncComplete()
	b.ResetTimer()
	for i := range b.N {
		if err := st.SecureDeleteMsg(ctx, uint64(1+(i*97)%n)); err != nil {
			b.Fatal(err)
		}
	}
}
