package backend

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// lockDataDir takes an exclusive lock on the data directory, so that a second
// server or a rebuild cannot open a store a running server holds. The lock
// goes with the process, however it ends.
func lockDataDir(dir string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("data directory %s: %w", dir, err)
	}
	path := filepath.Join(dir, "LOCK")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("data directory %s: %w", dir, err)
	}
	// A lock let go a moment ago can still be held for a moment by a
	// process forked from its holder before it runs another program
	// (which closes the file): it is asked for again, for half a second,
	// before the directory is said to be in use.
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	for try := 0; err != nil && try < 10; try++ {
		time.Sleep(50 * time.Millisecond)
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	}
	if err != nil {
		b, _ := os.ReadFile(path)
		f.Close()
		holder := "another process"
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			holder = fmt.Sprintf("a running tempmail (pid %d)", pid)
		}
		return nil, fmt.Errorf("data directory %s is in use by %s; stop it first", dir, holder)
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return f, nil
}

func unlockDataDir(f *os.File) {
	if f != nil {
		_ = f.Truncate(0)
		f.Close()
	}
}
