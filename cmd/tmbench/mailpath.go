package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

// 1. SMTP ingest against a go-smtp server that discards, alternating, with
// the service as users run it (SPF, DKIM and DMARC checked); the CPU each
// process spent per message, all its threads; then the same load on a
// service with the checks off, for what they cost.
func (b *bench) ingest() {
	n, rounds := b.scale(20000, 4000), 4
	fmt.Printf("\n[1] SMTP ingest: %d messages of 4 KiB, 16 connections, 50 inboxes\n", n)
	svc := b.startService("", b.profile("ingest.pprof"))
	defer svc.remove()
	defer svc.stop()
	inboxes := svc.newInboxes(50)
	rcpts := addresses(inboxes)
	refAddr := freePort()
	ref := b.startRef("discard-smtp", refAddr)
	defer stopCmd(ref)
	blast(refAddr, 16, 500, rcpts, "warm")
	blast(svc.smt, 16, 500, rcpts, "warm")

	var refLat, tmLat []time.Duration
	var refTime, tmTime float64
	per := n / rounds
	// Each process's CPU is counted over all the rounds: the service's
	// work that trails its own round (the views) falls in the reference's.
	tmCPU, refCPU := procCPU(svc.cmd.Process.Pid), procCPU(ref.Process.Pid)
	for r := range rounds {
		rate, lat := blast(svc.smt, 16, per, rcpts, fmt.Sprintf("tm%d", r))
		tmTime += float64(per) / rate
		tmLat = append(tmLat, lat...)
		rate, lat = blast(refAddr, 16, per, rcpts, fmt.Sprintf("ref%d", r))
		refTime += float64(per) / rate
		refLat = append(refLat, lat...)
	}
	svc.waitCount(inboxes, 500+n)
	tmCPU, refCPU = procCPU(svc.cmd.Process.Pid)-tmCPU, procCPU(ref.Process.Pid)-refCPU
	perMsg, refPerMsg := tmCPU/time.Duration(n), refCPU/time.Duration(n)
	refRate, tmRate := float64(n)/refTime, float64(n)/tmTime
	fmt.Printf("  discard: %.0f msg/s, 250 p50 %s p99 %s, CPU %v a message\n", refRate, ms(pct(refLat, .5)), ms(pct(refLat, .99)), refPerMsg)
	fmt.Printf("  tempmail: %.0f msg/s, 250 p50 %s p99 %s, CPU %v a message\n", tmRate, ms(pct(tmLat, .5)), ms(pct(tmLat, .99)), perMsg)
	b.add("SMTP ingest ≥ 0.4× discard", fmt.Sprintf("%.0f vs %.0f msg/s; p99 %s vs %s", tmRate, refRate, ms(pct(tmLat, .99)), ms(pct(refLat, .99))),
		fmt.Sprintf("%.2f×", tmRate/refRate), tmRate/refRate >= 0.4)
	b.add("service CPU ≤ 0.4 ms per 4 KiB message", fmt.Sprintf("%s (discard server %s)", ms(perMsg), ms(refPerMsg)),
		fmt.Sprintf("%.2f of 0.4 ms", float64(perMsg)/float64(400*time.Microsecond)), perMsg <= 400*time.Microsecond)

	// The same with --auth-checks=false.
	off := b.startService("", "", "--auth-checks=false")
	defer off.remove()
	defer off.stop()
	offInboxes := off.newInboxes(50)
	offRcpts := addresses(offInboxes)
	blast(off.smt, 16, 500, offRcpts, "warm")
	offN := n / 2
	offCPU := procCPU(off.cmd.Process.Pid)
	offRate, _ := blast(off.smt, 16, offN, offRcpts, "off")
	off.waitCount(offInboxes, 500+offN)
	offPerMsg := (procCPU(off.cmd.Process.Pid) - offCPU) / time.Duration(offN)
	fmt.Printf("  tempmail --auth-checks=false: %.0f msg/s, CPU %v a message\n", offRate, offPerMsg)
	b.add("SPF, DKIM and DMARC checks (no target)", fmt.Sprintf("%s CPU a message more than with --auth-checks=false (%s, at %.0f msg/s)", ms(perMsg-offPerMsg), ms(offPerMsg), offRate),
		fmt.Sprintf("%.2f×", float64(perMsg)/float64(offPerMsg)), true)
}

// 2. From the 250 to readable through GET /inboxes/<token>/latest/, at a
// steady 1,000 messages a second.
func (b *bench) endToEnd() {
	dur := time.Duration(b.scale(15, 5)) * time.Second
	fmt.Printf("\n[2] end to end at 1,000 msg/s for %v, read by long-polls\n", dur)
	lat, rate := b.steady(dur, 1000, nil, eachInbox(func(ctx context.Context, svc *service, in inbox, seen func(subject string)) {
		after := ""
		for ctx.Err() == nil {
			req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+svc.http+"/inboxes/"+in.Token+"/latest/?wait=10&after="+after, nil)
			resp, err := client.Do(req)
			if err != nil {
				continue
			}
			var m struct{ ID, Subject string }
			_ = json.NewDecoder(resp.Body).Decode(&m)
			resp.Body.Close()
			if resp.StatusCode == 200 {
				seen(m.Subject)
				after = m.ID
			}
		}
	}))
	b.addLatency("250 → readable p99 < 25 ms at 1,000 msg/s", lat, rate, 1000, 25*time.Millisecond)
}

// 2b. From the 250 to the message event on a connected event stream
// (GET /inboxes/<token>/events/), at a steady 1,000 messages a second.
func (b *bench) streams() {
	dur := time.Duration(b.scale(15, 5)) * time.Second
	fmt.Printf("\n[2b] event streams at 1,000 msg/s for %v\n", dur)
	lat, rate := b.steady(dur, 1000, nil, eachInbox(func(ctx context.Context, svc *service, in inbox, seen func(subject string)) {
		req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+svc.http+"/inboxes/"+in.Token+"/events/", nil)
		resp, err := streamClient.Do(req)
		if err != nil {
			panic(err)
		}
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m struct{ Subject string }
				if json.Unmarshal([]byte(data), &m) == nil && m.Subject != "" {
					seen(m.Subject)
				}
			}
		}
	}))
	b.addLatency("250 → event on a stream p99 < 25 ms at 1,000 msg/s", lat, rate, 1000, 25*time.Millisecond)
}

// 2c. From the 250 to the first attempt at its outbound webhook, to a fast
// loopback receiver subscribed to every inbox, at 200 messages a second.
func (b *bench) webhooks() {
	dur := time.Duration(b.scale(15, 5)) * time.Second
	fmt.Printf("\n[2c] outbound webhooks at 200 msg/s for %v\n", dur)
	lat, rate := b.steady(dur, 200, []string{"--webhook-allow-private", "--api-token", benchToken},
		func(ctx context.Context, svc *service, _ []inbox, seen func(subject string)) {
			rc := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var ev struct {
					Data struct{ Subject string } `json:"data"`
				}
				_ = json.NewDecoder(r.Body).Decode(&ev)
				seen(ev.Data.Subject)
				w.WriteHeader(http.StatusNoContent)
			})}
			addr := freePort()
			l, err := net.Listen("tcp", addr)
			if err != nil {
				panic(err)
			}
			go func() { _ = rc.Serve(l) }()
			req, _ := http.NewRequest("POST", "http://"+svc.http+"/api/webhooks/", strings.NewReader(`{"url":"http://`+addr+`/"}`))
			req.Header.Set("Authorization", "Token "+benchToken)
			req.Header.Set("Content-Type", "application/json")
			resp, err := client.Do(req)
			if err != nil || resp.StatusCode != http.StatusCreated {
				panic(fmt.Sprintf("subscribe: %v %v", resp, err))
			}
			resp.Body.Close()
			<-ctx.Done()
			_ = rc.Close()
		})
	b.addLatency("250 → first webhook attempt p99 ≤ 50 ms at 200 msg/s", lat, rate, 200, 50*time.Millisecond)
}

const benchToken = "tmbench-api-token"

// addLatency adds a row for a latency target at a rate.
func (b *bench) addLatency(target string, lat []time.Duration, rate float64, want int, limit time.Duration) {
	b.add(target, fmt.Sprintf("p50 %s, p99 %s, max %s at %.0f msg/s", ms(pct(lat, .5)), ms(pct(lat, .99)), ms(pct(lat, 1)), rate),
		fmt.Sprintf("%.2f of %s", float64(pct(lat, .99))/float64(limit), limit), pct(lat, .99) <= limit && rate > 0.9*float64(want))
}

// streamClient holds event streams open as long as they last.
var streamClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256, MaxConnsPerHost: 256}}

// follower learns of messages as they arrive until ctx ends, calling seen
// with the subject of each.
type follower func(ctx context.Context, svc *service, inboxes []inbox, seen func(subject string))

// eachInbox follows every inbox with its own watch.
func eachInbox(watch func(ctx context.Context, svc *service, in inbox, seen func(subject string))) follower {
	return func(ctx context.Context, svc *service, inboxes []inbox, seen func(subject string)) {
		var wg sync.WaitGroup
		for _, in := range inboxes {
			wg.Go(func() { watch(ctx, svc, in, seen) })
		}
		wg.Wait()
	}
}

// steady sends rate 4 KiB messages a second over 16 connections to 50
// inboxes for dur, on a service started with args and followed by follow,
// and returns the times from each 250 to its message being seen, and the
// rate reached.
func (b *bench) steady(dur time.Duration, rate int, args []string, follow follower) ([]time.Duration, float64) {
	svc := b.startService("", "", args...)
	defer svc.remove()
	defer svc.stop()
	inboxes := svc.newInboxes(50)
	var mu sync.Mutex
	acked := map[string]time.Time{}
	read := map[string]time.Time{}
	seen := func(subject string) {
		t := time.Now()
		mu.Lock()
		if _, ok := read[subject]; !ok {
			read[subject] = t
		}
		mu.Unlock()
	}
	ctx, cancel := context.WithCancel(context.Background())
	followed := make(chan struct{})
	go func() {
		defer close(followed)
		follow(ctx, svc, inboxes, seen)
	}()
	time.Sleep(500 * time.Millisecond)

	tokens := make(chan int, rate)
	go func() {
		tick := time.NewTicker(time.Second / time.Duration(rate))
		defer tick.Stop()
		deadline := time.Now().Add(dur)
		for i := 0; time.Now().Before(deadline); i++ {
			<-tick.C
			tokens <- i
		}
		close(tokens)
	}()
	var senders sync.WaitGroup
	sent := atomic.Int64{}
	for range 16 {
		senders.Go(func() {
			s := dialSender(svc.smt)
			defer s.c.Close()
			for i := range tokens {
				in := inboxes[i%len(inboxes)]
				subject := "e2e-" + strconv.Itoa(i)
				if _, err := s.send(in.Address, message(in.Address, subject, 4096)); err != nil {
					panic(err)
				}
				t := time.Now()
				mu.Lock()
				acked[subject] = t
				mu.Unlock()
				sent.Add(1)
			}
		})
	}
	start := time.Now()
	senders.Wait()
	elapsed := time.Since(start)
	time.Sleep(2 * time.Second)
	cancel()
	<-followed
	var lat []time.Duration
	for subj, at := range acked {
		if r, ok := read[subj]; ok {
			lat = append(lat, max(r.Sub(at), 0))
		}
	}
	got := float64(sent.Load()) / elapsed.Seconds()
	fmt.Printf("  sent %d at %.0f msg/s; seen %d: p50 %s p99 %s max %s\n", sent.Load(), got, len(lat), ms(pct(lat, .5)), ms(pct(lat, .99)), ms(pct(lat, 1)))
	if len(lat) < int(sent.Load()) {
		fmt.Printf("  %d messages were never seen\n", int(sent.Load())-len(lat))
	}
	return lat, got
}

// load runs conc workers against url for dur: requests a second and p99.
func load(url string, conc int, dur time.Duration) (float64, time.Duration) {
	var lat []time.Duration
	var mu sync.Mutex
	var wg sync.WaitGroup
	deadline := time.Now().Add(dur)
	for range conc {
		wg.Go(func() {
			var mine []time.Duration
			for time.Now().Before(deadline) {
				t := time.Now()
				resp, err := client.Get(url)
				if err != nil {
					panic(err)
				}
				_, _ = drain(resp)
				if resp.StatusCode != 200 {
					panic(fmt.Sprintf("%s: %d", url, resp.StatusCode))
				}
				mine = append(mine, time.Since(t))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	return float64(len(lat)) / dur.Seconds(), pct(lat, .99)
}
