package ingest

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"tempmail"
	"tempmail/command"
	"tempmail/config"
	"tempmail/fairshare"
	"tempmail/faults"
	"tempmail/logs"
	"tempmail/mailauth"
	"tempmail/projections"
)

// SMTPConfig configures the SMTP listener.
type SMTPConfig struct {
	Addr          string
	MaxConns      int         // connections in all; 0: unlimited
	MaxConnsPerIP int         // 0: unlimited
	RatePerIP     int         // messages per minute per IP; 0: unlimited
	TLS           *tls.Config // non-nil: STARTTLS is offered
	// MaxInflightBytes bounds the message bytes held in memory by all
	// sessions at once; 0: unlimited. Beyond it a message is refused with
	// 452 4.3.1, and its sender tries again later.
	MaxInflightBytes int64
	// BytesPerClient bounds what one client (fairshare.Key: an IPv6 one by
	// its /64) makes the service store: a message's size times its
	// recipients; zero: unlimited. Beyond it a recipient is refused with
	// 452 4.3.1, or the message after its data with 451 4.3.1.
	BytesPerClient config.ByteRate
}

const (
	// maxLineLength is far above RFC 5322's 998: real mail has longer
	// lines, and refusing them would lose it.
	maxLineLength = 1 << 20
	readTimeout   = 2 * time.Minute
	writeTimeout  = time.Minute
)

// SMTPServer receives mail over SMTP. It never relays and needs no AUTH.
type SMTPServer struct {
	c *command.Commands
	// data times each message from DATA to its 250 (Instrument).
	data   prometheus.Histogram
	srv    *smtp.Server
	limits *ipLimits
	ln     net.Listener
	done   chan struct{}
	// inflight is the memory budget of message bytes being received.
	inflight *byteBudget
	// buffers keeps message buffers of the first size for the next
	// message, which most mail fits in.
	buffers *sync.Pool
	// stored is each client's budget of bytes stored (BytesPerClient);
	// nil: unlimited.
	stored *fairshare.Limiter
	// refusals bounds the lines logged about refusals (refusals.go).
	refusals *logs.Limiter
	// ctx bounds every session's work; it ends when Shutdown gives up
	// waiting for them.
	ctx    context.Context
	cancel context.CancelFunc
	// shutdown is set once Shutdown began: Serve's end is then expected.
	shutdown atomic.Bool
	// stalled bounds the sessions fault rules' delays hold (faults.go).
	stalled stalled
}

// NewSMTPServer returns a server delivering through c.
func NewSMTPServer(c *command.Commands, cfg SMTPConfig) *SMTPServer {
	s := &SMTPServer{c: c, data: newDataHistogram(), limits: newIPLimits(cfg.MaxConns, cfg.MaxConnsPerIP, cfg.RatePerIP), done: make(chan struct{}),
		inflight: &byteBudget{max: cfg.MaxInflightBytes}, buffers: &sync.Pool{}, stored: fairshare.New(cfg.BytesPerClient.Rate()),
		refusals: newRefusalLines()}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.limits.onRefused = s.refusedConnection
	srv := smtp.NewServer(s)
	srv.Addr = cfg.Addr
	srv.Domain = c.Mail.Hostname
	srv.MaxRecipients = command.MaxRecipients
	srv.MaxMessageBytes = c.Mail.MaxMessageBytes
	srv.MaxLineLength = maxLineLength
	srv.ReadTimeout = readTimeout
	srv.WriteTimeout = writeTimeout
	srv.EnableSMTPUTF8 = true
	srv.TLSConfig = cfg.TLS
	srv.ErrorLog = errorLog{c.Log}
	s.srv = srv
	return s
}

// Listen opens the listener; Serve then accepts on it.
func (s *SMTPServer) Listen() error {
	ln, err := net.Listen("tcp", s.srv.Addr)
	if err != nil {
		return fmt.Errorf("SMTP listener: %w", err)
	}
	s.ln = &limitedListener{Listener: ln, limits: s.limits, wrap: func(c net.Conn) net.Conn { return &faultConn{Conn: c, srv: s} }}
	return nil
}

// Instrument registers the SMTP metrics with reg: the time from DATA to
// 250, and the gauge of open connections, read from the connection limits
// at each scrape.
func (s *SMTPServer) Instrument(reg prometheus.Registerer) {
	reg.MustRegister(s.data)
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tempmail_smtp_connections",
		Help: "SMTP connections open now; --smtp-max-conns bounds them."},
		func() float64 { return float64(s.limits.connections()) }))
}

// Stopped is closed once Serve has returned.
func (s *SMTPServer) Stopped() <-chan struct{} { return s.done }

// Addr is the address the listener is bound to.
func (s *SMTPServer) Addr() string { return s.ln.Addr().String() }

// Serve accepts connections until Shutdown, and then returns nil. Any
// other end is an error: the listener failed, and mail is no longer taken.
func (s *SMTPServer) Serve() error {
	defer close(s.done)
	err := s.srv.Serve(s.ln)
	if s.shutdown.Load() || errors.Is(err, smtp.ErrServerClosed) {
		return nil
	}
	if err == nil {
		err = errors.New("stopped accepting connections")
	}
	return fmt.Errorf("SMTP listener: %w", err)
}

// Shutdown stops accepting and waits for open transactions until ctx ends;
// then it closes what is left. It may run before Serve has begun: closing the
// listener first makes a Serve that starts late return at once (go-smtp's
// own Shutdown only knows listeners Serve has registered).
func (s *SMTPServer) Shutdown(ctx context.Context) {
	s.shutdown.Store(true)
	_ = s.ln.Close()
	if err := s.srv.Shutdown(ctx); err != nil {
		s.cancel()
		_ = s.srv.Close()
	}
	defer s.cancel()
	select {
	case <-s.done:
	case <-ctx.Done():
	}
}

// NewSession implements smtp.Backend.
func (s *SMTPServer) NewSession(c *smtp.Conn) (smtp.Session, error) {
	if err := s.ehloFault(c); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(s.ctx)
	return &session{srv: s, conn: c, ip: hostOf(c.Conn().RemoteAddr()), ctx: ctx, cancel: cancel}, nil
}

type session struct {
	srv  *SMTPServer
	conn *smtp.Conn
	ip   string
	// ctx ends with the session (Logout) or the server: the checks of a
	// message run within it, and within their own time budget.
	ctx    context.Context
	cancel context.CancelFunc

	from string
	utf8 bool // this transaction's MAIL FROM said SMTPUTF8
	// size is what this transaction's MAIL FROM said of the message's
	// size (SIZE=); 0 when it did not.
	size  int64
	rcpts []*projections.Inbox

	// lines is what the session logged of its refusals (refusals.go).
	lines sessionLines
}

var (
	// A rate limit defers the message (as Postfix's own anvil does), not
	// the connection: a 421 would make a relay in front put the whole
	// destination off for its backoff, minutes, and every other message
	// with it.
	errRate      = &smtp.SMTPError{Code: 450, EnhancedCode: smtp.EnhancedCode{4, 7, 1}, Message: "Too much mail from your address, try again later"}
	errNoMailbox = &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "Mailbox unavailable"}
	errNoRelay   = &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 7, 1}, Message: "Relaying denied: domain not served here"}
	errTempFail  = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "Temporary failure storing the message, try again later"}
	errBusy      = &smtp.SMTPError{Code: 452, EnhancedCode: smtp.EnhancedCode{4, 3, 1}, Message: "Too much mail in progress, try again later"}
	// errNewAddresses refuses a recipient on a catch-all domain whose
	// inbox the client may not make now; its other recipients stand.
	errNewAddresses = &smtp.SMTPError{Code: 450, EnhancedCode: smtp.EnhancedCode{4, 7, 1}, Message: "Too many new addresses from your address, try again later"}
	errFull         = &smtp.SMTPError{Code: 452, EnhancedCode: smtp.EnhancedCode{4, 3, 1}, Message: "Insufficient system storage, try again later"}
	// errClientBytes refuses what would pass the client's budget of bytes
	// stored (--smtp-bytes-per-client): a recipient at RCPT (452, its
	// other recipients stand), or the whole message after its data (451,
	// nothing stored).
	errClientBytesRcpt = &smtp.SMTPError{Code: 452, EnhancedCode: smtp.EnhancedCode{4, 3, 1}, Message: "Too much mail stored for your address, try this recipient again later"}
	errClientBytesData = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 1}, Message: "Too much mail stored for your address, try again later"}
)

func (s *session) Mail(from string, opts *smtp.MailOptions) error {
	if !s.srv.limits.allowMessage(clientKey(s.ip), time.Now()) {
		return s.refuse(command.RejectRateLimited, errRate, nil)
	}
	s.from = from
	s.utf8 = opts != nil && opts.UTF8
	s.size = 0
	if opts != nil {
		s.size = max(opts.Size, 0)
	}
	if err := s.fault(nil, s.attempt(faults.MAIL, "")); err != nil {
		s.from = ""
		return err
	}
	return nil
}

// client is the key the session's client is counted under.
func (s *session) client() netip.Prefix { return keyOf(s.ip) }

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	ctx, cancel := context.WithTimeout(s.srv.ctx, 5*time.Second)
	defer cancel()
	client, _ := netip.ParseAddr(s.ip)
	in, err := s.srv.c.Accept(ctx, to, client)
	switch {
	case errors.Is(err, command.ErrNoMailbox):
		return s.refuse(command.RejectNoMailbox, errNoMailbox, nil)
	case errors.Is(err, command.ErrNotServed):
		return s.refuse(command.RejectNotServed, errNoRelay, nil)
	case errors.Is(err, command.ErrTooManyInboxes):
		return s.refuse(command.RejectRateLimited, errNewAddresses, nil)
	case tempmail.KindOf(err) == tempmail.Full:
		return s.refuse(command.RejectDiskFull, errFull, err)
	case err != nil:
		return s.refuse(command.RejectUnavailable, errTempFail, fmt.Errorf("recipient check failed: %w", err))
	}
	for _, r := range s.rcpts {
		if r.ID == in.ID {
			return nil // the same inbox twice gets one copy
		}
	}
	// What a test asked of this inbox (faults.go): a rule refuses only
	// what would be accepted otherwise.
	if err := s.fault(in, s.attempt(faults.RCPT, to)); err != nil {
		return err
	}
	// Its tenant's quota, counting the copies this message already
	// brings the tenant: a relay then sends the message to the
	// recipients that fit, and the others later. The claim as it is
	// stored decides (command.Commands.Deliver); this answers early.
	var pending command.Pending
	for _, r := range s.rcpts {
		if in.TenantID != "" && r.TenantID == in.TenantID {
			pending.Messages, pending.Bytes = pending.Messages+1, pending.Bytes+s.size
		}
	}
	if err := s.srv.c.MailQuota(ctx, in, s.size, pending); err != nil {
		if errors.Is(err, command.ErrOverQuota) {
			return s.refuse(command.RejectQuota, quotaReply(err), nil)
		}
		return s.refuse(command.RejectUnavailable, errTempFail, fmt.Errorf("quota check failed: %w", err))
	}
	// One more copy of the message: refused now when the client's budget
	// is spent, or cannot hold the size its MAIL FROM announced once more
	// for every recipient so far. A relay then sends the message to the
	// recipients it has, and this one later.
	if need := max(s.size, 1) * int64(len(s.rcpts)+1); !s.srv.stored.Has(s.client(), float64(need), time.Now()) {
		return s.refuse(command.RejectClientBytes, errClientBytesRcpt, nil)
	}
	s.rcpts = append(s.rcpts, in)
	return nil
}

func (s *session) Data(r io.Reader) error {
	if err := s.dataFault(r); err != nil {
		return err
	}
	start := time.Now()
	id := uuid.Must(uuid.NewV7()).String()
	addrs := make([]string, len(s.rcpts))
	for i, in := range s.rcpts {
		addrs[i] = in.Address
	}
	hdr := s.srv.c.ReceivedHeader(s.conn.Hostname(), s.ip, s.protocol(), id, addrs, time.Now())

	// The message is held in memory once, with room in front for the
	// headers we add, so no second copy is made. Memory is taken from the
	// budget as bytes arrive, never on the client's word (its SIZE=): a
	// client that announces 25 MB and sends nothing costs nothing.
	buf := &budgetBuffer{budget: s.srv.inflight, pool: s.srv.buffers}
	defer buf.release()
	room := s.srv.c.HeaderRoom(hdr)
	err := buf.readFrom(room, r)
	switch {
	case errors.Is(err, errBudget):
		return s.refuse(command.RejectBusy, errBusy, fmt.Errorf("%d bytes in flight", s.srv.inflight.used.Load()))
	case errors.Is(err, smtp.ErrDataTooLarge):
		return s.refuse(command.RejectTooLarge, err, nil) // 552 5.3.4
	case err != nil:
		return err // a broken connection
	}
	// Checks run before anything is stored, within their own bound
	// (mailauth.DefaultTimeout, one budget for all of a message's checks)
	// and the session's: the result is part of what is stored.
	raw, client, auth := s.srv.c.Authenticate(s.ctx, buf.b, room, hdr,
		mailauth.Input{ClientIP: net.ParseIP(s.ip), Helo: s.conn.Hostname(), MailFrom: s.from})

	// A rule of a recipient that answers the end of the data refuses the
	// whole message: nothing of it is stored, for any recipient.
	if err := s.afterDataFault(); err != nil {
		return err
	}
	// What storing it costs the client's budget: a copy for each
	// recipient. All of it is taken or nothing is stored; it is given back
	// when nothing new was stored after all.
	cost := float64(len(raw)) * float64(len(s.rcpts))
	if ok, _ := s.srv.stored.TakeN(s.client(), cost, time.Now()); !ok {
		return s.refuse(command.RejectClientBytes, errClientBytesData, nil)
	}
	res, err := s.srv.c.Deliver(s.srv.ctx, command.Envelope{MailFrom: s.from, Recipients: s.rcpts, Auth: auth}, raw, client)
	if err != nil || res.Duplicate {
		s.srv.stored.Give(s.client(), cost, time.Now())
	}
	switch {
	case errors.Is(err, command.ErrNoMailbox):
		return s.refuse(command.RejectNoMailbox, errNoMailbox, nil)
	case errors.Is(err, command.ErrOverQuota):
		// Deliveries raced past the early check: the whole message is
		// deferred, nothing of it stored (Deliver counted it).
		s.logRefusal(command.RejectQuota, quotaReply(err), nil)
		return quotaReply(err)
	case tempmail.KindOf(err) == tempmail.TooLarge:
		return s.refuse(command.RejectTooLarge, smtp.ErrDataTooLarge, nil)
	case tempmail.KindOf(err) == tempmail.Full:
		s.logRefusal(command.RejectDiskFull, errFull, err) // Deliver counted it
		return errFull
	case err != nil:
		// Deliver counted it (for the webhook too); here it is logged.
		s.logRefusal(command.RejectUnavailable, errTempFail, err)
		return errTempFail
	}
	// Read-your-writes: the 250 says the message is readable through the
	// API. Should the views lag past the command's timeout, it is
	// acknowledged all the same: it is stored and on disk, a refusal would
	// only bring the same message again, and the views show it once they
	// catch up (/readyz says when they lag).
	if err := s.srv.c.Shown(s.srv.ctx, res, command.Timeout); err != nil {
		s.srv.c.Log.Warn("SMTP: accepted before the views showed it", "client", s.ip, "ids", res.MessageIDs, "err", err)
	}
	s.recordStored(res)
	took := time.Since(start)
	s.srv.data.Observe(took.Seconds())
	s.srv.c.LogAccepted("smtp", s.ip, res, len(raw), took)
	return nil
}

// quotaReply is a tenant's quota refusal: 452 4.2.2, mailbox full, which
// a relay keeps the message for and tries again (after midnight UTC, or
// once mail is deleted).
func quotaReply(err error) *smtp.SMTPError {
	return &smtp.SMTPError{Code: 452, EnhancedCode: smtp.EnhancedCode{4, 2, 2}, Message: tempmail.Message(err, "quota exceeded")}
}

func (s *session) Reset() {
	s.from, s.rcpts, s.utf8, s.size = "", nil, false, 0
}

// protocol is the Received field's "with": ESMTP, or UTF8SMTP when the
// client asked for SMTPUTF8 (RFC 6531 section 3.7.3), each with an S
// after STARTTLS (RFC 3848).
func (s *session) protocol() string {
	p := "ESMTP"
	if s.utf8 {
		p = "UTF8SMTP"
	}
	if _, tls := s.conn.TLSConnectionState(); tls {
		p += "S"
	}
	return p
}

func (s *session) Logout() error {
	s.cancel()
	s.logUnlogged()
	return nil
}

// errorLog sends go-smtp's own errors to our logger.
type errorLog struct{ log *slog.Logger }

func (l errorLog) Printf(format string, v ...any) { l.log.Warn("SMTP: " + fmt.Sprintf(format, v...)) }
func (l errorLog) Println(v ...any)               { l.log.Warn("SMTP: " + fmt.Sprint(v...)) }
