package view

// Meta is carried by every view entry.
type Meta struct {
	Seq  uint64 `json:"seq"`            // stream sequence of the last event applied to this entry
	Gone bool   `json:"gone,omitempty"` // a tombstone: reads treat the entry as absent
}

func (m *Meta) meta() *Meta { return m }

// Clone copies the record.
func (m *Meta) Clone() Record { c := *m; return &c }

// Record is a view entry: a struct that embeds Meta (which alone gives it
// the method meta, so that no entry goes without the sequence every write
// checks) and copies itself.
type Record interface {
	meta() *Meta
	// Clone copies the record so that the copy shares nothing the
	// appliers change in place (slices they insert into or edit).
	Clone() Record
}

// MetaOf is the Meta a record embeds.
func MetaOf(rec Record) *Meta { return rec.meta() }

// Schema is what the views are made of, as a bucket's stores and readers
// need to know it: how an entry is stored, what it takes in memory, which
// a worker keeps, and how a key may be named in an error. The views
// (package projections) have theirs; the engine adds its own entries.
type Schema interface {
	// Encode is rec's stored form; Decode reads it back into rec. A
	// tombstone is stored as JSON whatever its record (KV.Write).
	Encode(rec Record) ([]byte, error)
	Decode(data []byte, rec Record) error
	// Size estimates what rec takes in memory, decoded and kept (the
	// structs, their strings, and the map and list entries that hold
	// them).
	Size(rec Record) int
	// Keep says whether a worker keeps rec between batches (KV): the
	// small, hot entries.
	Keep(rec Record) bool
	// Printable names key in an error, which may reach a log: a key that
	// holds a secret must not show it.
	Printable(key string) string
}

// Checkpoint is the progress of one partition: c.<partition>
// (CheckpointKey).
type Checkpoint struct {
	Meta
	// Counts are the partition's live inboxes and stored messages once
	// the events up to Seq are applied. Nil in a checkpoint written by a
	// version that did not count: then they are unknown until a rebuild.
	Counts *Counts `json:"counts,omitempty"`
}

// Clone copies the checkpoint.
func (c *Checkpoint) Clone() Record {
	d := *c
	if c.Counts != nil {
		n := *c.Counts
		d.Counts = &n
	}
	return &d
}

// CheckpointKey is the key of a partition's checkpoint.
func CheckpointKey(part string) string { return "c." + part }

// Counts are what the views hold, for the operator's gauges.
type Counts struct {
	Inboxes  int64 `json:"inboxes"`
	Messages int64 `json:"messages"`
}

// Add adds d to c.
func (c *Counts) Add(d Counts) {
	c.Inboxes += d.Inboxes
	c.Messages += d.Messages
}
