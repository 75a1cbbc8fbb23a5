package ingest_test

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"tempmail/backend"
	"tempmail/backend/backendtest"
	"tempmail/command"
)

// TestUnavailableEventStoreAnswers451AndStoresNothing: NATS goes away
// while two messages are on their way, a small one and one for the object
// store; each gets 451 4.3.0 (its sender tries again), and once the data
// directory is opened again nothing of either is there.
func TestUnavailableEventStoreAnswers451AndStoresNothing(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	svc := backendtest.StartWith(t, cfg, backend.Options{Mail: func(m *command.Mail) { m.Timeout = 2 * time.Second }})
	inbox(t, svc, "down@tempmail.test")
	small := msg("s@example.com", "down@tempmail.test", "never stored", "small")
	large := msg("s@example.com", "down@tempmail.test", "never stored either", strings.Repeat("0123456789abcdef\r\n", 10000))

	conns := []*conn{dial(t, svc.SMTPAddr()), dial(t, svc.SMTPAddr())}
	for _, c := range conns {
		c.cmd(250, "EHLO client.example")
		c.cmd(250, "MAIL FROM:<s@example.com>")
		c.cmd(250, "RCPT TO:<down@tempmail.test>")
		c.cmd(354, "DATA")
	}
	svc.Node.Server().Shutdown() // JetStream goes away mid-transaction
	for i, body := range []string{small, large} {
		conns[i].write(body + ".\r\n")
		if code, reply := conns[i].reply(); code != 451 || !strings.HasPrefix(reply, "4.3.0") {
			t.Errorf("DATA with the event store down: %d %s, want 451 4.3.0", code, reply)
		}
		conns[i].cmd(221, "QUIT")
	}

	// Nothing of either message is in the stream or the object store, as
	// a service started anew on the data directory finds them.
	backendtest.Stop(svc)
	store := backendtest.Start(t, cfg).Store
	ctx := t.Context()
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
// heap use bounded by a small multiple of its size. Not parallel: it
// measures the process's heap, which other tests' services would grow.
func TestIngestMemoryIsBoundedFor25MiBMessage(t *testing.T) {
	backendtest.Long(t) // 25 MiB through SMTP
	cfg := testConfig(t)
	cfg.MaxMessageBytes = 26 << 20
	svc := backendtest.Start(t, cfg)
	in := inbox(t, svc, "huge@tempmail.test")

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

	c := dial(t, svc.SMTPAddr())
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

	m := messages(t, svc, in.ID, 1)[0]
	if m.RawObject == "" || m.Size < size-1000 {
		t.Errorf("large message: raw object %q, size %d", m.RawObject, m.Size)
	}
	if len(m.Attachments) != 1 || m.Attachments[0].Size != int64(lines*57) {
		t.Errorf("attachment %+v, want %d bytes", m.Attachments, lines*57)
	}
	if b := raw(t, svc, m); int64(len(b)) != m.Size {
		t.Errorf("raw message: %d bytes, want %d", len(b), m.Size)
	}
	growth := float64(peak.Load()-base) / size
	t.Logf("heap (GOGC=25): base %d MiB, peak %d MiB: %.1f× the message", base>>20, peak.Load()>>20, growth)
	if growth > 5 {
		t.Errorf("ingest of a 25 MiB message grew the heap by %.1f× its size, want at most 5×", growth)
	}
}

// heapBytes is the process's heap in live and not yet collected objects.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
