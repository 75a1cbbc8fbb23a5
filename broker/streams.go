package broker

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/nats-io/nats.go/jetstream"
)

// EnsureStream creates the stream want describes, or updates it when it
// differs in what tempmail sets. It leaves an equal stream alone: when
// several nodes of a new cluster create or update the same stream at once,
// the server answers only one of them (the others retry, see Settle, and
// then find it in place). Every stream tempmail keeps is opened here.
func EnsureStream(ctx context.Context, js jetstream.JetStream, want jetstream.StreamConfig) (jetstream.Stream, error) {
	st, err := js.Stream(ctx, want.Name)
	if err == nil && sameStream(st.CachedInfo().Config, want) {
		return st, nil
	}
	if err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, fmt.Errorf("look up stream %s: %w", want.Name, err)
	}
	if st, err = js.CreateOrUpdateStream(ctx, want); err != nil {
		return nil, fmt.Errorf("create stream %s: %w", want.Name, err)
	}
	return st, nil
}

// sameStream compares what tempmail sets; the server fills in the rest (a
// zero Duplicates or MaxMsgsPerSubject in want is the server's default, and
// it adds metadata of its own, so only the entries want sets are compared).
func sameStream(have, want jetstream.StreamConfig) bool {
	for k, v := range want.Metadata {
		if have.Metadata[k] != v {
			return false
		}
	}
	return slices.Equal(have.Subjects, want.Subjects) && have.Replicas == want.Replicas &&
		have.Retention == want.Retention && have.Discard == want.Discard && have.MaxAge == want.MaxAge &&
		(want.MaxMsgsPerSubject == 0 || have.MaxMsgsPerSubject == want.MaxMsgsPerSubject) &&
		(want.Duplicates == 0 || have.Duplicates == want.Duplicates) && have.AllowDirect == want.AllowDirect &&
		have.AllowMsgTTL == want.AllowMsgTTL && have.AllowMsgSchedules == want.AllowMsgSchedules &&
		have.AllowAtomicPublish == want.AllowAtomicPublish
}

// OpenKV binds to a KV bucket, creating it first if it does not exist.
// Replicated, its Get goes to the bucket's leader (see leaderKV).
func OpenKV(ctx context.Context, js jetstream.JetStream, cfg jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	kv, err := js.KeyValue(ctx, cfg.Bucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) || (err == nil && replicasDiffer(ctx, js, "KV_"+cfg.Bucket, cfg.Replicas)) {
		kv, err = js.CreateOrUpdateKeyValue(ctx, cfg)
	}
	if err != nil {
		return nil, fmt.Errorf("open KV %s: %w", cfg.Bucket, err)
	}
	if cfg.Replicas > 1 {
		return &leaderKV{KeyValue: kv, nc: js.Conn()}, nil
	}
	return kv, nil
}

// replicasDiffer reports whether an existing bucket's stream keeps another
// number of copies than asked for (--replicas changed): then it is updated,
// or losing a node would lose what only the old copies held.
func replicasDiffer(ctx context.Context, js jetstream.JetStream, stream string, want int) bool {
	st, err := js.Stream(ctx, stream)
	return err == nil && st.CachedInfo().Config.Replicas != max(want, 1)
}

// OpenObjectStore binds to an object store, creating it first if it does
// not exist, and updating it when --replicas changed (see replicasDiffer).
func OpenObjectStore(ctx context.Context, js jetstream.JetStream, cfg jetstream.ObjectStoreConfig) (jetstream.ObjectStore, error) {
	obs, err := js.ObjectStore(ctx, cfg.Bucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) || (err == nil && replicasDiffer(ctx, js, "OBJ_"+cfg.Bucket, cfg.Replicas)) {
		obs, err = js.CreateOrUpdateObjectStore(ctx, cfg)
	}
	if err != nil {
		return nil, fmt.Errorf("open object store %s: %w", cfg.Bucket, err)
	}
	return obs, nil
}
