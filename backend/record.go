package backend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"tempmail/broker"
	"tempmail/events"
)

// A data directory keeps a record of the store it holds (recordFile):
// which streams it had, and how many events. The embedded server, finding a
// stream it cannot read at start (its definition lost in a power cut, its
// files removed), logs a warning and goes on without it; the service would
// then make the stream anew, empty, and come up serving nothing of what it
// had acknowledged. The record is what tells such a start from a first one.

const recordFile = "store.json"

// storeRecord is what a data directory says of its store.
type storeRecord struct {
	Created time.Time `json:"created"`
	// Streams are the streams the store had when the record was written.
	Streams []string `json:"streams"`
	// KeyFile is the key file of a single node (relative to the data
	// directory): without it no stored message can be read.
	KeyFile string `json:"key_file,omitempty"`
	// LastSeq is the event stream's last sequence then. A log found
	// shorter at start lost events.
	LastSeq uint64    `json:"last_seq"`
	Written time.Time `json:"written"`
}

// readRecord reads dir's record; nil without one (a new data directory, or
// one of a version that kept none).
func readRecord(dir string) (*storeRecord, error) {
	b, err := os.ReadFile(filepath.Join(dir, recordFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the store's record: %w", err)
	}
	var r storeRecord
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("the store's record %s is damaged (%v): restore the data directory from a backup, or move it aside to start empty", filepath.Join(dir, recordFile), err)
	}
	return &r, nil
}

// writeRecord records what the store holds now, on disk before it returns.
// derived names the streams that may go missing without loss (views, built
// again from the log); they are not recorded.
func writeRecord(ctx context.Context, dir string, js jetstream.JetStream, store *events.Store, derived func(string) bool) error {
	old, err := readRecord(dir)
	if err != nil {
		return err
	}
	r := storeRecord{Created: time.Now().UTC(), Written: time.Now().UTC()}
	if old != nil {
		r.Created = old.Created
	}
	names := js.StreamNames(ctx)
	for name := range names.Name() {
		if !derived(name) {
			r.Streams = append(r.Streams, name)
		}
	}
	if err := names.Err(); err != nil {
		return fmt.Errorf("list the streams: %w", err)
	}
	slices.Sort(r.Streams)
	if r.LastSeq, err = store.LastSeq(ctx); err != nil {
		return err
	}
	if path := store.KeyFile(); path != "" {
		if r.KeyFile, err = filepath.Rel(dir, path); err != nil {
			return err
		}
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return broker.WriteFileSynced(filepath.Join(dir, recordFile), append(b, '\n'), 0o644)
}

// Missing lists what r names that is gone: the key file (in dir), and
// streams JetStream does not have.
func (r *storeRecord) Missing(ctx context.Context, dir string, js jetstream.JetStream) ([]string, error) {
	var missing []string
	if r.KeyFile != "" {
		if _, err := os.Stat(filepath.Join(dir, r.KeyFile)); errors.Is(err, os.ErrNotExist) {
			missing = append(missing, "the key file "+r.KeyFile)
		}
	}
	for _, name := range r.Streams {
		_, err := js.Stream(ctx, name)
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			missing = append(missing, "the stream "+name)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("look up stream %s: %w", name, err)
		}
	}
	return missing, nil
}

// ErrStoreLost says a data directory's store cannot be read: refusing to
// start is the only answer that loses nothing more.
type ErrStoreLost struct {
	Dir     string
	Missing []string
}

func (e *ErrStoreLost) Error() string {
	return fmt.Sprintf("the data directory %s holds a tempmail store, but %s: missing or unreadable "+
		"(warnings of the embedded NATS above, if any, say why); nothing was changed. "+
		"To recover, restore the data directory from a backup and start again; "+
		"to start over with an empty store, move %s aside. "+
		"(Views alone are rebuilt from the log with `tempmail rebuild`; without the log or the keys there is nothing to rebuild them from.)",
		e.Dir, strings.Join(e.Missing, ", "), e.Dir)
}
