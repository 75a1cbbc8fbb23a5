package logs

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

func TestJSONFormatWritesOneObjectPerLine(t *testing.T) {
	var b strings.Builder
	log := New(&b, "json", slog.LevelInfo)
	log.Debug("hidden")
	log.Info("shown", "n", 1)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("want one line at info, got %q", b.String())
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &v); err != nil || v["msg"] != "shown" || v["level"] != "INFO" || v["n"] != 1.0 {
		t.Errorf("line %q: %v", lines[0], err)
	}
	b.Reset()
	New(&b, "text", slog.LevelInfo).Info("shown")
	if !strings.HasPrefix(b.String(), "time=") {
		t.Errorf("text line %q", b.String())
	}
}

func TestWebhookGiveUpLogsTheHostOnly(t *testing.T) {
	var b strings.Builder
	target := "https://hooks.example.com/in/s3cr3t?key=k3y"
	WebhookGaveUp(New(&b, "json", slog.LevelInfo), WebhookGiveUp{WebhookID: "w1", DeliveryID: "msg_1",
		EventType: "message.received", URL: target, Attempts: 8,
		LastError: `Post "` + target + `": dial tcp: connection refused`})
	line := b.String()
	if strings.Contains(line, "s3cr3t") || strings.Contains(line, "k3y") {
		t.Errorf("the target's path or query reached the log: %s", line)
	}
	for _, want := range []string{`"msg":"webhook delivery given up"`, `"host":"hooks.example.com"`, `"attempts":8`,
		`"webhook_event_id":"msg_1"`, `Post \"hooks.example.com\": dial tcp`} {
		if !strings.Contains(line, want) {
			t.Errorf("line lacks %s: %s", want, line)
		}
	}
}
