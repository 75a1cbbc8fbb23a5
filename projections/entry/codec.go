package entry

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"time"

	"tempmail/mailbox"
	"tempmail/projections/view"
)

// A view entry's stored form. Inboxes and closed pages, which every
// message writes and most reads read, are stored in a compact binary form:
// an inbox with a full open page is about 11 KB of JSON, which took 146 µs
// to decode, a tenth of ingest's CPU, where this takes a few. Every other
// entry, small and rarely written, is JSON. A binary entry begins with
// BinaryMark, which JSON never does; a tombstone is always JSON (view.KV).
// None of it holds what a message says.
const (
	// BinaryMark begins an entry stored in binary.
	BinaryMark = 0xB3
	// binaryVersion 2 (views format 4) keeps claims: a summary's, a
	// subscription's, what an inbox of a tenant holds claimed; 3 (views
	// format 5) an inbox's retention where 2 had the letter of the API it
	// was made through, so that an entry of 2 is refused rather than its
	// letter read as a retention.
	binaryVersion = 3
)

// Encode is rec's stored form.
func Encode(rec view.Record) ([]byte, error) {
	switch r := rec.(type) {
	case *Inbox:
		return appendInbox(make([]byte, 0, 256+96*len(r.Head)+48*len(r.Pages)+64*len(r.Marks)), r), nil
	case *Page:
		w := []byte{BinaryMark, binaryVersion}
		w = appendMeta(w, &r.Meta)
		return appendSummaries(w, r.Items), nil
	}
	return json.Marshal(rec)
}

// Decode reads an entry's stored form into rec.
func Decode(data []byte, rec view.Record) error {
	if len(data) == 0 || data[0] != BinaryMark {
		return json.Unmarshal(data, rec)
	}
	rd := &reader{b: data[1:]}
	if v := rd.byte(); v != binaryVersion {
		return errors.New("view entry of an unknown binary version")
	}
	switch r := rec.(type) {
	case *Inbox:
		readInbox(rd, r)
	case *Page:
		*r = Page{}
		readMeta(rd, &r.Meta)
		r.Items = readSummaries(rd)
	default:
		return errors.New("binary view entry read as another kind of entry")
	}
	return rd.err
}

func appendMeta(w []byte, m *view.Meta) []byte {
	w = binary.AppendUvarint(w, m.Seq)
	return appendBool(w, m.Gone)
}

func readMeta(rd *reader, m *view.Meta) {
	m.Seq, m.Gone = rd.uvarint(), rd.bool()
}

func appendInbox(w []byte, in *Inbox) []byte {
	w = append(w, BinaryMark, binaryVersion)
	w = appendMeta(w, &in.Meta)
	for _, s := range []string{in.ID, in.Address, in.Token, string(in.Retention)} {
		w = appendString(w, s)
	}
	w = binary.AppendVarint(w, int64(in.DomainID))
	w = appendTime(w, in.CreatedAt)
	w = appendTime(w, in.ExpiresAt)
	w = binary.AppendVarint(w, in.TTL)
	w = binary.AppendUvarint(w, in.LifecycleSeq)
	w = binary.AppendVarint(w, int64(in.Count))
	w = binary.AppendVarint(w, in.NextPage)
	w = binary.AppendUvarint(w, in.Forgotten)
	w = appendSummaries(w, in.Head)
	w = binary.AppendUvarint(w, uint64(len(in.Pages)))
	for _, p := range in.Pages {
		w = binary.AppendVarint(w, p.N)
		w = binary.AppendVarint(w, int64(p.Size))
		w = appendString(w, p.Last)
	}
	w = binary.AppendUvarint(w, uint64(len(in.Marks)))
	for _, m := range in.Marks {
		w = binary.AppendUvarint(w, m.Seq)
		w = appendString(w, string(m.Kind))
		w = appendString(w, m.ID)
		w = binary.AppendUvarint(w, m.ContentSeq)
	}
	w = binary.AppendUvarint(w, uint64(len(in.Webhooks)))
	for _, h := range in.Webhooks {
		w = appendString(w, h.ID)
		w = binary.AppendUvarint(w, uint64(len(h.Events)))
		for _, e := range h.Events {
			w = appendString(w, e)
		}
		w = binary.AppendUvarint(w, h.Seq)
		w = appendBool(w, h.Claimed)
	}
	// Last, so that an entry written before tenants (which ends here)
	// reads as an inbox of none; its stored bytes after, which only a
	// tenant's quota reads, and its messages of the day (one written
	// before them reads as 0); then a mail.tm account's password hash
	// (one written before it reads as none), after the tenant's fields,
	// written empty for an account of no tenant.
	// Then, for an inbox that has or had fault rules, those rules and
	// its attempt log, as JSON: few inboxes have them, and those seldom
	// change (one written before them reads as none).
	faulted := in.Faults.Seq != 0
	if in.TenantID != "" || in.PasswordHash != "" || faulted {
		w = appendString(w, in.TenantID)
		w = appendClaims(w, &in.Held)
		w = appendClaims(w, &in.Claimed)
	}
	if in.PasswordHash != "" || faulted {
		w = appendString(w, in.PasswordHash)
	}
	if faulted {
		b, _ := json.Marshal(&in.Faults)
		w = appendString(w, string(b))
	}
	return w
}

func readInbox(rd *reader, in *Inbox) {
	*in = Inbox{}
	readMeta(rd, &in.Meta)
	in.ID, in.Address, in.Token, in.Retention = rd.string(), rd.string(), rd.string(), mailbox.Retention(rd.string())
	in.DomainID = int(rd.varint())
	in.CreatedAt, in.ExpiresAt = rd.time(), rd.time()
	in.TTL = rd.varint()
	in.LifecycleSeq = rd.uvarint()
	in.Count = int(rd.varint())
	in.NextPage = rd.varint()
	in.Forgotten = rd.uvarint()
	in.Head = readSummaries(rd)
	if n := rd.count(3); n > 0 {
		in.Pages = make([]PageRef, n)
		for i := range in.Pages {
			in.Pages[i] = PageRef{N: rd.varint(), Size: int(rd.varint()), Last: rd.string()}
		}
	}
	if n := rd.count(4); n > 0 {
		in.Marks = make([]Mark, n)
		for i := range in.Marks {
			in.Marks[i] = Mark{Seq: rd.uvarint(), Kind: ChangeKind(rd.string()), ID: rd.string(), ContentSeq: rd.uvarint()}
		}
	}
	if n := rd.count(3); n > 0 {
		in.Webhooks = make([]WebhookRef, n)
		for i := range in.Webhooks {
			h := &in.Webhooks[i]
			h.ID = rd.string()
			if k := rd.count(1); k > 0 {
				h.Events = make([]string, k)
				for j := range h.Events {
					h.Events[j] = rd.string()
				}
			}
			h.Seq = rd.uvarint()
			h.Claimed = rd.bool()
		}
	}
	if rd.err == nil && len(rd.b) > 0 {
		in.TenantID = rd.string()
	}
	if rd.err == nil && len(rd.b) > 0 {
		in.Held, in.Claimed = readClaims(rd), readClaims(rd)
	}
	if rd.err == nil && len(rd.b) > 0 {
		in.PasswordHash = rd.string()
	}
	if rd.err == nil && len(rd.b) > 0 {
		if err := json.Unmarshal([]byte(rd.string()), &in.Faults); err != nil && rd.err == nil {
			rd.err = err
		}
	}
}

func appendSummaries(w []byte, list []Summary) []byte {
	w = binary.AppendUvarint(w, uint64(len(list)))
	for i := range list {
		s := &list[i]
		w = appendString(w, s.ID)
		w = appendTime(w, s.ReceivedAt)
		w = binary.AppendVarint(w, s.Size)
		w = appendBool(w, s.IsRead)
		w = binary.AppendUvarint(w, s.ReadSeq)
		w = binary.AppendUvarint(w, s.ContentSeq)
		w = binary.AppendUvarint(w, s.Key)
		w = appendString(w, s.RawObject)
		w = binary.LittleEndian.AppendUint64(w, s.Print.Raw)
		w = binary.LittleEndian.AppendUint64(w, s.Print.Body)
		w = binary.AppendUvarint(w, s.DeletedSeq)
		w = binary.AppendUvarint(w, s.ClaimSeq)
	}
	return w
}

// appendClaims writes what an inbox holds (Inbox.Held, Inbox.Claimed);
// its Webhooks count is not kept there.
func appendClaims(w []byte, c *Claims) []byte {
	w = binary.AppendVarint(w, c.Bytes)
	w = appendString(w, c.Day)
	return binary.AppendVarint(w, c.Messages)
}

func readClaims(rd *reader) Claims {
	return Claims{Bytes: rd.varint(), Day: rd.string(), Messages: rd.varint()}
}

func readSummaries(rd *reader) []Summary {
	n := rd.count(30)
	if n == 0 {
		return nil
	}
	out := make([]Summary, n)
	for i := range out {
		s := &out[i]
		s.ID = rd.string()
		s.ReceivedAt = rd.time()
		s.Size = rd.varint()
		s.IsRead = rd.bool()
		s.ReadSeq = rd.uvarint()
		s.ContentSeq = rd.uvarint()
		s.Key = rd.uvarint()
		s.RawObject = rd.string()
		s.Print.Raw, s.Print.Body = rd.uint64(), rd.uint64()
		s.DeletedSeq = rd.uvarint()
		s.ClaimSeq = rd.uvarint()
	}
	return out
}

func appendString(w []byte, s string) []byte {
	return append(binary.AppendUvarint(w, uint64(len(s))), s...)
}

func appendBool(w []byte, b bool) []byte {
	if b {
		return append(w, 1)
	}
	return append(w, 0)
}

// appendTime keeps a time to the nanosecond, in UTC; the zero time is 0.
func appendTime(w []byte, t time.Time) []byte {
	if t.IsZero() {
		return binary.AppendVarint(w, 0)
	}
	return binary.AppendVarint(w, t.UnixNano())
}

// reader reads what the append functions wrote. The first error sticks:
// every later read returns zero values, and decode reports it.
type reader struct {
	b   []byte
	err error
}

var errShort = errors.New("binary view entry is cut short")

func (r *reader) fail() {
	if r.err == nil {
		r.err = errShort
	}
	r.b = nil
}

func (r *reader) byte() byte {
	if len(r.b) < 1 {
		r.fail()
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) bool() bool { return r.byte() == 1 }

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) uint64() uint64 {
	if len(r.b) < 8 {
		r.fail()
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

func (r *reader) string() string {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail()
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// count reads the length of a list whose elements take at least min
// bytes each: a corrupt length cannot make it allocate more than the
// entry could hold.
func (r *reader) count(min int) int {
	n := r.uvarint()
	if n > uint64(len(r.b)/min) {
		r.fail()
		return 0
	}
	return int(n)
}

func (r *reader) time() time.Time {
	n := r.varint()
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}
