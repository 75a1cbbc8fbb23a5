package fairshare

import (
	"net/netip"
	"testing"
	"time"

	"tempmail/config"
)

// TestKeys: an IPv4 client is its address, an IPv6 client its /64, and an
// IPv4-mapped IPv6 address the IPv4 client it is.
func TestKeys(t *testing.T) {
	t.Parallel()
	a, b := netip.MustParseAddr("2001:db8:1:2::1"), netip.MustParseAddr("2001:db8:1:2:ffff::9")
	if Key(a) != Key(b) || Key(a) == Key(netip.MustParseAddr("2001:db8:1:3::1")) {
		t.Errorf("IPv6 keys: %s %s", Key(a), Key(b))
	}
	if k := Key(netip.MustParseAddr("192.0.2.1")); k.String() != "192.0.2.1/32" {
		t.Errorf("IPv4 key %s", k)
	}
	if k := Key(netip.MustParseAddr("::ffff:192.0.2.1")); k.String() != "192.0.2.1/32" {
		t.Errorf("IPv4-mapped key %s", k)
	}
}

// TestANilLimiterAllowsEverything: an unlimited rate makes no limiter.
func TestANilLimiterAllowsEverything(t *testing.T) {
	t.Parallel()
	l := New(config.Rate{})
	if l != nil {
		t.Fatal("an unlimited rate made a limiter")
	}
	if ok, _ := l.Take(Key(netip.MustParseAddr("192.0.2.1")), time.Now()); !ok {
		t.Error("a nil limiter refused")
	}
}

// TestCreationBucketsRefillAndStayBounded: a client may make N at once,
// then one every period/N; a bucket left alone refills; and however many
// clients come, the buckets kept stay bounded.
func TestCreationBucketsRefillAndStayBounded(t *testing.T) {
	t.Parallel()
	c := New(config.Rate{N: 5, Per: time.Minute})
	t0 := time.Unix(1_800_000_000, 0)
	one, two := Key(netip.MustParseAddr("192.0.2.1")), Key(netip.MustParseAddr("192.0.2.2"))
	for i := range 5 {
		if ok, _ := c.Take(one, t0); !ok {
			t.Fatalf("creation %d refused", i+1)
		}
	}
	if ok, wait := c.Take(one, t0); ok || wait != 12*time.Second {
		t.Errorf("the 6th: %v, wait %v; want refused for 12 s", ok, wait)
	}
	if ok, _ := c.Take(two, t0); !ok {
		t.Error("another client refused")
	}
	if ok, wait := c.Take(one, t0.Add(6*time.Second)); ok || wait != 6*time.Second {
		t.Errorf("6 s on: %v, wait %v", ok, wait)
	}
	if ok, _ := c.Take(one, t0.Add(12*time.Second)); !ok {
		t.Error("12 s on, refilled by one: refused")
	}
	if ok, _ := c.Take(one, t0.Add(13*time.Second)); ok {
		t.Error("13 s on: a second one allowed")
	}
	// Two periods later, with the generations turned, it is full again.
	later := t0.Add(3 * time.Minute)
	for i := range 5 {
		if ok, _ := c.Take(one, later); !ok {
			t.Fatalf("after a while, creation %d refused", i+1)
		}
	}
	// The other client, idle since, is forgotten within two periods.
	if c.Take(one, later.Add(time.Minute)); len(c.prev) != 0 || len(c.cur) != 1 {
		t.Errorf("idle clients kept: %d + %d buckets", len(c.cur), len(c.prev))
	}

	// A flood of distinct clients keeps at most two generations.
	var b [4]byte
	for i := range 3 * maxTrackedClients {
		b[1], b[2], b[3] = byte(i>>16), byte(i>>8), byte(i)
		c.Take(Key(netip.AddrFrom4(b)), later)
	}
	if n := len(c.cur) + len(c.prev); n > 2*maxTrackedClients {
		t.Errorf("%d buckets after %d clients, want at most %d", n, 3*maxTrackedClients, 2*maxTrackedClients)
	}
}

// TestBytesAreTakenAllOrNothing: a Limiter of bytes takes a message's
// size times its recipients whole or not at all; what does not fit waits
// for the bucket to refill (in floating point: 1 GiB an hour is a
// fraction of a byte a nanosecond), Has takes nothing, and Give returns
// what was not stored after all, up to a full bucket.
func TestBytesAreTakenAllOrNothing(t *testing.T) {
	t.Parallel()
	l := New(config.ByteRate{Bytes: 1 << 30, Per: time.Hour}.Rate())
	c, other := Key(netip.MustParseAddr("2001:db8::1")), Key(netip.MustParseAddr("192.0.2.1"))
	now := time.Now()
	if ok, _ := l.TakeN(c, 100*(20<<20), now); ok {
		t.Fatal("100 copies of 20 MiB fit in a bucket of 1 GiB")
	}
	if !l.Has(c, 1<<30, now) {
		t.Fatal("a refused charge took something")
	}
	if ok, _ := l.TakeN(c, 40*(20<<20), now); !ok {
		t.Fatal("40 copies of 20 MiB did not fit in a full bucket of 1 GiB")
	}
	left := float64(1<<30 - 40*(20<<20))
	if !l.Has(c, left, now) || l.Has(c, left+1, now) {
		t.Errorf("after 800 MiB, want %v bytes left", left)
	}
	ok, wait := l.TakeN(c, 20<<20*20, now)
	if want := time.Duration((20<<20*20 - left) / (1 << 30) * float64(time.Hour)); ok || wait < want-time.Millisecond || wait > want+time.Millisecond {
		t.Errorf("400 MiB more: %v, wait %s, want %s", ok, wait, want)
	}
	if !l.Has(other, 1<<30, now) {
		t.Error("another client's bucket was spent")
	}
	l.Give(c, 40*(20<<20), now)
	if !l.Has(c, 1<<30, now) {
		t.Error("what was given back is not there")
	}
	l.Give(c, 1<<30, now)
	if ok, _ := l.TakeN(c, 1<<30+1, now); ok {
		t.Error("a bucket grew past its size")
	}
	if ok, _ := l.TakeN(c, 1<<30, now.Add(time.Hour)); !ok {
		t.Error("a full bucket refused its size")
	}
	// 1 GiB an hour refills 0.89 MiB in 3 s and 1.19 MiB in 4 s.
	if ok, _ := l.TakeN(c, 1<<20, now.Add(time.Hour+3*time.Second)); ok {
		t.Error("1 MiB fit 3 s after the bucket was emptied")
	}
	if ok, _ := l.TakeN(c, 1<<20, now.Add(time.Hour+4*time.Second)); !ok {
		t.Error("1 MiB did not fit 4 s after the bucket was emptied")
	}
}
