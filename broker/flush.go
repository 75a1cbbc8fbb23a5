package broker

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Flusher puts what a single embedded node acknowledges on disk before it
// is acknowledged (--sync always), in group commits.
//
// The server can flush every write itself (sync_always), but then each
// event costs a disk flush of its own, one after another in the stream's
// own goroutine, and ingest runs at half its speed. So a single node runs
// its server without sync_always: every write of the server reaches the
// operating system before the server answers it (a single node's file
// streams write in place), and the Flusher then flushes the files those
// writes went to, for every caller waiting at that moment at once: a
// round. A caller asks for the streams it wrote (Flush), and the round
// flushes the newest message block of each (and the directory, when the
// server began a new block); a caller about to store events asks for the
// files attached to the Flusher too (the message keys, FlushFiles): they
// must be on disk before an event that names them is written, so that
// caller writes its event only once the round has returned. A round
// flushes the files and the streams side by side (round says why that is
// safe).
//
// It knows where the server keeps a stream: its message blocks are
// <store>/jetstream/$G/streams/<stream>/msgs/<n>.blk, appended to in
// order, the newest block holding the newest writes; the stream's
// definition and state files are beside. Definitions are written when
// streams and consumers are made or changed: FlushAll puts every file but
// the message blocks on disk, and the service calls it once it has opened
// everything. What no one flushes (the views, which the log can build
// again; consumers' state) the server flushes on its own schedule.
type Flusher struct {
	root  string // <store>/jetstream/$G/streams
	queue chan *flushReq
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once

	mu    sync.Mutex
	files []interface{ Flush() error } // flushed first, in rounds that ask
	// through is, by stream, the newest sequence a round has put on disk
	// that a caller named (FlushThrough).
	through map[string]uint64

	tails map[string]*tail // by stream; only the round's goroutine uses them
}

type flushReq struct {
	files   bool // the attached files too
	streams []string
	seq     uint64     // of streams[0], when the caller knows it
	done    chan error // buffered: a round never waits for its caller
}

// newFlusher flushes the streams of the server whose store directory is
// storeDir (the server's StoreDir).
func newFlusher(storeDir string) *Flusher {
	f := &Flusher{root: filepath.Join(storeDir, "jetstream", "$G", "streams"), queue: make(chan *flushReq, 1024),
		stop: make(chan struct{}), done: make(chan struct{}), tails: map[string]*tail{},
		through: map[string]uint64{}}
	go f.run()
	return f
}

// Attach has the rounds that ask for files (FlushFiles) flush file first.
func (f *Flusher) Attach(file interface{ Flush() error }) {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files = append(f.files, file)
}

// Flush returns once what was written to streams before the call is on
// disk. A nil Flusher (the server flushes by itself, or nothing is
// promised) returns at once.
func (f *Flusher) Flush(ctx context.Context, streams ...string) error {
	return f.flush(ctx, &flushReq{streams: streams})
}

// FlushFiles is Flush that puts the attached files on disk too, first.
func (f *Flusher) FlushFiles(ctx context.Context, streams ...string) error {
	return f.flush(ctx, &flushReq{files: true, streams: streams})
}

// FlushThrough is Flush of one stream whose write at seq the caller made.
// Readers of that write learn from it when it is on disk (Await).
func (f *Flusher) FlushThrough(ctx context.Context, stream string, seq uint64) error {
	return f.flush(ctx, &flushReq{streams: []string{stream}, seq: seq})
}

// Await returns once the write at seq of stream (made before the call) is
// on disk: at once if a round has put it there (the writer asked, with
// FlushThrough), else after the next round, which it joins.
func (f *Flusher) Await(ctx context.Context, stream string, seq uint64) error {
	if f == nil {
		return nil
	}
	f.mu.Lock()
	covered := f.through[stream] >= seq
	f.mu.Unlock()
	if covered {
		return nil
	}
	return f.Flush(ctx, stream)
}

func (f *Flusher) flush(ctx context.Context, r *flushReq) error {
	if f == nil {
		return nil
	}
	r.done = make(chan error, 1)
	select {
	case f.queue <- r:
	case <-f.stop:
		return Unavailable("the event store", errFlusherClosed)
	case <-ctx.Done():
		return Unavailable("the event store", ctx.Err())
	}
	select {
	case err := <-r.done:
		return err
	case <-ctx.Done():
		return Unavailable("the event store", ctx.Err())
	}
}

var errFlusherClosed = errors.New("the event store is closed")

// close stops the rounds; callers still waiting are told the store is
// closed.
func (f *Flusher) close() {
	if f == nil {
		return
	}
	f.once.Do(func() { close(f.stop) })
	<-f.done
	for _, t := range f.tails {
		t.close()
	}
}

func (f *Flusher) run() {
	defer close(f.done)
	for {
		var round []*flushReq
		select {
		case r := <-f.queue:
			round = append(round, r)
		case <-f.stop:
			for {
				select {
				case r := <-f.queue:
					r.done <- Unavailable("the event store", errFlusherClosed)
				default:
					return
				}
			}
		}
	gather:
		for {
			select {
			case r := <-f.queue:
				round = append(round, r)
			default:
				break gather
			}
		}
		err := f.round(round)
		f.mu.Lock()
		for _, r := range round {
			if err == nil && r.seq > 0 {
				f.through[r.streams[0]] = max(f.through[r.streams[0]], r.seq)
			}
		}
		f.mu.Unlock()
		for _, r := range round {
			r.done <- err
		}
	}
}

// round flushes the attached files if a caller asks, and the streams the
// round's callers wrote, side by side: everything a round flushes was
// written before it began, and nothing in it waits on anything else in it
// (an event is written only after a round has flushed its key, so never
// in the round that flushes it). On a disk whose flushes take milliseconds
// a round then takes the longer of the two, not their sum.
func (f *Flusher) round(round []*flushReq) error {
	files := make(chan error, 1)
	if slices.ContainsFunc(round, func(r *flushReq) bool { return r.files }) {
		f.mu.Lock()
		attached := f.files
		f.mu.Unlock()
		go func() { files <- flushFiles(attached) }()
	} else {
		files <- nil
	}
	if err := f.syncStreams(round); err != nil {
		<-files
		return err
	}
	return <-files
}

// flushFiles flushes the attached files one after another, and stops at
// the first that fails.
func flushFiles(files []interface{ Flush() error }) error {
	for _, file := range files {
		if err := file.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// syncStreams flushes the newest block of each stream the round's callers
// wrote.
func (f *Flusher) syncStreams(round []*flushReq) error {
	synced := map[string]bool{}
	for _, r := range round {
		for _, name := range r.streams {
			if synced[name] {
				continue
			}
			synced[name] = true
			t := f.tails[name]
			if t == nil {
				t = &tail{dir: filepath.Join(f.root, name, "msgs")}
				f.tails[name] = t
			}
			if err := t.sync(); err != nil {
				return Unavailable("the event store", fmt.Errorf("flush stream %s: %w", name, err))
			}
		}
	}
	return nil
}

// tail is the newest message block of a stream, which the server appends
// to.
type tail struct {
	dir   string
	index int
	f     *os.File // the block index; nil before the stream has one
}

func blockName(dir string, index int) string {
	return filepath.Join(dir, strconv.Itoa(index)+".blk")
}

// sync flushes the newest block: and when the server has begun blocks
// since the last sync, the one it left (the rest of its writes) and the
// directory that names the new ones.
func (t *tail) sync() error {
	if t.f != nil && !t.current() {
		t.close() // removed or replaced (purged, compacted): find the newest again
	}
	newBlocks := false
	if t.f == nil {
		index, err := newestBlock(t.dir)
		if err != nil || index == 0 {
			return err // no block yet: nothing written
		}
		if t.f, err = os.Open(blockName(t.dir, index)); err != nil {
			return err
		}
		t.index, newBlocks = index, true
	}
	for {
		next, err := os.Open(blockName(t.dir, t.index+1))
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return err
		}
		if err := t.f.Sync(); err != nil { // the block the server left
			next.Close()
			return err
		}
		t.f.Close()
		t.f, t.index, newBlocks = next, t.index+1, true
	}
	if newBlocks {
		if err := SyncDir(t.dir); err != nil {
			return err
		}
	}
	return t.f.Sync()
}

// current says the file open is still the block its name names.
func (t *tail) current() bool {
	named, err := os.Stat(blockName(t.dir, t.index))
	if err != nil {
		return false
	}
	open, err := t.f.Stat()
	return err == nil && os.SameFile(named, open)
}

func (t *tail) close() {
	if t.f != nil {
		t.f.Close()
		t.f = nil
	}
}

// newestBlock is the index of the newest message block in dir; 0 without
// one.
func newestBlock(dir string) (int, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	newest := 0
	for _, e := range entries {
		if n, err := strconv.Atoi(strings.TrimSuffix(e.Name(), ".blk")); err == nil && strings.HasSuffix(e.Name(), ".blk") {
			newest = max(newest, n)
		}
	}
	return newest, nil
}

// FlushAll puts every directory and every file of the store but the
// message blocks on disk: the definitions of streams and consumers, which
// the server writes when they are made or changed, and its other records.
func (f *Flusher) FlushAll() error {
	if f == nil {
		return nil
	}
	root := filepath.Dir(filepath.Dir(filepath.Dir(f.root))) // the store directory
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed meanwhile
			}
			return err
		}
		if strings.HasSuffix(path, ".blk") || !(d.IsDir() || d.Type().IsRegular()) {
			return nil
		}
		if d.IsDir() {
			if err := SyncDir(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			return nil
		}
		file, err := os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		defer file.Close()
		return file.Sync()
	})
}
