package service

import (
	"runtime"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// instrument registers the process's metrics beside the back end's; the
// API registers its own as it is made.
func (s *Service) instrument(reg *prometheus.Registry) {
	build := prometheus.NewGauge(prometheus.GaugeOpts{Name: "tempmail_build_info",
		Help:        "The running build: always 1, with its version and Go version as labels.",
		ConstLabels: prometheus.Labels{"version": s.version, "go_version": runtime.Version()}})
	build.Set(1)
	reclaims := prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tempmail_memory_reclaims_total",
		Help: "Times the service, at rest, handed memory back to the system."},
		func() float64 { return float64(s.reclaims.Load()) })
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), build, reclaims)
}
