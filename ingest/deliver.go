package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/cespare/xxhash/v2"

	"tempmail"
	"tempmail/broker"
	"tempmail/events"
	"tempmail/mailauth"
	"tempmail/projections"
	"tempmail/retry"
)

// defaultTimeout bounds storing one message, all recipients together.
const defaultTimeout = 15 * time.Second

// Errors of the recipient policy. The SMTP server and the webhook turn them
// into their own replies.
var (
	// ErrNoMailbox: the domain is served, but no live inbox has the address.
	ErrNoMailbox = tempmail.Errorf(tempmail.NotFound, "no such mailbox here")
	// ErrNotServed: the domain is not one of ours; we do not relay.
	ErrNotServed = tempmail.Errorf(tempmail.Forbidden, "relaying denied: domain not served here")
)

// Deliverer is the one delivery path of SMTP and the webhook.
type Deliverer struct {
	Store *events.Store
	Views *projections.Reader
	Log   *slog.Logger
	// MaxMessageBytes is the largest message accepted, raw.
	MaxMessageBytes int64
	// Hostname names this server in Received headers and the SMTP greeting.
	Hostname string
	// Timeout bounds storing one message; 0 means 15s. When it passes, the
	// sender is told to retry.
	Timeout time.Duration
	// Metrics, if set, counts deliveries and refusals.
	Metrics *Metrics
	// Retention is how long family B inboxes keep a message. 0: forever.
	Retention time.Duration
	// PlusAddressing delivers local+tag@domain to local@domain's inbox.
	PlusAddressing bool
	// Disk, when set, refuses a message (kind Full) that would leave the
	// data directory's disk with less than its minimum free.
	Disk *broker.DiskGuard
	// CatchAll, when set, makes the inboxes of catch-all domains as their
	// first mail comes (Accept); nil: none.
	CatchAll *CatchAll
	// Auth, when set, checks SPF, DKIM and DMARC of every message before
	// it is stored, and the message gets an Authentication-Results field
	// under our Received; nil: no checks (--auth-checks=false).
	Auth *mailauth.Verifier
}

// Recipient returns the live inbox an address names, or ErrNoMailbox or
// ErrNotServed, or an Unavailable error when the views cannot be read.
func (d *Deliverer) Recipient(ctx context.Context, addr string) (*projections.Inbox, error) {
	addr, err := tempmail.NormalizeAddress(addr)
	if err != nil {
		return nil, ErrNoMailbox
	}
	_, domain := tempmail.SplitAddress(addr)
	domains, _, err := d.Views.Domains(ctx)
	if err != nil {
		return nil, err
	}
	served := false
	for _, dom := range domains {
		served = served || (dom.Active && dom.Name == domain)
	}
	if !served {
		return nil, ErrNotServed
	}
	in, err := d.live(ctx, addr)
	if errors.Is(err, ErrNoMailbox) && d.PlusAddressing {
		// local+tag@domain is local@domain's: one inbox serves many
		// sign-ups, told apart by their To.
		if local, _ := tempmail.SplitAddress(addr); strings.Contains(local, "+") {
			if base, _, _ := strings.Cut(local, "+"); base != "" {
				in, err = d.live(ctx, base+"@"+domain)
			}
		}
	}
	return in, err
}

// live returns the live inbox that holds addr, or ErrNoMailbox.
func (d *Deliverer) live(ctx context.Context, addr string) (*projections.Inbox, error) {
	in, err := d.Views.InboxByAddress(ctx, addr)
	if tempmail.KindOf(err) == tempmail.NotFound || (err == nil && !in.Live(time.Now())) {
		return nil, ErrNoMailbox
	}
	return in, err
}

// Envelope is what the transport knows of a message besides its bytes.
type Envelope struct {
	MailFrom   string
	Recipients []*projections.Inbox // live inboxes, each once
	Auth       *mailauth.Result     // what the checks said; nil: not checked
}

// Delivered says what was stored.
type Delivered struct {
	MessageIDs      []string // one per recipient still live at delivery, in order
	HeaderMessageID string   // the message's own Message-ID header
	Duplicate       bool     // every copy was already stored by an earlier attempt
	Acks            []events.Ack
}

// Deliver stores a message for every recipient. raw is the message as it
// will be kept (with the service's Received header on top); clientBytes is
// the part the sender sent, which identifies a retry. Nothing is stored
// unless everything is: on error the sender must retry.
//
// A retry is recognised twice over: within the stream's dedupe window by
// its Nats-Msg-Id, and for the inbox's life by its print among the inbox's
// newest messages (an MTA retries for days). A recognised copy is not
// stored again, and its id is that of the copy stored first.
func (d *Deliverer) Deliver(ctx context.Context, env Envelope, raw []byte, clientBytes []byte) (Delivered, error) {
	timeout := d.Timeout
	if timeout == 0 {
		timeout = defaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if int64(len(clientBytes)) > d.MaxMessageBytes {
		return Delivered{}, tempmail.Errorf(tempmail.TooLarge, "message is larger than %d bytes", d.MaxMessageBytes)
	}
	p := parse(raw)
	print := printOf(clientBytes, p.HeaderMessageID)
	sum := strconv.FormatUint(print.Raw, 16)
	now := time.Now().UTC()

	recipients := env.Recipients
	for attempt := 0; ; attempt++ {
		if len(recipients) == 0 {
			return Delivered{}, ErrNoMailbox
		}
		out := Delivered{HeaderMessageID: p.HeaderMessageID, Duplicate: true, MessageIDs: make([]string, len(recipients))}
		// Each copy is sealed under a key of its own (and a large one's raw
		// source stored apart, one object per copy), so that deleting one
		// copy never leaves another's content unreadable.
		var ds []events.Copy
		var fresh []int // recipients of ds, by position
		for i, in := range recipients {
			first, err := d.Views.Retry(ctx, in, print)
			if err != nil {
				d.Metrics.reject(RejectUnavailable)
				return Delivered{}, err
			}
			if first != "" {
				out.MessageIDs[i] = first
				continue
			}
			c := events.Copy{Mail: mailReceived(in, p, raw, env, now, print),
				LifecycleSeq: in.LifecycleSeq, DedupeID: sum + "-" + strconv.Itoa(len(clientBytes)) + "-" + in.ID}
			if in.Family == events.FamilyB && d.Retention > 0 {
				c.RetainUntil = now.Add(d.Retention)
			}
			ds, fresh = append(ds, c), append(fresh, i)
		}
		if len(ds) == 0 {
			return out, nil
		}
		// What storing it writes, about: each copy's event (and raw
		// object), and the views' entry of its inbox.
		release, err := d.Disk.Reserve(int64(len(ds)) * (int64(len(raw)) + 16<<10))
		if err != nil {
			d.Metrics.reject(RejectDiskFull)
			return Delivered{}, err
		}
		acks, err := d.Store.AppendMail(ctx, ds)
		release()
		if tempmail.KindOf(err) == tempmail.NotFound && attempt < 3 {
			// An inbox ended between RCPT and now, or its lifecycle moved
			// on: look again, once the views have caught up, and deliver
			// to those still live.
			if !retry.Race.Sleep(ctx, attempt) {
				return Delivered{}, err
			}
			recipients = d.stillLive(ctx, recipients)
			continue
		}
		if err != nil {
			d.Metrics.reject(RejectUnavailable)
			return Delivered{}, err
		}
		out.Acks = acks
		for j, ack := range acks {
			out.MessageIDs[fresh[j]] = ack.MessageID
			out.Duplicate = out.Duplicate && ack.Duplicate
			if !ack.Duplicate {
				d.Metrics.addReceived(1) // not stored by an earlier attempt of the sender's
			}
		}
		return out, nil
	}
}

// printOf is what recognises a sender's retry of a message (events.Print):
// a hash of the bytes it sent, and of its Message-ID and body.
func printOf(clientBytes []byte, messageID string) events.Print {
	p := events.Print{Raw: xxhash.Sum64(clientBytes) | 1} // never 0, which means none
	if messageID == "" {
		return p
	}
	body := clientBytes
	if i := bytes.Index(body, []byte("\r\n\r\n")); i >= 0 {
		body = body[i+4:]
	} else if i := bytes.Index(body, []byte("\n\n")); i >= 0 {
		body = body[i+2:]
	}
	h := xxhash.New()
	_, _ = h.WriteString(messageID)
	_, _ = h.Write([]byte{0})
	_, _ = h.Write(body)
	p.Body = h.Sum64() | 1
	return p
}

// logAccepted logs one line per accepted delivery: what an operator counts
// and times. It names the stored copies by id and says how many recipients
// and bytes; never who sent it, to whom, or what it says.
func (d *Deliverer) logAccepted(via, client string, res Delivered, size int, took time.Duration) {
	d.Log.Info("mail accepted", "via", via, "client", client, "ids", res.MessageIDs, "rcpts", len(res.MessageIDs),
		"size", size, "duplicate", res.Duplicate, "duration_ms", float64(took.Microseconds())/1000)
}

func mailReceived(in *projections.Inbox, p parsed, raw []byte, env Envelope, now time.Time, print events.Print) events.MailReceived {
	id := events.NewMessageID(in.ID)
	atts := make([]events.Attachment, len(p.Attachments))
	for i, a := range p.Attachments {
		a.ID = attachmentID(id, i+1)
		atts[i] = a
	}
	content := p
	content.Raw, content.MailFrom, content.Attachments, content.Auth = raw, env.MailFrom, atts, env.Auth
	return events.MailReceived{InboxID: in.ID, MessageID: id, Address: in.Address, ReceivedAt: now,
		Size: int64(len(raw)), Print: print, Content: content}
}

// stillLive re-checks recipients after a delivery found one of them ended.
func (d *Deliverer) stillLive(ctx context.Context, list []*projections.Inbox) []*projections.Inbox {
	var out []*projections.Inbox
	for _, in := range list {
		if cur, err := d.Recipient(ctx, in.Address); err == nil && cur.ID == in.ID {
			out = append(out, cur)
		}
	}
	return out
}

// headerRoom is the room a message needs in front of it, in the buffer
// that holds it, for the headers the service adds: received (our
// Received field) and, with checks on, an Authentication-Results field.
func (d *Deliverer) headerRoom(received string) int {
	if d.Auth == nil {
		return len(received)
	}
	return len(received) + mailauth.MaxHeaderBytes
}

// authenticate makes a message ready to store. buf holds the client's
// bytes from off on, with headerRoom(received) bytes of room before them.
// With checks on it checks them, and it removes any Authentication-Results
// field that claims our host name (RFC 8601 section 5), checks on or off.
// It returns the message as kept (received, our Authentication-Results,
// the client's bytes), the client's bytes as kept (what identifies a
// retry), and the result; all in buf, nothing copied but the headers.
func (d *Deliverer) authenticate(ctx context.Context, buf []byte, off int, received string, in mailauth.Input) (raw, client []byte, res *mailauth.Result) {
	client = buf[off:]
	var results string
	if d.Auth != nil {
		in.Message = client
		res = d.Auth.Verify(ctx, in)
		results = mailauth.Header(d.Hostname, res)
		if len(received)+len(results) > off {
			results = "" // only for a Hostname far longer than a host name can be
		}
	}
	client = mailauth.RemoveOwnResults(client, d.Hostname)
	start := off - len(received) - len(results)
	copy(buf[start:], received)
	copy(buf[start+len(received):], results)
	return buf[start : off+len(client)], client, res
}

// ReceivedHeader is the trace header the service puts on top of every
// message it stores (RFC 5321 section 4.4).
func (d *Deliverer) ReceivedHeader(helo, remoteIP, proto, id string, rcpts []string, at time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Received: from %s (%s)\r\n\tby %s (tempmail) with %s id %s", sanitize(helo), sanitize(remoteIP), d.Hostname, proto, id)
	if len(rcpts) == 1 {
		fmt.Fprintf(&b, "\r\n\tfor <%s>", sanitize(rcpts[0]))
	}
	fmt.Fprintf(&b, ";\r\n\t%s\r\n", at.Format(time.RFC1123Z))
	return b.String()
}

// sanitize keeps client-supplied words from breaking the header.
func sanitize(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '(' || r == ')' || r == ';' {
			return -1
		}
		return r
	}, s)
	if s == "" {
		return "unknown"
	}
	return tempmail.Truncate(s, 255)
}
