package powercut

import "time"

// SetSyncDelay makes every sync (fsync, fdatasync, a write to a file
// opened O_SYNC) take d more before it returns, as on a slow disk: for
// benchmarks of what groups its syncs. Syncs wait side by side, and
// nothing else waits for them.
func (f *FS) SetSyncDelay(d time.Duration) { f.syncDelay.Store(int64(d)) }

// slowSync waits the sync delay; no lock is held.
func (f *FS) slowSync() {
	if d := time.Duration(f.syncDelay.Load()); d > 0 {
		time.Sleep(d)
	}
}
