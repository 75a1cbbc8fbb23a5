package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/google/uuid"

	"tempmail/broker"
	"tempmail/events"
	"tempmail/mailbox"
)

// 5. Rebuild: events a second replaying the log, and the memory it takes,
// for two sizes of store: the peak must not grow with the store.
func (b *bench) rebuild() {
	sizes := []int{300000, 1000000}
	if b.quick {
		sizes = []int{100000}
	}
	fmt.Printf("\n[5] rebuild of %v events\n", sizes)
	dirs := make([]string, len(sizes))
	for i, n := range sizes {
		dirs[i], _ = os.MkdirTemp("", "tmbench-rebuild")
		defer os.RemoveAll(dirs[i])
		// In a process of its own: the rebuild's peak RSS is read from the
		// kernel's account of its child, which begins with this process's
		// memory when it forks.
		if out, err := exec.Command(b.self, "generate", dirs[i], strconv.Itoa(n)).CombinedOutput(); err != nil {
			panic(fmt.Sprintf("generate: %v\n%s", err, out))
		}
	}
	// A rebuild runs on a store whose server has stopped, its last writes
	// older than the dedupe window, which the embedded server otherwise
	// reloads at start (every message of the last two minutes, read and
	// kept): wait that out, as a real rebuild would have.
	time.Sleep(events.DedupeWindow + 5*time.Second)
	for i, dir := range dirs {
		syscall.Sync()
		cmd := exec.Command(b.bin, "rebuild", "--data-dir", dir)
		if p := b.profile(fmt.Sprintf("rebuild-%d.pprof", sizes[i])); p != "" {
			cmd.Env = append(os.Environ(), "TEMPMAIL_CPUPROFILE="+p)
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			panic(fmt.Sprintf("rebuild: %v\n%s", err, out))
		}
		m := regexp.MustCompile(`(\d+) events, .* \((\d+) events/s\)`).FindStringSubmatch(string(out))
		if m == nil {
			panic("rebuild said: " + string(out))
		}
		rate, _ := strconv.Atoi(m[2])
		fmt.Printf("  %s", out)
		var peak int64
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			peak = ru.Maxrss << 10
			fmt.Printf("  rebuild peak RSS %d MiB\n", peak>>20)
		}
		b.add(fmt.Sprintf("rebuild of %d events ≥ 30,000 events/s", sizes[i]), fmt.Sprintf("%s events at %d/s", m[1], rate),
			fmt.Sprintf("%.2f×", float64(rate)/30000), rate >= 30000)
		b.add(fmt.Sprintf("rebuild of %d events: peak RSS ≤ 256 MiB", sizes[i]), fmt.Sprintf("%d MiB", peak>>20),
			fmt.Sprintf("%.2f of 256 MiB", float64(peak)/(256<<20)), peak <= 256<<20)
	}
}

// generateEvents writes n events straight into a store: an inbox for every
// 1,000 events (at least 100), the rest messages of 4 KiB, as ingest would
// publish them. As in a live store, no inbox holds more than the default
// cap (--max-messages-per-inbox 1000): the log holds what is live, the
// live projection having forgotten what the cap evicted.
func generateEvents(dir string, n int) error {
	ctx := context.Background()
	node, err := broker.StartNode(ctx, broker.NodeConfig{DataDir: dir})
	if err != nil {
		return err
	}
	defer node.Close(ctx)
	// The message keys in a file of the data directory, as a single node
	// keeps them (backend's storeConfig): in a stream instead, the server
	// would hold an index of a subject per message, which a single node's
	// rebuild never has.
	store, err := events.OpenStore(ctx, node.JS, events.StoreConfig{KeyDir: filepath.Join(dir, "keys")})
	if err != nil {
		return err
	}
	defer store.Close()
	type ib struct {
		id, addr string
		seq      uint64
	}
	var inboxes []ib
	count := max(100, n/1000)
	for i := range count {
		addr := fmt.Sprintf("gen%d@tempmail.test", i)
		ev := events.InboxCreated{InboxID: uuid.NewString(), Address: addr, Token: uuid.NewString(), Retention: mailbox.RetainMessages, DomainID: 1, CreatedAt: time.Now()}
		ack, err := store.CreateInbox(ctx, ev, 0)
		if err != nil {
			return err
		}
		inboxes = append(inboxes, ib{ev.InboxID, addr, ack.Seq})
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	var firstErr atomic.Value
	for range 8 {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n-count {
					return
				}
				in := inboxes[i%len(inboxes)]
				id := events.NewMessageID(in.id)
				raw := message(in.addr, "gen-"+strconv.Itoa(i), 4096)
				m := events.MailReceived{InboxID: in.id, MessageID: id, Address: in.addr, ReceivedAt: time.Now(), Size: int64(len(raw)),
					Content: mailbox.Content{Raw: raw, From: "bench@example.com", Subject: "gen-" + strconv.Itoa(i), Text: string(raw[200:])}}
				if _, err := store.AppendMail(ctx, []events.Copy{{Mail: m, LifecycleSeq: in.seq, DedupeID: id}}); err != nil {
					firstErr.CompareAndSwap(nil, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err, ok := firstErr.Load().(error); ok {
		return err
	}
	return nil
}
