package backend

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"tempmail/broker"
	"tempmail/projections"
)

// What a start finds of the store its data directory held. The data
// directory keeps a record of its store (record.go): a start that finds
// a recorded stream missing refuses to serve rather than make it anew,
// empty; one that finds the log shorter than recorded, or the views past
// the log, says how many events were lost, and builds the views again.

// holdsStore says the data directory holds the store: the embedded NATS,
// alone or as a cluster node. With an external NATS the store is not ours.
func (b *Backend) holdsStore() bool { return b.Config.NATSURL == "" }

// checkRecord reads the data directory's record and refuses a store that
// lost streams it had; nil without a record (a new data directory).
func (b *Backend) checkRecord(ctx context.Context) (*storeRecord, error) {
	rec, err := readRecord(b.Config.DataDir)
	if err != nil || rec == nil {
		return nil, err
	}
	var missing []string
	err = broker.Settle(ctx, b.log, "look up the store's streams", func(ctx context.Context) (err error) {
		missing, err = rec.Missing(ctx, b.Config.DataDir, b.Node.JS)
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(missing) > 0 {
		return nil, &ErrStoreLost{Dir: b.Config.DataDir, Missing: missing}
	}
	return rec, nil
}

// reportLoss says how many events the log lost since the record was
// written (a torn tail the server cut off at start).
func (b *Backend) reportLoss(ctx context.Context, rec *storeRecord) error {
	if rec == nil {
		return nil
	}
	last, err := b.Store.LastSeq(ctx)
	if err != nil {
		return err
	}
	if last < rec.LastSeq {
		b.log.Error("the event log is shorter than when it was last recorded: events were lost (a power cut or OS crash without --sync always, or a damaged disk)",
			"lost_events", rec.LastSeq-last, "recorded_last_seq", rec.LastSeq, "recorded_at", rec.Written.Format(time.RFC3339), "last_seq", last)
	}
	return nil
}

// record writes the data directory's record of what the store holds now.
func (b *Backend) record(ctx context.Context) {
	if !b.holdsStore() || b.Store == nil {
		return
	}
	err := broker.Settle(ctx, b.log, "record the store", func(ctx context.Context) error {
		return writeRecord(ctx, b.Config.DataDir, b.Node.JS, b.Store, projections.Derived)
	})
	if err != nil {
		b.log.Warn("could not record what the store holds; a start that finds streams missing will not know they were there", "err", err)
	}
}

// openCurrentViews opens the views and checks they are not past the log:
// views that applied events the log lost (ErrLost), as views of an earlier
// layout (ErrOutdated), must be built again.
func (b *Backend) openCurrentViews(ctx context.Context, js jetstream.JetStream, opts projections.Options) error {
	err := broker.Settle(ctx, b.log, "open the views", func(ctx context.Context) (err error) {
		b.Views, err = projections.Open(ctx, js, b.Store, opts)
		return err
	})
	if err != nil {
		return err
	}
	// A stream leader elected a moment ago (a cluster node restarting
	// after a fault) may answer with a last sequence short of what it
	// holds: views ahead are looked at again for aheadSettle before they
	// count as ahead.
	var ahead uint64
	var since time.Time
	if err := broker.Settle(ctx, b.log, "check the views", func(ctx context.Context) (err error) {
		ahead, err = b.Views.Ahead(ctx)
		if err == nil && ahead > 0 && b.Config.ClusterName != "" {
			if since.IsZero() {
				since = time.Now()
			}
			if time.Since(since) < aheadSettle {
				return fmt.Errorf("the views are %d events past the log's last sequence: %w", ahead, broker.ErrNotYetShown)
			}
		}
		return err
	}); err != nil {
		return err
	}
	if ahead > 0 {
		b.log.Error("the event log lost events the views had applied (a power cut or OS crash without --sync always, or a damaged disk)", "lost_events_at_least", ahead)
		return fmt.Errorf("%w: they applied %d events past the log's end", projections.ErrLost, ahead)
	}
	return nil
}

// aheadSettle is how long views found ahead of the log are looked at again
// in a cluster, before the log counts as having lost events.
const aheadSettle = 15 * time.Second

// rebuildable says the views must be built again before serving.
func rebuildable(err error) bool {
	return errors.Is(err, projections.ErrOutdated) || errors.Is(err, projections.ErrLost)
}
