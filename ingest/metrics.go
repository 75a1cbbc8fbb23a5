package ingest

import "github.com/prometheus/client_golang/prometheus"

// newDataHistogram times an SMTP message from its accepted DATA command to
// its 250: the message's bytes arriving, then every recipient's copy
// stored. What was accepted and refused, by reason, command.Metrics counts.
func newDataHistogram() prometheus.Histogram {
	return prometheus.NewHistogram(prometheus.HistogramOpts{Name: "tempmail_smtp_data_duration_seconds",
		Help:    "Time from an accepted SMTP DATA command to its 250 reply: receiving the message and storing it.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 15}})
}
