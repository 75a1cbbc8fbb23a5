package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/smtp"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"
)

// externalNATS is a standalone nats-server as an operator would run it:
// TLS on its client port, and decentralized auth (users by credentials files).
type externalNATS struct {
	opts *server.Options
	srv  *server.Server
}

// writeCert writes a self-signed certificate for 127.0.0.1, which is also
// its own CA, and returns the certificate and key files.
func writeCert(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test nats"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	_ = os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	_ = os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	return certFile, keyFile
}

// startExternalNATS starts the server with JetStream in dir, and returns it
// with a credentials file of a user allowed to use it.
func startExternalNATS(t *testing.T, dir string) (*externalNATS, string, string) {
	t.Helper()
	okp, _ := nkeys.CreateOperator()
	opub, _ := okp.PublicKey()
	oc := jwt.NewOperatorClaims(opub)
	skp, _ := nkeys.CreateAccount() // the server's own system account
	spub, _ := skp.PublicKey()
	oc.SystemAccount = spub
	if _, err := oc.Encode(okp); err != nil {
		t.Fatal(err)
	}
	sjwt, err := jwt.NewAccountClaims(spub).Encode(okp)
	if err != nil {
		t.Fatal(err)
	}
	akp, _ := nkeys.CreateAccount()
	apub, _ := akp.PublicKey()
	ac := jwt.NewAccountClaims(apub)
	ac.Limits.JetStreamLimits = jwt.JetStreamLimits{MemoryStorage: -1, DiskStorage: -1, Streams: -1, Consumer: -1}
	ajwt, err := ac.Encode(okp)
	if err != nil {
		t.Fatal(err)
	}
	ukp, _ := nkeys.CreateUser()
	upub, _ := ukp.PublicKey()
	useed, _ := ukp.Seed()
	ujwt, err := jwt.NewUserClaims(upub).Encode(akp)
	if err != nil {
		t.Fatal(err)
	}
	creds, _ := jwt.FormatUserConfig(ujwt, useed)
	credsFile := filepath.Join(dir, "user.creds")
	if err := os.WriteFile(credsFile, creds, 0o600); err != nil {
		t.Fatal(err)
	}
	resolver := &server.MemAccResolver{}
	if err := resolver.Store(apub, ajwt); err != nil {
		t.Fatal(err)
	}
	if err := resolver.Store(spub, sjwt); err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := writeCert(t, dir)
	tlsCfg, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: certFile, KeyFile: keyFile})
	if err != nil {
		t.Fatal(err)
	}
	port, _ := strconv.Atoi(freeAddr(t)[len("127.0.0.1:"):])
	opts := &server.Options{Host: "127.0.0.1", Port: port, JetStream: true, StoreDir: filepath.Join(dir, "js"),
		NoSigs: true, NoLog: true, TrustedOperators: []*jwt.OperatorClaims{oc}, AccountResolver: resolver, SystemAccount: spub,
		TLS: true, TLSConfig: tlsCfg, TLSTimeout: 2}
	e := &externalNATS{opts: opts}
	e.start(t)
	t.Cleanup(func() { e.srv.Shutdown(); e.srv.WaitForShutdown() })
	return e, credsFile, certFile
}

func (e *externalNATS) start(t *testing.T) {
	t.Helper()
	srv, err := server.NewServer(e.opts.Clone()) // the server fills in what it was given
	if err != nil {
		t.Fatal(err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("external nats-server did not start")
	}
	e.srv = srv
}

func (e *externalNATS) url() string { return "tls://127.0.0.1:" + strconv.Itoa(e.opts.Port) }

// Against an external NATS: several URLs (the first one dead), TLS with the
// server's CA, a credentials file; and the connection comes back when the
// server restarts.
func TestExternalNATSWithCredentialsTLSAndReconnect(t *testing.T) {
	nats, creds, ca := startExternalNATS(t, t.TempDir())
	dead := "tls://" + freeAddr(t)
	_, base, smtpAddr := runServeSMTP(t, t.TempDir(), "--nats-url", dead+","+nats.url(),
		"--nats-creds", creds, "--nats-tls-ca", ca, "--smtp-rate-per-ip", "0")
	in := createTokenInbox(t, base)
	if err := sendMail(smtpAddr, in.Address, "before the restart"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the first message", func() bool { return len(listMessages(t, base, in.Token)) == 1 })

	nats.srv.Shutdown()
	nats.srv.WaitForShutdown()
	time.Sleep(2 * time.Second) // tempmail notices, and keeps trying
	nats.start(t)

	eventually(t, "mail after the NATS restart", func() bool {
		return sendMail(smtpAddr, in.Address, "after the restart") == nil
	})
	eventually(t, "both messages", func() bool { return len(listMessages(t, base, in.Token)) == 2 })
	if code, _ := call(t, "POST", base+"/inboxes/", ""); code != 201 {
		t.Errorf("create an inbox after the NATS restart: %d", code)
	}

	// Without the credentials the server refuses, and tempmail says so.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, binary, "serve", "--data-dir", t.TempDir(), "--http-addr", "127.0.0.1:0",
		"--smtp-addr", "127.0.0.1:0", "--nats-url", nats.url(), "--nats-tls-ca", ca).CombinedOutput()
	if exitCode(err) != 1 || !strings.Contains(string(out), "Authorization Violation") {
		t.Errorf("without credentials: %v, %s", err, out)
	}
}

func sendMail(smtpAddr, to, subject string) error {
	msg := "From: s@example.com\r\nTo: " + to + "\r\nSubject: " + subject + "\r\n\r\nhello\r\n"
	return smtp.SendMail(smtpAddr, nil, "s@example.com", []string{to}, []byte(msg))
}
