package projections

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"

	"tempmail/broker/natstest"
	"tempmail/events"
	"tempmail/events/eventstest"
	"tempmail/eventually"
	"tempmail/projections/engine"
)

// A deleted tenant's subject leaves the log once the views have applied
// the deletion, but only as far as they have applied it: the deletion
// ends the tenant's inboxes, which writes each one's removal from its
// list on that subject, and such a removal may be stored while the sys
// worker applies the deletion, before the consumer hands it over (here
// the consumer is paused; a busy worker's, or one whose pin lapsed, does
// not deliver either). Purged with the rest, it never came: the sys
// partition's checkpoint stayed short of it, and whoever waited for it
// (the tenant's DELETE, CaughtUp) waited until some later event of the
// partition came, answering "stored but not visible yet" meanwhile.
func TestWhatADeletedTenantsSubjectGetsWhileItsDeletionIsAppliedIsApplied(t *testing.T) {
	t.Parallel()
	for _, exclusive := range []bool{false, true} {
		t.Run(fmt.Sprint("exclusive ", exclusive), func(t *testing.T) {
			t.Parallel()
			node := natstest.StartNode(t, t.TempDir())
			store := eventstest.OpenStore(t, node)
			ctx := ctxT(t)
			tenant := "tenant-" + uuid.NewString()
			in := events.InboxCreated{InboxID: uuid.NewString(), Address: "owned@one.test", Token: "tok" + uuid.NewString(),
				DomainID: 1, CreatedAt: time.Unix(1700000300, 0).UTC(), TenantID: tenant}

			// As the sys worker applies the deletion, the consumer stops
			// handing events over and the tenant's inbox ends.
			var (
				mu           sync.Mutex
				sysConsumer  string
				lifecycleSeq uint64
				removal      []events.Ack
				hookErr      error
				hookOnce     sync.Once
			)
			hook := func() {
				mu.Lock()
				defer mu.Unlock()
				hctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				if _, hookErr = node.JS.PauseConsumer(hctx, events.StreamName, sysConsumer, time.Now().Add(time.Hour)); hookErr != nil {
					return
				}
				removal, hookErr = store.EndTenantInbox(hctx, in.Address, tenant,
					&events.InboxDeleted{InboxID: in.InboxID, Address: in.Address}, lifecycleSeq)
			}
			wrap := func(vs engine.Views) engine.Views {
				return onApply{vs, func(p events.Payload) {
					if _, ok := p.(*events.TenantDeleted); ok {
						hookOnce.Do(hook)
					}
				}}
			}
			v := startProcess(t, node, store, Options{Exclusive: exclusive, wrap: wrap})
			t.Cleanup(v.Stop)

			created, err := store.AppendTenantEvent(ctx, events.TenantCreated{TenantID: tenant, Name: "t",
				Quota: events.Quota{Inboxes: 10}, CreatedAt: time.Unix(1700000300, 0).UTC()}, 0)
			if err != nil {
				t.Fatal(err)
			}
			acks, err := store.CreateTenantInbox(ctx, in, 0, created.Seq)
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			sysConsumer, lifecycleSeq = v.ConsumerName(events.SysPartition), acks[1].Seq
			mu.Unlock()
			caughtUp(t, v)

			deleted, err := store.EndTenant(ctx, events.TenantDeleted{TenantID: tenant})
			if err != nil {
				t.Fatal(err)
			}
			// The worker acknowledges the deletion once it has made the
			// log forget what it let go; then the consumer goes on.
			cons, err := node.JS.Consumer(ctx, events.StreamName, sysConsumer)
			if err != nil {
				t.Fatal(err)
			}
			eventually.Within(t, 20*time.Second, "the deletion applied and acknowledged", func() error {
				info, err := cons.Info(ctxT(t))
				if err != nil {
					return err
				}
				if info.AckFloor.Stream < deleted.Seq {
					return fmt.Errorf("acknowledged up to %d, the deletion is %d", info.AckFloor.Stream, deleted.Seq)
				}
				return nil
			})
			mu.Lock()
			if hookErr != nil || len(removal) != 2 {
				t.Fatalf("ending the tenant's inbox as its deletion was applied: %v, %d acks", hookErr, len(removal))
			}
			mu.Unlock()
			if _, err := node.JS.ResumeConsumer(ctx, events.StreamName, sysConsumer); err != nil {
				t.Fatal(err)
			}
			for _, ack := range removal {
				wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
				err := v.WaitApplied(wctx, ack)
				cancel()
				if err != nil {
					t.Fatalf("the removal's event %d (%s) is never applied: %v (the partition applied up to %d)",
						ack.Seq, ack.Partition, err, v.Hub().Applied(ack.Partition))
				}
			}
			// Applied, the removal is moot: the tenant's subject leaves the
			// log whole all the same.
			// So does the bar on its keys (TenantBarred), which the log
			// needs only until the views have applied the deletion.
			for _, subj := range []string{"ev.sys.tenant." + tenant, "ev.sys.ended." + tenant} {
				eventually.Within(t, 20*time.Second, subj+" gone from the log", func() error {
					_, err := store.Stream().GetLastMsgForSubject(ctxT(t), subj)
					if err == nil {
						return fmt.Errorf("the log still holds events of the deleted tenant")
					}
					if !errors.Is(err, jetstream.ErrMsgNotFound) {
						return err
					}
					return nil
				})
			}
		})
	}
}

// onApply calls seen with every event a worker applies, before the views
// apply it.
type onApply struct {
	engine.Views
	seen func(events.Payload)
}

func (o onApply) Applier(live bool) engine.Applier {
	return onApplyApplier{o.Views.Applier(live), o.seen}
}

type onApplyApplier struct {
	engine.Applier
	seen func(events.Payload)
}

func (a onApplyApplier) Apply(t *engine.Tx, p events.Payload) error {
	a.seen(p)
	return a.Applier.Apply(t, p)
}
