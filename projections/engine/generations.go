package engine

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"tempmail/broker"
	"tempmail/events"
)

func metaKV(ctx context.Context, js jetstream.JetStream, replicas int) (jetstream.KeyValue, error) {
	return broker.OpenKV(ctx, js, jetstream.KeyValueConfig{
		Bucket: metaBucket, Description: "tempmail: which views generation is current",
		History: 1, Storage: jetstream.FileStorage, Replicas: replicas})
}

// formatKey records the format of the current generation's views
// (Options.Format).
const formatKey = "views-format"

// ErrOutdated means the current views were written by an earlier version,
// in a layout this one does not read: `tempmail rebuild` (Rebuild) builds
// them anew from the log.
var ErrOutdated = errors.New("the views were built by an earlier tempmail in a layout this one does not read; they must be rebuilt from the log (tempmail rebuild)")

// ErrLost means the current views are gone, or lost writes that the log
// still holds events of (a power cut: views are not put on disk write by
// write, see broker.Flusher): they must be built again from the log
// (Rebuild) before anything is served from them.
var ErrLost = errors.New("the views are missing or behind what they had applied; they must be rebuilt from the log (tempmail rebuild)")

// Derived reports whether stream belongs to the views, which the log
// can build again: a stream that may go missing without loss.
func Derived(stream string) bool {
	return stream == "KV_"+metaBucket || strings.HasPrefix(stream, "KV_VIEWS_")
}

// currentGeneration reads (or on first start records, of format) the views
// generation; recorded says it was recorded now.
func currentGeneration(ctx context.Context, meta jetstream.KeyValue, format string) (gen int, rev uint64, recorded bool, err error) {
	for {
		e, err := meta.Get(ctx, generationKey)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			// A first start: the views to come are of this build's format.
			if _, err := meta.Put(ctx, formatKey, []byte(format)); err != nil {
				return 0, 0, false, fmt.Errorf("record views format: %w", err)
			}
			rev, err := meta.Create(ctx, generationKey, []byte("1"))
			if errors.Is(err, jetstream.ErrKeyExists) {
				continue // another node recorded it first
			}
			if err != nil {
				return 0, 0, false, fmt.Errorf("record views generation: %w", err)
			}
			return 1, rev, true, nil
		}
		if err != nil {
			return 0, 0, false, fmt.Errorf("read views generation: %w", err)
		}
		gen, err := strconv.Atoi(string(e.Value()))
		if err != nil || gen < 1 {
			return 0, 0, false, fmt.Errorf("views generation %q in KV %s is not a positive number", e.Value(), metaBucket)
		}
		return gen, e.Revision(), false, nil
	}
}

// currentFormat reads the format of the current generation's views: ""
// for views of a version that did not record one (format 2).
func currentFormat(ctx context.Context, meta jetstream.KeyValue) (string, error) {
	e, err := meta.Get(ctx, formatKey)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read views format: %w", err)
	}
	return string(e.Value()), nil
}

// BucketName is the name of the views bucket of generation gen.
func BucketName(gen int) string { return "VIEWS_" + strconv.Itoa(gen) }

// ViewsBucket creates or opens the views bucket of generation gen.
func ViewsBucket(ctx context.Context, js jetstream.JetStream, gen, replicas int) (jetstream.KeyValue, error) {
	return broker.OpenKV(ctx, js, jetstream.KeyValueConfig{
		Bucket:      BucketName(gen),
		Description: "tempmail views, generation " + strconv.Itoa(gen),
		History:     1,
		Storage:     jetstream.FileStorage,
		Replicas:    replicas,
		// Enables the per-entry TTL that tombstones use.
		LimitMarkerTTL: time.Second,
	})
}

// dropOtherGenerations deletes consumers of views generations other than
// ours, left behind by a rebuild.
func (v *Engine) dropOtherGenerations(ctx context.Context) error {
	mine := consumerPre + strconv.Itoa(v.gen) + "-"
	names := v.store.Stream().ConsumerNames(ctx)
	var stale []string
	for name := range names.Name() {
		if strings.HasPrefix(name, consumerPre) && !strings.HasPrefix(name, mine) {
			stale = append(stale, name)
		}
	}
	if err := names.Err(); err != nil {
		return fmt.Errorf("list consumers: %w", err)
	}
	for _, name := range stale {
		if err := v.js.DeleteConsumer(ctx, events.StreamName, name); err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
			return fmt.Errorf("delete stale consumer %s: %w", name, err)
		}
	}
	return nil
}
