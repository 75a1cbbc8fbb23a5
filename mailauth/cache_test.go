package mailauth

import (
	"context"
	"testing"
	"time"

	"tempmail/mailauth/authtest"
)

// A value is kept until it expires, and beyond the bound the least
// recently used goes first.
func TestExpiringCache(t *testing.T) {
	t.Parallel()
	c := newExpiringCache[string](2)
	now := time.Now()
	c.put("a", "1", now.Add(time.Minute))
	c.put("b", "2", now.Add(time.Second))
	if v, ok := c.get("a", now); !ok || v != "1" {
		t.Errorf("a: %q %v", v, ok)
	}
	if _, ok := c.get("b", now.Add(2*time.Second)); ok {
		t.Error("b is kept after it expired")
	}
	c.put("b", "2", now.Add(time.Minute))
	c.get("a", now) // a is now the more recently used
	c.put("c", "3", now.Add(time.Minute))
	if _, ok := c.get("b", now); ok {
		t.Error("b, the least recently used, is kept beyond the bound")
	}
	if _, ok := c.get("a", now); !ok {
		t.Error("a is not kept")
	}
}

// An answer says until when it holds, its TTL (300 s here), also when it
// is too large to be kept: what a caller concludes from it may be kept
// as long.
func TestAnswerHoldsForItsTTL(t *testing.T) {
	t.Parallel()
	dns := authtest.StartDNS(t)
	dns.TXT("small.test", "v=spf1 -all")
	dns.TXT("large.test", authtest.RSAKeyRecord(t, 40_000, 65537)) // 7 KB
	r, err := NewResolver(ResolverConfig{Server: dns.Addr})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"small.test", "large.test", "small.test"} {
		start := time.Now()
		_, until, err := r.lookupTXTUntil(context.Background(), name)
		if err != nil {
			t.Fatal(err)
		}
		if ttl := until.Sub(start); ttl < 299*time.Second || ttl > 301*time.Second {
			t.Errorf("%s holds for %s, want 300 s", name, ttl)
		}
	}
}
