package powercut

import (
	"context"
	"os"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// handle is an open file: reads see what is held, writes are held, a sync
// puts them into the backing file. A file opened O_SYNC or O_DSYNC has
// each write synced as it is made.
type handle struct {
	fs      *FS
	f       *os.File // the backing file
	ino     uint64
	syncing bool // O_SYNC or O_DSYNC
}

var (
	_ fs.FileReader    = (*handle)(nil)
	_ fs.FileWriter    = (*handle)(nil)
	_ fs.FileFsyncer   = (*handle)(nil)
	_ fs.FileFlusher   = (*handle)(nil)
	_ fs.FileReleaser  = (*handle)(nil)
	_ fs.FileGetattrer = (*handle)(nil)
	_ fs.FileAllocater = (*handle)(nil)
)

func (f *FS) handle(backing *os.File, flags uint32) (*handle, error) {
	st, err := backing.Stat()
	if err != nil {
		return nil, err
	}
	return &handle{fs: f, f: backing, ino: st.Sys().(*syscall.Stat_t).Ino,
		syncing: flags&(syscall.O_SYNC|syscall.O_DSYNC) != 0}, nil
}

func (h *handle) Read(_ context.Context, buf []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	h.fs.mu.Lock()
	defer h.fs.mu.Unlock()
	if h.fs.cut {
		return nil, syscall.EIO
	}
	n, err := h.fs.read(h.fs.dirty[h.ino], h.f, buf, off)
	if err != nil {
		return nil, fs.ToErrno(err)
	}
	return fuse.ReadResultData(buf[:n]), 0
}

func (h *handle) Write(_ context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	if h.syncing {
		defer h.fs.slowSync() // once the lock is let go
	}
	h.fs.mu.Lock()
	defer h.fs.mu.Unlock()
	if h.fs.cut {
		return 0, syscall.EIO
	}
	u, err := h.fs.state(h.ino, h.f)
	if err == nil {
		err = u.write(h.f, data, off)
	}
	if err == nil && h.syncing {
		err = h.syncLocked()
	}
	if err != nil {
		return 0, fs.ToErrno(err)
	}
	return uint32(len(data)), 0
}

func (h *handle) truncate(size int64) error {
	h.fs.mu.Lock()
	defer h.fs.mu.Unlock()
	if h.fs.cut {
		return syscall.EIO
	}
	u, err := h.fs.state(h.ino, h.f)
	if err != nil {
		return err
	}
	u.truncate(size)
	if h.syncing {
		return h.syncLocked()
	}
	return nil
}

// syncLocked puts what is held of the file into the backing file, and
// syncs it; h.fs.mu is held.
func (h *handle) syncLocked() error {
	if u := h.fs.dirty[h.ino]; u != nil {
		if err := u.sync(h.f); err != nil {
			return err
		}
		delete(h.fs.dirty, h.ino)
		return nil
	}
	return h.f.Sync()
}

func (h *handle) Fsync(context.Context, uint32) syscall.Errno {
	defer h.fs.slowSync() // once the lock is let go
	h.fs.mu.Lock()
	defer h.fs.mu.Unlock()
	if h.fs.cut {
		return syscall.EIO
	}
	return fs.ToErrno(h.syncLocked())
}

// Flush (a close) puts nothing on disk, as with a real disk.
func (h *handle) Flush(context.Context) syscall.Errno { return 0 }

func (h *handle) Release(context.Context) syscall.Errno { return fs.ToErrno(h.f.Close()) }

func (h *handle) Getattr(_ context.Context, out *fuse.AttrOut) syscall.Errno {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(h.f.Fd()), &st); err != nil {
		return fs.ToErrno(err)
	}
	out.FromStat(&st)
	h.fs.mu.Lock()
	defer h.fs.mu.Unlock()
	if h.fs.cut {
		return syscall.EIO
	}
	if u := h.fs.dirty[h.ino]; u != nil {
		out.Size, out.Blocks = uint64(u.size), uint64(u.size+511)/512
	}
	return 0
}

// Allocate is refused, as LazyFS refuses it: callers fall back to writes.
func (h *handle) Allocate(context.Context, uint64, uint64, uint32) syscall.Errno {
	return syscall.EOPNOTSUPP
}
