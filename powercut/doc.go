// Package powercut is a filesystem for tests that loses what a power cut
// loses. Mounted over a directory (FUSE), it passes every directory
// operation through but holds each file's writes in memory until the file
// is synced (fsync, fdatasync, O_SYNC); Cut drops everything held, as the
// disk's cache is dropped when the power goes, and the backing directory is
// then what a machine would find on its disk when it comes back. It is the
// model of LazyFS (github.com/dsrhaslab/lazyfs), which `make powerloss`
// uses itself; this one needs nothing but Go, /dev/fuse and root, so `make
// test-e2e` can cut the power.
//
// It is for tests only: it keeps unsynced data in memory without bound, and
// it is not fast.
package powercut
