package broker_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"tempmail/broker"
	"tempmail/broker/natstest"
	"tempmail/eventually"
	"tempmail/powercut"
)

// startOnPowercut starts a single node on package powercut's filesystem,
// which holds every unsynced write until a cut, mounted over a directory
// of its own (backing, where what was synced stays).
func startOnPowercut(t *testing.T) (backing string, disk *powercut.FS, node *broker.Node) {
	t.Helper()
	if err := powercut.Available(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("power-cut tests cannot run: %v", err)
		}
		t.Skipf("POWER-CUT TESTS SKIPPED (they need /dev/fuse and root): %v", err)
	}
	backing, mnt := t.TempDir(), t.TempDir()
	disk, err := powercut.Mount(backing, mnt)
	if err != nil {
		t.Fatal(err)
	}
	return backing, disk, natstest.StartNode(t, mnt)
}

// createStreamT makes stream T (subjects t.>) and puts its definition on
// disk, as the service does once it has opened everything.
func createStreamT(ctx context.Context, t *testing.T, node *broker.Node) {
	t.Helper()
	if _, err := node.JS.CreateStream(ctx, jetstream.StreamConfig{Name: "T", Subjects: []string{"t.>"}, Storage: jetstream.FileStorage}); err != nil {
		t.Fatal(err)
	}
	if err := node.Flusher().FlushAll(); err != nil {
		t.Fatal(err)
	}
}

// What a single node's Flusher flushed outlives a power cut, across the
// blocks the server begins as a stream grows, and what it did not flush
// is what the cut takes (the test can see loss). The node runs on package
// powercut's filesystem, which holds every unsynced write until the cut.
func TestFlushedWritesOutliveAPowerCut(t *testing.T) {
	backing, disk, node := startOnPowercut(t)
	defer disk.Unmount()
	if node.Flusher() == nil {
		t.Fatal("a single node with --sync always has no Flusher")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	createStreamT(ctx, t, node)
	body := func(i int) []byte { return bytes.Repeat([]byte(fmt.Sprintf("%07d|", i)), 512) } // 4 KiB
	// 12 MiB: more than a block of the server's (8 MiB), so the flushes
	// follow it into a block it began.
	const flushed, unflushed = 3000, 100
	for i := range flushed + unflushed {
		ack, err := node.JS.Publish(ctx, fmt.Sprintf("t.%d", i), body(i))
		if err != nil {
			t.Fatal(err)
		}
		if i < flushed && (i%50 == 49 || i == flushed-1) {
			if err := node.Flusher().FlushThrough(ctx, "T", ack.Sequence); err != nil {
				t.Fatal(err)
			}
		}
	}
	disk.Cut()
	natstest.Stop(node)
	if err := disk.Unmount(); err != nil {
		t.Fatal(err)
	}

	node = natstest.StartNode(t, backing)
	st, err := node.JS.Stream(ctx, "T")
	if err != nil {
		t.Fatalf("the stream after the cut: %v", err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := info.State.Msgs; n < flushed || n >= flushed+unflushed {
		t.Errorf("after the cut the stream holds %d messages: want the %d flushed, and not all %d written", n, flushed, flushed+unflushed)
	}
	for seq := uint64(1); seq <= flushed; seq++ {
		m, err := st.GetMsg(ctx, seq)
		if err != nil || !bytes.Equal(m.Data, body(int(seq-1))) {
			t.Fatalf("flushed message %d after the cut: %v", seq, err)
		}
	}
}

// fileFunc is a file attached to a Flusher, whose Flush is the function.
type fileFunc func() error

func (f fileFunc) Flush() error { return f() }

// A round flushes the attached files and the streams side by side, so
// that on a slow disk it takes the longer of the two, not their sum: here
// the stream's writes reach the disk while an attached file's flush has
// not returned.
func TestARoundFlushesFilesAndStreamsSideBySide(t *testing.T) {
	_, disk, node := startOnPowercut(t)
	defer disk.Unmount()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	createStreamT(ctx, t, node)
	release := make(chan struct{})
	var once sync.Once
	defer once.Do(func() { close(release) })
	node.Flusher().Attach(fileFunc(func() error { <-release; return nil }))

	const written = 10 * 4096
	for i := range 10 {
		if _, err := node.JS.Publish(ctx, fmt.Sprintf("t.%d", i), bytes.Repeat([]byte{'x'}, 4096)); err != nil {
			t.Fatal(err)
		}
	}
	before := disk.Unsynced()
	if before < written {
		t.Fatalf("%d bytes unsynced after writing %d", before, written)
	}
	done := make(chan error, 1)
	go func() { done <- node.Flusher().FlushFiles(ctx, "T") }()
	eventually.True(t, "the stream's writes on disk while the attached file's flush runs", func() bool {
		return disk.Unsynced() <= before-written
	})
	select {
	case err := <-done:
		t.Fatalf("FlushFiles returned (%v) before the attached file was flushed", err)
	default:
	}
	once.Do(func() { close(release) })
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	natstest.Stop(node)
	if err := disk.Unmount(); err != nil {
		t.Fatal(err)
	}
}
