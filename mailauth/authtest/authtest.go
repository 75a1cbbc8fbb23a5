// Package authtest gives tests what checking mail's authentication needs,
// for real: a DNS server in the process (miekg/dns, on loopback, over UDP
// and TCP) that serves the records a test sets, and DKIM keys that sign
// messages and publish themselves. It is for tests only.
package authtest

import (
	"bytes"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/emersion/go-msgauth/dkim"
	"github.com/miekg/dns"
)

// DNS is an authoritative server for whatever names a test gives it.
type DNS struct {
	// Addr is its host:port, for --dns-resolver.
	Addr string

	mu      sync.Mutex
	records map[string][]dns.RR // by lower-case fully qualified name
	hang    map[string]bool     // names whose questions get no answer
	asked   map[string]int      // questions by name
}

// StartDNS starts a server on a free loopback port; it stops when the test
// ends.
func StartDNS(t testing.TB) *DNS {
	t.Helper()
	s := &DNS{records: map[string][]dns.RR{}, hang: map[string]bool{}, asked: map[string]int{}}
	var pc net.PacketConn
	var ln net.Listener
	// UDP and TCP on one port number: take a free UDP port, then its TCP
	// twin, and start over in the rare case another process holds it.
	for attempt := 0; ln == nil; attempt++ {
		var err error
		if pc, err = net.ListenPacket("udp", "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		if ln, err = net.Listen("tcp", pc.LocalAddr().String()); err != nil {
			pc.Close()
			if attempt == 10 {
				t.Fatal(err)
			}
		}
	}
	s.Addr = pc.LocalAddr().String()
	udp := &dns.Server{PacketConn: pc, Handler: s}
	tcp := &dns.Server{Listener: ln, Handler: s}
	for _, srv := range []*dns.Server{udp, tcp} {
		started := make(chan struct{})
		srv.NotifyStartedFunc = func() { close(started) }
		go func() { _ = srv.ActivateAndServe() }()
		<-started
		t.Cleanup(func() { _ = srv.Shutdown() })
	}
	return s
}

// TXT publishes a TXT record for name. Long strings are split into the
// 255-byte character-strings a TXT record is made of.
func (s *DNS) TXT(name string, text string) {
	var parts []string
	for len(text) > 255 {
		parts, text = append(parts, text[:255]), text[255:]
	}
	s.add(&dns.TXT{Hdr: s.hdr(name, dns.TypeTXT), Txt: append(parts, text)})
}

// A publishes an address record (A or AAAA) for name.
func (s *DNS) A(name, ip string) {
	addr := net.ParseIP(ip)
	if v4 := addr.To4(); v4 != nil {
		s.add(&dns.A{Hdr: s.hdr(name, dns.TypeA), A: v4})
		return
	}
	s.add(&dns.AAAA{Hdr: s.hdr(name, dns.TypeAAAA), AAAA: addr})
}

// Hang makes every question about name go unanswered, as from a server
// that is down.
func (s *DNS) Hang(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hang[dns.CanonicalName(name)] = true
}

// Asked is how many questions about name the server was asked.
func (s *DNS) Asked(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.asked[dns.CanonicalName(name)]
}

func (s *DNS) hdr(name string, t uint16) dns.RR_Header {
	return dns.RR_Header{Name: dns.CanonicalName(name), Rrtype: t, Class: dns.ClassINET, Ttl: 300}
}

func (s *DNS) add(rr dns.RR) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.records[rr.Header().Name] = append(s.records[rr.Header().Name], rr)
}

// ServeDNS answers from the records: those of the type asked, "no such
// record" (with an SOA, for negative caching) when the name has others,
// and "no such name" when it has none.
func (s *DNS) ServeDNS(w dns.ResponseWriter, req *dns.Msg) {
	if len(req.Question) != 1 {
		return
	}
	q := req.Question[0]
	name := dns.CanonicalName(q.Name)
	s.mu.Lock()
	s.asked[name]++
	hang, rrs := s.hang[name], s.records[name]
	s.mu.Unlock()
	if hang {
		return
	}
	resp := new(dns.Msg)
	resp.SetReply(req)
	resp.Authoritative = true
	for _, rr := range rrs {
		if rr.Header().Rrtype == q.Qtype {
			resp.Answer = append(resp.Answer, rr)
		}
	}
	if rrs == nil {
		resp.Rcode = dns.RcodeNameError
	}
	if len(resp.Answer) == 0 {
		resp.Ns = []dns.RR{&dns.SOA{Hdr: dns.RR_Header{Name: name, Rrtype: dns.TypeSOA, Class: dns.ClassINET, Ttl: 300},
			Ns: "ns.test.", Mbox: "hostmaster.test.", Serial: 1, Refresh: 3600, Retry: 600, Expire: 86400, Minttl: 300}}
	}
	if _, udp := w.LocalAddr().(*net.UDPAddr); udp {
		size := dns.MinMsgSize
		if opt := req.IsEdns0(); opt != nil {
			size = int(opt.UDPSize())
		}
		resp.Truncate(size)
	}
	_ = w.WriteMsg(resp)
}

// Key is a DKIM signing key of a domain and selector.
type Key struct {
	Domain, Selector string
	signer           crypto.Signer
}

// NewKey makes an Ed25519 key, quick to make and short to publish.
func NewKey(t testing.TB, domain, selector string) *Key {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return &Key{Domain: domain, Selector: selector, signer: priv}
}

// NewRSAKey makes a 2048-bit RSA key, the kind most mail is signed with;
// its record is longer than one TXT string.
func NewRSAKey(t testing.TB, domain, selector string) *Key {
	t.Helper()
	priv, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return &Key{Domain: domain, Selector: selector, signer: priv}
}

// Name is where the key's record is published.
func (k *Key) Name() string { return k.Selector + "._domainkey." + k.Domain }

// Record is the key's DKIM TXT record (RFC 6376 section 3.6.1).
func (k *Key) Record() string {
	switch pub := k.signer.Public().(type) {
	case ed25519.PublicKey:
		return "v=DKIM1; k=ed25519; p=" + base64.StdEncoding.EncodeToString(pub)
	default:
		der, _ := x509.MarshalPKIXPublicKey(pub)
		return "v=DKIM1; k=rsa; p=" + base64.StdEncoding.EncodeToString(der)
	}
}

// Publish puts the key's record in s.
func (k *Key) Publish(s *DNS) { s.TXT(k.Name(), k.Record()) }

// Sign returns msg with a DKIM-Signature of the key on top (relaxed
// canonicalisation, From, To, Subject, Date and Message-ID signed).
func (k *Key) Sign(t testing.TB, msg string) string {
	t.Helper()
	return k.SignFields(t, msg, "From", "To", "Subject", "Date", "Message-ID")
}

// SignFields is Sign with the fields named (h=) chosen.
func (k *Key) SignFields(t testing.TB, msg string, fields ...string) string {
	t.Helper()
	var out bytes.Buffer
	err := dkim.Sign(&out, strings.NewReader(msg), &dkim.SignOptions{Domain: k.Domain, Selector: k.Selector, Signer: k.signer,
		HeaderCanonicalization: dkim.CanonicalizationRelaxed, BodyCanonicalization: dkim.CanonicalizationRelaxed,
		HeaderKeys: fields})
	if err != nil {
		t.Fatal(err)
	}
	return out.String()
}
