package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// procCPU is the CPU time the process pid has used, all its threads, to
// the nanosecond (the kernel's scheduler statistics; /proc/pid/stat counts
// in hundredths of a second, too coarse for twenty messages).
func procCPU(pid int) time.Duration {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var sum int64
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue // a thread that just ended
		}
		f := strings.Fields(string(b))
		if len(f) > 0 {
			n, _ := strconv.ParseInt(f[0], 10, 64)
			sum += n
		}
	}
	return time.Duration(sum)
}

// 2d. What event streams cost when mail arrives: the service's CPU for 20
// messages into an inbox that holds 1,000, with no stream open, then with
// 200 and 1,000 streams open on that inbox, every one of which must tell
// every message. A wake costs what changed, not what the inbox holds, so
// the streams add a little per stream, not per message held.
func (b *bench) wakes() {
	fmt.Printf("\n[2d] event stream wakes: 20 messages into an inbox of 1,000, with 0, 200 and 1,000 streams open\n")
	svc := b.startService("", b.profile("wakes.pprof"), "--max-waiters", "0")
	defer svc.remove()
	defer svc.stop()
	in := svc.newInbox()
	blast(svc.smt, 8, 1000, []string{in.Address}, "fill")
	svc.waitCount([]inbox{in}, 1000)

	// A connection per stream, as many as there are.
	streams := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1024}}
	round := 0
	measure := func(n int) (time.Duration, bool) {
		round++
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var open sync.WaitGroup
		var told atomic.Int64 // message events told, by every stream together
		var done sync.WaitGroup
		prefix := fmt.Sprintf("wake%d-", round)
		for range n {
			open.Add(1)
			done.Add(1)
			go func() {
				defer done.Done()
				req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+svc.http+"/inboxes/"+in.Token+"/events/", nil)
				resp, err := streams.Do(req)
				if err != nil || resp.StatusCode != http.StatusOK {
					panic(fmt.Sprintf("stream: %v %v", resp, err))
				}
				defer resp.Body.Close()
				sc := bufio.NewScanner(resp.Body)
				sc.Buffer(nil, 1<<20)
				first := true
				for sc.Scan() {
					if first {
						open.Done() // its retry: line, written when it is held
						first = false
					}
					if strings.HasPrefix(sc.Text(), "data: ") && strings.Contains(sc.Text(), prefix) {
						told.Add(1)
					}
				}
			}()
		}
		open.Wait()
		start := procCPU(svc.cmd.Process.Pid)
		s := dialSender(svc.smt)
		for i := range 20 {
			subject := fmt.Sprintf("%s%d", prefix, i)
			if _, err := s.send(in.Address, message(in.Address, subject, 4096)); err != nil {
				panic(err)
			}
		}
		s.c.Close()
		// Every stream tells every message (with none, the last is waited
		// for as a long-poll would).
		deadline := time.Now().Add(60 * time.Second)
		if n == 0 {
			svc.waitLatestSubject(in, fmt.Sprintf("%s%d", prefix, 19))
		}
		for told.Load() < int64(20*n) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		used := procCPU(svc.cmd.Process.Pid) - start
		cancel()
		done.Wait()
		return used, told.Load() == int64(20*n)
	}
	none, _ := measure(0)
	with200, all200 := measure(200)
	with1000, all1000 := measure(1000)
	fmt.Printf("  CPU for 20 messages: %v with no stream, %v with 200, %v with 1,000; every stream told every message: %v, %v\n",
		none, with200, with1000, all200, all1000)
	ratio := float64(with200) / float64(none)
	b.add("20 messages with 200 streams ≤ 4× the CPU of 20 with none", fmt.Sprintf("%v vs %v; every stream told every message: %v", with200.Round(time.Millisecond), none.Round(time.Millisecond), all200),
		fmt.Sprintf("%.2f×", ratio), ratio <= 4 && all200)
	b.add("CPU per message with 1,000 streams open (no target)", fmt.Sprintf("%v a message (%v with none); every stream told every message: %v",
		(with1000/20).Round(10*time.Microsecond), (none/20).Round(10*time.Microsecond), all1000), fmt.Sprintf("%.2f×", float64(with1000)/float64(none)), all1000)
}

// waitLatestSubject waits until the inbox's newest message has subject,
// long-polling for each message after the newest it saw (as one stream
// would be woken), without a filter, which would read the whole inbox.
func (s *service) waitLatestSubject(in inbox, subject string) {
	after := ""
	for i := 0; i < 200; i++ {
		resp, err := client.Get("http://" + s.http + "/inboxes/" + in.Token + "/latest/?wait=5&after=" + after)
		if err != nil {
			continue
		}
		var m struct{ ID, Subject string }
		_ = json.NewDecoder(resp.Body).Decode(&m)
		resp.Body.Close()
		if m.Subject == subject {
			return
		}
		if m.ID != "" {
			after = m.ID
		}
	}
	panic("no message " + subject)
}
