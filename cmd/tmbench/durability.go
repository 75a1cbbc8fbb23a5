package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// 10. Durability: SMTP ingest of 4 KiB messages over 16 connections to 50
// inboxes with --sync always (the default: every 250 follows the disk
// flush of what it acknowledges), with --sync 2m (the embedded server's
// own default, which a power cut costs up to two minutes of acknowledged
// mail), into Mailpit (-mailpit, built from its source beside it) and
// into the three floor references (floor.go: go-smtp storing each message
// in JetStream, with an fsync each and without, and without but with a
// view entry written for each before its 250), in alternating rounds;
// then the disk flushes per acknowledged message with --sync always,
// counted by strace (when it is installed) over one more round.
func (b *bench) durability() {
	n, rounds := b.scale(20000, 4000), 4
	fmt.Printf("\n[10] durability: %d messages of 4 KiB, 16 connections, 50 inboxes, --sync always, --sync 2m and Mailpit\n", n)
	always := b.startService("", b.profile("sync-always.pprof"))
	defer always.remove()
	defer always.stop()
	relaxed := b.startService("", b.profile("sync-2m.pprof"), "--sync", "2m")
	defer relaxed.remove()
	defer relaxed.stop()
	targets := []*ingestTarget{
		{name: "--sync always", smtp: always.smt, rcpts: addresses(always.newInboxes(50)), pid: always.cmd.Process.Pid},
		{name: "--sync 2m", smtp: relaxed.smt, rcpts: addresses(relaxed.newInboxes(50)), pid: relaxed.cmd.Process.Pid},
	}
	if b.mailpit != "" {
		mp := b.startMailpit()
		defer mp.stop()
		targets = append(targets, &ingestTarget{name: "Mailpit", smtp: mp.smtp, rcpts: mailpitRcpts(50), pid: mp.cmd.Process.Pid})
	}
	var floors []*ingestTarget
	for _, name := range []string{floorAlways, floorLazy, floorViews} {
		tg := b.startFloor(name)
		defer tg.stop()
		targets, floors = append(targets, tg.target), append(floors, tg.target)
	}
	if b.baseline != "" {
		base := b.startBinary(b.baseline, "", "")
		defer base.remove()
		defer base.stop()
		targets = append(targets, &ingestTarget{name: "baseline --sync always", smtp: base.smt, rcpts: addresses(base.newInboxes(50)), pid: base.cmd.Process.Pid})
	}
	for _, tg := range targets {
		blast(tg.smtp, 16, 500, tg.rcpts, "warm")
	}
	per := n / rounds
	for r := range rounds {
		for _, tg := range targets {
			cpu := procCPU(tg.pid)
			rate, lat := blast(tg.smtp, 16, per, tg.rcpts, fmt.Sprintf("r%d", r))
			tg.cpu += procCPU(tg.pid) - cpu
			tg.secs += float64(per) / rate
			tg.lat = append(tg.lat, lat...)
		}
	}
	byName := map[string]*ingestTarget{}
	for _, tg := range targets {
		tg.rate = float64(n) / tg.secs
		byName[tg.name] = tg
		fmt.Printf("  %s: %.0f msg/s, 250 p50 %s p99 %s, CPU %s a message (in its rounds)\n", tg.name, tg.rate,
			ms(pct(tg.lat, .5)), ms(pct(tg.lat, .99)), ms(tg.cpu/time.Duration(n)))
	}
	a, r := targets[0], targets[1]
	b.add("--sync always ≥ 0.8× --sync 2m", fmt.Sprintf("%.0f vs %.0f msg/s; p99 %s vs %s", a.rate, r.rate, ms(pct(a.lat, .99)), ms(pct(r.lat, .99))),
		fmt.Sprintf("%.2f×", a.rate/r.rate), a.rate/r.rate >= 0.8)
	if m := byName["Mailpit"]; m != nil {
		b.add("--sync always ≥ 2× Mailpit", fmt.Sprintf("%.0f vs %.0f msg/s; p99 %s vs %s", a.rate, m.rate, ms(pct(a.lat, .99)), ms(pct(m.lat, .99))),
			fmt.Sprintf("%.2f×", a.rate/m.rate), a.rate/m.rate >= 2)
		ac, mc := a.cpu/time.Duration(n), m.cpu/time.Duration(n)
		b.add("--sync always CPU a message ≤ 0.5× Mailpit's", fmt.Sprintf("%s vs %s", ms(ac), ms(mc)),
			fmt.Sprintf("%.2f×", float64(ac)/float64(mc)), float64(ac) <= 0.5*float64(mc))
	} else {
		fmt.Println("  Mailpit: not measured (give its binary with -mailpit)")
	}
	b.floorRows(a, byName["Mailpit"], floors, n)
	if base := byName["baseline --sync always"]; base != nil {
		ac, bc := a.cpu/time.Duration(n), base.cpu/time.Duration(n)
		b.add("against the baseline build (no target)", fmt.Sprintf("%.0f vs %.0f msg/s; CPU %s vs %s a message", a.rate, base.rate, ms(ac), ms(bc)),
			fmt.Sprintf("%.2f× the rate, %.2f× the CPU", a.rate/base.rate, float64(ac)/float64(bc)), true)
	}
	b.countSyncs(b.scale(8000, 2000))
}

type ingestTarget struct {
	name, smtp string
	rcpts      []string
	pid        int
	secs, rate float64
	cpu        time.Duration
	lat        []time.Duration
}

// countSyncs runs a fresh service with --sync always under strace and
// counts its disk flushes over n messages (16 connections, 50 inboxes).
func (b *bench) countSyncs(n int) {
	strace, err := exec.LookPath("strace")
	if err != nil {
		fmt.Println("  fsyncs per message: not measured (strace is not installed)")
		return
	}
	dir, _ := os.MkdirTemp("", "tmbench")
	defer os.RemoveAll(dir)
	trace := filepath.Join(dir, "syncs.trace")
	s := &service{http: freePort(), smt: freePort(), dir: filepath.Join(dir, "data")}
	// Filtered in the kernel (--seccomp-bpf): only the flushes stop the
	// process, so the run keeps its shape.
	s.cmd = exec.Command(strace, "-f", "--seccomp-bpf", "-tt", "-o", trace,
		"-e", "trace=fsync,fdatasync,sync_file_range,syncfs,sync,msync",
		b.bin, "serve", "--data-dir", s.dir, "--http-addr", s.http, "--smtp-addr", s.smt,
		"--smtp-rate-per-ip", "0", "--smtp-max-conns-per-ip", "0", "--smtp-bytes-per-client", "0", "--create-rate-per-client", "0",
		"--dns-resolver", b.dns, "--log-level", "warn")
	s.cmd.Stderr = os.Stderr
	// Go's preemption signals would stop the traced process each time.
	s.cmd.Env = append(os.Environ(), "GODEBUG=asyncpreemptoff=1")
	// strace passes no signal on: the service is stopped through its
	// process group.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		panic(err)
	}
	defer func() {
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGINT)
		_ = s.cmd.Wait()
	}()
	waitHTTP("http://" + s.http + "/healthz")
	inboxes := s.newInboxes(50)
	rcpts := addresses(inboxes)
	blast(s.smt, 16, 500, rcpts, "warm")
	s.waitCount(inboxes, 500)
	before := countLines(trace)
	rate, _ := blast(s.smt, 16, n, rcpts, "counted")
	s.waitCount(inboxes, 500+n)
	syncs := countLines(trace) - before
	per := float64(syncs) / float64(n)
	fmt.Printf("  --sync always under strace: %d disk flushes for %d messages at %.0f msg/s\n", syncs, n, rate)
	b.add("fsyncs per acknowledged message ≤ 1.5 (--sync always, 16 connections)", fmt.Sprintf("%.2f (%d for %d messages)", per, syncs, n),
		fmt.Sprintf("%.2f of 1.5", per/1.5), per <= 1.5)
}

// countLines counts the system calls strace logged so far (the unfinished
// and resumed halves of one call count once).
func countLines(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, "resumed>") || strings.Contains(line, "+++") || strings.Contains(line, "---") {
			continue
		}
		n++
	}
	return n
}

// mailpit is a Mailpit server with its database in a file on disk.
type mailpit struct {
	cmd        *exec.Cmd
	smtp, http string
	dir        string
}

func (b *bench) startMailpit() *mailpit {
	dir, _ := os.MkdirTemp("", "tmbench-mailpit")
	m := &mailpit{smtp: freePort(), http: freePort(), dir: dir}
	m.cmd = exec.Command(b.mailpit, "--smtp", m.smtp, "--listen", m.http, "--database", filepath.Join(dir, "mailpit.db"),
		"--max", "0", "--smtp-disable-rdns", "--quiet")
	m.cmd.Stderr = os.Stderr
	if err := m.cmd.Start(); err != nil {
		panic(err)
	}
	waitHTTP("http://" + m.http + "/livez")
	return m
}

func (m *mailpit) stop() {
	_ = m.cmd.Process.Signal(os.Interrupt)
	_ = m.cmd.Wait()
	os.RemoveAll(m.dir)
}

// count is how many messages Mailpit holds.
func (m *mailpit) count() int {
	resp, err := http.Get("http://" + m.http + "/api/v1/messages?limit=1")
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	var v struct{ Total int }
	_ = json.NewDecoder(resp.Body).Decode(&v)
	return v.Total
}

// mailpitRcpts are n addresses; Mailpit takes mail to any.
func mailpitRcpts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("inbox%d@tempmail.test", i)
	}
	return out
}
