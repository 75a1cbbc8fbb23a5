package service

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Fatal receives at most one error: why the service can no longer serve
// (the NATS connection closed for good, a listener that stopped serving).
// The caller must then Shutdown; the process should exit non-zero, so that
// its supervisor starts it again, rather than live on answering 503.
func (s *Service) Fatal() <-chan error { return s.fatal }

func (s *Service) fail(err error) {
	select {
	case <-s.stopping:
		return // a listener or connection closing in a shutdown is expected
	default:
	}
	s.fatalOnce.Do(func() {
		s.log.Error("the service cannot go on; stopping", "err", err)
		s.fatal <- err
	})
}

// probe names what keeps the service from serving now, for /readyz.
func (s *Service) probe(ctx context.Context) []string {
	var failing []string
	if !s.Node.Connected() {
		failing = append(failing, "nats connection")
	} else {
		failing = append(failing, s.quorum.check(ctx, s)...)
	}
	failing = append(failing, s.Views.Failing()...)
	if low, free := s.Disk.Low(); low {
		failing = append(failing, fmt.Sprintf("disk: %d MiB free, less than --min-free-disk %d MiB: new mail and inboxes are refused until room is made", free>>20, s.Disk.Min()>>20))
	}
	if s.SMTP != nil {
		select {
		case <-s.SMTP.Stopped():
			failing = append(failing, "smtp listener")
		default:
		}
	}
	return failing
}

// quorumFresh is how long what the quorum probe learnt answers /readyz:
// however many clients ask, a node asks the cluster at most twice (the
// event stream's leader and the views') per quorumFresh.
const quorumFresh = time.Second

// quorumProbe asks whether the event stream and the views bucket can take
// writes as this node sees them, and keeps the answer for quorumFresh. A
// node cut off from the cluster answers 503 on /readyz, and a load
// balancer sends its traffic to the others: it could neither store mail
// nor apply it to the views.
type quorumProbe struct {
	mu      sync.Mutex
	at      time.Time
	failing []string
	asked   int // how many times the cluster was asked
}

func (q *quorumProbe) check(ctx context.Context, s *Service) []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.at.IsZero() && time.Since(q.at) < quorumFresh {
		return q.failing
	}
	q.asked++
	// Both asked at once, within 1.5 s: a probe that waits longer than
	// the balancer's timeout tells it nothing. The answer is kept for
	// every asker: one that goes away must not cut it short.
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 1500*time.Millisecond)
	defer cancel()
	var storeErr, viewsErr error
	var wg sync.WaitGroup
	wg.Go(func() { storeErr = s.Store.Ping(pctx) })
	wg.Go(func() { viewsErr = s.Views.Ping(pctx) })
	wg.Wait()
	q.failing = nil
	if storeErr != nil {
		q.failing = append(q.failing, "event store: "+storeErr.Error())
	}
	if viewsErr != nil {
		q.failing = append(q.failing, "views: "+viewsErr.Error())
	}
	q.at = time.Now()
	return q.failing
}

// advise names, for /readyz, what the service serves around, ready all
// the same: events the views set aside (every node names the same).
func (s *Service) advise(ctx context.Context) []string {
	actx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	notes, err := s.Views.SetAsideEvents(actx)
	if err != nil {
		return nil // the probe tells what fails
	}
	return notes
}
