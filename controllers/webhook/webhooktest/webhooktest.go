package webhooktest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Host is the name the server's certificate is valid for, and the host
// of its URL.
const Host = "webhook.test"

// Server is an HTTPS server on an in-memory network.
type Server struct {
	// URL is the server's base URL, https://webhook.test.
	URL string
	// CABundle is the PEM of the certificate that verifies the server's
	// (its own): a webhook configuration's caBundle.
	CABundle []byte

	h      atomic.Pointer[http.Handler]
	srv    *http.Server
	conns  chan net.Conn
	done   chan struct{}
	served chan struct{}
	once   sync.Once
}

// Start starts a server answering with h (nil: 503 Service Unavailable
// until Handle sets a handler) and closes it when t ends.
func Start(t testing.TB, h http.Handler) *Server {
	t.Helper()
	s, err := New(h)
	if err != nil {
		t.Fatalf("webhooktest: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// New starts a server answering with h (nil: 503 Service Unavailable
// until Handle sets a handler); Close stops it.
func New(h http.Handler) (*Server, error) {
	cert, ca, err := selfSigned(Host)
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "https://" + Host, CABundle: ca, conns: make(chan net.Conn), done: make(chan struct{}), served: make(chan struct{})}
	if h != nil {
		s.Handle(h)
	}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serveHTTP)}
	go func() {
		defer close(s.served)
		_ = s.srv.Serve(tls.NewListener(listener{s}, &tls.Config{Certificates: []tls.Certificate{cert}}))
	}()
	return s, nil
}

// Close stops the server and waits for it to end.
func (s *Server) Close() {
	s.once.Do(func() { close(s.done) })
	_ = s.srv.Close()
	<-s.served
}

// Handle makes h the server's handler.
func (s *Server) Handle(h http.Handler) { s.h.Store(&h) }

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	h := s.h.Load()
	if h == nil {
		http.Error(w, "webhooktest: no handler yet", http.StatusServiceUnavailable)
		return
	}
	(*h).ServeHTTP(w, r)
}

// Dial connects to the server, whatever network and address it is given:
// a webhook.Options.DialContext.
func (s *Server) Dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := pipe()
	select {
	case s.conns <- server:
		return client, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.done:
		return nil, net.ErrClosed
	}
}

// listener accepts the connections Dial opens.
type listener struct{ s *Server }

func (l listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.s.conns:
		return c, nil
	case <-l.s.done:
		return nil, net.ErrClosed
	}
}

func (l listener) Close() error { l.s.once.Do(func() { close(l.s.done) }); return nil }

func (listener) Addr() net.Addr { return addr{} }

type addr struct{}

func (addr) Network() string { return "pipe" }
func (addr) String() string  { return Host + ":443" }

// selfSigned returns a serving certificate for name, its own CA, and its
// PEM. It is valid from 1990 to 2100: a synctest bubble's clock starts
// in 2000.
func selfSigned(name string) (tls.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name}, DNSNames: []string{name},
		NotBefore: time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC), NotAfter: time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}
