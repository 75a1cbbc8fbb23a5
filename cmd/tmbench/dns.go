package main

import (
	"net"
	"strings"

	"github.com/miekg/dns"
)

// senderDNS answers the questions the service's SPF and DMARC checks ask
// about the bench's sender (bench@example.com, from 127.0.0.1), as a
// sender's name servers would: SPF passes for loopback, DMARC asks for
// nothing (p=none); every other name does not exist. Without it the
// checks would ask the machine's resolver, which may not answer at all
// (each question then waits for its timeout, once per cache period), and
// the benchmark would measure that. It returns host:port for
// --dns-resolver, and stops with the process.
func senderDNS() string {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	records := map[string]string{
		"example.com.":        "v=spf1 ip4:127.0.0.0/8 -all",
		"_dmarc.example.com.": "v=DMARC1; p=none",
	}
	srv := &dns.Server{PacketConn: pc, Handler: dns.HandlerFunc(func(w dns.ResponseWriter, req *dns.Msg) {
		m := new(dns.Msg)
		m.SetReply(req)
		m.Authoritative = true
		if len(req.Question) == 1 {
			q := req.Question[0]
			txt, ok := records[strings.ToLower(q.Name)]
			switch {
			case !ok:
				m.Rcode = dns.RcodeNameError
			case q.Qtype == dns.TypeTXT:
				m.Answer = append(m.Answer, &dns.TXT{Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeTXT, Class: dns.ClassINET, Ttl: 3600}, Txt: []string{txt}})
			}
		}
		_ = w.WriteMsg(m)
	})}
	go func() { _ = srv.ActivateAndServe() }()
	return pc.LocalAddr().String()
}
