package ingest

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/google/uuid"

	"tempmail"
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
}

const (
	maxRecipients = 100
	// maxLineLength is far above RFC 5322's 998: real mail has longer
	// lines, and refusing them would lose it.
	maxLineLength = 1 << 20
	readTimeout   = 2 * time.Minute
	writeTimeout  = time.Minute
)

// SMTPServer receives mail over SMTP. It never relays and needs no AUTH.
type SMTPServer struct {
	d      *Deliverer
	srv    *smtp.Server
	limits *ipLimits
	ln     net.Listener
	done   chan struct{}
	// inflight is the memory budget of message bytes being received.
	inflight *byteBudget
	// ctx bounds every session's work; it ends when Shutdown gives up
	// waiting for them.
	ctx    context.Context
	cancel context.CancelFunc
	// shutdown is set once Shutdown began: Serve's end is then expected.
	shutdown atomic.Bool
}

// NewSMTPServer returns a server delivering through d.
func NewSMTPServer(d *Deliverer, cfg SMTPConfig) *SMTPServer {
	s := &SMTPServer{d: d, limits: newIPLimits(cfg.MaxConns, cfg.MaxConnsPerIP, cfg.RatePerIP), done: make(chan struct{}),
		inflight: &byteBudget{max: cfg.MaxInflightBytes}}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.limits.onRefused = func(ip, why string) {
		d.Metrics.reject(RejectTooManyConn)
		d.Log.Info("SMTP: connection refused", "client", ip, "reason", why)
	}
	srv := smtp.NewServer(s)
	srv.Addr = cfg.Addr
	srv.Domain = d.Hostname
	srv.MaxRecipients = maxRecipients
	srv.MaxMessageBytes = d.MaxMessageBytes
	srv.MaxLineLength = maxLineLength
	srv.ReadTimeout = readTimeout
	srv.WriteTimeout = writeTimeout
	srv.EnableSMTPUTF8 = true
	srv.TLSConfig = cfg.TLS
	srv.ErrorLog = errorLog{d}
	s.srv = srv
	return s
}

// Listen opens the listener; Serve then accepts on it.
func (s *SMTPServer) Listen() error {
	ln, err := net.Listen("tcp", s.srv.Addr)
	if err != nil {
		return fmt.Errorf("SMTP listener: %w", err)
	}
	s.ln = &limitedListener{Listener: ln, limits: s.limits}
	return nil
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
	return &session{srv: s, conn: c, ip: hostOf(c.Conn().RemoteAddr())}, nil
}

type session struct {
	srv   *SMTPServer
	conn  *smtp.Conn
	ip    string
	from  string
	rcpts []*projections.Inbox
}

var (
	errRate      = &smtp.SMTPError{Code: 421, EnhancedCode: smtp.EnhancedCode{4, 7, 0}, Message: "Too many messages from your address, try again later"}
	errNoMailbox = &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "Mailbox unavailable"}
	errNoRelay   = &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 7, 1}, Message: "Relaying denied: domain not served here"}
	errTempFail  = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "Temporary failure storing the message, try again later"}
	errBusy      = &smtp.SMTPError{Code: 452, EnhancedCode: smtp.EnhancedCode{4, 3, 1}, Message: "Too much mail in progress, try again later"}
)

func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	if !s.srv.limits.allowMessage(s.ip, time.Now()) {
		s.srv.d.Metrics.reject(RejectRateLimited)
		return errRate
	}
	s.from = from
	return nil
}

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	ctx, cancel := context.WithTimeout(s.srv.ctx, 5*time.Second)
	defer cancel()
	in, err := s.srv.d.Recipient(ctx, to)
	switch {
	case errors.Is(err, ErrNoMailbox):
		s.srv.d.Metrics.reject(RejectNoMailbox)
		return errNoMailbox
	case errors.Is(err, ErrNotServed):
		s.srv.d.Metrics.reject(RejectNotServed)
		return errNoRelay
	case err != nil:
		s.srv.d.Log.Warn("SMTP: recipient check failed", "rcpt", to, "err", err)
		s.srv.d.Metrics.reject(RejectUnavailable)
		return errTempFail
	}
	for _, r := range s.rcpts {
		if r.ID == in.ID {
			return nil // the same inbox twice gets one copy
		}
	}
	s.rcpts = append(s.rcpts, in)
	return nil
}

func (s *session) Data(r io.Reader) error {
	id := uuid.Must(uuid.NewV7()).String()
	proto := "ESMTP"
	if _, tls := s.conn.TLSConnectionState(); tls {
		proto = "ESMTPS"
	}
	addrs := make([]string, len(s.rcpts))
	for i, in := range s.rcpts {
		addrs[i] = in.Address
	}
	hdr := s.srv.d.ReceivedHeader(s.conn.Hostname(), s.ip, proto, id, addrs, time.Now())

	// The message is held in memory once, with our Received header in
	// front so no second copy is made. Memory is taken from the budget as
	// bytes arrive, never on the client's word (its SIZE=): a client that
	// announces 25 MB and sends nothing costs nothing.
	buf := &budgetBuffer{budget: s.srv.inflight}
	defer buf.release()
	err := buf.readFrom(hdr, r)
	switch {
	case errors.Is(err, errBudget):
		s.srv.d.Metrics.reject(RejectBusy)
		s.srv.d.Log.Warn("SMTP: refused a message: too many bytes in flight", "client", s.ip, "held", s.srv.inflight.used.Load())
		return errBusy
	case errors.Is(err, smtp.ErrDataTooLarge):
		s.srv.d.Metrics.reject(RejectTooLarge)
		return err // 552 5.3.4
	case err != nil:
		return err // a broken connection
	}
	raw := buf.b

	res, err := s.srv.d.Deliver(s.srv.ctx, Envelope{MailFrom: s.from, Recipients: s.rcpts}, raw, raw[len(hdr):])
	switch {
	case errors.Is(err, ErrNoMailbox):
		s.srv.d.Metrics.reject(RejectNoMailbox)
		return errNoMailbox
	case tempmail.KindOf(err) == tempmail.TooLarge:
		s.srv.d.Metrics.reject(RejectTooLarge)
		return smtp.ErrDataTooLarge
	case err != nil:
		s.srv.d.Log.Warn("SMTP: delivery failed; answered 451", "err", err)
		return errTempFail
	}
	s.srv.d.Log.Debug("SMTP: delivered", "from", s.from, "rcpts", len(s.rcpts), "size", len(raw), "ids", res.MessageIDs, "duplicate", res.Duplicate)
	return nil
}

func (s *session) Reset() {
	s.from, s.rcpts = "", nil
}

func (s *session) Logout() error { return nil }

// errorLog sends go-smtp's own errors to our logger.
type errorLog struct{ d *Deliverer }

func (l errorLog) Printf(format string, v ...any) { l.d.Log.Warn("SMTP: " + fmt.Sprintf(format, v...)) }
func (l errorLog) Println(v ...any)               { l.d.Log.Warn("SMTP: " + fmt.Sprint(v...)) }
