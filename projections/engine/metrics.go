package engine

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"tempmail/events"
	"tempmail/projections/view"
)

// Instrument registers the views' metrics with reg: how far each partition
// lags, how long events take to reach the views, and what the views hold.
func (v *Engine) Instrument(reg prometheus.Registerer) {
	reg.MustRegister(viewsCollector{v}, v.metrics.applyDelay, v.metrics.forgetPending, v.metrics.restarts, v.metrics.fromLog)
}

// viewMetrics are observed by the workers.
type viewMetrics struct {
	applyDelay prometheus.Histogram
	// forgetPending is, by partition this process applies, what the log
	// is still to forget of what the views let go: deleted messages,
	// ended inboxes, events nothing shows (events.Forget). It drops to 0
	// once a deletion is final, on disk.
	forgetPending *prometheus.GaugeVec
	// restarts counts, by partition, the consumer started again after the
	// checkpoint because it had passed over events (passed.go).
	restarts *prometheus.CounterVec
	// fromLog counts, by partition, the events a worker read from the
	// log itself because its consumer did not hand them over (gap.go).
	fromLog *prometheus.CounterVec
}

func newViewMetrics() viewMetrics {
	return viewMetrics{applyDelay: prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "tempmail_projection_apply_delay_seconds",
		Help: "Time from an event's storing in JetStream to its application to the views (by the workers of this process): what a reader waits for a change to show.",
		// Read-your-writes waits on it; the target for mail is 25 ms at p99.
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10, 60},
	}), forgetPending: prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tempmail_projection_forget_pending",
		Help: "What the log is still to forget of what the views let go (deleted messages, ended inboxes, moot events), by partition this process applies: 0 once every deletion is final.",
	}, []string{"partition"}), restarts: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "tempmail_projection_consumer_restarts_total",
		Help: "Times this process started a partition's consumer again after the checkpoint because it had passed over events without delivering them (a replicated consumer after leader changes).",
	}, []string{"partition"}), fromLog: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "tempmail_projection_events_from_log_total",
		Help: "Events a worker of this process read from the log and applied itself, because the partition's consumer had not handed them over while it held newer ones (after a fault, a worker that stalled holding them, or a consumer that lost them).",
	}, []string{"partition"})}
}

// pending records what a partition's log is still to forget.
func (m viewMetrics) pending(part string, f events.Forget) {
	m.forgetPending.WithLabelValues(part).Set(float64(f.Len()))
}

func (m viewMetrics) observeApplied(stored time.Time) {
	m.applyDelay.Observe(time.Since(stored).Seconds())
}

// tally holds the counts of every partition as its checkpoints carry them,
// seen by this process's watcher whichever process applied them. The
// gauges are their sum: computed at each scrape from as many numbers as
// there are partitions, never from the views themselves.
type tally struct {
	mu    sync.Mutex
	parts map[string]view.Checkpoint
}

func newTally() *tally { return &tally{parts: map[string]view.Checkpoint{}} }

func (t *tally) set(part string, cp view.Checkpoint) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if cur, ok := t.parts[part]; !ok || cp.Seq >= cur.Seq {
		t.parts[part] = cp
	}
}

// total sums the partitions' counts; ok is false while a partition's are
// unknown (views written by a version that did not count).
func (t *tally) total() (sum view.Counts, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, cp := range t.parts {
		if cp.Counts == nil {
			if cp.Seq > 0 {
				return view.Counts{}, false
			}
			continue
		}
		sum.Add(*cp.Counts)
	}
	return sum, true
}

// Counts are the live inboxes and stored messages of all partitions, as
// of their last checkpoints; ok is false when they are unknown.
func (v *Engine) Counts() (view.Counts, bool) { return v.tally.total() }

var (
	lagDesc = prometheus.NewDesc("tempmail_projection_lag_events",
		"Events stored but not yet applied to the views, by partition.", []string{"partition"}, nil)
	inboxesDesc = prometheus.NewDesc("tempmail_inboxes_live",
		"Inboxes the views hold (created and not yet deleted or expired), in the whole service: every process reports the same number.", nil, nil)
	asideDesc = prometheus.NewDesc("tempmail_projection_events_set_aside",
		"Events that cannot be applied to the views, the same way each time, set aside so that their partition goes on (/readyz names them; tempmail rebuild applies them again), by partition: every process reports the same number.", []string{"partition"}, nil)
	messagesDesc = prometheus.NewDesc("tempmail_messages_stored",
		"Messages the views hold, each recipient's copy counted, in the whole service: every process reports the same number.", nil, nil)
)

// viewsCollector reports, at each scrape, how many events each partition
// has yet to apply (those pending in its consumer and those in flight),
// and the counts.
type viewsCollector struct{ v *Engine }

func (c viewsCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- lagDesc
	ch <- inboxesDesc
	ch <- messagesDesc
	ch <- asideDesc
}

func (c viewsCollector) Collect(ch chan<- prometheus.Metric) {
	if n, ok := c.v.Counts(); ok {
		ch <- prometheus.MustNewConstMetric(inboxesDesc, prometheus.GaugeValue, float64(n.Inboxes))
		ch <- prometheus.MustNewConstMetric(messagesDesc, prometheus.GaugeValue, float64(n.Messages))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for part, n := range c.v.setAsideCounts(ctx) {
		ch <- prometheus.MustNewConstMetric(asideDesc, prometheus.GaugeValue, float64(n), part)
	}
	for _, part := range c.v.store.Partitions() {
		cons, err := c.v.js.Consumer(ctx, events.StreamName, c.v.ConsumerName(part))
		if err != nil {
			continue
		}
		info, err := cons.Info(ctx)
		if err != nil {
			continue
		}
		ch <- prometheus.MustNewConstMetric(lagDesc, prometheus.GaugeValue,
			float64(info.NumPending+uint64(info.NumAckPending)), part)
	}
}
