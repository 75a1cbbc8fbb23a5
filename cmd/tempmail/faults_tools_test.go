package main

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/smtp"
	"slices"
	"strings"
	"sync"
	"time"
)

// What TestClusterUnderFaults sends and watches with: MTAs that resend
// what a node did not take, and probes of every node's readiness and reads.

// mta sends numbered messages to its addresses, each until a node takes
// it: after a 4xx it sends the same bytes again (same Message-ID) to the
// same node, after a connection failure to the next one, as an MTA with
// several MX hosts does; a 5xx is final. Each message carries its
// subject as its Message-ID, so that a resend is the same message.
type mta struct {
	via    []*clusterNode
	to     []string
	prefix string

	mu      sync.Mutex
	acked   []string    // subjects a node answered 250
	at      []time.Time // when, in order
	unsure  []string    // never answered 250 before giving up
	refused []string    // refused with a 5xx: "subject: reply"
}

// send runs until stop, finishing the message at hand; it gives up on a
// message no node took once giveUp closes.
func (m *mta) send(stop, giveUp <-chan struct{}) {
	node := 0
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		subject := fmt.Sprintf("%s-%d", m.prefix, i)
		to := m.to[i%len(m.to)]
		raw := fmt.Sprintf("From: s@example.com\r\nTo: %s\r\nSubject: %s\r\nMessage-ID: <%s@faults.test>\r\n\r\nhello %d\r\n", to, subject, subject, i)
	tries:
		for {
			code, reply, err := deliverOnce(m.via[node].smtpAddr, to, raw)
			m.mu.Lock()
			switch {
			case err == nil && code == 250:
				m.acked, m.at = append(m.acked, subject), append(m.at, time.Now())
				m.mu.Unlock()
				break tries
			case err == nil && code >= 500:
				m.refused = append(m.refused, fmt.Sprintf("%s to %s via %s: %d %s", subject, to, m.via[node].name, code, reply))
				m.mu.Unlock()
				break tries
			case err != nil:
				node = (node + 1) % len(m.via) // that host is down: the next MX
			}
			m.mu.Unlock()
			select {
			case <-giveUp:
				m.mu.Lock()
				m.unsure = append(m.unsure, subject)
				m.mu.Unlock()
				break tries
			case <-time.After(200 * time.Millisecond): // an MTA's retry, much shortened
			}
		}
	}
}

// deliverOnce is one SMTP transaction of raw, within 20 s: the reply's
// code and text to the DATA (or the first refusal), or a connection error.
func deliverOnce(addr, to, raw string) (int, string, error) {
	conn, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return 0, "", err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	c, err := smtp.NewClient(conn, "127.0.0.1")
	if err != nil {
		return 0, "", err
	}
	refusal := func(err error) (int, string, error) {
		var code int
		if _, scanErr := fmt.Sscanf(err.Error(), "%d", &code); scanErr == nil && code >= 400 {
			return code, err.Error(), nil
		}
		return 0, "", err
	}
	if err := c.Mail("s@example.com"); err != nil {
		return refusal(err)
	}
	if err := c.Rcpt(to); err != nil {
		return refusal(err)
	}
	w, err := c.Data()
	if err != nil {
		return refusal(err)
	}
	if _, err := io.WriteString(w, raw); err != nil {
		return 0, "", err
	}
	if err := w.Close(); err != nil {
		return refusal(err)
	}
	_ = c.Quit()
	return 250, "", nil
}

// acked counts the messages the MTAs got a 250 for.
func acked(mtas []*mta) int {
	n := 0
	for _, m := range mtas {
		m.mu.Lock()
		n += len(m.acked)
		m.mu.Unlock()
	}
	return n
}

// lastAck is when the MTAs got their last 250.
func lastAck(mtas []*mta) time.Time {
	var last time.Time
	for _, m := range mtas {
		m.mu.Lock()
		if len(m.at) > 0 && m.at[len(m.at)-1].After(last) {
			last = m.at[len(m.at)-1]
		}
		m.mu.Unlock()
	}
	return last
}

// writeGap is the longest time, from the fault's start to 10 s after the
// heal, in which no node acknowledged any message.
func writeGap(mtas []*mta, from, healed time.Time) time.Duration {
	var at []time.Time
	for _, m := range mtas {
		m.mu.Lock()
		at = append(at, m.at...)
		m.mu.Unlock()
	}
	slices.SortFunc(at, func(a, b time.Time) int { return a.Compare(b) })
	end := healed.Add(10 * time.Second)
	gap, last := time.Duration(0), from
	for _, a := range at {
		if a.Before(from) || a.After(end) {
			continue
		}
		gap, last = max(gap, a.Sub(last)), a
	}
	return max(gap, end.Sub(last))
}

// probes poll every node's /readyz and a read of one of the inboxes,
// every 250 ms, and keep what each answered when.
type probes struct {
	done chan struct{}
	wg   sync.WaitGroup

	mu    sync.Mutex
	ready map[*clusterNode][]sample
	gets  map[*clusterNode][]sample // the reads' answers
}

type sample struct {
	at   time.Time
	code int // 0: no answer
	body string
}

func startProbes(nodes []*clusterNode, inboxes []tokenInbox) *probes {
	p := &probes{done: make(chan struct{}), ready: map[*clusterNode][]sample{}, gets: map[*clusterNode][]sample{}}
	for _, node := range nodes {
		p.wg.Go(func() {
			for {
				select {
				case <-p.done:
					return
				case <-time.After(250 * time.Millisecond): // the probes' rhythm
				}
				r := probe(node.base + "/readyz")
				in := inboxes[rand.IntN(len(inboxes))]
				g := probe(node.base + "/inboxes/" + in.Token + "/messages/?limit=1")
				p.mu.Lock()
				p.ready[node] = append(p.ready[node], r)
				p.gets[node] = append(p.gets[node], g)
				p.mu.Unlock()
			}
		})
	}
	return p
}

func probe(url string) sample {
	s := sample{at: time.Now()}
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return s
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	s.code, s.body = resp.StatusCode, strings.TrimSpace(string(b))
	return s
}

func (p *probes) stop() {
	close(p.done)
	p.wg.Wait()
}

// readyGrace is how long a node cut off may still say it is ready: the
// time to notice that the stream's leader is not heard from.
const readyGrace = 10 * time.Second

// check says where readiness did not match reachability while the node
// was cut off: it said 200 later than readyGrace into the cut.
func (p *probes) check(cut *clusterNode, from, healed time.Time) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if cut == nil {
		return nil
	}
	for _, s := range p.ready[cut] {
		if s.code == http.StatusOK && s.at.After(from.Add(readyGrace)) && s.at.Before(healed) {
			return []string{fmt.Sprintf("%s, cut off, said ready %v into the cut: %s", cut.name, s.at.Sub(from).Round(100*time.Millisecond), s.body)}
		}
	}
	return nil
}

// readyAgain waits until every node says 200 on /readyz, at most 30 s
// from the heal, and says which did not, with its answers since the fault.
func (p *probes) readyAgain(nodes []*clusterNode, from, healed time.Time) []string {
	var problems []string
	for _, node := range nodes {
		for probe(node.base+"/readyz").code != http.StatusOK {
			if time.Since(healed) > 30*time.Second {
				p.mu.Lock()
				problems = append(problems, fmt.Sprintf("%s did not say ready within 30s of the heal: %s", node.name, timeline(p.ready[node], from)))
				p.mu.Unlock()
				break
			}
			<-time.After(250 * time.Millisecond) // the probes' rhythm
		}
	}
	return problems
}

// timeline is a node's readiness answers, as changes from from on.
func timeline(samples []sample, from time.Time) string {
	var b strings.Builder
	last := -1
	for _, s := range samples {
		if s.code != last {
			fmt.Fprintf(&b, " %+.1fs:%d", s.at.Sub(from).Seconds(), s.code)
			if s.code != http.StatusOK {
				sc := bufio.NewScanner(strings.NewReader(s.body))
				if sc.Scan() {
					fmt.Fprintf(&b, "(%.80s)", sc.Text())
				}
			}
			last = s.code
		}
	}
	return b.String()
}

// timelines is every node's readiness, as changes from from on.
func (p *probes) timelines(from time.Time) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	for node, samples := range p.ready {
		fmt.Fprintf(&b, "\n  %s ready:%s", node.name, timeline(samples, from))
	}
	return b.String()
}

// unavailableReads counts the reads answered 503 by nodes other than cut.
func (p *probes) unavailableReads(cut *clusterNode) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for node, samples := range p.gets {
		if node == cut {
			continue
		}
		for _, s := range samples {
			if s.code == http.StatusServiceUnavailable {
				n++
			}
		}
	}
	return n
}

// reads counts every read probed.
func (p *probes) reads() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, samples := range p.gets {
		n += len(samples)
	}
	return n
}
