package webhooks

import (
	"context"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
)

type metrics struct {
	deliveries     *prometheus.CounterVec
	attemptSeconds prometheus.Histogram
	pending        prometheus.Collector
}

func newMetrics(jobs jetstream.Stream) *metrics {
	return &metrics{
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tempmail_webhook_deliveries_total",
			Help: "Outbound webhook attempts by outcome: delivered, failed (to be retried), gave_up, " +
				"dropped (its subscription ended), deferred (its subscription's lane was full)."}, []string{"outcome"}),
		attemptSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "tempmail_webhook_attempt_seconds",
			Help: "Duration of outbound webhook attempts, from dialling to the answer.", Buckets: prometheus.DefBuckets}),
		pending: prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tempmail_webhook_pending_deliveries",
			Help: "Outbound webhook deliveries waiting: due, under way, or scheduled for a retry."}, func() float64 {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			info, err := jobs.Info(ctx)
			if err != nil {
				return -1
			}
			return float64(info.State.Msgs)
		}),
	}
}

func (m *metrics) register(reg prometheus.Registerer) {
	reg.MustRegister(m.deliveries, m.attemptSeconds, m.pending)
}

func (m *metrics) outcome(o string) { m.deliveries.WithLabelValues(o).Inc() }
