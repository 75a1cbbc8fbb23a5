package wire

import (
	"encoding/json"
	"testing"
	"time"
)

// A time is written as every answer writes it (UTC, microseconds; null
// when zero) and read back from that, or from any RFC 3339 time.
func TestTimeIsWrittenInTheLayoutAndReadBack(t *testing.T) {
	at := time.Date(2026, 11, 28, 5, 6, 7, 170_000_000, time.FixedZone("X", 3600))
	b, err := json.Marshal(struct {
		At, Never Time
	}{At(at), Time{}})
	if err != nil || string(b) != `{"At":"2026-11-28T04:06:07.170000Z","Never":null}` {
		t.Fatalf("written: %s %v", b, err)
	}
	var back struct{ At, Never Time }
	if err := json.Unmarshal(b, &back); err != nil || !back.At.Equal(at) || !back.Never.IsZero() {
		t.Errorf("read back: %+v %v", back, err)
	}
	var other Time
	if err := json.Unmarshal([]byte(`"2026-11-28T05:06:07+01:00"`), &other); err != nil || !other.Equal(at.Truncate(time.Second)) {
		t.Errorf("an RFC 3339 time: %v %v", other, err)
	}
	for _, bad := range []string{`"yesterday"`, `17`, `"2026-11-28"`} {
		if err := json.Unmarshal([]byte(bad), &other); err == nil {
			t.Errorf("%s was read as a time", bad)
		}
	}
}
