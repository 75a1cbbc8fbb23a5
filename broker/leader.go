package broker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// leaderKV is a replicated KV bucket whose Get asks the bucket's leader.
//
// The client library reads KV entries with direct gets, which any replica
// may answer, and a follower may not yet hold an entry the leader has just
// acknowledged. A projection worker that read a stale "no such inbox" would
// drop the message silently, and a reader on another node would answer 404
// for an inbox just created; the leader always has what it acknowledged.
// Everything but Get is the library's.
type leaderKV struct {
	jetstream.KeyValue
	nc *nats.Conn
}

func (kv *leaderKV) Get(ctx context.Context, key string) (jetstream.KeyValueEntry, error) {
	// The server reads a wildcard in the subject as one: "t.*" would answer
	// with whichever token entry came last.
	if !ValidKey(key) {
		return nil, jetstream.ErrInvalidKey
	}
	subject := "$KV." + kv.Bucket() + "." + key
	m, err := leaderLast(ctx, kv.nc, "KV_"+kv.Bucket(), subject)
	if err != nil {
		return nil, err
	}
	if m.Subject != subject {
		return nil, jetstream.ErrKeyNotFound
	}
	// Deletes, purges and the markers of expired entries read as absent,
	// as the library's Get has them.
	if op := m.Header.Get("KV-Operation"); op == "DEL" || op == "PURGE" || m.Header.Get("Nats-Marker-Reason") != "" {
		return nil, jetstream.ErrKeyNotFound
	}
	return &leaderEntry{bucket: kv.Bucket(), key: key, msg: m}, nil
}

// MaxKeyLen bounds a view key. Every key the service makes is far shorter
// (an address key, the longest, is at most 344 bytes); the bound keeps any
// key, with its bucket's subject prefix and a reply subject, far below the
// NATS server's 4,096-byte control line, over which the server closes the
// connection.
const MaxKeyLen = 1024

// ValidKey reports whether key can name a KV entry: at most MaxKeyLen
// bytes of dot-separated tokens of letters, digits and -/_=, none empty.
// Keys built from what a client sent (a token in a URL) must be checked
// before they reach NATS.
func ValidKey(key string) bool {
	if key == "" || len(key) > MaxKeyLen || key[0] == '.' || key[len(key)-1] == '.' || strings.Contains(key, "..") {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-/_=.", c) >= 0) {
			return false
		}
	}
	return true
}

// leaderLast asks a stream's leader for the last message on subject, through
// the JetStream API rather than a direct get.
func leaderLast(ctx context.Context, nc *nats.Conn, stream, subject string) (*jetstream.RawStreamMsg, error) {
	req, _ := json.Marshal(map[string]string{"last_by_subj": subject})
	if _, ok := ctx.Deadline(); !ok {
		// As the client library bounds its own requests: an answer lost
		// while leaders change must not hang the caller.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
	}
	resp, err := nc.RequestWithContext(ctx, "$JS.API.STREAM.MSG.GET."+stream, req)
	if err != nil {
		return nil, err
	}
	var r struct {
		Error *jetstream.APIError `json:"error"`
		Msg   *struct {
			Subject string    `json:"subject"`
			Seq     uint64    `json:"seq"`
			Header  []byte    `json:"hdrs"`
			Data    []byte    `json:"data"`
			Time    time.Time `json:"time"`
		} `json:"message"`
	}
	if err := json.Unmarshal(resp.Data, &r); err != nil {
		return nil, fmt.Errorf("message from stream %s: %w", stream, err)
	}
	if r.Error != nil {
		if r.Error.ErrorCode == jetstream.JSErrCodeMessageNotFound {
			return nil, jetstream.ErrKeyNotFound
		}
		return nil, r.Error
	}
	if r.Msg == nil {
		return nil, fmt.Errorf("message from stream %s: empty answer", stream)
	}
	m := &jetstream.RawStreamMsg{Subject: r.Msg.Subject, Sequence: r.Msg.Seq, Data: r.Msg.Data, Time: r.Msg.Time, Header: nats.Header{}}
	if len(r.Msg.Header) > 0 {
		if m.Header, err = nats.DecodeHeadersMsg(r.Msg.Header); err != nil {
			return nil, fmt.Errorf("headers of a message from stream %s: %w", stream, err)
		}
	}
	return m, nil
}

type leaderEntry struct {
	bucket, key string
	msg         *jetstream.RawStreamMsg
}

func (e *leaderEntry) Bucket() string                  { return e.bucket }
func (e *leaderEntry) Key() string                     { return e.key }
func (e *leaderEntry) Value() []byte                   { return e.msg.Data }
func (e *leaderEntry) Revision() uint64                { return e.msg.Sequence }
func (e *leaderEntry) Created() time.Time              { return e.msg.Time }
func (e *leaderEntry) Delta() uint64                   { return 0 }
func (e *leaderEntry) Operation() jetstream.KeyValueOp { return jetstream.KeyValuePut }

// Entries reads the last message of KV entries, whatever it is: a value
// (present) or the marker a deletion or an expiry left (not present). Its
// revision is what a compare-and-swap write of the entry must expect,
// which the client library's Get does not tell of a deleted entry.
// Replicated, it asks the bucket's leader (see leaderKV).
type Entries struct {
	stream jetstream.Stream
	nc     *nats.Conn
	leader bool
	name   string // the bucket's stream
	prefix string // "$KV.<bucket>."
}

// NewEntries returns the reader of kv's entries.
func NewEntries(ctx context.Context, js jetstream.JetStream, kv jetstream.KeyValue) (*Entries, error) {
	name := "KV_" + kv.Bucket()
	st, err := js.Stream(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("open KV %s: %w", kv.Bucket(), err)
	}
	_, leader := kv.(*leaderKV)
	return &Entries{stream: st, nc: js.Conn(), leader: leader, name: name, prefix: "$KV." + kv.Bucket() + "."}, nil
}

// Last returns key's value (present) or, when it was deleted or has
// expired, the revision of the marker left (present false, rev 0 when the
// subject holds nothing at all).
func (e *Entries) Last(ctx context.Context, key string) (value []byte, rev uint64, present bool, err error) {
	if !ValidKey(key) {
		return nil, 0, false, jetstream.ErrInvalidKey
	}
	subject := e.prefix + key
	var m *jetstream.RawStreamMsg
	if e.leader {
		m, err = leaderLast(ctx, e.nc, e.name, subject)
	} else {
		m, err = e.stream.GetLastMsgForSubject(ctx, subject)
	}
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	if m.Subject != subject {
		return nil, 0, false, nil
	}
	if op := m.Header.Get("KV-Operation"); op == "DEL" || op == "PURGE" || m.Header.Get("Nats-Marker-Reason") != "" {
		return nil, m.Sequence, false, nil
	}
	return m.Data, m.Sequence, true, nil
}
