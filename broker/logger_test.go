package broker

import (
	"log/slog"
	"testing"
)

// TestServerMessagesAtLevelsOperatorsAlertOn: what the embedded server says
// at every start and clean stop (these lines are as a three-node cluster
// printed them) is logged below ERROR; what it says of real failures keeps
// its level, and nothing is raised.
func TestServerMessagesAtLevelsOperatorsAlertOn(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		level slog.Level
		msg   string
		want  slog.Level
	}{
		{slog.LevelError, "Error trying to connect to route (attempt 1): dial tcp 127.0.0.1:16221: connect: connection refused", slog.LevelWarn},
		{slog.LevelError, "Error trying to connect to route (attempt 2): dial tcp 127.0.0.1:16221: connect: connection refused", slog.LevelDebug},
		{slog.LevelError, "Error trying to connect to route (attempt 120): lookup tempmail-2 on 127.0.0.11:53: no such host", slog.LevelWarn},
		{slog.LevelWarn, "Failed to install snapshot for '$G > EVENTS > views-g1-p7' [C-R3F-V5hQQPuX]: store is closed", slog.LevelInfo},
		{slog.LevelError, "Error applying stream entries to '$G > EVENTS': store is closed", slog.LevelInfo},
		{slog.LevelWarn, "Metalayer blocking snapshot starting", slog.LevelInfo},
		{slog.LevelWarn, "Metalayer blocking snapshot took 0.005s (streams: 8, consumers: 19, compacted: 37.76 KB)", slog.LevelInfo},
		{slog.LevelWarn, "Waiting for routing to be established...", slog.LevelInfo},
		{slog.LevelWarn, "JetStream has not established contact with a meta leader", slog.LevelInfo},
		{slog.LevelDebug, "Route connection closed: Client Closed", slog.LevelDebug},
		// Real failures keep theirs.
		{slog.LevelError, "JetStream cluster meta group critical write error: disk full", slog.LevelError},
		{slog.LevelError, "Error creating filestore: permission denied", slog.LevelError},
		{slog.LevelWarn, "JetStream cluster stream '$G > EVENTS' has NO quorum, stalled", slog.LevelWarn},
		{slog.LevelWarn, "Failed to install snapshot for '$G > EVENTS > views-g1-p7' [C-R3F-V5hQQPuX]: no space left on device", slog.LevelWarn},
		// Never raised.
		{slog.LevelDebug, "Error trying to connect to route (attempt 1): connection refused", slog.LevelDebug},
	} {
		t.Run(c.msg, func(t *testing.T) {
			if got := levelOf(c.level, c.msg); got != c.want {
				t.Errorf("logged at %v, want %v", got, c.want)
			}
		})
	}
}
