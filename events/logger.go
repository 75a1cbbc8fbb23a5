package events

import (
	"fmt"
	"log/slog"
	"sync"
)

// serverLogger adapts the embedded nats-server's logger to slog. Fatalf is the
// reason it exists: the stock logger calls os.Exit, and no logger at all leaves
// a failed server half-started without a word. Here the error is kept so that
// StartNode can report it.
type serverLogger struct {
	log   *slog.Logger
	mu    sync.Mutex
	fatal string
}

func (l *serverLogger) Noticef(format string, v ...any) { l.log.Debug(fmt.Sprintf(format, v...)) }
func (l *serverLogger) Warnf(format string, v ...any)   { l.log.Warn(fmt.Sprintf(format, v...)) }
func (l *serverLogger) Errorf(format string, v ...any)  { l.log.Error(fmt.Sprintf(format, v...)) }
func (l *serverLogger) Debugf(format string, v ...any)  { l.log.Debug(fmt.Sprintf(format, v...)) }
func (l *serverLogger) Tracef(format string, v ...any)  { l.log.Debug(fmt.Sprintf(format, v...)) }

func (l *serverLogger) Fatalf(format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	l.log.Error(msg)
	l.mu.Lock()
	if l.fatal == "" {
		l.fatal = msg
	}
	l.mu.Unlock()
}

func (l *serverLogger) fatalError() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fatal
}
