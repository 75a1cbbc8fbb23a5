package sealed

import (
	"bytes"
	"context"
	"errors"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestKeysKeepAndErase runs both key stores through what the service asks
// of them: a key is found by its reference and message, an erased one
// never again, a reference reused after an erasure does not open the
// erased message, and keys outlive a restart.
func TestKeysKeepAndErase(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"file", "stream"} {
		t.Run(kind, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			dir := t.TempDir()
			open := func() Keys {
				if kind == "file" {
					k, err := OpenFileKeys(dir, nil)
					if err != nil {
						t.Fatal(err)
					}
					return k
				}
				js := embeddedJS(t, dir)
				k, err := OpenStreamKeys(ctx, js, 1, 2*time.Minute, func(ctx context.Context, m *nats.Msg) (uint64, error) {
					ack, err := js.PublishMsg(ctx, m)
					if err != nil {
						return 0, err
					}
					return ack.Sequence, nil
				})
				if err != nil {
					t.Fatal(err)
				}
				return k
			}
			keys := open()
			a, b := uuid.NewString(), uuid.NewString()
			refA, keyA, err := keys.New(ctx, a)
			if err != nil {
				t.Fatal(err)
			}
			refB, keyB, err := keys.New(ctx, b)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := keys.Get(ctx, refA, a); err != nil || !bytes.Equal(got, keyA) {
				t.Fatalf("get a: %v", err)
			}
			if _, err := keys.Get(ctx, refA, b); !errors.Is(err, ErrErased) {
				t.Errorf("a's reference opened b: %v", err)
			}
			if err := keys.Erase(ctx, refA, a); err != nil {
				t.Fatal(err)
			}
			if err := keys.Erase(ctx, refA, a); err != nil {
				t.Errorf("erasing twice: %v", err)
			}
			if _, err := keys.Get(ctx, refA, a); !errors.Is(err, ErrErased) {
				t.Errorf("get after erase: %v, want ErrErased", err)
			}
			c := uuid.NewString()
			refC, _, err := keys.New(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := keys.Get(ctx, refC, a); !errors.Is(err, ErrErased) {
				t.Errorf("a reused reference opened the erased message: %v", err)
			}
			if err := keys.Erase(ctx, refC, a); err != nil {
				t.Fatal(err)
			}
			if _, err := keys.Get(ctx, refC, c); err != nil {
				t.Errorf("erasing an erased message took the reference's new key: %v", err)
			}
			if kind == "file" {
				keys.Close()
				keys = open()
			}
			if got, err := keys.Get(ctx, refB, b); err != nil || !bytes.Equal(got, keyB) {
				t.Errorf("b after reopening: %v", err)
			}
			keys.Close()
		})
	}
}

// embeddedJS is a bare embedded server.
func embeddedJS(t testing.TB, dir string) jetstream.JetStream {
	ns, err := server.NewServer(&server.Options{DontListen: true, JetStream: true, StoreDir: dir, NoSigs: true, NoLog: true})
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("server not ready")
	}
	nc, err := nats.Connect("", nats.InProcessServer(ns))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close(); ns.Shutdown() })
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// TestKeyFileShrinksAsKeysAreErased: the key file follows what is live:
// erasing the keys of the last slots cuts them off, erasing them all
// empties it, and slots freed and cut off are never handed out twice.
func TestKeyFileShrinksAsKeysAreErased(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	k, err := OpenFileKeys(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	size := func() int64 {
		info, err := os.Stat(filepath.Join(dir, keysFile))
		if err != nil {
			t.Fatal(err)
		}
		return info.Size()
	}
	type live struct {
		ref uint64
		key []byte
	}
	keys := map[string]live{}
	add := func() {
		id := uuid.NewString()
		ref, key, err := k.New(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		keys[id] = live{ref, key}
	}
	erase := func(id string) {
		if err := k.Erase(ctx, keys[id].ref, id); err != nil {
			t.Fatal(err)
		}
		delete(keys, id)
	}
	check := func() {
		t.Helper()
		refs := map[uint64]bool{}
		for id, l := range keys {
			if refs[l.ref] {
				t.Fatalf("slot %d handed out twice", l.ref)
			}
			refs[l.ref] = true
			if got, err := k.Get(ctx, l.ref, id); err != nil || !bytes.Equal(got, l.key) {
				t.Fatalf("key of %s: %v", id, err)
			}
		}
	}
	for range 100 {
		add()
	}
	if size() != 100*slotSize {
		t.Fatalf("100 keys: %d bytes", size())
	}
	// Churn: erase at random, add, in many rounds.
	rng := mrand.New(mrand.NewPCG(1, 2))
	for range 2000 {
		if len(keys) > 0 && rng.IntN(2) == 0 {
			for id := range keys {
				erase(id)
				break
			}
		} else {
			add()
		}
	}
	check()
	for id := range keys {
		erase(id)
	}
	if size() != 0 {
		t.Errorf("every key erased, the file keeps %d bytes", size())
	}
	for range 3 {
		add()
	}
	check()
	k.Close()
	// Reopened, it knows which slots are free.
	if k, err = OpenFileKeys(dir, nil); err != nil {
		t.Fatal(err)
	}
	add()
	check()
}

// A flush of the key file that fails is not dropped: the background loop
// reports it (the store counts it in tempmail_event_store_errors_total),
// and Close returns it.
func TestKeyFileFlushFailuresAreReported(t *testing.T) {
	t.Parallel()
	failed := make(chan error, 1)
	k, err := OpenFileKeys(t.TempDir(), func(err error) {
		select {
		case failed <- err:
		default:
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := k.New(context.Background(), "0f8fad5b-d9cb-469f-a165-70867728950e"); err != nil {
		t.Fatal(err)
	}
	// The file goes away under the store: every sync from now on fails.
	if err := k.f.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-failed:
		t.Logf("reported: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the failed background flush was not reported")
	}
	if err := k.Close(); err == nil {
		t.Error("Close returned no error for a key file it could not flush")
	}
}
