package ingest

import (
	"context"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"tempmail/events/natstest"
)

func TestUnavailableEventStoreAnswers451AndStoresNothing(t *testing.T) {
	h := newHarness(t, func(d *Deliverer, _ *SMTPConfig) { d.Timeout = 2 * time.Second })
	h.inbox("down@tempmail.test")
	small := msg("s@example.com", "down@tempmail.test", "never stored", "small")
	large := msg("s@example.com", "down@tempmail.test", "never stored either", strings.Repeat("0123456789abcdef\r\n", 10000))

	conns := []*conn{dial(t, h.addr), dial(t, h.addr)}
	for _, c := range conns {
		c.cmd(250, "EHLO client.example")
		c.cmd(250, "MAIL FROM:<s@example.com>")
		c.cmd(250, "RCPT TO:<down@tempmail.test>")
		c.cmd(354, "DATA")
	}
	h.node.Server().Shutdown() // JetStream goes away mid-transaction
	for i, body := range []string{small, large} {
		conns[i].write(body + ".\r\n")
		if code, reply := conns[i].reply(); code != 451 || !strings.HasPrefix(reply, "4.3.0") {
			t.Errorf("DATA with the event store down: %d %s, want 451 4.3.0", code, reply)
		}
	}

	// Nothing of either message is in the stream or the object store.
	h.store.Close()
	node := natstest.StartNode(t, h.dir)
	store := natstest.OpenStore(t, node)
	ctx := ctxT(t)
	last, err := store.LastSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for seq := uint64(1); seq <= last; seq++ {
		m, err := store.Stream().GetMsg(ctx, seq)
		if err != nil {
			continue
		}
		if strings.Contains(m.Subject, ".m.") {
			t.Errorf("event %d (%s) is the refused message's", seq, m.Subject)
		}
	}
	objects, err := store.Raw().List(ctx)
	if err == nil && len(objects) > 0 {
		t.Errorf("object store holds %d objects, want none", len(objects))
	}
}

// A 25 MiB message goes through SMTP, the object store and the parser with
// heap use bounded by a small multiple of its size.
func TestIngestMemoryIsBoundedFor25MiBMessage(t *testing.T) {
	if testing.Short() {
		t.Skip("25 MiB through SMTP")
	}
	h := newHarness(t, func(d *Deliverer, _ *SMTPConfig) { d.MaxMessageBytes = 26 << 20 })
	in := h.inbox("huge@tempmail.test")

	// The message: headers, a text part, and a base64 attachment whose body
	// is generated line by line, so the client holds none of it.
	const size = 25 << 20
	head := "From: s@example.com\r\nTo: huge@tempmail.test\r\nSubject: huge\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: multipart/mixed; boundary=\"B\"\r\n\r\n--B\r\nContent-Type: text/plain\r\n\r\nsee attached\r\n" +
		"--B\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename=\"big.bin\"\r\n" +
		"Content-Transfer-Encoding: base64\r\n\r\n"
	tail := "--B--\r\n"
	line := strings.Repeat("QUJD", 19) + "\r\n" // 76 base64 chars: 57 bytes decoded
	lines := (size - len(head) - len(tail)) / len(line)

	// What is measured is the memory ingest keeps live; a GC that runs
	// often keeps the peak close to it instead of to the collector's
	// timing (with the default GOGC=100 the same run peaks anywhere from
	// 3.6x to 5.5x).
	defer debug.SetGCPercent(debug.SetGCPercent(25))
	runtime.GC()
	base := heapBytes()
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			if v := heapBytes(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()

	c := dial(t, h.addr)
	c.cmd(250, "EHLO client.example")
	c.cmd(250, "MAIL FROM:<s@example.com> SIZE=26214400")
	c.cmd(250, "RCPT TO:<huge@tempmail.test>")
	c.cmd(354, "DATA")
	c.write(head)
	chunk := strings.Repeat(line, 1000)
	for i := 0; i < lines; i += 1000 {
		n := min(1000, lines-i)
		c.write(chunk[:n*len(line)])
	}
	c.write(tail + ".\r\n")
	if code, reply := c.reply(); code != 250 {
		t.Fatalf("25 MiB DATA: %d %s", code, reply)
	}
	close(stop)
	<-done

	m := h.messages(in.ID, 1)[0]
	if m.RawObject == "" || m.Size < size-1000 {
		t.Errorf("large message: raw object %q, size %d", m.RawObject, m.Size)
	}
	if len(m.Attachments) != 1 || m.Attachments[0].Size != int64(lines*57) {
		t.Errorf("attachment %+v, want %d bytes", m.Attachments, lines*57)
	}
	if raw := h.raw(m); int64(len(raw)) != m.Size {
		t.Errorf("raw message: %d bytes, want %d", len(raw), m.Size)
	}
	growth := float64(peak.Load()-base) / size
	t.Logf("heap (GOGC=25): base %d MiB, peak %d MiB: %.1f× the message", base>>20, peak.Load()>>20, growth)
	if growth > 5 {
		t.Errorf("ingest of a 25 MiB message grew the heap by %.1f× its size, want at most 5×", growth)
	}
}

func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestSMTPServeReportsAFailedListener: Serve returns an error when its
// listener fails under it (the service then stops), and nil after Shutdown.
func TestSMTPServeReportsAFailedListener(t *testing.T) {
	h := newHarness(t)
	s := NewSMTPServer(h.d, SMTPConfig{Addr: "127.0.0.1:0"})
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve() }()
	s.ln.Close()
	if err := <-served; err == nil {
		t.Error("Serve returned nil after its listener failed")
	}

	s = NewSMTPServer(h.d, SMTPConfig{Addr: "127.0.0.1:0"})
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	go func() { served <- s.Serve() }()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	s.Shutdown(ctx)
	if err := <-served; err != nil {
		t.Errorf("Serve after Shutdown: %v", err)
	}
}
