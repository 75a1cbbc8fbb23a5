package ingest

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics counts what ingest accepts and refuses. A nil *Metrics counts
// nothing, so tests and tools can leave it out.
type Metrics struct {
	received prometheus.Counter
	rejected *prometheus.CounterVec
	data     prometheus.Histogram
}

// Reasons a message or recipient is refused, as metric labels.
const (
	RejectNoMailbox   = "no_mailbox"
	RejectNotServed   = "not_served"
	RejectTooLarge    = "too_large"
	RejectRateLimited = "rate_limited"
	RejectTooManyConn = "too_many_connections"
	RejectUnavailable = "store_unavailable"
	RejectBusy        = "too_many_bytes_in_flight"
	RejectClientBytes = "client_bytes"
	RejectDiskFull    = "disk_full"
	RejectInvalid     = "invalid"
)

// NewMetrics registers ingest's metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		received: prometheus.NewCounter(prometheus.CounterOpts{Name: "tempmail_messages_received_total",
			Help: "Messages stored, counting each recipient's copy (SMTP and webhook)."}),
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tempmail_messages_rejected_total",
			Help: "Messages or recipients refused, by reason."}, []string{"reason"}),
		// From the DATA command to the 250: the message's bytes arriving,
		// then every recipient's copy stored in JetStream.
		data: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "tempmail_smtp_data_duration_seconds",
			Help:    "Time from an accepted SMTP DATA command to its 250 reply: receiving the message and storing it.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 15}}),
	}
	reg.MustRegister(m.received, m.rejected, m.data)
	return m
}

func (m *Metrics) observeData(d time.Duration) {
	if m != nil {
		m.data.Observe(d.Seconds())
	}
}

func (m *Metrics) addReceived(n int) {
	if m != nil {
		m.received.Add(float64(n))
	}
}

func (m *Metrics) reject(reason string) {
	if m != nil {
		m.rejected.WithLabelValues(reason).Inc()
	}
}
