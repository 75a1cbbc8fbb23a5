package projections

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"tempmail/events"
)

// LagCollector reports, at each scrape, how many events each partition has
// yet to apply: those pending in its consumer and those in flight.
func (v *Views) LagCollector() prometheus.Collector { return lagCollector{v} }

type lagCollector struct{ v *Views }

var lagDesc = prometheus.NewDesc("tempmail_projection_lag_events",
	"Events stored but not yet applied to the views, by partition.", []string{"partition"}, nil)

func (c lagCollector) Describe(ch chan<- *prometheus.Desc) { ch <- lagDesc }

func (c lagCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for _, part := range c.v.store.Partitions() {
		cons, err := c.v.js.Consumer(ctx, events.StreamName, c.v.consumerName(part))
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
