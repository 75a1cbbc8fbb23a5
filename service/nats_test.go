package service_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"tempmail/eventually"
	"tempmail/service"
	"tempmail/service/servicetest"
)

// The service and its NATS: the embedded server's listener, and a
// connection lost for a moment or for good.

// A single node opens its embedded server's client listener when asked, so
// that an operator can look at the streams with the nats CLI.
func TestSingleNodeOpensTheNATSListenerWhenAsked(t *testing.T) {
	t.Parallel()
	cfg := servicetest.Config(t)
	cfg.NATSListen = servicetest.FreeAddr(t)
	svc := servicetest.Start(t, cfg)
	base := servicetest.URL(svc)
	in := servicetest.CreateInbox(t, base)
	servicetest.Deliver(t, svc, in.Token, "seen from outside")

	nc, err := nats.Connect("nats://" + cfg.NATSListen)
	if err != nil {
		t.Fatalf("connect to --nats-listen %s: %v", cfg.NATSListen, err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	st, err := js.Stream(t.Context(), "EVENTS")
	if err != nil {
		t.Fatalf("EVENTS through the listener: %v", err)
	}
	info, err := st.Info(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// The domains, the inbox's creation and its message.
	if info.State.Msgs < 3 {
		t.Errorf("EVENTS holds %d events through the listener, want at least 3", info.State.Msgs)
	}
}

// waitFatal waits for the service to give up, and returns why.
func waitFatal(t *testing.T, svc *service.Service) error {
	t.Helper()
	select {
	case err := <-svc.Fatal():
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("the service went on after losing what it needs")
		return nil
	}
}

// TestConnectionClosedUnderTheServiceIsNeverA503Forever closes the service's
// NATS connection from outside in the two ways it can be closed: a
// connection cut (the client library reconnects, and the service carries
// on), and the server closing it for a protocol error (the client library
// gives up for good; the service reports it and stops, so that its
// supervisor starts it again).
func TestConnectionClosedUnderTheServiceIsNeverA503Forever(t *testing.T) {
	t.Parallel()
	proxy := servicetest.ExternalNATS(t)
	cfg := servicetest.Config(t)
	cfg.NATSURL = proxy.URL()
	svc := servicetest.Start(t, cfg)
	base := servicetest.URL(svc)

	in := servicetest.CreateInbox(t, base)
	proxy.Cut()
	// Reconnected, it serves reads and writes again.
	eventually.True(t, "the service reconnects and reads", func() bool {
		code, _ := servicetest.Call(t, "GET", base+"/inboxes/"+in.Token+"/messages/", "")
		return code == http.StatusOK
	})
	if err := servicetest.Mail(svc.SMTPAddr(), in.Address, "after the cut", "hello"); err != nil {
		t.Fatalf("mail after the cut: %v", err)
	}
	if code, h := servicetest.Readiness(t, base); code != 200 {
		t.Errorf("/readyz after reconnecting: %d %+v", code, h)
	}

	proxy.SendError("maximum control line exceeded")
	err := waitFatal(t, svc)
	if !strings.Contains(err.Error(), "maximum control line exceeded") {
		t.Errorf("the service stopped for %q, want the server's reason", err)
	}
	if code, h := servicetest.Readiness(t, base); code != http.StatusServiceUnavailable || !slices.Contains(h.Failing, "nats connection") {
		t.Errorf("/readyz with the connection gone: %d %+v", code, h)
	}
}

// TestEmbeddedConnectionKickedReconnects: the embedded server disconnects
// the service's in-process client (as an operator's kick would); the
// client connects again, and the service serves on.
func TestEmbeddedConnectionKickedReconnects(t *testing.T) {
	t.Parallel()
	svc := servicetest.Start(t, servicetest.Config(t))
	base := servicetest.URL(svc)
	in := servicetest.CreateInbox(t, base)
	ns := svc.Node.Server()
	conns, err := ns.Connz(nil)
	if err != nil || len(conns.Conns) == 0 {
		t.Fatalf("connz: %v %v", conns, err)
	}
	reconnected := svc.Node.Conn.StatusChanged(nats.CONNECTED)
	for _, c := range conns.Conns {
		if err := ns.DisconnectClientByID(c.Cid); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-reconnected:
	case <-time.After(20 * time.Second):
		t.Fatal("the service did not reconnect")
	}
	if err := servicetest.Mail(svc.SMTPAddr(), in.Address, "after the kick", "hello"); err != nil {
		t.Fatalf("mail after the kick: %v", err)
	}
	code, body := servicetest.Call(t, "GET", base+"/inboxes/"+in.Token+"/latest/?wait=20", "")
	if code != 200 || !strings.Contains(string(body), `"subject":"after the kick"`) {
		t.Errorf("latest after the kick: %d %s", code, body)
	}
}
