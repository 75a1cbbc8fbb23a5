package service_test

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/textproto"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"tempmail/eventually"
	"tempmail/service/servicetest"
)

// tmpfs mounts a filesystem of size bytes at a new directory, for as long
// as the test runs; it skips the test where it cannot (not root).
func tmpfs(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small filesystem needs root")
	}
	dir := filepath.Join(t.TempDir(), "disk")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
	return dir
}

// TestAFullDiskIsSurvived fills a 48 MB filesystem with mail: senders get
// 4xx and never 5xx, every message that got its 250 is readable, new
// inboxes get 507, an inbox is deleted while the disk is full, and once
// room returns new mail is taken again, without a restart.
func TestAFullDiskIsSurvived(t *testing.T) {
	t.Parallel()
	disk := tmpfs(t, "48m")
	// Room to give back later, as an operator would by moving something off.
	filler := filepath.Join(disk, "filler")
	if err := os.WriteFile(filler, make([]byte, 12<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := servicetest.Config(t)
	cfg.DataDir = filepath.Join(disk, "data")
	cfg.MinFreeDisk = 6 << 20
	cfg.SMTPRatePerIP = 0
	svc := servicetest.Start(t, cfg)
	base := servicetest.URL(svc)
	doomed := servicetest.CreateInbox(t, base)
	in := servicetest.CreateInbox(t, base)

	// send delivers one message of about 256 KiB that does not compress;
	// it returns the SMTP reply code (250 when stored).
	send := func(to, subject string) int {
		t.Helper()
		body := make([]byte, 192<<10)
		_, _ = rand.Read(body)
		msg := "Subject: " + subject + "\r\n\r\n" + wrap(base64.StdEncoding.EncodeToString(body)) + "\r\n"
		err := servicetest.TrySend(svc.SMTPAddr(), "s@example.com", to, msg)
		var reply *textproto.Error
		switch {
		case err == nil:
			return 250
		case errors.As(err, &reply):
			return reply.Code
		}
		t.Fatalf("send %s: %v", subject, err)
		return 0
	}
	if code := send(doomed.Address, "doomed"); code != 250 {
		t.Fatalf("the first message: %d", code)
	}
	var stored []string
	refused := 0
	for i := 0; refused < 3; i++ {
		if i > 400 {
			t.Fatal("400 messages of 256 KiB fitted on a 48 MB disk")
		}
		switch code := send(in.Address, fmt.Sprint("m", i)); {
		case code == 250:
			stored = append(stored, fmt.Sprint("m", i))
		case code >= 400 && code < 500:
			refused++
		default:
			t.Fatalf("message %d answered %d: a full disk must get a temporary refusal", i, code)
		}
	}
	t.Logf("%d messages stored before the disk was full", len(stored))
	// Something else takes what is left, down to half of what the
	// service keeps free.
	free := func() int64 {
		var st syscall.Statfs_t
		if err := syscall.Statfs(disk, &st); err != nil {
			t.Fatal(err)
		}
		return int64(st.Bavail) * st.Bsize
	}
	if err := os.WriteFile(filepath.Join(disk, "other"), make([]byte, free()-cfg.MinFreeDisk/2), 0o644); err != nil {
		t.Fatal(err)
	}
	if code := send(in.Address, "refused"); code != 452 {
		t.Errorf("mail below the watermark: %d, want 452", code)
	}
	if code, body := servicetest.Call(t, "POST", base+"/inboxes/", "{}"); code != http.StatusInsufficientStorage {
		t.Errorf("a new inbox on a full disk: %d %s, want 507", code, body)
	}
	if code, body := servicetest.Call(t, "GET", base+"/readyz", ""); code != http.StatusServiceUnavailable || !strings.Contains(string(body), "disk") {
		t.Errorf("readyz on a full disk: %d %s", code, body)
	}
	// Every 250 is readable, now.
	eventually.True(t, "every stored message listed", func() bool { return len(servicetest.Messages(t, base, in.Token)) == len(stored) })
	for _, m := range servicetest.Messages(t, base, in.Token) {
		if code, _ := servicetest.Call(t, "GET", base+"/inboxes/"+in.Token+"/messages/"+m.ID+"/", ""); code != 200 {
			t.Errorf("message %s (%s) on a full disk: %d", m.ID, m.Subject, code)
		}
	}
	// Deleting works while the disk is full.
	if code, body := servicetest.Call(t, "DELETE", base+"/inboxes/"+doomed.Token+"/", ""); code != http.StatusNoContent {
		t.Errorf("deleting an inbox on a full disk: %d %s", code, body)
	}

	// Room returns: mail is taken again within a minute, without a restart.
	for _, f := range []string{filler, filepath.Join(disk, "other")} {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	var fresh servicetest.Inbox
	eventually.True(t, "a new inbox once room returned", func() bool {
		code, _ := servicetest.Call(t, "POST", base+"/inboxes/", "{}")
		if code == http.StatusCreated {
			fresh = servicetest.CreateInbox(t, base)
		}
		return code == http.StatusCreated
	})
	if code := send(fresh.Address, "after"); code != 250 {
		t.Fatalf("mail once room returned: %d", code)
	}
	eventually.True(t, "the new mail readable", func() bool { return len(servicetest.Messages(t, base, fresh.Token)) == 1 })
	if d := time.Since(start); d > time.Minute {
		t.Errorf("mail was taken again %v after room returned, want within a minute", d)
	}
}

// wrap breaks s into lines of 76 characters, as MIME bodies are.
func wrap(s string) string {
	var b strings.Builder
	for len(s) > 76 {
		b.WriteString(s[:76] + "\r\n")
		s = s[76:]
	}
	b.WriteString(s)
	return b.String()
}
