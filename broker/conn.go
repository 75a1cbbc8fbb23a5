package broker

import (
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
)

// Lane opens another connection to the same NATS, for work that must not
// queue behind the rest: one connection carries its messages one after
// another, so the projections' deliveries and view writes (hundreds of
// kilobytes a batch) would otherwise delay the acknowledgements that SMTP
// answers wait for. It is closed with the node, and its loss is the node's.
func (n *Node) Lane() (jetstream.JetStream, error) {
	nc, err := n.dial()
	if err != nil {
		return nil, fmt.Errorf("connect to NATS: %w", err)
	}
	nc.SetClosedHandler(func(c *nats.Conn) {
		if n.closing.Load() {
			return
		}
		err := c.LastError()
		if err == nil {
			err = errors.New("closed by the server")
		}
		n.lostErr.Store(&err)
		n.lostOnce.Do(func() { close(n.lost) })
	})
	n.mu.Lock()
	n.lanes = append(n.lanes, nc)
	n.mu.Unlock()
	return jetstream.New(nc)
}

// Lost is closed when the NATS connection has closed for good without Close
// being called: the process must stop (its supervisor starts it again).
func (n *Node) Lost() <-chan struct{} { return n.lost }

// LostErr says why the connection was lost; nil while it is not.
func (n *Node) LostErr() error {
	if p := n.lostErr.Load(); p != nil {
		return *p
	}
	return nil
}

// Connected reports whether the connections to NATS are up now: the main
// one and every lane (they are not while the client library reconnects,
// nor once one is lost for good).
func (n *Node) Connected() bool {
	select {
	case <-n.lost:
		return false
	default:
	}
	if !n.Conn.IsConnected() {
		return false
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, nc := range n.lanes {
		if !nc.IsConnected() {
			return false
		}
	}
	return true
}

// Instrument registers the connection's metrics with reg, read from the
// client library at each scrape.
func (n *Node) Instrument(reg prometheus.Registerer) {
	reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tempmail_nats_connected",
			Help: "1 while the connection to NATS is up, 0 while the client library reconnects."},
			func() float64 {
				if n.Connected() {
					return 1
				}
				return 0
			}),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tempmail_nats_reconnects_total",
			Help: "Times the connection to NATS was lost and made again."},
			func() float64 { return float64(n.Conn.Stats().Reconnects) }))
}
