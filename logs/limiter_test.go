package logs

import (
	"net/netip"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 23, 21, 0, 0, 0, time.UTC)

// client is the i-th /64 of 2001:db8::/32, as fairshare.Key keys an IPv6
// client.
func client(i int) netip.Prefix {
	a := netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, byte(i >> 24), byte(i >> 16), byte(i >> 8), byte(i)})
	return netip.PrefixFrom(a, 64)
}

// allow calls l.Allow n times for c at now, one event each, and returns how
// many were written and the verdicts of those written.
func allow(l *Limiter, c netip.Prefix, n int, now time.Time) (written int, verdicts []Verdict) {
	for range n {
		if v := l.Allow(c, 1, now); v.Write {
			written++
			verdicts = append(verdicts, v)
		}
	}
	return written, verdicts
}

// A client's lines past its share of a window are left out, and its first
// line of the next window says how many.
func TestLimiterLeavesOutAClientsLinesPastItsShareAndSaysHowMany(t *testing.T) {
	t.Parallel()
	l := NewLimiter(10, 100, time.Minute)
	a, b := client(1), client(2)
	if n, vs := allow(l, a, 1000, t0); n != 10 || vs[0].Suppressed != 0 || vs[9].Suppressed != 0 {
		t.Fatalf("a's first 1,000 lines: %d written (%+v), want its first 10", n, vs)
	}
	if n, _ := allow(l, b, 3, t0); n != 3 {
		t.Errorf("b, another client, wrote %d of 3: a's lines must not spend b's share", n)
	}
	if n, _ := allow(l, a, 5, t0.Add(59*time.Second)); n != 0 {
		t.Errorf("a wrote %d more within its window", n)
	}
	v := l.Allow(a, 1, t0.Add(time.Minute))
	if !v.Write || v.Suppressed != 995 || v.Forgotten != 0 {
		t.Errorf("a's first line of the next window: %+v, want written with suppressed 995", v)
	}
	if attrs := v.Attrs(); len(attrs) != 2 || attrs[0] != "suppressed" || attrs[1] != 995 {
		t.Errorf("attrs %v", attrs)
	}
	if v := l.Allow(a, 1, t0.Add(time.Minute)); !v.Write || v.Suppressed != 0 || len(v.Attrs()) != 0 {
		t.Errorf("a's next line says again what was said: %+v", v)
	}
}

// A line standing for many events (a session's summary) that is left out
// counts them all.
func TestLimiterCountsWhatALeftOutSummaryStoodFor(t *testing.T) {
	t.Parallel()
	l := NewLimiter(1, 100, time.Minute)
	a := client(1)
	if v := l.Allow(a, 1, t0); !v.Write {
		t.Fatal("the first line was left out")
	}
	if v := l.Allow(a, 9997, t0); v.Write {
		t.Fatal("a second line within the share of one")
	}
	if v := l.Allow(a, 1, t0.Add(time.Minute)); !v.Write || v.Suppressed != 9997 {
		t.Errorf("the next window's line: %+v, want suppressed 9997", v)
	}
}

// perAll bounds the lines of a sender that rotates through its /64s, each
// a client with a share of its own.
func TestLimiterBoundsTheLinesOfAllClientsTogether(t *testing.T) {
	t.Parallel()
	l := NewLimiter(10, 100, time.Minute)
	written := 0
	for i := range 1000 {
		n, _ := allow(l, client(i), 3, t0.Add(time.Duration(i)*time.Millisecond))
		written += n
	}
	if written != 100 {
		t.Errorf("1,000 clients wrote %d lines in a minute, want 100", written)
	}
	// The 101st client's first line of the next window says what it left out.
	if v := l.Allow(client(100), 1, t0.Add(time.Minute+time.Second)); !v.Write || v.Suppressed != 3 {
		t.Errorf("next window: %+v, want written with suppressed 3", v)
	}
}

// A sender rotating through many /64s does not grow the limiter past
// its two generations; what the clients it forgot left out is said once,
// by the next line written.
func TestLimiterMemoryIsBoundedAndForgetsNoCount(t *testing.T) {
	t.Parallel()
	l := NewLimiter(1, 1, time.Hour)
	const clients = 10 * maxClients
	for i := range clients {
		l.Allow(client(i), 1, t0)
		if n := len(l.cur) + len(l.prev); n > 2*maxClients {
			t.Fatalf("after %d clients the limiter holds %d", i+1, n)
		}
	}
	// One line was written (the first client's); the others were left out:
	// those of clients still held wait for their own next line, the rest
	// are said by the next line written.
	v := l.Allow(client(clients), 1, t0.Add(time.Hour))
	held := 0
	for _, c := range l.cur {
		held += c.left
	}
	for _, c := range l.prev {
		held += c.left
	}
	if !v.Write || held+v.Forgotten != clients-1 {
		t.Errorf("next window: %+v with %d still held, want the %d left out accounted for", v, held, clients-1)
	}
	if v := l.Allow(client(clients+1), 1, t0.Add(time.Hour)); v.Forgotten != 0 {
		t.Errorf("the forgotten were said twice: %+v", v)
	}
}

func TestANilLimiterWritesEveryLine(t *testing.T) {
	t.Parallel()
	var l *Limiter
	if n, _ := allow(l, client(1), 100, t0); n != 100 {
		t.Errorf("wrote %d of 100", n)
	}
}
