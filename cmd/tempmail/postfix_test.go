package main

import (
	"errors"
	"fmt"
	"net"
	"net/textproto"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"tempmail/eventually"
)

// A private Postfix for one test, in front of tempmail as docs/DEPLOY.md
// ("An MTA in front") sets one up: it takes mail for one domain on a
// loopback port of its own and relays it to tempmail's SMTP listener,
// with its backoff shortened to a second so that a retry comes at once.
// Its configuration, queue and data live in a temporary directory of
// their own (postfix -c), it logs to a file there (postlogd's
// maillog_file: no syslog needed), and it stops when the test ends.
// Postfix starts only as root, so without root or Debian's postfix
// package the test is skipped, saying so; under CI, which installs it and
// runs as root, it fails instead.

// postfix is a running private Postfix instance.
type postfix struct {
	dir  string // the instance's root: etc/, queue/, data/, maillog
	addr string // its SMTP listener, host:port on loopback
	bin  string // the postfix command

	mu        sync.Mutex
	lastFlush time.Time
}

// postfixBin returns the postfix command, or skips the test (fails it
// under CI) when it is not installed or cannot start here.
func postfixBin(t *testing.T) string {
	t.Helper()
	unavailable := func(why string) {
		t.Helper()
		if os.Getenv("CI") != "" {
			t.Fatalf("%s, and CI must run the tests with Postfix (.ci/run installs it)", why)
		}
		t.Skipf("POSTFIX TESTS SKIPPED: %s", why)
	}
	bin, err := exec.LookPath("postfix")
	if err != nil {
		bin = "/usr/sbin/postfix" // not on a user's PATH
		if _, err := os.Stat(bin); err != nil {
			unavailable("postfix is not installed (apt-get install postfix)")
		}
	}
	if os.Geteuid() != 0 {
		unavailable("Postfix starts only as root")
	}
	if _, err := user.Lookup("postfix"); err != nil {
		unavailable("no user postfix (Postfix's mail_owner; Debian's package makes it)")
	}
	if _, err := user.LookupGroup("postdrop"); err != nil {
		unavailable("no group postdrop (Postfix's setgid_group; Debian's package makes it)")
	}
	return bin
}

// startPostfix runs a private Postfix that relays mail for domain to the
// SMTP server at nextHop, and waits until it greets on its own port.
func startPostfix(t *testing.T, domain, nextHop string) *postfix {
	t.Helper()
	bin := postfixBin(t)
	// Not t.TempDir(): Postfix's sockets live under its queue directory,
	// and a socket's path must be short (108 bytes); and the directories
	// above its data directory must be open to the postfix user (master
	// fails to open its lock file otherwise), which t.TempDir's are not.
	dir, err := os.MkdirTemp("", "postfix")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) }) // after Postfix stopped
	p := &postfix{dir: dir, addr: freeAddr(t), bin: bin}
	owner, err := user.Lookup("postfix")
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(owner.Uid)
	for _, sub := range []string{"etc", "queue", "data"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The queue's subdirectories are made by postfix's own check at
	// start; the data directory (master.lock) must be the mail owner's.
	if err := errors.Join(os.Chmod(dir, 0o755), os.Chown(filepath.Join(dir, "data"), uid, -1)); err != nil {
		t.Fatal(err)
	}
	mainCF := fmt.Sprintf(`# A private Postfix for a test (cmd/tempmail/postfix_test.go).
compatibility_level = 3.6
config_directory = %[1]s/etc
queue_directory = %[1]s/queue
data_directory = %[1]s/data
mail_owner = postfix
setgid_group = postdrop
maillog_file = %[1]s/maillog
maillog_file_prefixes = %[1]s
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
myhostname = relay.postfix.test
mydestination =
alias_maps =
alias_database =
mynetworks = 127.0.0.0/8
smtpd_peername_lookup = no
# As docs/DEPLOY.md relays the temporary domains, but through inline:
# (no postmap) and without reject_unverified_recipient: its probes would
# meet the fault rules at RCPT too.
relay_domains = %[2]s
transport_maps = inline:{ %[2]s=smtp:[%[3]s]:%[4]s }
smtpd_relay_restrictions = reject_unauth_destination
# A retry a second after a temporary failure, not minutes.
queue_run_delay = 1s
minimal_backoff_time = 1s
maximal_backoff_time = 2s
`, dir, domain, hostOf(nextHop), portOf(nextHop))
	// Only the services a relay uses, none chrooted.
	masterCF := p.addr + ` inet n - n - - smtpd
pickup    unix  n - n 60    1 pickup
cleanup   unix  n - n -     0 cleanup
qmgr      unix  n - n 300   1 qmgr
rewrite   unix  - - n -     - trivial-rewrite
bounce    unix  - - n -     0 bounce
defer     unix  - - n -     0 bounce
trace     unix  - - n -     0 bounce
verify    unix  - - n -     1 verify
flush     unix  n - n 1000? 0 flush
proxymap  unix  - - n -     - proxymap
smtp      unix  - - n -     - smtp
relay     unix  - - n -     - smtp
showq     unix  n - n -     - showq
error     unix  - - n -     - error
retry     unix  - - n -     - error
discard   unix  - - n -     - discard
anvil     unix  - - n -     1 anvil
scache    unix  - - n -     1 scache
postlog   unix-dgram n - n - 1 postlogd
`
	if err := errors.Join(
		os.WriteFile(filepath.Join(dir, "etc", "main.cf"), []byte(mainCF), 0o644),
		os.WriteFile(filepath.Join(dir, "etc", "master.cf"), []byte(masterCF), 0o644),
	); err != nil {
		t.Fatal(err)
	}

	// start-fg: the master stays a child of this test, in a process
	// group of its own, so that nothing of it outlives the test.
	cmd := exec.Command(bin, "-c", p.etc(), "start-fg")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("Postfix's log (%s):\n%s", p.logFile(), p.log())
		}
		_ = exec.Command(bin, "-c", p.etc(), "stop").Run()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			t.Errorf("Postfix still running 10 s after postfix stop: killing it")
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	})
	eventually.Nil(t, "Postfix to greet on "+p.addr, func() error {
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("postfix start-fg exited: %v\n%s", err, out.String()) // the cleanup shows the log
		default:
		}
		c, err := textproto.Dial("tcp", p.addr)
		if err != nil {
			return err
		}
		defer c.Close()
		_, _, err = c.ReadResponse(220)
		return err
	})
	return p
}

func (p *postfix) etc() string     { return filepath.Join(p.dir, "etc") }
func (p *postfix) logFile() string { return filepath.Join(p.dir, "maillog") }

// postqueue is Postfix's queue command, beside the postfix command.
func (p *postfix) postqueue() string { return filepath.Join(filepath.Dir(p.bin), "postqueue") }

// log is what Postfix has logged so far.
func (p *postfix) log() string {
	b, _ := os.ReadFile(p.logFile())
	return string(b)
}

// logOf is the lines of Postfix's log about the message with queue id.
func (p *postfix) logOf(id string) []string {
	var lines []string
	for _, line := range strings.Split(p.log(), "\n") {
		if strings.Contains(line, " "+id+": ") {
			lines = append(lines, line)
		}
	}
	return lines
}

// queue is what postqueue -p shows: the messages Postfix holds, each with
// why its last delivery was deferred.
func (p *postfix) queue(t *testing.T) string {
	t.Helper()
	out, err := exec.Command(p.postqueue(), "-c", p.etc(), "-p").CombinedOutput()
	if err != nil {
		t.Fatalf("postqueue -p: %v\n%s", err, out)
	}
	return string(out)
}

// flush asks Postfix to try its deferred mail now (postqueue -f), at most
// once a second: for a wait's condition to call each time it looks.
func (p *postfix) flush(t *testing.T) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if time.Since(p.lastFlush) < time.Second {
		return
	}
	p.lastFlush = time.Now()
	if out, err := exec.Command(p.postqueue(), "-c", p.etc(), "-f").CombinedOutput(); err != nil {
		t.Fatalf("postqueue -f: %v\n%s", err, out)
	}
}

// inject hands raw to Postfix over SMTP, as any sender's server would,
// and returns the queue id Postfix answered it with ("250 2.0.0 Ok:
// queued as ID").
func (p *postfix) inject(t *testing.T, from, to, raw string) string {
	t.Helper()
	c, err := textproto.Dial("tcp", p.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	step := func(code int, format string, args ...any) string {
		t.Helper()
		if format != "" {
			if err := c.PrintfLine(format, args...); err != nil {
				t.Fatal(err)
			}
		}
		_, msg, err := c.ReadResponse(code)
		if err != nil {
			t.Fatalf("Postfix answered %q: %v", fmt.Sprintf(format, args...), err)
		}
		return msg
	}
	step(220, "")
	step(250, "EHLO sender.example")
	step(250, "MAIL FROM:<%s>", from)
	step(250, "RCPT TO:<%s>", to)
	step(354, "DATA")
	w := c.DotWriter()
	if _, err := w.Write([]byte(raw)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	queued := step(250, "")
	step(221, "QUIT")
	_, id, ok := strings.Cut(queued, "queued as ")
	if !ok || id == "" {
		t.Fatalf("Postfix took the message saying %q, not its queue id", queued)
	}
	return id
}

func hostOf(addr string) string { h, _, _ := net.SplitHostPort(addr); return h }
func portOf(addr string) string { _, p, _ := net.SplitHostPort(addr); return p }
