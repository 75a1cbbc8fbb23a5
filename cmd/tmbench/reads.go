package main

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// 3. Reads against a minimal handler with a fixed JSON document.
func (b *bench) reads() {
	dur := time.Duration(b.scale(10, 3)) * time.Second
	fmt.Printf("\n[3] reads: 32 concurrent clients, %v each\n", dur)
	svc := b.startService("", b.profile("read.pprof"))
	defer svc.remove()
	defer svc.stop()
	in := svc.newInbox()
	svc.newMailbox("bench")
	s := dialSender(svc.smt)
	for i := range 10 {
		_, _ = s.send(in.Address, message(in.Address, fmt.Sprintf("read-%d", i), 4096))
		_, _ = s.send("bench@tempmail.test", message("bench@tempmail.test", fmt.Sprintf("read-%d", i), 4096))
	}
	s.c.Close()
	time.Sleep(500 * time.Millisecond)
	refAddr := freePort()
	ref := b.startRef("fixed-http", refAddr)
	defer stopCmd(ref)

	load("http://"+refAddr+"/", 32, time.Second) // warm up
	load("http://"+svc.http+"/inboxes/"+in.Token+"/latest/", 32, time.Second)
	refRPS, refP99 := load("http://"+refAddr+"/", 32, dur)
	latRPS, latP99 := load("http://"+svc.http+"/inboxes/"+in.Token+"/latest/", 32, dur)
	boxRPS, boxP99 := load("http://"+svc.http+"/api/mailstore/mailbox/bench/", 32, dur)
	fmt.Printf("  fixed JSON handler: %.0f req/s, p99 %s\n", refRPS, ms(refP99))
	fmt.Printf("  GET latest: %.0f req/s, p99 %s\n", latRPS, ms(latP99))
	fmt.Printf("  GET mailbox list (10 messages): %.0f req/s, p99 %s\n", boxRPS, ms(boxP99))
	b.add("GET latest ≥ 0.5× fixed handler", fmt.Sprintf("%.0f vs %.0f req/s; p99 %s vs %s", latRPS, refRPS, ms(latP99), ms(refP99)),
		fmt.Sprintf("%.2f×", latRPS/refRPS), latRPS/refRPS >= 0.5)
	b.add("family B mailbox list (no target)", fmt.Sprintf("%.0f req/s; p99 %s", boxRPS, ms(boxP99)), fmt.Sprintf("%.2f×", boxRPS/refRPS), true)
}

// 4. One big inbox: does ingest cost grow with the inbox?
func (b *bench) bigInbox() {
	n := b.scale(10000, 3000)
	fmt.Printf("\n[4] one inbox: messages 1-1,000 against %d-%d (cap %d)\n", n-999, n, 1000)
	svc := b.startService("", "")
	defer svc.remove()
	defer svc.stop()
	in := svc.newInbox()
	var lat []time.Duration
	var mu sync.Mutex
	var next atomic.Int64
	var wg sync.WaitGroup
	lat = make([]time.Duration, n)
	for range 4 {
		wg.Go(func() {
			s := dialSender(svc.smt)
			defer s.c.Close()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				d, err := s.send(in.Address, message(in.Address, "big-"+strconv.Itoa(i), 4096))
				if err != nil {
					panic(err)
				}
				mu.Lock()
				lat[i] = d
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	first, last := mean(lat[:1000]), mean(lat[n-1000:])
	fmt.Printf("  mean DATA→250: first 1,000 %s, last 1,000 %s\n", ms(first), ms(last))
	b.add("10,000th message costs the same as the 1st", fmt.Sprintf("mean 250 %s (1-1,000) vs %s (%d-%d)", ms(first), ms(last), n-999, n),
		fmt.Sprintf("%.2f×", float64(last)/float64(first)), float64(last)/float64(first) <= 1.25)
}
