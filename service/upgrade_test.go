package service_test

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tempmail/events"
	"tempmail/eventually"
	"tempmail/service/servicetest"
)

// The data directory of the previous release (testdata/README.md says how
// it was made): its log has a subject per message, its views the layout
// before messages were folded into their inboxes' lists.
type fixture struct {
	APIToken string `json:"api_token"`
	C1       struct{ Token, Address string }
	A1       struct {
		ID    string `json:"id"`
		Email string `json:"email"`
	} `json:"a1"`
	AShort struct {
		ID    string `json:"id"`
		Email string `json:"email"`
	} `json:"a_short"`
	Gone       struct{ Token, Address string }
	C1Messages []struct {
		ID      string `json:"id"`
		Subject string `json:"subject"`
		IsRead  bool   `json:"is_read"`
	} `json:"c1_messages"`
	HookAll struct {
		ID string `json:"id"`
	} `json:"hook_all"`
	HookC1 struct {
		ID string `json:"id"`
	} `json:"hook_c1"`
}

// unpack extracts testdata/name into dir.
func unpack(t *testing.T, name, dir string) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, h.Name)
		if !strings.HasPrefix(path, filepath.Clean(dir)+string(os.PathSeparator)) {
			t.Fatalf("%s leaves the directory", h.Name)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(path, 0o755)
		case tar.TypeReg:
			var out *os.File
			if out, err = os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode)&0o777); err == nil {
				_, err = io.Copy(out, tr)
				out.Close()
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestUpgradeFromTheStoreOfThePreviousRelease: a data directory written
// by the previous release is served by this one: its views are rebuilt
// from the log at the first start (the log itself is read as it is, old
// subjects and all), every live inbox and message reads as before, what
// expired while the service was stopped is gone, old and new messages
// are deleted alike, and each inbox's messages are retained as before.
func TestUpgradeFromTheStoreOfThePreviousRelease(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	unpack(t, "store-format2.tar.gz", root)
	var fx fixture
	b, err := os.ReadFile(filepath.Join(root, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &fx); err != nil {
		t.Fatal(err)
	}
	cfg := servicetest.Config(t)
	cfg.DataDir, cfg.Domains = filepath.Join(root, "data"), []string{"tempmail.test", "other.test"}
	cfg.APIToken = ""
	cfg.MessageRetention = 2 * time.Second // for the new mail of retainedAsBefore
	svc := servicetest.Start(t, cfg)
	base := servicetest.URL(svc)
	if svc.Views.Generation() != 2 || svc.Config.APIToken != fx.APIToken {
		t.Fatalf("views generation %d, token %q: want the views rebuilt as generation 2 and the store's token", svc.Views.Generation(), svc.Config.APIToken)
	}

	// Family C: every message as it was (the deleted one still gone), the
	// large one's raw source from the object store, its code.
	list := servicetest.Messages(t, base, fx.C1.Token)
	if len(list) != len(fx.C1Messages) {
		t.Fatalf("c1 lists %d messages, want %d: %+v", len(list), len(fx.C1Messages), list)
	}
	for i, m := range fx.C1Messages {
		if list[i].ID != m.ID || list[i].Subject != m.Subject || list[i].IsRead != m.IsRead {
			t.Errorf("message %d: %+v, want %+v", i, list[i], m)
		}
	}
	var big string
	for _, m := range list {
		if m.Subject == "big one" {
			big = m.ID
		}
	}
	code, raw := servicetest.Call(t, "GET", base+"/inboxes/"+fx.C1.Token+"/messages/"+big+"/raw/", "")
	if code != 200 || len(raw) < 100<<10 {
		t.Errorf("raw source of the large message: %d, %d bytes", code, len(raw))
	}
	if code, b := servicetest.Call(t, "GET", base+"/inboxes/"+fx.C1.Token+"/otp/", ""); code != 200 || !strings.Contains(string(b), `"111111"`) {
		t.Errorf("otp: %d %s", code, b)
	}
	// Family B, and family A by message id alone (an old id, which names
	// no inbox: the views index it).
	code, b = servicetest.Call(t, "GET", base+"/api/mailstore/mailbox/keeper/", "")
	if code != 200 || !strings.Contains(string(b), `"total":2`) {
		t.Errorf("family B mailbox: %d %s", code, b)
	}
	ids := messageIDs(t, base, fx.A1.ID)
	if code, b := servicetest.Call(t, "GET", base+"/api/emails/"+ids["family a"]+"/", ""); code != 200 || !strings.Contains(string(b), "hello A") {
		t.Errorf("family A email by id: %d %s", code, b)
	}
	// What ended while the service was stopped, and before, is gone.
	if code, _ := servicetest.Call(t, "GET", base+"/api/inboxes/"+fx.AShort.ID+"/", ""); code != http.StatusNotFound {
		t.Errorf("the inbox that expired while stopped: %d, want 404", code)
	}
	if code, _ := servicetest.Call(t, "GET", base+"/inboxes/"+fx.Gone.Token+"/", ""); code != http.StatusNotFound {
		t.Errorf("the deleted inbox: %d, want 404", code)
	}
	// Subscriptions survive.
	code, b = servicetest.Call(t, "GET", base+"/api/webhooks/", "", "Authorization", "Token "+fx.APIToken)
	if code != 200 || !strings.Contains(string(b), fx.HookAll.ID) {
		t.Errorf("subscriptions: %d %s", code, b)
	}

	// New mail lands in the new layout beside the old; an old message and
	// a new one are deleted alike, their content erased.
	if err := servicetest.Mail(svc.SMTPAddr(), fx.C1.Address, "after the upgrade", "new"); err != nil {
		t.Fatal(err)
	}
	eventually.True(t, "new message listed", func() bool { return len(servicetest.Messages(t, base, fx.C1.Token)) == len(fx.C1Messages)+1 })
	fresh := servicetest.Messages(t, base, fx.C1.Token)[0]
	if fresh.Subject != "after the upgrade" || events.InboxTag(fresh.ID) == "" {
		t.Fatalf("newest after the upgrade: %+v", fresh)
	}
	for _, id := range []string{fresh.ID, big} {
		key := sealKey(t, svc, id)
		if code, b := servicetest.Call(t, "DELETE", base+"/inboxes/"+fx.C1.Token+"/messages/"+id+"/", ""); code != 204 {
			t.Fatalf("delete %s: %d %s", id, code, b)
		}
		erasedWithin(t, svc, 30*time.Second, "deletion after the upgrade", key)
	}
	if n := len(servicetest.Messages(t, base, fx.C1.Token)); n != len(fx.C1Messages)-1 {
		t.Errorf("%d messages after deleting an old and a new one, want %d", n, len(fx.C1Messages)-1)
	}

	// A restart serves the same views, without another rebuild.
	servicetest.Stop(svc)
	svc = servicetest.Start(t, cfg)
	base = servicetest.URL(svc)
	if svc.Views.Generation() != 2 {
		t.Errorf("generation %d after a restart, want 2", svc.Views.Generation())
	}
	if n := len(servicetest.Messages(t, base, fx.C1.Token)); n != len(fx.C1Messages)-1 {
		t.Errorf("%d messages after a restart, want %d", n, len(fx.C1Messages)-1)
	}
	// The family B mailbox, recorded with its letter, still retains its
	// messages; the family C and A inboxes keep theirs.
	retainedAsBefore(t, svc, "keeper@tempmail.test", fx.C1.Address, fx.A1.Email)
}
