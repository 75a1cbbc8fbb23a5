package command

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics counts the mail the service accepts and refuses, whichever way it
// came (SMTP or the inbound webhook). A nil *Metrics counts nothing, so
// tests and tools can leave it out.
type Metrics struct {
	received prometheus.Counter
	rejected *prometheus.CounterVec
}

// Reasons a message or recipient is refused, as metric labels. Delivery
// counts some; the transports (package ingest, the api's inbound webhook)
// count those only they see.
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
	RejectQuota       = "tenant_quota"
)

// NewMetrics registers the delivery metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		received: prometheus.NewCounter(prometheus.CounterOpts{Name: "tempmail_messages_received_total",
			Help: "Messages stored, counting each recipient's copy (SMTP and webhook)."}),
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tempmail_messages_rejected_total",
			Help: "Messages or recipients refused, by reason."}, []string{"reason"}),
	}
	reg.MustRegister(m.received, m.rejected)
	return m
}

func (m *Metrics) addReceived(n int) {
	if m != nil {
		m.received.Add(float64(n))
	}
}

// Reject counts a refusal for reason (one of the Reject constants).
func (m *Metrics) Reject(reason string) {
	if m != nil {
		m.rejected.WithLabelValues(reason).Inc()
	}
}
