package mailauth_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"tempmail/mailauth"
	"tempmail/mailauth/authtest"
)

func newResolver(t *testing.T, dns *authtest.DNS, entries int) *mailauth.Resolver {
	t.Helper()
	r, err := mailauth.NewResolver(mailauth.ResolverConfig{Server: dns.Addr, QueryTimeout: 200 * time.Millisecond, CacheEntries: entries})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func dnsErr(t *testing.T, err error) *net.DNSError {
	t.Helper()
	var d *net.DNSError
	if !errors.As(err, &d) {
		t.Fatalf("error %v (%T) is not a *net.DNSError", err, err)
	}
	return d
}

func TestResolverAnswers(t *testing.T) {
	t.Parallel()
	dns := authtest.StartDNS(t)
	long := strings.Repeat("k", 3000) // more than a datagram of 1232 bytes holds: asked again over TCP
	dns.TXT("text.test", "v=spf1 -all")
	dns.TXT("long.test", long)
	dns.A("host.test", "192.0.2.7")
	dns.A("host.test", "2001:db8::7")
	r := newResolver(t, dns, 0)
	ctx := context.Background()

	t.Run("TXT", func(t *testing.T) {
		if got, err := r.LookupTXT(ctx, "Text.Test."); err != nil || len(got) != 1 || got[0] != "v=spf1 -all" {
			t.Errorf("%q %v", got, err)
		}
	})
	t.Run("TXT larger than a datagram", func(t *testing.T) {
		if got, err := r.LookupTXT(ctx, "long.test"); err != nil || len(got) != 1 || got[0] != long {
			t.Errorf("%d records, %v", len(got), err)
		}
	})
	t.Run("addresses of both families", func(t *testing.T) {
		got, err := r.LookupIPAddr(ctx, "host.test")
		if err != nil || len(got) != 2 || got[0].IP.String() != "192.0.2.7" || got[1].IP.String() != "2001:db8::7" {
			t.Errorf("%v %v", got, err)
		}
	})
	t.Run("no such name", func(t *testing.T) {
		_, err := r.LookupTXT(ctx, "nowhere.test")
		if d := dnsErr(t, err); !d.IsNotFound || d.Temporary() {
			t.Errorf("%+v", d)
		}
	})
	t.Run("no such record", func(t *testing.T) {
		if got, err := r.LookupMX(ctx, "text.test"); err != nil || len(got) != 0 {
			t.Errorf("%v %v", got, err)
		}
	})
	t.Run("names that are not domain names are never asked", func(t *testing.T) {
		for _, name := range []string{"a..b", "evil\r\n.test", strings.Repeat("a", 64) + ".test", strings.Repeat("a.", 200), "sp ace.test", ""} {
			_, err := r.LookupTXT(ctx, name)
			if d := dnsErr(t, err); !d.IsNotFound {
				t.Errorf("%q: %+v", name, d)
			}
		}
	})
}

func TestResolverCachesAnswersNegativeOnesToo(t *testing.T) {
	t.Parallel()
	dns := authtest.StartDNS(t)
	dns.TXT("a.test", "one")
	dns.TXT("b.test", "two")
	r := newResolver(t, dns, 0)
	ctx := context.Background()
	for range 3 {
		if _, err := r.LookupTXT(ctx, "a.test"); err != nil {
			t.Fatal(err)
		}
		_, _ = r.LookupTXT(ctx, "missing.test")
		_, _ = r.LookupMX(ctx, "b.test") // b.test has no MX: "no such record"
	}
	for _, name := range []string{"a.test", "missing.test", "b.test"} {
		if n := dns.Asked(name); n != 1 {
			t.Errorf("%s asked %d times, want 1", name, n)
		}
	}
}

func TestResolverCacheIsBoundedByEntries(t *testing.T) {
	t.Parallel()
	dns := authtest.StartDNS(t)
	for _, n := range []string{"a.test", "b.test", "c.test"} {
		dns.TXT(n, n)
	}
	r := newResolver(t, dns, 2)
	ctx := context.Background()
	for _, n := range []string{"a.test", "b.test", "c.test", "c.test", "b.test", "a.test"} {
		if _, err := r.LookupTXT(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	// a.test was the least recently used when c.test came, and went.
	if got := []int{dns.Asked("a.test"), dns.Asked("b.test"), dns.Asked("c.test")}; got[0] != 2 || got[1] != 1 || got[2] != 1 {
		t.Errorf("asked a, b, c %v times; want [2 1 1]", got)
	}
}

func TestResolverTimesOut(t *testing.T) {
	t.Parallel()
	dns := authtest.StartDNS(t)
	dns.Hang("slow.test")
	r := newResolver(t, dns, 0)
	start := time.Now()
	_, err := r.LookupTXT(context.Background(), "slow.test")
	if d := dnsErr(t, err); !d.IsTimeout || !d.Temporary() {
		t.Errorf("%+v", d)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("took %s with a query timeout of 200ms", took)
	}
	// No answer is kept a while too: the next message does not wait for
	// it again.
	start = time.Now()
	_, err = r.LookupTXT(context.Background(), "slow.test")
	if d := dnsErr(t, err); !d.Temporary() || time.Since(start) > 100*time.Millisecond || dns.Asked("slow.test") != 1 {
		t.Errorf("again: %+v after %s, %d questions", d, time.Since(start), dns.Asked("slow.test"))
	}
}

func TestNewResolverRefusesABadServer(t *testing.T) {
	t.Parallel()
	if _, err := mailauth.NewResolver(mailauth.ResolverConfig{Server: "127.0.0.1"}); err == nil {
		t.Error("a server without a port was taken")
	}
	if _, err := mailauth.NewResolver(mailauth.ResolverConfig{}); err != nil {
		t.Errorf("the system's resolver: %v", err)
	}
}
