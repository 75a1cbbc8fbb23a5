package powercut_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"tempmail/powercut"
)

// mount mounts a fresh filesystem, or skips loudly where FUSE is missing
// (fails under CI, which has it).
func mount(t *testing.T) (backing, mnt string, f *powercut.FS) {
	t.Helper()
	if err := powercut.Available(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("power-cut tests cannot run: %v", err)
		}
		t.Skipf("POWER-CUT TESTS SKIPPED: %v", err)
	}
	backing, mnt = t.TempDir(), t.TempDir()
	f, err := powercut.Mount(backing, mnt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Unmount() })
	return backing, mnt, f
}

// What was synced survives a cut; what was not is gone, though the files
// and directories made stay, as after a real power cut (and LazyFS's).
func TestCutKeepsWhatWasSynced(t *testing.T) {
	backing, mnt, f := mount(t)
	if err := os.Mkdir(filepath.Join(mnt, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	synced := bytes.Repeat([]byte("s"), 10000)
	w, err := os.Create(filepath.Join(mnt, "d", "synced"))
	if err != nil {
		t.Fatal(err)
	}
	w.Write(synced)
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("lost tail")) // after the sync: lost
	w.Close()
	if err := os.WriteFile(filepath.Join(mnt, "d", "unsynced"), []byte("gone"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Before the cut, readers see every write.
	if b, _ := os.ReadFile(filepath.Join(mnt, "d", "synced")); !bytes.Equal(b, append(synced, "lost tail"...)) {
		t.Fatalf("read back %d bytes, want %d", len(b), len(synced)+9)
	}
	if f.Unsynced() == 0 {
		t.Error("nothing held unsynced")
	}
	f.Cut()
	if _, err := os.ReadFile(filepath.Join(mnt, "d", "synced")); err == nil {
		t.Error("a read after the cut succeeded")
	}
	if b, err := os.ReadFile(filepath.Join(backing, "d", "synced")); err != nil || !bytes.Equal(b, synced) {
		t.Errorf("synced file after the cut: %d bytes (%v), want %d", len(b), err, len(synced))
	}
	if b, err := os.ReadFile(filepath.Join(backing, "d", "unsynced")); err != nil || len(b) != 0 {
		t.Errorf("unsynced file after the cut: %q (%v), want it empty", b, err)
	}
}

// Writes in place over synced data, truncations and renames (how a store
// rewrites a file) read back as written, and a sync puts exactly that on
// disk.
func TestRewritesReadBackAndSyncAsWritten(t *testing.T) {
	backing, mnt, f := mount(t)
	p := filepath.Join(mnt, "f")
	w, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Write(bytes.Repeat([]byte("a"), 9000))
	w.Sync()
	w.WriteAt([]byte("BB"), 4095) // across a page boundary
	w.Truncate(5000)
	w.WriteAt([]byte("z"), 6000) // a hole from 5000 to 6000
	want := append(bytes.Repeat([]byte("a"), 4095), "BB"...)
	want = append(want, bytes.Repeat([]byte("a"), 5000-len(want))...)
	want = append(want, make([]byte, 1000)...)
	want = append(want, 'z')
	if b, _ := os.ReadFile(p); !bytes.Equal(b, want) {
		t.Fatalf("read back differs from what was written (%d bytes, want %d)", len(b), len(want))
	}
	if st, _ := os.Stat(p); st.Size() != int64(len(want)) {
		t.Errorf("size %d, want %d", st.Size(), len(want))
	}
	if err := os.Rename(p, filepath.Join(mnt, "g")); err != nil {
		t.Fatal(err)
	}
	w.Sync()
	f.Cut()
	if b, _ := os.ReadFile(filepath.Join(backing, "g")); !bytes.Equal(b, want) {
		t.Errorf("on disk after sync and cut: %d bytes, want %d", len(b), len(want))
	}
}

// A sync delay makes every fsync take at least that long, and none of
// the time before it is set.
func TestSyncDelayHoldsEachSync(t *testing.T) {
	_, mnt, f := mount(t)
	w, err := os.Create(filepath.Join(mnt, "slow"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	f.SetSyncDelay(50 * time.Millisecond)
	for range 3 {
		if _, err := w.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if err := w.Sync(); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took < 50*time.Millisecond {
			t.Fatalf("a sync with a delay of 50 ms took %v", took)
		}
	}
}
