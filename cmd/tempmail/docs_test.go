package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"tempmail/mailauth/authtest"
)

// The docs' examples, run as a reader pastes them into a shell: every
// example of README.md and of the pages of docs/, against `tempmail serve`
// (this build, as a child process), with what each printed compared with
// what the doc says it prints.
//
// An example is a sh block, and the block of what it printed if the doc
// shows that, between two markers that name its session:
//
//	<!-- run:begin SESSION -->
//	```sh
//	curl -s -X POST localhost:8080/inboxes/
//	```
//	```json
//	{"token":"…","address":"…",…}
//	```
//	<!-- run:end -->
//
// The examples of a session run in the doc's order in one bash (with set
// -u, so that a variable no example set is an error), in a directory of
// their own that holds the service's data directory as ./data and the
// repository's examples (with go.mod, to build them from there): what one
// example sets ($TOKEN, a file in a temporary directory), those after it
// use. Each session has its own service, started as docSessions says, and
// sessions run in parallel. An example without an output block must exit
// with status 0.
//
// The examples name the service as `make run` serves it: localhost:8080
// and 127.0.0.1:2525 (and the other addresses a session lists), which the
// test replaces with its own in the commands, and back in what they print.
// What an example printed is then written as the doc shows it (docEdits):
// with the machine's host name as `vm`, and without the HTTP Date header.
//
// What changes from run to run (ids, tokens, times, random names, sizes
// that include the host's name) is compared by shape: docPlaceholders
// replaces each with a placeholder, numbered within the session, so that
// a value that recurs (the token a later answer repeats) must recur.
//
// When what the service answers changes, regenerate the outputs:
//
//	go test ./cmd/tempmail -run DocsExamples -update
//
// rewrites every output block of each session that no longer matches, with
// what it printed in this run (make docs does the same).
var updateDocs = flag.Bool("update", false, "rewrite the output blocks of the docs' examples that no longer match what the service answers")

// A docSession is the service a session's examples run against, beyond
// `tempmail serve --data-dir ./data` on free ports with a DNS that knows
// the names docDNS gives it and no others.
type docSession struct {
	flags []string
	// addrs are addresses the examples listen on (a webhook receiver),
	// replaced with free ones as the service's are.
	addrs []string
}

// docMarker begins an example.
var docMarker = regexp.MustCompile(`^<!-- run:begin ([a-z0-9-]+) -->$`)

const docMarkerEnd = "<!-- run:end -->"

// docExample is one example of a doc.
type docExample struct {
	session string
	line    int    // of its begin marker, from 1
	command string // the sh block
	// output is the output block's text; outFrom and outTo are the lines
	// that hold it (0-based, outTo excluded). hasOutput is false when the
	// doc shows no output.
	hasOutput      bool
	output         string
	outFrom, outTo int
}

// parseDocExamples finds the examples of a Markdown document.
func parseDocExamples(t *testing.T, name string, lines []string) []docExample {
	t.Helper()
	var out []docExample
	for i := 0; i < len(lines); i++ {
		m := docMarker.FindStringSubmatch(lines[i])
		if m == nil {
			if strings.HasPrefix(lines[i], "<!-- run:") || lines[i] == docMarkerEnd {
				t.Fatalf("%s:%d: a marker out of place: %q", name, i+1, lines[i])
			}
			continue
		}
		ex := docExample{session: m[1], line: i + 1}
		var blocks [][2]int // content lines of each fenced block
		var infos []string
		j := i + 1
		for ; j < len(lines) && lines[j] != docMarkerEnd; j++ {
			if strings.TrimSpace(lines[j]) == "" {
				continue
			}
			if !strings.HasPrefix(lines[j], "```") {
				t.Fatalf("%s:%d: only a sh block and its output go between the markers of line %d, not %q", name, j+1, ex.line, lines[j])
			}
			from := j + 1
			for j++; j < len(lines) && lines[j] != "```"; j++ {
			}
			if j == len(lines) {
				t.Fatalf("%s:%d: a block that does not end", name, from)
			}
			blocks = append(blocks, [2]int{from, j})
			infos = append(infos, strings.TrimPrefix(lines[from-1], "```"))
		}
		if j == len(lines) {
			t.Fatalf("%s:%d: %q without %q", name, ex.line, lines[i], docMarkerEnd)
		}
		if len(blocks) == 0 || len(blocks) > 2 || infos[0] != "sh" {
			t.Fatalf("%s:%d: an example is a sh block and, if shown, its output", name, ex.line)
		}
		ex.command = strings.Join(lines[blocks[0][0]:blocks[0][1]], "\n")
		if len(blocks) == 2 {
			ex.hasOutput, ex.outFrom, ex.outTo = true, blocks[1][0], blocks[1][1]
			ex.output = strings.Join(lines[ex.outFrom:ex.outTo], "\n")
		}
		out = append(out, ex)
		i = j
	}
	return out
}

// runDocExamples runs the examples of the Markdown file at path, each
// session against its service, and compares what they print with the
// doc; with -update it rewrites what no longer matches. tools are the
// commands the examples call beyond the shell's own.
func runDocExamples(t *testing.T, path string, tools []string, sessions map[string]docSession) {
	for _, tool := range append([]string{"bash"}, tools...) {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not installed, and CI must run the docs' examples (.ci/run installs it)", tool)
			}
			t.Skipf("%s is not installed (apt-get install %s): skipping the docs' examples", tool, tool)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	examples := parseDocExamples(t, path, lines)
	var order []string
	bySession := map[string][]docExample{}
	for _, ex := range examples {
		if _, ok := sessions[ex.session]; !ok {
			t.Fatalf("%s:%d: session %q is not one of docSessions", path, ex.line, ex.session)
		}
		if bySession[ex.session] == nil {
			order = append(order, ex.session)
		}
		bySession[ex.session] = append(bySession[ex.session], ex)
	}
	if len(examples) == 0 {
		return
	}

	var mu sync.Mutex
	type block struct {
		text string
		to   int // the line after the block's text: its closing fence
	}
	rewrite := map[int]block{} // by the output block's first line
	t.Run("sessions", func(t *testing.T) {
		for _, name := range order {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				exs := bySession[name]
				outs := runDocSession(t, sessions[name], exs)
				var want, got []string
				for i, ex := range exs {
					if ex.hasOutput {
						want, got = append(want, ex.output), append(got, outs[i])
					}
				}
				wantN, gotN := normaliseDocOutputs(want), normaliseDocOutputs(got)
				k, same := 0, true
				for _, ex := range exs {
					if !ex.hasOutput {
						continue
					}
					if wantN[k] != gotN[k] {
						same = false
						if !*updateDocs {
							t.Errorf("%s:%d: the example prints otherwise than the doc says (compared as below: %s)\n%s\nit printed:\n%s",
								path, ex.line, "make docs rewrites the doc", docDiff(wantN[k], gotN[k]), got[k])
						}
					}
					k++
				}
				if same || !*updateDocs {
					return
				}
				mu.Lock()
				defer mu.Unlock()
				k = 0
				for _, ex := range exs {
					if ex.hasOutput {
						rewrite[ex.outFrom] = block{got[k], ex.outTo}
						k++
					}
				}
				t.Logf("%s: session %s rewritten", path, name)
			})
		}
	})
	if len(rewrite) == 0 {
		return
	}
	var nb strings.Builder
	for i := 0; i < len(lines); i++ {
		if b, ok := rewrite[i]; ok {
			if b.text != "" {
				nb.WriteString(b.text + "\n")
			}
			i = b.to // the closing fence
		}
		nb.WriteString(lines[i])
		if i < len(lines)-1 {
			nb.WriteByte('\n')
		}
	}
	if err := os.WriteFile(path, []byte(nb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runDocSession starts a session's service and runs its examples in one
// bash; it returns what each printed, edited as the doc shows it.
func runDocSession(t *testing.T, s docSession, exs []docExample) []string {
	dir := t.TempDir()
	// The repository's examples, built as from its root.
	for _, name := range []string{"examples", "go.mod", "go.sum"} {
		abs, err := filepath.Abs(filepath.Join("../..", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(abs, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	dns := docDNS(t)
	flags := append([]string{"--dns-resolver", dns.Addr}, s.flags...)
	_, base, smtpAddr := runServeSMTP(t, filepath.Join(dir, "data"), flags...)
	httpAddr := strings.TrimPrefix(base, "http://")

	// The doc's addresses and the test's, in commands and back in outputs.
	subst := [][2]string{{"localhost:8080", httpAddr}, {"127.0.0.1:2525", smtpAddr}, {"localhost:2525", smtpAddr}}
	if len(s.addrs) > 0 {
		free := freeAddrs(t, len(s.addrs))
		for i, a := range s.addrs {
			subst = append(subst, [2]string{a, free[i]})
		}
	}
	var script strings.Builder
	script.WriteString("set -u\n")
	for i, ex := range exs {
		cmd := ex.command
		for _, r := range subst {
			cmd = strings.ReplaceAll(cmd, r[0], r[1])
		}
		// A brace group runs in this shell, so what it sets stays set.
		fmt.Fprintf(&script, "{\n%s\n} >%q 2>&1\necho $? >%q\n", cmd, docOut(dir, i), docOut(dir, i)+".status")
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-c", script.String())
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+dir, "LC_ALL=C.UTF-8", "TZ=UTC", "GOCACHE="+goEnv(t, "GOCACHE"), "GOMODCACHE="+goEnv(t, "GOMODCACHE"))
	// Whatever the examples leave running (a receiver) ends with the session.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if err != nil {
		// What the examples printed, as far as they got.
		var got strings.Builder
		for i, ex := range exs {
			b, _ := os.ReadFile(docOut(dir, i))
			fmt.Fprintf(&got, "line %d printed:\n%.2000s\n", ex.line, b)
		}
		t.Fatalf("the session's shell: %v\n%s%s", err, stderr.String(), got.String())
	}
	host, _ := os.Hostname()
	outs := make([]string, len(exs))
	for i, ex := range exs {
		b, err := os.ReadFile(docOut(dir, i))
		if err != nil {
			t.Fatalf("line %d: %v (the shell: %s)", ex.line, err, stderr.String())
		}
		outs[i] = docEdits(string(b), host, subst)
		status, _ := os.ReadFile(docOut(dir, i) + ".status")
		if code := strings.TrimSpace(string(status)); !ex.hasOutput && code != "0" {
			t.Errorf("line %d: the example exited with status %s:\n%s", ex.line, code, outs[i])
		}
	}
	return outs
}

// goEnv is a variable of the go command's environment, which the
// examples' shell, with a HOME of its own, would not find.
func goEnv(t *testing.T, name string) string {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

func docOut(dir string, i int) string { return filepath.Join(dir, "out-"+strconv.Itoa(i)) }

// httpDate is an HTTP Date header, as curl -i prints it.
var httpDate = regexp.MustCompile(`(?m)^Date: [A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT\n`)

// docEdits writes what an example printed as the doc shows it: lines end
// with LF, the machine's host name is vm, the test's addresses are the
// doc's, and HTTP Date headers are left out.
func docEdits(out, host string, subst [][2]string) string {
	out = strings.ReplaceAll(out, "\r\n", "\n")
	// swaks says the name as the machine has it; the service, in lower case.
	for _, h := range []string{host, strings.ToLower(host)} {
		if h != "" && h != "vm" {
			out = regexp.MustCompile(`\b`+regexp.QuoteMeta(h)+`\b`).ReplaceAllString(out, "vm")
		}
	}
	// The longest first: one address may begin another.
	back := slices.Clone(subst)
	slices.SortFunc(back, func(a, b [2]string) int { return len(b[1]) - len(a[1]) })
	for _, r := range back {
		out = strings.ReplaceAll(out, r[1], r[0])
	}
	out = httpDate.ReplaceAllString(out, "")
	return strings.TrimRight(out, "\n")
}

// docPlaceholders are what changes from run to run, compared by shape. A
// numbered one stands for the same value wherever it recurs in a session.
var docPlaceholders = []struct {
	name     string
	re       *regexp.Regexp
	numbered bool
}{
	// A webhook subscription's secret, shown once.
	{"secret", regexp.MustCompile(`whsec_[A-Za-z0-9+/]{43}=`), true},
	// Inbox, message, subscription and attachment ids.
	{"id", regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`), true},
	// Times in answers (RFC 3339) and in mail headers (RFC 5322): their
	// seconds vary, so dates are compared by form alone.
	{"time", regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z`), true},
	{"date", regexp.MustCompile(`[A-Z][a-z]{2}, \d{1,2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}`), false},
	// swaks's Message-Id and MIME boundaries, of the time and its
	// process id.
	{"swaks-id", regexp.MustCompile(`\d{14}\.\d+@`), false},
	{"boundary", regexp.MustCompile(`_MIME_BOUNDARY_000_\d+`), false},
	{"swaks", regexp.MustCompile(`swaks v[0-9.]+`), false},
	// Family C tokens.
	{"token", regexp.MustCompile(`\b[A-Z2-7]{26}\b`), true},
	// API keys, shown once.
	{"key", regexp.MustCompile(`tm_[a-z2-7]{32}`), true},
	// Random names: 10 characters (families A and C), 12 (family B).
	{"name", regexp.MustCompile(`\b([a-z0-9]{10}|[a-z0-9]{12})@`), true},
	// Sizes of messages, which hold the host's name in their Received
	// header and swaks's in its Message-Id.
	{"size", regexp.MustCompile(`"size":\d+`), false},
	// Event stream ids and webhook delivery ids, positions in the event
	// log, which the service's own events (those of expiry, say) share.
	{"seq", regexp.MustCompile(`(?m)(^id: |Last-Event-ID: |msg_)\d+`), true},
	{"duration", regexp.MustCompile(`"duration_ms":\d+`), false},
	{"unix-time", regexp.MustCompile(`webhook-timestamp: \d+`), false},
	// Bodies that hold sizes.
	{"content-length", regexp.MustCompile(`(?m)^Content-Length: \d+$`), false},
}

// normaliseDocOutputs replaces what varies with placeholders, numbered
// across the outputs of one session in their order.
func normaliseDocOutputs(outs []string) []string {
	seen := map[string]map[string]int{}
	res := make([]string, len(outs))
	for i, out := range outs {
		for _, p := range docPlaceholders {
			if seen[p.name] == nil {
				seen[p.name] = map[string]int{}
			}
			out = p.re.ReplaceAllStringFunc(out, func(v string) string {
				if !p.numbered {
					return "⟨" + p.name + "⟩"
				}
				n, ok := seen[p.name][v]
				if !ok {
					n = len(seen[p.name]) + 1
					seen[p.name][v] = n
				}
				return "⟨" + p.name + " " + strconv.Itoa(n) + "⟩"
			})
		}
		res[i] = strings.TrimSpace(out)
	}
	return res
}

// docDiff shows where two normalised outputs part.
func docDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			// Of a long line, the part around where they part.
			at := 0
			for at < len(wl) && at < len(gl) && wl[at] == gl[at] {
				at++
			}
			cut := func(s string) string {
				from, to := max(0, at-80), min(len(s), at+80)
				return strings.ToValidUTF8(s[from:to], "")
			}
			return fmt.Sprintf("line %d of the output, from byte %d:\n  the doc:  %s\n  printed:  %s", i+1, max(0, at-80), cut(wl), cut(gl))
		}
	}
	return "(equal)"
}

// docDNS is the DNS the docs' services ask: it knows the names the
// examples' checks find records for, and answers that no other name
// exists, so that what SPF, DKIM and DMARC say is the same on every
// machine (against the internet's DNS, example.com and its kind publish
// records of their own).
func docDNS(t *testing.T) *authtest.DNS {
	dns := authtest.StartDNS(t)
	// Authentication results: sender.example signs its mail with the key
	// s1 (the signature in the doc was made with it, and only its public
	// half is kept), sends it from 127.0.0.1, and asks for rejection of
	// what fails.
	dns.TXT("sender.example", "v=spf1 ip4:127.0.0.1 -all")
	dns.TXT("_dmarc.sender.example", "v=DMARC1; p=reject")
	dns.TXT("s1._domainkey.sender.example", "v=DKIM1; k=ed25519; p=2shJY89vgoAfNr3a0Q+TDZEKRvKAiUUJv9axcbZjHn8=")
	return dns
}

// TestDocEditsAndPlaceholders: what the docs' examples print is written as
// the doc shows it on any machine (its host name, the test's ports, no
// HTTP Date), and compared by shape: two runs that differ only in ids,
// tokens and times compare equal, and one where a value that recurs does
// not recur does not.
func TestDocEditsAndPlaceholders(t *testing.T) {
	t.Parallel()
	subst := [][2]string{{"localhost:8080", "127.0.0.1:41234"}, {"127.0.0.1:2525", "127.0.0.1:4123"}}
	out := docEdits("HTTP/1.1 200 OK\r\nDate: Wed, 25 Nov 2026 16:32:25 GMT\r\n\r\n"+
		"EHLO Runner-7 from runner-7 (127.0.0.1) at 127.0.0.1:4123 and 127.0.0.1:41234\n\n", "Runner-7", subst)
	if want := "HTTP/1.1 200 OK\n\nEHLO vm from vm (127.0.0.1) at 127.0.0.1:2525 and localhost:8080"; out != want {
		t.Errorf("edited:\n%q\nwant\n%q", out, want)
	}
	run := func(token, id, other string) []string {
		return normaliseDocOutputs([]string{
			`{"token":"` + token + `","id":"` + id + `","created_at":"2026-11-25T16:32:25.444556Z"}`,
			`{"message_id":"` + other + `","to":"ab12cd34ef@tempmail.test","size":529}`})
	}
	a := run("REVLO4BZIFRSD7JMONSLDXARJK", "529f830f-1127-4b09-bde4-16e0ce9b51dc", "529f830f-1127-4b09-bde4-16e0ce9b51dc")
	b := run("TMNJ2KCTUI45VSMBW4H32OXL7C", "83219773-d20d-4c08-aeaa-ab5a4f2e33ea", "83219773-d20d-4c08-aeaa-ab5a4f2e33ea")
	c := run("TMNJ2KCTUI45VSMBW4H32OXL7C", "83219773-d20d-4c08-aeaa-ab5a4f2e33ea", "01a2138d-1f9e-777c-8c22-16e0ce9b51dc")
	if !slices.Equal(a, b) {
		t.Errorf("two runs compare unequal:\n%q\n%q", a, b)
	}
	if slices.Equal(b, c) {
		t.Errorf("an id that should recur and does not compares equal: %q", c)
	}
}
