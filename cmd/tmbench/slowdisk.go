package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"tempmail/powercut"
)

// 12. A slow disk: SMTP ingest at 16 connections into a service whose data
// directory is on package powercut's FUSE filesystem, in alternating
// rounds with every sync taking 2 ms more and with none added. The group
// commit must gather the acknowledgments that wait on one flush: the
// rate with the delay at least half the rate without. Needs root and
// /dev/fuse (CI has both); else it says why and measures nothing.
func (b *bench) slowDisk() {
	const delay = 2 * time.Millisecond
	n, rounds := b.scale(8000, 2000), 4
	fmt.Printf("\n[12] slow disk: %d messages of 4 KiB, 16 connections, 50 inboxes, every sync %v slower, alternating\n", n, delay)
	if err := powercut.Available(); err != nil {
		fmt.Printf("  not measured: %v\n", err)
		return
	}
	dir, _ := os.MkdirTemp("", "tmbench-slowdisk")
	defer os.RemoveAll(dir)
	backing, mnt := filepath.Join(dir, "backing"), filepath.Join(dir, "mnt")
	_ = os.Mkdir(backing, 0o755)
	_ = os.Mkdir(mnt, 0o755)
	fs, err := powercut.Mount(backing, mnt)
	if err != nil {
		fmt.Printf("  not measured: %v\n", err)
		return
	}
	defer fs.Unmount()
	svc := b.startService(filepath.Join(mnt, "data"), "")
	defer svc.stop()
	inboxes := svc.newInboxes(50)
	rcpts := addresses(inboxes)
	blast(svc.smt, 16, 500, rcpts, "warm")
	per := n / rounds
	var fast, slow float64 // seconds
	for r := range rounds {
		fs.SetSyncDelay(0)
		rate, _ := blast(svc.smt, 16, per, rcpts, fmt.Sprintf("fast%d", r))
		fast += float64(per) / rate
		fs.SetSyncDelay(delay)
		rate, _ = blast(svc.smt, 16, per, rcpts, fmt.Sprintf("slow%d", r))
		slow += float64(per) / rate
	}
	fs.SetSyncDelay(0)
	svc.waitCount(inboxes, 500+n)
	fastRate, slowRate := float64(n)/fast, float64(n)/slow
	fmt.Printf("  no delay: %.0f msg/s; every sync %v slower: %.0f msg/s\n", fastRate, delay, slowRate)
	b.add(fmt.Sprintf("group commit on a slow disk (every sync %v slower) ≥ 0.5× the rate without", delay),
		fmt.Sprintf("%.0f vs %.0f msg/s", slowRate, fastRate), fmt.Sprintf("%.2f×", slowRate/fastRate), slowRate/fastRate >= 0.5)
}
