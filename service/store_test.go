package service_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tempmail/events"
	"tempmail/service"
	"tempmail/service/servicetest"
)

// streamDir is where the embedded NATS keeps a stream in a data directory.
func streamDir(dataDir, stream string) string {
	return filepath.Join(dataDir, "nats", "jetstream", "$G", "streams", stream)
}

// A data directory whose event stream is gone (removed by hand; a power
// cut that took its definition) is refused at start: the error names the
// directory, what is missing and how to recover, and nothing is made anew,
// no API token among it.
func TestStartRefusesAStoreMissingWhatItHad(t *testing.T) {
	t.Parallel()
	for _, missing := range []struct {
		name, path, says string
	}{
		{"the event stream", filepath.Join("nats", "jetstream", "$G", "streams", "EVENTS"), "the stream EVENTS"},
		{"the key file", filepath.Join("keys", "keys"), "the key file keys/keys"},
	} {
		t.Run(missing.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			svc := servicetest.Start(t, servicetest.ConfigIn(dir))
			in := servicetest.CreateInbox(t, servicetest.URL(svc))
			servicetest.Deliver(t, svc, in.Token, "kept")
			servicetest.Stop(svc)
			token, err := os.ReadFile(filepath.Join(dir, "api-token"))
			if err != nil {
				t.Fatal(err)
			}

			if err := os.RemoveAll(filepath.Join(dir, missing.path)); err != nil {
				t.Fatal(err)
			}
			_, err = servicetest.Try(t, servicetest.ConfigIn(dir), service.Options{})
			var lost *service.ErrStoreLost
			if !errors.As(err, &lost) {
				t.Fatalf("start over a store without %s: %v, want the store refused", missing.name, err)
			}
			for _, want := range []string{dir, missing.says, "restore the data directory from a backup", "move " + dir + " aside"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the refusal does not say %q: %v", want, err)
				}
			}
			if _, err := os.Stat(streamDir(dir, events.StreamName)); missing.says == "the stream EVENTS" && err == nil {
				t.Error("the refused start made the event stream anew")
			}
			if again, _ := os.ReadFile(filepath.Join(dir, "api-token")); string(again) != string(token) {
				t.Errorf("the API token changed from %q to %q", token, again)
			}
		})
	}
}

// Views that went missing are built again from the log before the service
// serves: the mail is there, as before.
func TestStartRebuildsMissingViews(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	svc := servicetest.Start(t, servicetest.ConfigIn(dir))
	in := servicetest.CreateInbox(t, servicetest.URL(svc))
	for _, s := range []string{"one", "two"} {
		servicetest.Deliver(t, svc, in.Token, s)
	}
	gen := svc.Views.Generation()
	servicetest.Stop(svc)

	if err := os.RemoveAll(streamDir(dir, "KV_VIEWS_1")); err != nil {
		t.Fatal(err)
	}
	svc = servicetest.Start(t, servicetest.ConfigIn(dir))
	if svc.Views.Generation() != gen+1 {
		t.Errorf("serving views generation %d, want %d: a rebuild", svc.Views.Generation(), gen+1)
	}
	list := servicetest.Messages(t, servicetest.URL(svc), in.Token)
	if len(list) != 2 || list[0].Subject != "two" || list[1].Subject != "one" {
		t.Errorf("after the views were rebuilt: %+v", list)
	}
}
