package events_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"

	"tempmail/broker"
	"tempmail/broker/natstest"
	"tempmail/events"
	"tempmail/mailbox"
)

// outcomeEnv is a store whose connection to NATS passes through a proxy
// that can drop the server's answers: a publish is then stored, and the
// client never hears so.
type outcomeEnv struct {
	t     *testing.T
	proxy *natstest.Proxy
	store *events.Store
	js    jetstream.JetStream
}

func newOutcomeEnv(t *testing.T) *outcomeEnv {
	_, url := natstest.StartServer(t, t.TempDir())
	proxy := natstest.StartProxy(t, strings.TrimPrefix(url, "nats://"))
	ctx := ctxT(t)
	node, err := broker.StartNode(ctx, broker.NodeConfig{URL: proxy.URL()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { natstest.Stop(node) })
	store, err := events.OpenStore(ctx, node.JS, events.StoreConfig{KeyDir: t.TempDir(), AttemptTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return &outcomeEnv{t: t, proxy: proxy, store: store, js: node.JS}
}

func isEvent(kind string) func(string) bool {
	return func(subject string) bool {
		return strings.HasPrefix(subject, "ev.") && (kind == "" || strings.Contains(subject, kind))
	}
}

// count is how many messages the stream holds on subjects matching filter.
func (e *outcomeEnv) count(filter string) uint64 {
	e.t.Helper()
	info, err := e.store.Stream().Info(ctxT(e.t), jetstream.WithSubjectFilter(filter))
	if err != nil {
		e.t.Fatal(err)
	}
	var n uint64
	for _, c := range info.State.Subjects {
		n += c
	}
	return n
}

// storedMail reads back every MailReceived the stream holds, and checks
// the invariant: each has its content (sealed under a key that is there)
// and, when large, its raw object.
func (e *outcomeEnv) storedMail() map[string]*events.MailReceived {
	e.t.Helper()
	ctx := ctxT(e.t)
	out := map[string]*events.MailReceived{}
	for next := uint64(1); ; {
		m, err := e.store.Stream().GetMsg(ctx, next, jetstream.WithGetMsgSubject("ev.*.*.m.>"))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			break
		}
		if err != nil {
			e.t.Fatal(err)
		}
		next = m.Sequence + 1
		p, _, err := events.Decode(m.Data)
		if err != nil {
			e.t.Fatal(err)
		}
		mr, ok := p.(*events.MailReceived)
		if !ok {
			continue
		}
		ref := mailbox.ContentRef{MessageID: mr.MessageID, Seq: m.Sequence, Key: mr.Key}
		c, err := e.store.Content(ctx, ref)
		if err != nil {
			e.t.Errorf("stored message %s has no content: %v", mr.MessageID, err)
			continue
		}
		if mr.RawObject != "" {
			r, err := e.store.OpenRaw(ctx, ref, mr.RawObject)
			if err != nil {
				e.t.Errorf("stored message %s has no raw object: %v", mr.MessageID, err)
				continue
			}
			raw, err := io.ReadAll(r)
			r.Close()
			if err != nil || int64(len(raw)) != mr.Size {
				e.t.Errorf("raw object of %s: %d bytes, %v; want %d", mr.MessageID, len(raw), err, mr.Size)
			}
		} else if int64(len(c.Raw)) != mr.Size {
			e.t.Errorf("stored message %s has %d raw bytes, want %d", mr.MessageID, len(c.Raw), mr.Size)
		}
		mr.Content = *c
		out[mr.MessageID] = mr
	}
	return out
}

func delivery(in events.InboxCreated, lifecycleSeq uint64, body []byte, dedupe string) events.Copy {
	return events.Copy{Mail: events.MailReceived{InboxID: in.InboxID, MessageID: uuid.NewString(), Address: in.Address,
		ReceivedAt: time.Now().UTC(), Size: int64(len(body)), Content: mailbox.Content{Subject: "s", Raw: body}},
		LifecycleSeq: lifecycleSeq, DedupeID: dedupe}
}

// TestUnknownOutcomesAreResolvedNeverUndone: a publish whose answer is lost
// was stored all the same. The store tries it again under the same id and
// learns where it is; when its time runs out first, it reports the outcome
// as unknown and keeps everything the event may refer to. Afterwards every
// stored MailReceived opens, with its raw bytes, and the inbox keeps its
// expiry.
func TestUnknownOutcomesAreResolvedNeverUndone(t *testing.T) {
	t.Parallel()
	e := newOutcomeEnv(t)
	ctx := ctxT(t)

	// An inbox whose claim is stored but not answered: the second try is
	// refused (the subject moved on), and the store finds its own claim.
	in := inbox("lost@x.test")
	in.ExpiresAt = time.Now().Add(time.Hour)
	e.proxy.DropAnswers(isEvent(".inbox"), 1)
	created, err := e.store.CreateInbox(ctx, in, 0)
	if err != nil {
		t.Fatalf("create with its answer lost: %v", err)
	}
	if e.proxy.Dropped() != 1 {
		t.Fatalf("the proxy dropped %d answers, want 1", e.proxy.Dropped())
	}
	if n := e.count("ev.*.*.inbox"); n != 1 {
		t.Errorf("the inbox's lifecycle holds %d events, want its one claim", n)
	}
	if n := e.count("sched.>"); n != 1 {
		t.Errorf("%d schedules stored, want the inbox's expiry", n)
	}

	// A delivery whose answer is lost once: stored once, and reported
	// as stored (not as a duplicate of another delivery).
	e.proxy.DropAnswers(isEvent(".m."), 1)
	d := delivery(in, created.Seq, []byte("Subject: one\r\n\r\nfirst\r\n"), "bytes-1")
	acks, err := e.store.AppendMail(ctx, []events.Copy{d})
	if err != nil || acks[0].Duplicate || acks[0].MessageID != d.Mail.MessageID {
		t.Fatalf("delivery with its answer lost once: %+v %v", acks, err)
	}

	// Deliveries whose answers are all lost: the outcome stays unknown,
	// and nothing is undone (a small message and a large one).
	large := bytes.Repeat([]byte("large body line\r\n"), events.InlineRawMax/16+100)
	lost := []events.Copy{
		delivery(in, created.Seq, []byte("Subject: two\r\n\r\nsecond\r\n"), "bytes-2"),
		delivery(in, created.Seq, append([]byte("Subject: three\r\n\r\n"), large...), "bytes-3"),
	}
	e.proxy.DropAnswers(isEvent(".m."), -1)
	for _, d := range lost {
		dctx, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
		_, err := e.store.AppendMail(dctx, []events.Copy{d})
		cancel()
		if !events.IsUnknownOutcome(err) {
			t.Fatalf("delivery with every answer lost: %v, want an unknown outcome", err)
		}
	}
	e.proxy.DropAnswers(nil, 0)

	stored := e.storedMail()
	if len(stored) != 3 {
		t.Fatalf("%d messages stored, want 3 (the lost answers' messages were stored)", len(stored))
	}
	// The senders retry: the same bytes are recognised, nothing is stored
	// twice, and the stored copies are named.
	for _, d := range lost {
		retry := d
		retry.Mail.MessageID = uuid.NewString()
		acks, err := e.store.AppendMail(ctx, []events.Copy{retry})
		if err != nil || !acks[0].Duplicate || acks[0].MessageID != d.Mail.MessageID {
			t.Errorf("a sender's retry: %+v %v; want the stored copy %s", acks, err, d.Mail.MessageID)
		}
	}
	if got := e.storedMail(); len(got) != 3 {
		t.Errorf("%d messages after the retries, want 3", len(got))
	}

	// Several recipients, as one batch, with the commit's answer lost.
	other := inbox("other@x.test")
	otherCreated, err := e.store.CreateInbox(ctx, other, 0)
	if err != nil {
		t.Fatal(err)
	}
	body := []byte("Subject: both\r\n\r\nto both\r\n")
	batch := []events.Copy{delivery(in, created.Seq, body, "both-1"), delivery(other, otherCreated.Seq, body, "both-2")}
	e.proxy.DropAnswers(isEvent(".m."), 1)
	acks, err = e.store.AppendMail(ctx, batch)
	if err != nil || len(acks) != 2 || acks[0].MessageID != batch[0].Mail.MessageID || acks[1].MessageID != batch[1].Mail.MessageID {
		t.Fatalf("batch with its answer lost: %+v %v", acks, err)
	}
	if got := e.storedMail(); len(got) != 5 {
		t.Errorf("%d messages after the batch, want 5", len(got))
	}
}
