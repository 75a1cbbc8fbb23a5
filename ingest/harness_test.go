package ingest

import (
	"bufio"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tempmail/events"
	"tempmail/events/natstest"
	"tempmail/projections"
)

// harness is a real delivery path: embedded NATS in a temporary directory,
// the event store, running projections, and the SMTP server on loopback.
type harness struct {
	t     *testing.T
	dir   string
	node  *events.Node
	store *events.Store
	views *projections.Views
	d     *Deliverer
	smtp  *SMTPServer
	addr  string
}

func newHarness(t *testing.T, tweak ...func(*Deliverer, *SMTPConfig)) *harness {
	t.Helper()
	h := &harness{t: t, dir: t.TempDir()}
	h.node = natstest.StartNode(t, h.dir)
	h.store = natstest.OpenStore(t, h.node)
	ctx := ctxT(t)
	views, err := projections.Open(ctx, h.node.JS, h.store, projections.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := views.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(views.Stop)
	h.views = views
	ack, err := h.store.AppendDomainEvent(ctx, &events.DomainAdded{ID: 1, Name: "tempmail.test"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := views.WaitApplied(ctx, ack); err != nil {
		t.Fatal(err)
	}
	h.d = &Deliverer{Store: h.store, Views: views.Reader, Log: slog.New(slog.DiscardHandler),
		MaxMessageBytes: 25 << 20, Hostname: "mx.tempmail.test"}
	cfg := SMTPConfig{Addr: "127.0.0.1:0"}
	for _, f := range tweak {
		f(h.d, &cfg)
	}
	h.smtp = NewSMTPServer(h.d, cfg)
	if err := h.smtp.Listen(); err != nil {
		t.Fatal(err)
	}
	go h.smtp.Serve()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		h.smtp.Shutdown(ctx)
	})
	h.addr = h.smtp.Addr()
	return h
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// inbox creates a live inbox for addr, as the API does.
func (h *harness) inbox(addr string) *projections.Inbox {
	h.t.Helper()
	ctx := ctxT(h.t)
	ev := events.InboxCreated{InboxID: uuid.NewString(), Address: addr, Token: rand.Text(),
		Family: events.FamilyC, DomainID: 1, CreatedAt: time.Now().UTC()}
	ack, err := h.store.CreateInbox(ctx, ev, 0)
	if err != nil {
		h.t.Fatalf("create %s: %v", addr, err)
	}
	if err := h.views.WaitApplied(ctx, ack); err != nil {
		h.t.Fatal(err)
	}
	in, err := h.views.Inbox(ctx, ev.InboxID)
	if err != nil {
		h.t.Fatal(err)
	}
	return in
}

// messages waits until an inbox lists n messages (the projection applies
// them just after the 250) and returns them whole, newest first.
func (h *harness) messages(inboxID string, n int) []*projections.Message {
	h.t.Helper()
	ctx := ctxT(h.t)
	deadline := time.Now().Add(10 * time.Second)
	for {
		cur, err := h.views.Inbox(ctx, inboxID)
		if err != nil {
			h.t.Fatal(err)
		}
		if cur.Count >= n || time.Now().After(deadline) {
			list, err := h.views.Messages(ctx, cur)
			if err != nil {
				h.t.Fatal(err)
			}
			if len(list) != n {
				h.t.Fatalf("%s holds %d messages, want %d", cur.Address, len(list), n)
			}
			var out []*projections.Message
			for _, s := range list {
				m, err := h.views.Message(ctx, s.ID)
				if err != nil {
					h.t.Fatal(err)
				}
				out = append(out, m)
			}
			return out
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// conn is a raw SMTP conversation, for what net/smtp cannot say (pipelining,
// BDAT, exact replies).
type conn struct {
	t *testing.T
	c net.Conn
	r *bufio.Reader
}

func dial(t *testing.T, addr string) *conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetDeadline(time.Now().Add(60 * time.Second))
	t.Cleanup(func() { c.Close() })
	sc := &conn{t: t, c: c, r: bufio.NewReader(c)}
	if code, msg := sc.reply(); code != 220 {
		t.Fatalf("greeting %d %s", code, msg)
	}
	return sc
}

func (c *conn) write(s string) {
	c.t.Helper()
	if _, err := io.WriteString(c.c, s); err != nil {
		c.t.Fatal(err)
	}
}

// reply reads one (possibly multi-line) reply.
func (c *conn) reply() (int, string) {
	c.t.Helper()
	var lines []string
	for {
		line, err := c.r.ReadString('\n')
		if err != nil {
			c.t.Fatalf("reading reply: %v (so far %q)", err, lines)
		}
		line = strings.TrimRight(line, "\r\n")
		if len(line) < 4 {
			c.t.Fatalf("short reply line %q", line)
		}
		lines = append(lines, line[4:])
		if line[3] == ' ' {
			code, _ := strconv.Atoi(line[:3])
			return code, strings.Join(lines, "\n")
		}
	}
}

// cmd sends one command and expects a reply code.
func (c *conn) cmd(want int, line string) string {
	c.t.Helper()
	c.write(line + "\r\n")
	code, msg := c.reply()
	if code != want {
		c.t.Fatalf("%q: %d %s, want %d", line, code, msg, want)
	}
	return msg
}

func msg(from, to, subject, body string) string {
	return fmt.Sprintf("From: %s\r\nTo: %s\r\nSubject: %s\r\nDate: Sat, 21 Nov 2026 19:00:00 +0000\r\nMessage-ID: <%s@test>\r\n\r\n%s\r\n",
		from, to, subject, uuid.NewString(), body)
}

// raw returns a stored message's bytes as the API serves them.
func (h *harness) raw(m *projections.Message) []byte {
	h.t.Helper()
	if m.RawObject == "" {
		return m.Raw
	}
	r, err := h.store.OpenRaw(ctxT(h.t), m.ContentRef(), m.RawObject)
	if err != nil {
		h.t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		h.t.Fatalf("raw of %s: %v", m.ID, err)
	}
	return b
}
