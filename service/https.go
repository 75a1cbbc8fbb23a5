package service

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"path/filepath"
	"time"

	"tempmail/broker"
	"tempmail/config"
)

// The HTTPS listener's certificate: the PEM files --https-cert and
// --https-key name, or, neither given, a self-signed certificate for
// localhost that the service makes once and keeps in the data directory,
// so that a laptop or a CI job serves Mailosaur's SDK (HTTPS on 443 alone)
// with one flag, and its clients trust it by pointing NODE_EXTRA_CA_CERTS
// (or their own trust store) at the file.

// Where the self-signed certificate and its key are kept in --data-dir.
const (
	selfSignedCert = "https-cert.pem"
	selfSignedKey  = "https-key.pem"
)

// selfSignedLife is how long a self-signed certificate is made for; one
// found with less than a day left is made again.
const selfSignedLife = 365 * 24 * time.Hour

// httpsCertificate returns the certificate --https-addr serves, and the
// file of a self-signed one ("" for the flags' files).
func httpsCertificate(cfg config.Config, now time.Time) (tls.Certificate, string, error) {
	if cfg.HTTPSCert != "" {
		cert, err := tls.LoadX509KeyPair(cfg.HTTPSCert, cfg.HTTPSKey)
		if err != nil {
			return tls.Certificate{}, "", fmt.Errorf("--https-cert/--https-key: %w", err)
		}
		return cert, "", nil
	}
	certFile, keyFile := filepath.Join(cfg.DataDir, selfSignedCert), filepath.Join(cfg.DataDir, selfSignedKey)
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	switch {
	case err == nil && cert.Leaf != nil && cert.Leaf.NotAfter.After(now.Add(24*time.Hour)):
		return cert, certFile, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return tls.Certificate{}, "", fmt.Errorf("the self-signed HTTPS certificate in --data-dir: %w (delete %s and %s to make another)",
			err, certFile, keyFile)
	}
	certPEM, keyPEM, err := makeSelfSigned(now)
	if err != nil {
		return tls.Certificate{}, "", err
	}
	// The key first: a certificate is never found without its key.
	if err := broker.WriteFileSynced(keyFile, keyPEM, 0o600); err != nil {
		return tls.Certificate{}, "", err
	}
	if err := broker.WriteFileSynced(certFile, certPEM, 0o644); err != nil {
		return tls.Certificate{}, "", err
	}
	cert, err = tls.X509KeyPair(certPEM, keyPEM)
	return cert, certFile, err
}

// makeSelfSigned makes a certificate for localhost, 127.0.0.1 and ::1,
// signed by its own key. It is its own authority (a CA), so that a client
// that trusts the file (Node's NODE_EXTRA_CA_CERTS, curl --cacert) trusts
// the server.
func makeSelfSigned(now time.Time) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: serial,
		Subject:  pkix.Name{CommonName: "localhost", Organization: []string{"tempmail (self-signed, for local use)"}},
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(selfSignedLife),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), nil
}
