package natstest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"
)

// SecureServer is a standalone nats-server as an operator would run it:
// TLS on its client port, and decentralized auth (users by credentials
// files), with JetStream.
type SecureServer struct {
	// Creds is a credentials file of a user allowed to use JetStream; CA
	// is the server's certificate, which is its own CA.
	Creds, CA string
	opts      *server.Options
	srv       *server.Server
}

// StartSecureServer starts a SecureServer storing its data in dir. It
// stops at the end of the test.
func StartSecureServer(t testing.TB, dir string) *SecureServer {
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
	certFile, keyFile := WriteCert(t, dir)
	tlsCfg, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: certFile, KeyFile: keyFile})
	if err != nil {
		t.Fatal(err)
	}
	opts := &server.Options{Host: "127.0.0.1", Port: freePort(t), JetStream: true, StoreDir: filepath.Join(dir, "js"),
		NoSigs: true, NoLog: true, TrustedOperators: []*jwt.OperatorClaims{oc}, AccountResolver: resolver, SystemAccount: spub,
		TLS: true, TLSConfig: tlsCfg, TLSTimeout: 2}
	s := &SecureServer{Creds: credsFile, CA: certFile, opts: opts}
	s.Start(t)
	t.Cleanup(s.Stop)
	return s
}

// Start starts the server again after Stop, on the same port and data.
func (s *SecureServer) Start(t testing.TB) {
	t.Helper()
	srv, err := server.NewServer(s.opts.Clone()) // the server fills in what it was given
	if err != nil {
		t.Fatal(err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server did not start")
	}
	s.srv = srv
}

// Stop stops the server; its clients see it gone.
func (s *SecureServer) Stop() {
	s.srv.Shutdown()
	s.srv.WaitForShutdown()
}

// URL is the server's client address.
func (s *SecureServer) URL() string { return "tls://127.0.0.1:" + strconv.Itoa(s.opts.Port) }

// WriteCert writes a self-signed certificate for 127.0.0.1, which is also
// its own CA, and returns the certificate and key files.
func WriteCert(t testing.TB, dir string) (certFile, keyFile string) {
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

// freePort is a loopback port nothing listens on now, so that a server
// restarted by Start comes back where its clients look for it.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
