package engine

import (
	"testing"

	"tempmail/projections/view"
)

// A write of a checkpoint moves its partition on (view.Hub.Checkpoint); a
// write of any other entry wakes that entry's topic.
func TestWatchedCheckpointsAreTheirPartitions(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]string{
		view.CheckpointKey("p3"):  "p3",
		view.CheckpointKey("sys"): "sys",
		"i.id-1":                  "",
		PendingKey("p3"):          "",
		AsideKey("p3"):            "",
	} {
		part, ok := partitionOf(key)
		if ok != (want != "") || part != want && ok {
			t.Errorf("key %s: partition %q (%v), want %q", key, part, ok, want)
		}
	}
}
