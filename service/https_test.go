package service_test

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tempmail/service/servicetest"
)

// TestHTTPSServesTheAPIWithASelfSignedCertificateKeptInTheDataDir: with
// --https-addr alone the service serves its API over TLS with a
// certificate for localhost it made and kept in --data-dir, which a client
// that trusts that file (as NODE_EXTRA_CA_CERTS makes node trust it)
// accepts; a restart serves the same certificate; --https-cert and
// --https-key, when given, are what it serves.
func TestHTTPSServesTheAPIWithASelfSignedCertificateKeptInTheDataDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := servicetest.ConfigIn(dir)
	cfg.HTTPSAddr = "127.0.0.1:0"
	svc := servicetest.Start(t, cfg)
	certFile := filepath.Join(dir, "https-cert.pem")
	first := getTLS(t, certFile, "https://localhost:"+portOf(svc.HTTPSAddr())+"/readyz")
	if key, err := os.Stat(filepath.Join(dir, "https-key.pem")); err != nil || key.Mode().Perm() != 0o600 {
		t.Errorf("the key in --data-dir: %v, %v (want mode 0600)", key, err)
	}
	// The plain listener serves on as before.
	if status, _ := servicetest.Call(t, "GET", servicetest.URL(svc)+"/readyz", ""); status != http.StatusOK {
		t.Errorf("GET /readyz over HTTP: %d", status)
	}
	servicetest.Stop(svc)

	svc = servicetest.Start(t, cfg)
	if again := getTLS(t, certFile, "https://127.0.0.1:"+portOf(svc.HTTPSAddr())+"/readyz"); !again.Equal(first) {
		t.Error("a restart made another certificate")
	}
	servicetest.Stop(svc)

	// Given files: those are served (here the same pair, copied).
	given := t.TempDir()
	for _, f := range []string{"https-cert.pem", "https-key.pem"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(given, f), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfg = servicetest.Config(t)
	cfg.HTTPSAddr, cfg.HTTPSCert, cfg.HTTPSKey = "127.0.0.1:0", filepath.Join(given, "https-cert.pem"), filepath.Join(given, "https-key.pem")
	svc = servicetest.Start(t, cfg)
	if got := getTLS(t, cfg.HTTPSCert, "https://localhost:"+portOf(svc.HTTPSAddr())+"/readyz"); !got.Equal(first) {
		t.Error("--https-cert is not what is served")
	}
	if _, err := os.Stat(filepath.Join(cfg.DataDir, "https-cert.pem")); err == nil {
		t.Error("a self-signed certificate was made though --https-cert was given")
	}
}

// getTLS asks url over HTTP/2, trusting the certificate in caFile alone,
// and returns the certificate the server showed.
func getTLS(t *testing.T, caFile, url string) *x509.Certificate {
	t.Helper()
	pemBytes, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemBytes) {
		t.Fatalf("%s holds no certificate", caFile)
	}
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s trusting %s: %v", url, caFile, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || resp.TLS == nil || len(resp.TLS.PeerCertificates) == 0 {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, body)
	}
	// HTTP/2, as browsers and curl ask: the TLS listener's own server
	// sets it up (one server for both listeners did not).
	if resp.ProtoMajor != 2 {
		t.Errorf("GET %s: %s, want HTTP/2", url, resp.Proto)
	}
	return resp.TLS.PeerCertificates[0]
}

func portOf(addr string) string { return addr[strings.LastIndexByte(addr, ':')+1:] }
