package ingest

import (
	"bytes"
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
	MaxConnsPerIP int         // 0: unlimited
	RatePerIP     int         // messages per minute per IP; 0: unlimited
	TLS           *tls.Config // non-nil: STARTTLS is offered
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
	// shutdown is set once Shutdown began: Serve's end is then expected.
	shutdown atomic.Bool
}

// NewSMTPServer returns a server delivering through d.
func NewSMTPServer(d *Deliverer, cfg SMTPConfig) *SMTPServer {
	s := &SMTPServer{d: d, limits: newIPLimits(cfg.MaxConnsPerIP, cfg.RatePerIP), done: make(chan struct{})}
	s.limits.onRefused = func() { d.Metrics.reject(RejectTooManyConn) }
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
		_ = s.srv.Close()
	}
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
	size  int64
	rcpts []*projections.Inbox
}

var (
	errRate      = &smtp.SMTPError{Code: 421, EnhancedCode: smtp.EnhancedCode{4, 7, 0}, Message: "Too many messages from your address, try again later"}
	errNoMailbox = &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "Mailbox unavailable"}
	errNoRelay   = &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 7, 1}, Message: "Relaying denied: domain not served here"}
	errTempFail  = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "Temporary failure storing the message, try again later"}
)

func (s *session) Mail(from string, opts *smtp.MailOptions) error {
	if !s.srv.limits.allowMessage(s.ip, time.Now()) {
		s.srv.d.Metrics.reject(RejectRateLimited)
		return errRate
	}
	s.from, s.size = from, 0
	if opts != nil {
		s.size = opts.Size
	}
	return nil
}

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
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

	// The message is held in memory once: sized from SIZE= when the client
	// gave it, with our Received header in front so no second copy is made.
	var buf bytes.Buffer
	if s.size > 0 && s.size <= s.srv.d.MaxMessageBytes {
		buf.Grow(len(hdr) + int(s.size) + 1024)
	}
	buf.WriteString(hdr)
	if _, err := io.Copy(&buf, r); err != nil {
		if errors.Is(err, smtp.ErrDataTooLarge) {
			s.srv.d.Metrics.reject(RejectTooLarge)
		}
		return err // go-smtp's size limit (552 5.3.4) or a broken connection
	}
	raw := buf.Bytes()

	res, err := s.srv.d.Deliver(context.Background(), Envelope{MailFrom: s.from, Recipients: s.rcpts}, raw, raw[len(hdr):])
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
	s.from, s.size, s.rcpts = "", 0, nil
}

func (s *session) Logout() error { return nil }

// errorLog sends go-smtp's own errors to our logger.
type errorLog struct{ d *Deliverer }

func (l errorLog) Printf(format string, v ...any) { l.d.Log.Warn("SMTP: " + fmt.Sprintf(format, v...)) }
func (l errorLog) Println(v ...any)               { l.d.Log.Warn("SMTP: " + fmt.Sprint(v...)) }
