package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/smtp"
	"os"
	"os/exec"
	"path/filepath"

	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	gosmtp "github.com/emersion/go-smtp"
)

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "discard-smtp":
			discardSMTP(os.Args[2])
			return
		case "fixed-http":
			fixedHTTP(os.Args[2])
			return
		case "floor-smtp":
			floorSMTP(os.Args[2], os.Args[3], os.Args[4])
			return
		case "generate":
			// A store of events to profile a rebuild on:
			// tmbench generate DIR N
			n, err := strconv.Atoi(os.Args[3])
			if err == nil {
				err = generateEvents(os.Args[2], n)
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			return
		}
	}
	quick := flag.Bool("quick", false, "a short run (under 2 minutes)")
	bin := flag.String("tempmail", "bin/tempmail", "the tempmail binary")
	profiles := flag.String("profiles", "", "directory for CPU profiles of the ingest and read runs")
	only := flag.String("only", "", "run only these scenarios (comma-separated: ingest,e2e,sse,webhooks,wakes,reads,big,rebuild,memory,footprint,idle,held,sync,slowdisk,domains,tenant)")
	mailpit := flag.String("mailpit", "", "a Mailpit binary, to compare ingest with (scenario sync); empty: not compared")
	baseline := flag.String("baseline", "", "another tempmail binary (an earlier build), measured beside -tempmail in scenario sync; empty: none")
	flag.Parse()
	b := &bench{bin: *bin, quick: *quick, profiles: *profiles, only: *only, dns: senderDNS(), mailpit: *mailpit, baseline: *baseline}
	self, _ := os.Executable()
	b.self = self
	b.run()
}

type bench struct {
	bin, self, profiles string
	mailpit             string // a Mailpit binary; empty: not compared
	baseline            string // an earlier tempmail binary; empty: not compared
	only                string
	dns                 string // host:port of senderDNS, for the services' checks
	quick               bool
	rows                []row
}

// row is one line of the summary table.
type row struct {
	target, measured, ratio string
	pass                    bool
}

func (b *bench) add(target, measured, ratio string, pass bool) {
	b.rows = append(b.rows, row{target, measured, ratio, pass})
	fmt.Printf("  => %s: %s (%s) %s\n", target, measured, ratio, passMiss(pass))
}

func passMiss(ok bool) string {
	if ok {
		return "pass"
	}
	return "miss"
}

func (b *bench) scale(full, quick int) int {
	if b.quick {
		return quick
	}
	return full
}

func (b *bench) run() {
	start := time.Now()
	fmt.Printf("tmbench: %s, quick=%v\n", time.Now().UTC().Format(time.RFC3339), b.quick)
	for _, sc := range []struct {
		name string
		run  func()
	}{{"ingest", b.ingest}, {"e2e", b.endToEnd}, {"sse", b.streams}, {"webhooks", b.webhooks}, {"reads", b.reads}, {"wakes", b.wakes}, {"big", b.bigInbox}, {"rebuild", b.rebuild}, {"memory", b.memory}, {"footprint", b.footprint}, {"idle", b.idle}, {"held", b.held}, {"sync", b.durability}, {"slowdisk", b.slowDisk}, {"domains", b.domains}, {"tenant", b.bigTenant}} {
		if b.only == "" || strings.Contains(","+b.only+",", ","+sc.name+",") {
			// Each scenario starts with the disk quiet: the gigabytes the
			// one before wrote (and deleted) would otherwise be flushed
			// while this one is timed (the rebuild measured 12,900 events/s
			// after the others, 20,000-22,000 alone).
			syscall.Sync()
			time.Sleep(2 * time.Second)
			sc.run()
		}
	}
	fmt.Printf("\n| target | measured | ratio | result |\n|---|---|---|---|\n")
	for _, r := range b.rows {
		fmt.Printf("| %s | %s | %s | %s |\n", r.target, r.measured, r.ratio, passMiss(r.pass))
	}
	fmt.Printf("\ntotal time %v\n", time.Since(start).Round(time.Second))
}

// --- the service under test -----------------------------------------------

type service struct {
	cmd       *exec.Cmd
	http, smt string
	dir       string
}

func freePort() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startService runs a fresh tempmail on a new data directory (or dir).
func (b *bench) startService(dir, profile string, extra ...string) *service {
	return b.startBinary(b.bin, dir, profile, extra...)
}

// startBinary starts the tempmail binary bin as startService does.
func (b *bench) startBinary(bin, dir, profile string, extra ...string) *service {
	if dir == "" {
		dir, _ = os.MkdirTemp("", "tmbench")
	}
	s := &service{http: freePort(), smt: freePort(), dir: dir}
	args := append([]string{"serve", "--data-dir", dir, "--http-addr", s.http, "--smtp-addr", s.smt,
		"--smtp-rate-per-ip", "0", "--smtp-max-conns-per-ip", "0", "--smtp-bytes-per-client", "0", "--max-waiters-per-client", "0", "--create-rate-per-client", "0",
		"--dns-resolver", b.dns, "--log-level", "warn"}, extra...)
	s.cmd = exec.Command(bin, args...)
	s.cmd.Stderr = os.Stderr
	if profile != "" {
		s.cmd.Env = append(os.Environ(), "TEMPMAIL_CPUPROFILE="+profile,
			"TEMPMAIL_MEMPROFILE="+strings.TrimSuffix(profile, ".pprof")+"-heap.pprof")
	}
	if err := s.cmd.Start(); err != nil {
		panic(err)
	}
	waitHTTP("http://" + s.http + "/healthz")
	return s
}

func (s *service) stop() {
	_ = s.cmd.Process.Signal(os.Interrupt)
	_ = s.cmd.Wait()
}

func (s *service) remove() { os.RemoveAll(s.dir) }

// rss returns the child's resident and peak resident memory.
func rss(pid int) (cur, peak int64) {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			switch f[0] {
			case "VmRSS:":
				cur = n << 10
			case "VmHWM:":
				peak = n << 10
			}
		}
	}
	return cur, peak
}

func waitHTTP(url string) {
	for i := 0; i < 300; i++ {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	panic("not ready: " + url)
}

var client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256, MaxConnsPerHost: 256}, Timeout: 30 * time.Second}

type inbox struct{ Token, Address string }

func (s *service) newInbox() inbox {
	resp, err := client.Post("http://"+s.http+"/inboxes/", "application/json", strings.NewReader("{}"))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var in inbox
	_ = json.NewDecoder(resp.Body).Decode(&in)
	return in
}

func (s *service) newInboxes(n int) []inbox {
	out := make([]inbox, n)
	for i := range out {
		out[i] = s.newInbox()
	}
	return out
}

func (s *service) newMailbox(name string) {
	resp, err := client.Post("http://"+s.http+"/api/create-temp-email/", "application/json", strings.NewReader(`{"email_name":"`+name+`"}`))
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
}

// --- SMTP load ----------------------------------------------------------------

// message is a 4 KiB message with a unique subject.
func message(to, subject string, size int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "From: Bench <bench@example.com>\r\nTo: %s\r\nSubject: %s\r\nMessage-ID: <%s@bench>\r\n\r\n", to, subject, subject)
	line := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 1) + "0123456789012345678901234567\r\n"
	for b.Len() < size-len(line) {
		b.WriteString(line)
	}
	return b.Bytes()
}

// sender keeps one SMTP connection and times each DATA until its 250.
type sender struct{ c *smtp.Client }

func dialSender(addr string) *sender {
	c, err := smtp.Dial(addr)
	if err != nil {
		panic(err)
	}
	return &sender{c}
}

func (s *sender) send(to string, msg []byte) (time.Duration, error) {
	if err := s.c.Mail("bench@example.com"); err != nil {
		return 0, err
	}
	if err := s.c.Rcpt(to); err != nil {
		return 0, err
	}
	w, err := s.c.Data()
	if err != nil {
		return 0, err
	}
	start := time.Now()
	if _, err := w.Write(msg); err != nil {
		return 0, err
	}
	err = w.Close() // returns after the 250
	return time.Since(start), err
}

// blast sends n messages over conns connections, round-robin over rcpts,
// and returns the rate and the DATA-to-250 latencies.
func blast(addr string, conns, n int, rcpts []string, tag string) (float64, []time.Duration) {
	var next atomic.Int64
	lat := make([]time.Duration, n)
	var wg sync.WaitGroup
	start := time.Now()
	for range conns {
		wg.Go(func() {
			s := dialSender(addr)
			defer s.c.Close()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				to := rcpts[i%len(rcpts)]
				d, err := s.send(to, message(to, fmt.Sprintf("%s-%d", tag, i), 4096))
				if err != nil {
					panic(fmt.Sprintf("send %d: %v", i, err))
				}
				lat[i] = d
			}
		})
	}
	wg.Wait()
	return float64(n) / time.Since(start).Seconds(), lat
}

func pct(d []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s) == 0 {
		return 0
	}
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

func mean(d []time.Duration) time.Duration {
	var t time.Duration
	for _, x := range d {
		t += x
	}
	return t / time.Duration(max(len(d), 1))
}

// --- references -----------------------------------------------------------

type discardBackend struct{}
type discardSession struct{}

func (discardBackend) NewSession(*gosmtp.Conn) (gosmtp.Session, error) { return discardSession{}, nil }
func (discardSession) Mail(string, *gosmtp.MailOptions) error          { return nil }
func (discardSession) Rcpt(string, *gosmtp.RcptOptions) error          { return nil }
func (discardSession) Data(r io.Reader) error                          { _, err := io.Copy(io.Discard, r); return err }
func (discardSession) Reset()                                          {}
func (discardSession) Logout() error                                   { return nil }

func discardSMTP(addr string) { serveSMTP(addr, "discard", discardBackend{}) }

// serveSMTP runs a reference SMTP server on addr, once it has said it is
// ready (startRef waits for the line).
func serveSMTP(addr, domain string, be gosmtp.Backend) {
	s := gosmtp.NewServer(be)
	s.Addr = addr
	s.Domain = domain
	s.MaxMessageBytes = 25 << 20
	fmt.Println("ready")
	_ = s.ListenAndServe()
}

func fixedHTTP(addr string) {
	doc := []byte(`{"id":"01a1ffc8-0e02-78ad-a214-819f62634042","from":"shop@example.com","subject":"Your code is 482913","received_at":"2026-11-21T19:00:00.000000Z"}` + "\n")
	fmt.Println("ready")
	_ = http.ListenAndServe(addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write(doc)
	}))
}

// startRef starts a reference server (a subcommand of this binary).
func (b *bench) startRef(kind, addr string, args ...string) *exec.Cmd {
	cmd := exec.Command(b.self, append([]string{kind, addr}, args...)...)
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		panic(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "ready" {
		panic("reference did not start")
	}
	for i := 0; i < 100; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return cmd
		}
		time.Sleep(20 * time.Millisecond)
	}
	panic("reference not listening")
}

func stopCmd(c *exec.Cmd) { _ = c.Process.Kill(); _ = c.Wait() }

func (b *bench) profile(name string) string {
	if b.profiles == "" {
		return ""
	}
	_ = os.MkdirAll(b.profiles, 0o755)
	p, _ := filepath.Abs(filepath.Join(b.profiles, name))
	return p
}

func drain(resp *http.Response) (int64, error) {
	defer resp.Body.Close()
	return io.Copy(io.Discard, resp.Body)
}
