package backendtest

import (
	"fmt"
	"strings"
	"testing"

	"tempmail/backend"
)

// Metric is what b's metrics (Backend.Metrics, which /metrics shows) hold
// now of a counter or gauge: the first sample of the metric whose labels
// include all of labels (name="value" each).
func Metric(t testing.TB, b *backend.Backend, name string, labels ...string) (float64, bool) {
	t.Helper()
	families, err := b.Metrics.Gather()
	if err != nil {
		t.Fatalf("gather the metrics: %v", err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			var pairs []string
			for _, l := range m.GetLabel() {
				pairs = append(pairs, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			have := strings.Join(pairs, ",")
			matched := true
			for _, l := range labels {
				matched = matched && strings.Contains(have, l)
			}
			if !matched {
				continue
			}
			switch {
			case m.Counter != nil:
				return m.GetCounter().GetValue(), true
			case m.Gauge != nil:
				return m.GetGauge().GetValue(), true
			case m.Untyped != nil:
				return m.GetUntyped().GetValue(), true
			}
		}
	}
	return 0, false
}
