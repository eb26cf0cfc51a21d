package serving

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"slices"
	"strings"
	"time"
)

// Validity of what NewCredentials makes: the CA for ten years and the
// serving certificate for one, as kubeadm and kind make them. Both start
// an hour back, so a clock that is slightly behind accepts them.
const (
	CAValidity      = 10 * 365 * 24 * time.Hour
	ServingValidity = 365 * 24 * time.Hour
)

// TokenBytes is how many random bytes a token carries (256 bits).
const TokenBytes = 32

// Credentials are what a served API is reached with: a certificate
// authority, the serving certificate it signed, and a bearer token.
// They live in memory; Kubeconfig hands them to clients.
type Credentials struct {
	// CAPEM is the CA's certificate, PEM-encoded: a kubeconfig's
	// certificate-authority-data. Its key signed Cert and is discarded.
	CAPEM []byte
	// Cert is the serving certificate (ECDSA P-256) with its key and the
	// CA's certificate in its chain.
	Cert tls.Certificate
	// Token is the bearer token clients send (Authorization: Bearer …).
	Token string
}

// NewToken returns TokenBytes random bytes from crypto/rand,
// base64url-encoded without padding (43 characters).
func NewToken() (string, error) {
	b := make([]byte, TokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("serving: token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// NewCredentials makes a self-signed CA, a serving certificate signed by
// it and a token. The certificate names localhost, 127.0.0.1 and ::1 and
// each of hosts (an IP literal becomes an IP SAN, anything else a DNS
// name); an unspecified address (0.0.0.0, ::) or an empty host adds
// nothing. Keys are ECDSA P-256, which every TLS client (Go's, kubectl's,
// browsers) accepts.
func NewCredentials(hosts ...string) (*Credentials, error) {
	now := time.Now()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("serving: CA key: %w", err)
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "ctrlkit-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(CAValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("serving: CA certificate: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, fmt.Errorf("serving: CA certificate: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("serving: key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: "ctrlkit-apiserver"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(ServingValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	for _, h := range hosts {
		h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
		if ip := net.ParseIP(h); ip != nil {
			if !ip.IsUnspecified() && !slices.ContainsFunc(tmpl.IPAddresses, ip.Equal) {
				tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
			}
		} else if h != "" && !slices.Contains(tmpl.DNSNames, strings.ToLower(h)) {
			tmpl.DNSNames = append(tmpl.DNSNames, strings.ToLower(h))
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("serving: certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("serving: certificate: %w", err)
	}
	token, err := NewToken()
	if err != nil {
		return nil, err
	}
	return &Credentials{
		CAPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		Cert:  tls.Certificate{Certificate: [][]byte{der, caDER}, PrivateKey: key, Leaf: leaf},
		Token: token,
	}, nil
}

// serial returns a random 128-bit certificate serial number.
func serial() *big.Int {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	b[0] &= 0x7f        // positive
	b[0] |= 0x01        // never zero
	return new(big.Int).SetBytes(b)
}

// TLSConfig is the server side: the serving certificate, TLS 1.2 or
// later, HTTP/2 and HTTP/1.1 offered.
func (c *Credentials) TLSConfig() *tls.Config {
	return &tls.Config{
		Certificates: []tls.Certificate{c.Cert},
		MinVersion:   tls.VersionTLS12,
		NextProtos:   []string{"h2", "http/1.1"},
	}
}

// CertPool returns a pool holding the CA of pemCerts (a kubeconfig's
// certificate-authority-data), for a client's tls.Config.RootCAs.
func CertPool(pemCerts []byte) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemCerts) {
		return nil, errors.New("serving: no PEM certificate in the certificate authority data")
	}
	return pool, nil
}
