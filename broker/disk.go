package broker

import (
	"math"
	"sync/atomic"
	"syscall"

	"tempmail"
)

// DiskGuard keeps an embedded node's data directory from filling up.
//
// The embedded server stops writing a stream for good (until a restart) at
// its first write that finds the disk full, and by default it takes 75% of
// the room free at start as its limit, refusing writes long before. So the
// node's limit is the whole filesystem (NodeConfig), and the service
// refuses new things itself while less than Min is free: new mail (SMTP
// 452 4.3.1) and new inboxes and subscriptions (HTTP 507). What it has
// taken in is still applied, and deletions, which free room, still work,
// within the room Min keeps. It looks at the disk each time it is asked,
// and counts what callers are writing meanwhile (Reserve), so that many
// messages at once cannot overshoot; when room returns, the next check
// sees it.
type DiskGuard struct {
	dir      string
	min      int64
	reserved atomic.Int64
	statfs   func(dir string) (free int64, err error)
}

// NewDiskGuard guards dir, keeping min bytes free; min 0: no guard.
func NewDiskGuard(dir string, min int64) *DiskGuard {
	return &DiskGuard{dir: dir, min: min, statfs: freeBytes}
}

func freeBytes(dir string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	if st.Blocks == 0 {
		// A filesystem that tells nothing of its room (some FUSE ones
		// answer with zeros): nothing to guard by.
		return math.MaxInt64, nil
	}
	return int64(st.Bavail) * st.Bsize, nil
}

// Free is the room left on the disk, less what callers hold reserved.
func (g *DiskGuard) Free() (int64, error) {
	free, err := g.statfs(g.dir)
	return free - g.reserved.Load(), err
}

// Low reports whether less than the guard's minimum is free, and how much
// is.
func (g *DiskGuard) Low() (low bool, free int64) {
	if g == nil || g.min == 0 {
		return false, 0
	}
	free, err := g.Free()
	return err == nil && free < g.min, free
}

// Reserve holds need bytes for a write about to be made, if that leaves the
// guard's minimum free; release gives them back once the write is on disk.
// The error is of kind Full.
func (g *DiskGuard) Reserve(need int64) (release func(), err error) {
	if g == nil || g.min == 0 {
		return func() {}, nil
	}
	held := g.reserved.Add(need)
	free, err := g.statfs(g.dir)
	if err == nil && free-held < g.min {
		g.reserved.Add(-need)
		return nil, tempmail.Errorf(tempmail.Full, "the disk is nearly full (%d MiB free, %d MiB kept free); try again later", max(free, 0)>>20, g.min>>20)
	}
	var once atomic.Bool
	return func() {
		if once.CompareAndSwap(false, true) {
			g.reserved.Add(-need)
		}
	}, nil
}

// Min is the room the guard keeps free.
func (g *DiskGuard) Min() int64 {
	if g == nil {
		return 0
	}
	return g.min
}
