package command

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics counts the mail the service accepts and refuses, whichever way it
// came (SMTP or the inbound webhook), and per tenant what its inboxes take
// and its quotas refuse. A nil *Metrics counts nothing, so tests and tools
// can leave it out.
//
// The tenant label is the tenant's id: bounded, as only the admin makes
// tenants; a deleted tenant's series leave the process that deletes it
// (the others keep them until they restart).
type Metrics struct {
	received prometheus.Counter
	rejected *prometheus.CounterVec

	tenantReceived *prometheus.CounterVec // {tenant}
	tenantCreated  *prometheus.CounterVec // {tenant}
	tenantRefused  *prometheus.CounterVec // {tenant, quota}
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
		tenantReceived: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tempmail_tenant_messages_received_total",
			Help: "Messages stored in a tenant's inboxes, each recipient's copy counted."}, []string{"tenant"}),
		tenantCreated: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tempmail_tenant_inboxes_created_total",
			Help: "Inboxes made by a tenant's keys."}, []string{"tenant"}),
		tenantRefused: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tempmail_tenant_quota_refusals_total",
			Help: "What a tenant's quota refused: an inbox or webhook (403), a recipient (SMTP 452, the inbound webhook's 429), by quota."},
			[]string{"tenant", "quota"}),
	}
	reg.MustRegister(m.received, m.rejected, m.tenantReceived, m.tenantCreated, m.tenantRefused)
	return m
}

// stored counts a copy stored in an inbox of tenant ("": none).
func (m *Metrics) stored(tenant string) {
	m.addReceived(1)
	if m != nil && tenant != "" {
		m.tenantReceived.WithLabelValues(tenant).Inc()
	}
}

// created counts an inbox made for tenant.
func (m *Metrics) created(tenant string) {
	if m != nil && tenant != "" {
		m.tenantCreated.WithLabelValues(tenant).Inc()
	}
}

// refused counts what tenant's quota (inboxes, messages_per_day,
// storage_bytes, webhooks) refused.
func (m *Metrics) refused(tenant, quota string) {
	if m != nil {
		m.tenantRefused.WithLabelValues(tenant, quota).Inc()
	}
}

// forget drops a deleted tenant's series.
func (m *Metrics) forget(tenant string) {
	if m != nil {
		for _, v := range []*prometheus.CounterVec{m.tenantReceived, m.tenantCreated, m.tenantRefused} {
			v.DeletePartialMatch(prometheus.Labels{"tenant": tenant})
		}
	}
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
