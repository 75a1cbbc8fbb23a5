package projections

import (
	"context"
	"log/slog"

	"github.com/nats-io/nats.go/jetstream"

	"tempmail/events"
	"tempmail/projections/engine"
)

// viewsFormat is the layout of the views this build reads and writes
// (package entry): 3 folded each message into its inbox's list; 4 keeps an
// entry per domain and per tenant's inbox, and what tenants' claims count;
// 5 keeps an inbox's retention (mailbox.Retention) where 4 kept the letter
// of the API it was made through. A current generation of another format
// was written by an earlier version and is built anew from the log
// (ErrOutdated), which says what each inbox is whatever version wrote it.
const viewsFormat = "5"

// ErrOutdated means the current views were written by an earlier version,
// in a layout this one does not read: `tempmail rebuild` (Rebuild) builds
// them anew from the log.
var ErrOutdated = engine.ErrOutdated

// ErrLost means the current views are gone, or lost writes that the log
// still holds events of: they must be built again from the log (Rebuild)
// before anything is served from them.
var ErrLost = engine.ErrLost

// Derived reports whether stream belongs to the views, which the log can
// build again: a stream that may go missing without loss.
func Derived(stream string) bool { return engine.Derived(stream) }

// Options configures the views of a process.
type Options struct {
	Replicas int // of the views bucket and consumers; 1, or 3 on a cluster
	Logger   *slog.Logger
	// Exclusive says this process is the only one applying events (a single
	// node that holds its data directory): see engine.Options.
	Exclusive bool
	// Outbox, if set, is handed the webhook deliveries each event calls
	// for as it is applied (webhooks.go). A rebuild never dispatches.
	Outbox Outbox
	// Rules shape what events do to the views: the same for the live
	// views and a rebuild, so that both come out the same.
	Rules Rules
	// wrap, when set, stands between the engine and the views: a test's
	// way to act while a worker applies an event.
	wrap func(engine.Views) engine.Views
}

// Rules are what applying events needs beyond the events themselves.
type Rules struct {
	// MaxMessages caps an inbox: a message beyond it deletes the oldest.
	// 0: no cap.
	MaxMessages int
}

func (o Options) engine() engine.Options {
	return engine.Options{Replicas: o.Replicas, Logger: o.Logger, Exclusive: o.Exclusive, Format: viewsFormat}
}

// Views is the projection side of one process: the engine that keeps
// tempmail's views current (Start, Stop, CaughtUp, Failing, metrics...),
// and its Reader, which answers the handlers' reads.
type Views struct {
	*Reader
	*engine.Engine
}

// Open creates or opens the current generation of views. It does not start
// the workers; Start does.
func Open(ctx context.Context, js jetstream.JetStream, store *events.Store, opts Options) (*Views, error) {
	vs := &views{rules: opts.Rules, outbox: opts.Outbox, inboxLive: store.InboxLive}
	var ev engine.Views = vs
	if opts.wrap != nil {
		ev = opts.wrap(vs)
	}
	e, err := engine.Open(ctx, js, store, ev, opts.engine())
	if err != nil {
		return nil, err
	}
	vs.reader = &Reader{bucket: e.Reader(), kv: e.Bucket(), parts: store.Partitions(), content: store}
	return &Views{Reader: vs.reader, Engine: e}, nil
}

// RebuildResult describes a finished rebuild.
type RebuildResult = engine.RebuildResult

// Rebuild replays the whole event stream into a new views generation and
// makes it current once it is complete (engine.Rebuild).
func Rebuild(ctx context.Context, js jetstream.JetStream, store *events.Store, opts Options) (RebuildResult, error) {
	return engine.Rebuild(ctx, js, store, &views{rules: opts.Rules}, opts.engine())
}
