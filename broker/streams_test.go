package broker

import (
	"testing"

	"github.com/nats-io/nats.go/jetstream"
)

// A stream is the same when the entries of metadata tempmail sets are:
// the server adds entries of its own (the API level it needs), which are
// no difference, and a stream that sets none has none to compare.
func TestSameStreamComparesTheMetadataTempmailSets(t *testing.T) {
	t.Parallel()
	want := jetstream.StreamConfig{Name: "S", Subjects: []string{"s.>"},
		Metadata: map[string]string{"tempmail_partitions": "16", "tempmail_format": "3"}}
	have := want
	have.Metadata = map[string]string{"tempmail_partitions": "16", "tempmail_format": "3",
		"_nats.req.level": "1", "_nats.ver": "2.12.0"}
	if !sameStream(have, want) {
		t.Error("a stream with the server's metadata besides tempmail's is not the same")
	}
	have.Metadata = map[string]string{"tempmail_partitions": "16", "tempmail_format": "2", "_nats.ver": "2.12.0"}
	if sameStream(have, want) {
		t.Error("a stream of another format is the same")
	}
	delete(have.Metadata, "tempmail_format")
	if sameStream(have, want) {
		t.Error("a stream without a format is the same")
	}
	plain := jetstream.StreamConfig{Name: "P", Subjects: []string{"p.>"}}
	withServers := plain
	withServers.Metadata = map[string]string{"_nats.req.level": "0"}
	if !sameStream(withServers, plain) {
		t.Error("a stream that sets no metadata differs by the server's")
	}
}
