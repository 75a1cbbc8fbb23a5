package broker

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
)

// serverLogger adapts the embedded nats-server's logger to slog. Fatalf is
// one reason it exists: the stock logger calls os.Exit, and no logger at all
// leaves a failed server half-started without a word. Here the error is kept
// so that StartNode can report it.
//
// The other is levels operators can alert on: ERROR must mean that a
// person is needed. The server logs some of what happens at every start and
// stop of a cluster, or of a single node, above what it is (leveled, by
// what the server really prints there); the rest passes at its level.
type serverLogger struct {
	log   *slog.Logger
	mu    sync.Mutex
	fatal string
}

// routeWarnEvery is how often a route that keeps failing to connect is
// told at WARN: at its first attempt and every routeWarnEvery-th (the
// server tries once a second); the attempts between go to DEBUG.
const routeWarnEvery = 60

// levelOf says at which level to log msg, which the server logs at level:
// lower for what the server says at every start and clean stop of a node
// or a cluster (found by capturing what it prints there), never higher.
func levelOf(level slog.Level, msg string) slog.Level {
	var to slog.Level
	switch {
	case strings.HasPrefix(msg, "Error trying to connect to route"):
		// A peer not up yet at start, or gone at its stop. While one stays
		// away the line comes back, at WARN once a minute.
		to = slog.LevelWarn
		if n := routeAttempt(msg); n > 1 && n%routeWarnEvery != 0 {
			to = slog.LevelDebug
		}
	case strings.Contains(msg, ": store is closed"):
		// A snapshot or a write that met its store closing: at a stop,
		// or a stream being deleted.
		to = slog.LevelInfo
	case strings.HasPrefix(msg, "Metalayer blocking snapshot"):
		// The meta layer's snapshot, which a cluster node takes at a stop.
		to = slog.LevelInfo
	case strings.HasPrefix(msg, "Waiting for routing to be established"),
		msg == "JetStream has not established contact with a meta leader":
		// A cluster node before its peers answer; waitForMetaLeader warns
		// when that lasts.
		to = slog.LevelInfo
	default:
		return level
	}
	return min(level, to)
}

// routeAttempt is the attempt number in "Error trying to connect to route
// (attempt N): ..."; 0 if there is none.
func routeAttempt(msg string) int {
	_, rest, ok := strings.Cut(msg, "(attempt ")
	if !ok {
		return 0
	}
	n, _ := strconv.Atoi(rest[:strings.IndexByte(rest+")", ')')])
	return n
}

func (l *serverLogger) logf(level slog.Level, format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	l.log.Log(context.Background(), levelOf(level, msg), msg)
}

func (l *serverLogger) Noticef(format string, v ...any) { l.logf(slog.LevelDebug, format, v...) }
func (l *serverLogger) Warnf(format string, v ...any)   { l.logf(slog.LevelWarn, format, v...) }
func (l *serverLogger) Errorf(format string, v ...any)  { l.logf(slog.LevelError, format, v...) }
func (l *serverLogger) Debugf(format string, v ...any)  { l.logf(slog.LevelDebug, format, v...) }
func (l *serverLogger) Tracef(format string, v ...any)  { l.logf(slog.LevelDebug, format, v...) }

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
