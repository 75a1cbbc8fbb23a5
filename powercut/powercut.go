package powercut

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// pageSize is the unit in which unsynced writes are held.
const pageSize = 4096

// FS is a mounted filesystem that holds unsynced writes until Cut.
type FS struct {
	backing string
	server  *fuse.Server

	mu    sync.Mutex
	dirty map[uint64]*unsynced // by the backing file's inode
	cut   bool

	syncDelay atomic.Int64 // nanoseconds every sync takes more (SetSyncDelay)
}

// unsynced is what a file's writes and truncations since its last sync
// made of it, held in memory.
type unsynced struct {
	size int64 // the file's size as its writers see it
	// floor: the backing file's bytes at or past it are not the file's
	// any more (a truncation cut them off); they read as zeros.
	floor int64
	pages map[int64][]byte // by page number, pageSize bytes each
}

// Available says why a test cannot mount here: FUSE needs /dev/fuse, and
// mounting without fusermount needs root.
func Available() error {
	if os.Geteuid() != 0 {
		return errors.New("mounting a FUSE filesystem needs root")
	}
	f, err := os.OpenFile("/dev/fuse", os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("no FUSE here: %w", err)
	}
	return f.Close()
}

// Mount serves backing at mountpoint (both directories must exist).
func Mount(backing, mountpoint string) (*FS, error) {
	backing, err := filepath.Abs(backing)
	if err != nil {
		return nil, err
	}
	root, err := fs.NewLoopbackRoot(backing)
	if err != nil {
		return nil, err
	}
	pfs := &FS{backing: backing, dirty: map[uint64]*unsynced{}}
	lr := root.(*fs.LoopbackNode)
	top := &node{LoopbackNode: lr, fs: pfs}
	lr.RootData.RootNode = top
	// No caching of sizes in the kernel: a file's size is what its
	// unsynced writes made it, which only this process knows.
	zero := time.Duration(0)
	pfs.server, err = fs.Mount(mountpoint, top, &fs.Options{
		AttrTimeout: &zero, EntryTimeout: &zero, NegativeTimeout: &zero,
		MountOptions: fuse.MountOptions{DirectMountStrict: true, FsName: "powercut:" + backing, Name: "powercut",
			MaxBackground: 64},
	})
	if err != nil {
		return nil, fmt.Errorf("mount %s: %w", mountpoint, err)
	}
	return pfs, nil
}

// Cut drops every write not synced, as a power cut does: the backing
// directory keeps what was synced (and every directory operation, which
// goes straight through, as LazyFS does). Every operation after it fails
// with EIO; the process using the filesystem is expected to be stopped
// before and killed after.
func (f *FS) Cut() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cut = true
	f.dirty = map[uint64]*unsynced{}
}

// Unsynced is how many bytes of file data are held, not yet synced.
func (f *FS) Unsynced() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	var n int64
	for _, u := range f.dirty {
		n += int64(len(u.pages)) * pageSize
	}
	return n
}

// Unmount unmounts; the processes that used it must be gone.
func (f *FS) Unmount() error {
	var err error
	for range 50 {
		if err = f.server.Unmount(); err == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond) // the kernel lets go of the killed process's files
	}
	return err
}

// state returns the inode's unsynced state, made from the backing file
// when it has none; f.mu is held.
func (f *FS) state(ino uint64, backing *os.File) (*unsynced, error) {
	if u := f.dirty[ino]; u != nil {
		return u, nil
	}
	st, err := backing.Stat()
	if err != nil {
		return nil, err
	}
	u := &unsynced{size: st.Size(), floor: st.Size(), pages: map[int64][]byte{}}
	f.dirty[ino] = u
	return u, nil
}

// read fills b from the file at off as its writers see it; f.mu is held.
func (f *FS) read(u *unsynced, backing *os.File, b []byte, off int64) (int, error) {
	if u == nil {
		n, err := backing.ReadAt(b, off)
		if errors.Is(err, io.EOF) {
			err = nil
		}
		return n, err
	}
	if off >= u.size {
		return 0, nil
	}
	n := int(min(int64(len(b)), u.size-off))
	for done := 0; done < n; {
		pos := off + int64(done)
		page, in := pos/pageSize, pos%pageSize
		seg := b[done:min(n, done+int(pageSize-in))]
		if p := u.pages[page]; p != nil {
			copy(seg, p[in:])
		} else if err := u.readBacking(backing, seg, pos); err != nil {
			return 0, err
		}
		done += len(seg)
	}
	return n, nil
}

// readBacking reads the backing file's bytes that are still the file's,
// zeros past its end or past the floor.
func (u *unsynced) readBacking(backing *os.File, b []byte, off int64) error {
	clear(b)
	if off >= u.floor {
		return nil
	}
	_, err := backing.ReadAt(b[:min(int64(len(b)), u.floor-off)], off)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return err
}

// write holds data written at off; f.mu is held.
func (u *unsynced) write(backing *os.File, data []byte, off int64) error {
	for done := 0; done < len(data); {
		pos := off + int64(done)
		page, in := pos/pageSize, pos%pageSize
		p := u.pages[page]
		if p == nil {
			p = make([]byte, pageSize)
			if err := u.readBacking(backing, p, page*pageSize); err != nil {
				return err
			}
			u.pages[page] = p
		}
		done += copy(p[in:], data[done:])
	}
	u.size = max(u.size, off+int64(len(data)))
	return nil
}

// truncate holds a change of size; f.mu is held.
func (u *unsynced) truncate(size int64) {
	for page, p := range u.pages {
		switch start := page * pageSize; {
		case start >= size:
			delete(u.pages, page)
		case start+pageSize > size:
			clear(p[size-start:])
		}
	}
	u.size, u.floor = size, min(u.floor, size)
}

// sync puts u into the backing file and syncs it; f.mu is held.
func (u *unsynced) sync(backing *os.File) error {
	if st, err := backing.Stat(); err != nil {
		return err
	} else if u.floor < st.Size() {
		if err := backing.Truncate(u.floor); err != nil {
			return err
		}
	}
	for page, p := range u.pages {
		start := page * pageSize
		if start >= u.size {
			continue
		}
		if _, err := backing.WriteAt(p[:min(pageSize, u.size-start)], start); err != nil {
			return err
		}
	}
	if err := backing.Truncate(u.size); err != nil {
		return err
	}
	return backing.Sync()
}

// node is a loopback node whose files hold their unsynced writes.
type node struct {
	*fs.LoopbackNode
	fs *FS
}

var (
	_ fs.NodeWrapChilder    = (*node)(nil)
	_ fs.NodeOpener         = (*node)(nil)
	_ fs.NodeCreater        = (*node)(nil)
	_ fs.NodeGetattrer      = (*node)(nil)
	_ fs.NodeSetattrer      = (*node)(nil)
	_ fs.NodeUnlinker       = (*node)(nil)
	_ fs.NodeRenamer        = (*node)(nil)
	_ fs.NodeCopyFileRanger = (*node)(nil)
)

func (n *node) WrapChild(_ context.Context, ops fs.InodeEmbedder) fs.InodeEmbedder {
	return &node{LoopbackNode: ops.(*fs.LoopbackNode), fs: n.fs}
}

// path is the node's path in the backing directory.
func (n *node) path() string {
	return filepath.Join(n.RootData.Path, n.Path(n.RootData.RootNode.EmbeddedInode()))
}

func (n *node) dead() bool {
	n.fs.mu.Lock()
	defer n.fs.mu.Unlock()
	return n.fs.cut
}

func (n *node) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if n.dead() {
		return nil, 0, syscall.EIO
	}
	trunc := flags&syscall.O_TRUNC != 0
	// Holding a write means reading the rest of its page, and a sync
	// through any descriptor writes what is held of the file: the backing
	// file is opened to read and write, whatever the caller asked.
	f, err := os.OpenFile(n.path(), os.O_RDWR, 0)
	if err != nil {
		return nil, 0, fs.ToErrno(err)
	}
	h, err := n.fs.handle(f, flags)
	if err == nil && trunc {
		err = h.truncate(0)
	}
	if err != nil {
		f.Close()
		return nil, 0, fs.ToErrno(err)
	}
	return h, 0, 0
}

func (n *node) Create(ctx context.Context, name string, flags, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	if n.dead() {
		return nil, nil, 0, syscall.EIO
	}
	in, lf, fuseFlags, errno := n.LoopbackNode.Create(ctx, name, flags&^(syscall.O_SYNC|syscall.O_DSYNC|syscall.O_TRUNC), mode, out)
	if errno != 0 {
		return nil, nil, 0, errno
	}
	// The loopback's handle owns the descriptor; reopen ours by path.
	lf.(fs.FileReleaser).Release(ctx)
	f, err := os.OpenFile(filepath.Join(n.path(), name), os.O_RDWR, 0)
	if err != nil {
		return nil, nil, 0, fs.ToErrno(err)
	}
	h, err := n.fs.handle(f, flags)
	if err == nil && flags&syscall.O_TRUNC != 0 {
		err = h.truncate(0)
	}
	if err != nil {
		f.Close()
		return nil, nil, 0, fs.ToErrno(err)
	}
	return in, h, fuseFlags, 0
}

func (n *node) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	if n.dead() {
		return syscall.EIO
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(n.path(), &st); err != nil {
		return fs.ToErrno(err)
	}
	out.FromStat(&st)
	n.fs.mu.Lock()
	if u := n.fs.dirty[st.Ino]; u != nil {
		out.Size, out.Blocks = uint64(u.size), uint64(u.size+511)/512
	}
	n.fs.mu.Unlock()
	return 0
}

func (n *node) Setattr(ctx context.Context, f fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if n.dead() {
		return syscall.EIO
	}
	if size, ok := in.GetSize(); ok {
		h, _ := f.(*handle)
		if h == nil {
			bf, err := os.OpenFile(n.path(), os.O_RDWR, 0)
			if err != nil {
				return fs.ToErrno(err)
			}
			defer bf.Close()
			var err2 error
			if h, err2 = n.fs.handle(bf, 0); err2 != nil {
				return fs.ToErrno(err2)
			}
		}
		if err := h.truncate(int64(size)); err != nil {
			return fs.ToErrno(err)
		}
		in.Valid &^= fuse.FATTR_SIZE
	}
	// The rest (mode, owner, times) goes straight through.
	if errno := n.LoopbackNode.Setattr(ctx, nil, in, out); errno != 0 {
		return errno
	}
	return n.Getattr(ctx, f, out)
}

// forgetFile drops what is held for the file at path when it is about to
// go for good (its last name removed or replaced): its inode number may be
// given to another file.
func (n *node) forgetFile(path string) {
	var st syscall.Stat_t
	if syscall.Lstat(path, &st) == nil && st.Nlink <= 1 {
		n.fs.mu.Lock()
		delete(n.fs.dirty, st.Ino)
		n.fs.mu.Unlock()
	}
}

func (n *node) Unlink(ctx context.Context, name string) syscall.Errno {
	if n.dead() {
		return syscall.EIO
	}
	n.forgetFile(filepath.Join(n.path(), name))
	return n.LoopbackNode.Unlink(ctx, name)
}

func (n *node) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	if n.dead() {
		return syscall.EIO
	}
	if np, ok := newParent.(*node); ok && flags == 0 {
		n.forgetFile(filepath.Join(np.path(), newName))
	}
	return n.LoopbackNode.Rename(ctx, name, newParent, newName, flags)
}

// CopyFileRange is refused: the kernel copies by reads and writes, which
// see what is held.
func (n *node) CopyFileRange(context.Context, fs.FileHandle, uint64, *fs.Inode, fs.FileHandle, uint64, uint64, uint64) (uint32, syscall.Errno) {
	return 0, syscall.EOPNOTSUPP
}
