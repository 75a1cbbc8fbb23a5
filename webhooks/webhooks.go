package webhooks

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"tempmail/broker"
	"tempmail/events"
	"tempmail/mailbox"
	"tempmail/projections"
)

const (
	// JobStream holds deliveries to make: jobs due now on whk.job.<webhook>,
	// and retries and put-off jobs as message schedules on whk.later.>,
	// which the server publishes as jobs when they fall due. It is a work
	// queue: an acknowledged job is gone.
	JobStream = "WEBHOOKS"
	// LogStream keeps each subscription's recent attempts and whether it is
	// failing (log.go).
	LogStream = "WEBHOOK_LOG"

	jobRoot      = "whk.job"
	laterRoot    = "whk.later"
	consumerName = "deliver"

	// ackWait is how long a job may stay in a process's hands unanswered
	// before another process gets it. A job waiting in its lane renews it
	// every third of it, and one attempt (the views, the POST of at most
	// attemptTimeout, recording it) takes far less, so a live process
	// never loses a job it holds, and a dead one's jobs come back.
	ackWait = 5 * time.Minute
	// maxHeld bounds the jobs a process holds at once, across lanes.
	maxHeld = 4096
	// laneConcurrency and laneMax bound one subscription's share.
	laneConcurrency = 4
	laneMax         = 64
	// attemptTimeout bounds one POST, from dialling to the answer
	// (docs/webhooks.md: 10 s).
	attemptTimeout = 10 * time.Second
	// maxKeptResponse is how much of a receiver's answer the log keeps.
	maxKeptResponse = 1 << 10
	// jobsKeptFor is a backstop on the job stream: jobs are acknowledged
	// within the retry schedule, so only a stream no process consumes
	// grows this old.
	jobsKeptFor = 14 * 24 * time.Hour
)

// Options configures a process's webhooks.
type Options struct {
	Replicas int // of the streams and the consumer: 1, or 3 in a cluster
	// RetrySchedule is the wait before each retry of a failed delivery;
	// a delivery is attempted len(RetrySchedule)+1 times.
	RetrySchedule []time.Duration
	// AllowPrivate lets targets be loopback, private or link-local.
	AllowPrivate bool
	// Exclusive says this process alone delivers (a single node): at
	// start, jobs a killed predecessor held are delivered at once rather
	// than after ackWait.
	Exclusive bool
	Logger    *slog.Logger
	Resolver  Resolver // nil: the system's
	// Version goes into the User-Agent of deliveries.
	Version string
	// AttemptTimeout bounds one attempt; 0: attemptTimeout. Tests shorten it.
	AttemptTimeout time.Duration
	// Flusher, when set, puts enqueued deliveries on disk before Enqueue
	// returns (broker.Node.Flusher): the views that follow must not
	// outlive, in a power cut, the deliveries their events called for.
	Flusher *broker.Flusher
}

// Webhooks is a process's outbox (projections.Outbox) and deliverer.
type Webhooks struct {
	js     jetstream.JetStream
	jobs   jetstream.Stream
	log    jetstream.Stream
	cons   jetstream.Consumer
	views  *projections.Reader
	opts   Options
	guard  *guard
	client *http.Client
	logger *slog.Logger
	m      *metrics

	cancel context.CancelFunc
	wg     sync.WaitGroup
	held   chan struct{} // a token per job held
	mu     sync.Mutex
	lanes  map[string]*lane
}

// Open creates or opens the job and log streams and the delivery consumer.
// Nothing is delivered until Start.
func Open(ctx context.Context, js jetstream.JetStream, opts Options) (*Webhooks, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Replicas == 0 {
		opts.Replicas = 1
	}
	if opts.AttemptTimeout <= 0 {
		opts.AttemptTimeout = attemptTimeout
	}
	jobs, err := broker.EnsureStream(ctx, js, jetstream.StreamConfig{
		Name:        JobStream,
		Description: "tempmail: outbound webhook deliveries to make",
		Subjects:    []string{jobRoot + ".>", laterRoot + ".>"},
		Storage:     jetstream.FileStorage,
		Replicas:    opts.Replicas,
		Retention:   jetstream.WorkQueuePolicy,
		MaxAge:      jobsKeptFor,
		Duplicates:  events.DedupeWindow,
		// Retries wait as schedules the server fires.
		AllowMsgSchedules: true,
	})
	if err != nil {
		return nil, err
	}
	logs, err := broker.EnsureStream(ctx, js, jetstream.StreamConfig{
		Name:              LogStream,
		Description:       "tempmail: recent outbound webhook attempts, per subscription",
		Subjects:          []string{logRoot + ".>"},
		Storage:           jetstream.FileStorage,
		Replicas:          opts.Replicas,
		MaxMsgsPerSubject: attemptsKept,
		MaxAge:            logKeptFor,
		Discard:           jetstream.DiscardOld,
	})
	if err != nil {
		return nil, err
	}
	cons, err := jobs.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
		Durable:       consumerName,
		Description:   "tempmail: webhook deliveries, shared by every process",
		FilterSubject: jobRoot + ".>",
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       ackWait,
		MaxAckPending: maxHeld * 4, // several processes share it
		MaxDeliver:    -1,
		Replicas:      opts.Replicas,
	})
	if err != nil {
		return nil, fmt.Errorf("create webhook consumer: %w", err)
	}
	if opts.Exclusive {
		if _, err := js.ResetConsumer(ctx, JobStream, consumerName); err != nil {
			return nil, fmt.Errorf("reset webhook consumer: %w", err)
		}
	}
	w := &Webhooks{js: js, jobs: jobs, log: logs, cons: cons, opts: opts, logger: opts.Logger,
		guard: newGuard(opts.Resolver, opts.AllowPrivate), held: make(chan struct{}, maxHeld),
		lanes: map[string]*lane{}, m: newMetrics(jobs)}
	w.client = &http.Client{
		Transport: &http.Transport{
			Proxy:               nil, // a proxy would dial for us, past the guard
			DialContext:         w.guard.dial,
			TLSHandshakeTimeout: opts.AttemptTimeout,
			MaxIdleConnsPerHost: laneConcurrency,
			IdleConnTimeout:     time.Minute,
		},
		// Redirects are not followed: a 3xx is the receiver's answer.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return w, nil
}

// Instrument registers the webhook metrics with reg.
func (w *Webhooks) Instrument(reg prometheus.Registerer) { w.m.register(reg) }

// CheckURL validates a subscription's target (guard.go).
func (w *Webhooks) CheckURL(ctx context.Context, raw string) error {
	_, err := w.guard.CheckURL(ctx, raw)
	return err
}

// job is a delivery as the job stream holds it.
type job struct {
	projections.Delivery
	Attempt int `json:"attempt"` // 1 for the first
	// Deferred counts the times it was put off because its subscription's
	// lane was full; those are not attempts.
	Deferred int `json:"deferred,omitempty"`
}

// ID is the delivery's webhook-id: the same for each of its attempts.
func (j *job) ID() string { return "msg_" + j.event() + "_" + j.Webhook }

// event names what the delivery tells of, unique among one subscription's
// deliveries: the event's sequence, and for the eviction a new message
// caused (told by the same event as its arrival) the evicted message too.
func (j *job) event() string {
	seq := strconv.FormatUint(j.Seq, 10)
	if j.Kind == mailbox.HookMessageDeleted && j.Reason == mailbox.ReasonCap {
		return seq + "-" + j.MessageID
	}
	return seq
}

// Enqueue stores the deliveries an event calls for (projections.Outbox).
// A delivery enqueued again within the dedupe window is recognised by its
// id and stored once.
func (w *Webhooks) Enqueue(ctx context.Context, ds []projections.Delivery) error {
	futures := make([]jetstream.PubAckFuture, 0, len(ds))
	for _, d := range ds {
		j := job{Delivery: d, Attempt: 1}
		data, err := json.Marshal(&j)
		if err != nil {
			return err
		}
		m := nats.NewMsg(jobRoot + "." + d.Webhook)
		m.Data = data
		m.Header.Set(jetstream.MsgIDHeader, j.ID())
		f, err := w.js.PublishMsgAsync(m)
		if err != nil {
			return fmt.Errorf("enqueue webhook delivery: %w", err)
		}
		futures = append(futures, f)
	}
	for _, f := range futures {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			return fmt.Errorf("enqueue webhook delivery: %w", err)
		case <-ctx.Done():
			return fmt.Errorf("enqueue webhook delivery: %w", ctx.Err())
		}
	}
	return w.opts.Flusher.Flush(ctx, JobStream)
}

// later stores j to be delivered after wait: a message schedule that the
// server publishes as a job when it falls due.
func (w *Webhooks) later(ctx context.Context, j job, wait time.Duration) error {
	data, err := json.Marshal(&j)
	if err != nil {
		return err
	}
	tag := j.event() + "." + strconv.Itoa(j.Attempt) + "." + strconv.Itoa(j.Deferred)
	m := nats.NewMsg(laterRoot + "." + j.Webhook + "." + tag)
	m.Data = data
	broker.Schedule(m, jobRoot+"."+j.Webhook, time.Now().Add(wait))
	m.Header.Set(jetstream.MsgIDHeader, j.Webhook+"."+tag)
	_, err = w.js.PublishMsg(ctx, m)
	return err
}
