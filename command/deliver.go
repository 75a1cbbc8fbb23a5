package command

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/cespare/xxhash/v2"

	"tempmail"
	"tempmail/events"
	"tempmail/mail"
	"tempmail/mailbox"
	"tempmail/projections"
	"tempmail/retry"
)

// defaultDeliverTimeout bounds storing one message, all recipients
// together.
const defaultDeliverTimeout = 15 * time.Second

// Envelope is what the transport knows of a message besides its bytes.
type Envelope struct {
	MailFrom   string
	Recipients []*projections.Inbox // live inboxes, each once
	Auth       *mailbox.Auth        // what the checks said; nil: not checked
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
func (c *Commands) Deliver(ctx context.Context, env Envelope, raw []byte, clientBytes []byte) (Delivered, error) {
	timeout := c.Mail.Timeout
	if timeout == 0 {
		timeout = defaultDeliverTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if int64(len(clientBytes)) > c.Mail.MaxMessageBytes {
		return Delivered{}, tempmail.Errorf(tempmail.TooLarge, "message is larger than %d bytes", c.Mail.MaxMessageBytes)
	}
	p := mail.Parse(raw)
	print := printOf(clientBytes, p.HeaderMessageID)
	sum := strconv.FormatUint(print.Raw, 16)
	now := time.Now().UTC()

	in := incoming{p: p, raw: raw, env: env, now: now, print: print,
		dedupe: sum + "-" + strconv.Itoa(len(clientBytes)) + "-"}
	recipients := env.Recipients
	for attempt := 0; ; attempt++ {
		if len(recipients) == 0 {
			return Delivered{}, ErrNoMailbox
		}
		out, ds, fresh, err := c.copiesFor(ctx, recipients, in)
		if err != nil || len(ds) == 0 {
			return out, err
		}
		// The copies to tenants with a mail quota are claimed against it
		// as they are stored (quotas.go).
		turns, ok, err := c.claimMail(ctx, recipients, ds, fresh)
		if errors.Is(err, ErrOverQuota) {
			c.Metrics.Reject(RejectQuota)
			return Delivered{}, err
		}
		if err != nil {
			c.Metrics.Reject(RejectUnavailable)
			return Delivered{}, err
		}
		if !ok {
			if !retry.Race.Sleep(ctx, attempt) {
				return Delivered{}, tempmail.Wrap(tempmail.Unavailable, ctx.Err(), "the views did not catch up in time; try again")
			}
			continue
		}
		acks, full, err := c.store(ctx, ds, len(raw))
		turns()
		if full {
			return Delivered{}, err
		}
		if k := tempmail.KindOf(err); k == tempmail.Conflict || k == tempmail.NotFound && attempt < 3 {
			// A tenant's count moved on (another claim came first), or an
			// inbox ended or its lifecycle moved on between RCPT and now:
			// look again, once the views have caught up, and deliver to
			// those still live.
			if !retry.Race.Sleep(ctx, attempt) {
				return Delivered{}, err
			}
			recipients = c.stillLive(ctx, recipients)
			continue
		}
		if err != nil {
			c.Metrics.Reject(RejectUnavailable)
			return Delivered{}, err
		}
		out.Acks = acks
		for j, ack := range acks {
			out.MessageIDs[fresh[j]] = ack.MessageID
			out.Duplicate = out.Duplicate && ack.Duplicate
			if !ack.Duplicate {
				c.Metrics.stored(recipients[fresh[j]].TenantID) // not stored by an earlier attempt of the sender's
			}
		}
		return out, nil
	}
}

// store appends the copies ds of a message of size bytes, within the
// room the disk has; full says there was none (and is counted).
func (c *Commands) store(ctx context.Context, ds []events.Copy, size int) (acks []events.Ack, full bool, err error) {
	// What storing it writes, about: each copy's event (and raw object),
	// and the views' entry of its inbox.
	release, err := c.Disk.Reserve(int64(len(ds)) * (int64(size) + 16<<10))
	if err != nil {
		c.Metrics.Reject(RejectDiskFull)
		return nil, true, err
	}
	defer release()
	acks, err = c.Store.AppendMail(ctx, ds)
	return acks, false, err
}

// incoming is a message being delivered, as each of its copies is made
// from it.
type incoming struct {
	p      mailbox.Content
	raw    []byte
	env    Envelope
	now    time.Time
	print  events.Print
	dedupe string // each copy's Nats-Msg-Id is this and its inbox's id
}

// copiesFor makes the copies of m that recipients still need, and the
// answer so far: a recipient that holds m already (a retry recognised by
// its print) has the id of the copy stored first; fresh says, by
// position, which recipient each copy is for.
//
// Each copy is sealed under a key of its own (and a large one's raw
// source stored apart, one object per copy), so that deleting one copy
// never leaves another's content unreadable.
func (c *Commands) copiesFor(ctx context.Context, recipients []*projections.Inbox, m incoming) (out Delivered, ds []events.Copy, fresh []int, err error) {
	out = Delivered{HeaderMessageID: m.p.HeaderMessageID, Duplicate: true, MessageIDs: make([]string, len(recipients))}
	for i, in := range recipients {
		first, err := c.Views.Retry(ctx, in, m.print)
		if err != nil {
			c.Metrics.Reject(RejectUnavailable)
			return Delivered{}, nil, nil, err
		}
		if first != "" {
			out.MessageIDs[i] = first
			continue
		}
		cp := events.Copy{Mail: mailReceived(in, m.p, m.raw, m.env, m.now, m.print),
			LifecycleSeq: in.LifecycleSeq, DedupeID: m.dedupe + in.ID}
		if in.Retention == mailbox.RetainMessages && c.Mail.Retention > 0 {
			cp.RetainUntil = m.now.Add(c.Mail.Retention)
		}
		ds, fresh = append(ds, cp), append(fresh, i)
	}
	return out, ds, fresh, nil
}

// Shown waits, within wait, until the views show what res stored:
// read-your-writes for the transports, whose acknowledgment (SMTP's 250,
// the inbound webhook's 201) says the message is readable through the
// API, on any node.
func (c *Commands) Shown(ctx context.Context, res Delivered, wait time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	for _, ack := range res.Acks {
		if err := c.Views.WaitApplied(ctx, ack); err != nil {
			return err
		}
	}
	return nil
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

// LogAccepted logs one line per accepted delivery: what an operator counts
// and times. It names the stored copies by id and says how many recipients
// and bytes; never who sent it, to whom, or what it says.
func (c *Commands) LogAccepted(via, client string, res Delivered, size int, took time.Duration) {
	c.Log.Info("mail accepted", "via", via, "client", client, "ids", res.MessageIDs, "rcpts", len(res.MessageIDs),
		"size", size, "duplicate", res.Duplicate, "duration_ms", float64(took.Microseconds())/1000)
}

func mailReceived(in *projections.Inbox, p mailbox.Content, raw []byte, env Envelope, now time.Time, print events.Print) events.MailReceived {
	id := events.NewMessageID(in.ID)
	atts := make([]mailbox.Attachment, len(p.Attachments))
	for i, a := range p.Attachments {
		a.ID = mail.AttachmentID(id, i+1)
		atts[i] = a
	}
	content := p
	content.Raw, content.MailFrom, content.Attachments, content.Auth = raw, env.MailFrom, atts, env.Auth
	return events.MailReceived{InboxID: in.ID, MessageID: id, Address: in.Address, ReceivedAt: now,
		Size: int64(len(raw)), Print: print, Content: content}
}

// stillLive re-checks recipients after a delivery found one of them ended.
func (c *Commands) stillLive(ctx context.Context, list []*projections.Inbox) []*projections.Inbox {
	var out []*projections.Inbox
	for _, in := range list {
		if cur, err := c.Recipient(ctx, in.Address); err == nil && cur.ID == in.ID {
			out = append(out, cur)
		}
	}
	return out
}
