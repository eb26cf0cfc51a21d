package managercmd

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// DelegatedAuth authenticates bearer tokens and authorizes requests
// through the API server, as kube-controller-manager's delegated
// authentication and authorization do: an authentication.k8s.io/v1
// TokenReview of the token, then an authorization.k8s.io/v1
// SubjectAccessReview of the reviewed user for the request's
// non-resource path and verb.
//
// Like kube-controller-manager's, it caches both answers for
// AuthCacheTTL (10 s): a token accepted or rejected, a request allowed
// or denied. An error asking the API server is not cached. Each cache
// holds at most AuthCacheSize entries; a token is kept only as its
// SHA-256 digest.
type DelegatedAuth struct {
	cs     kubernetes.Interface
	tokens *ttlCache[authnv1.TokenReviewStatus]
	access *ttlCache[authzv1.SubjectAccessReviewStatus]
}

// The caches of DelegatedAuth: kube-controller-manager's defaults
// (--authentication-token-webhook-cache-ttl, and its authorization
// cache's allowed and denied TTLs).
const (
	// AuthCacheTTL is how long a TokenReview's or a
	// SubjectAccessReview's answer is reused.
	AuthCacheTTL = 10 * time.Second
	// AuthCacheSize is the most answers each cache holds.
	AuthCacheSize = 1024
)

// NewDelegatedAuth returns a DelegatedAuth asking cs's API server.
func NewDelegatedAuth(cs kubernetes.Interface) *DelegatedAuth {
	return &DelegatedAuth{
		cs:     cs,
		tokens: newTTLCache[authnv1.TokenReviewStatus](AuthCacheSize, AuthCacheTTL),
		access: newTTLCache[authzv1.SubjectAccessReviewStatus](AuthCacheSize, AuthCacheTTL),
	}
}

// AuthError is why a request was refused: Code is the HTTP status (401
// for a missing or rejected token, 403 for a user not allowed, 503 when
// the API server could not be asked).
type AuthError struct {
	Code int
	Msg  string
}

func (e *AuthError) Error() string { return e.Msg }

// Check authenticates token and authorizes verb on the non-resource
// path; nil when allowed, else an *AuthError.
func (a *DelegatedAuth) Check(ctx context.Context, token, verb, path string) error {
	if token == "" {
		return &AuthError{http.StatusUnauthorized, "Unauthorized: a bearer token is required"}
	}
	tr, err := a.tokens.get(digest(token), func() (authnv1.TokenReviewStatus, error) {
		tr, err := a.cs.AuthenticationV1().TokenReviews().Create(ctx,
			&authnv1.TokenReview{Spec: authnv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{})
		if err != nil {
			return authnv1.TokenReviewStatus{}, err
		}
		return tr.Status, nil
	})
	if err != nil {
		return &AuthError{http.StatusServiceUnavailable, fmt.Sprintf("authentication unavailable: TokenReview: %v", err)}
	}
	if !tr.Authenticated {
		msg := "Unauthorized: the API server did not accept the token"
		if tr.Error != "" {
			msg += ": " + tr.Error
		}
		return &AuthError{http.StatusUnauthorized, msg}
	}
	u := tr.User
	extra := map[string]authzv1.ExtraValue{}
	for k, v := range u.Extra {
		extra[k] = authzv1.ExtraValue(v)
	}
	spec := authzv1.SubjectAccessReviewSpec{
		User: u.Username, UID: u.UID, Groups: u.Groups, Extra: extra,
		NonResourceAttributes: &authzv1.NonResourceAttributes{Path: path, Verb: verb},
	}
	key, err := json.Marshal(spec) // maps marshal with sorted keys
	if err != nil {
		return &AuthError{http.StatusInternalServerError, fmt.Sprintf("authorization: %v", err)}
	}
	sar, err := a.access.get(digest(string(key)), func() (authzv1.SubjectAccessReviewStatus, error) {
		sar, err := a.cs.AuthorizationV1().SubjectAccessReviews().Create(ctx,
			&authzv1.SubjectAccessReview{Spec: spec}, metav1.CreateOptions{})
		if err != nil {
			return authzv1.SubjectAccessReviewStatus{}, err
		}
		return sar.Status, nil
	})
	if err != nil {
		return &AuthError{http.StatusServiceUnavailable, fmt.Sprintf("authorization unavailable: SubjectAccessReview: %v", err)}
	}
	if !sar.Allowed {
		msg := fmt.Sprintf("Forbidden: user %q cannot %s path %q", u.Username, verb, path)
		if sar.Reason != "" {
			msg += ": " + sar.Reason
		}
		return &AuthError{http.StatusForbidden, msg}
	}
	return nil
}

// digest is the hex SHA-256 of s: what the caches keep of a token.
func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// ttlCache keeps answers by key for ttl, at most max of them.
type ttlCache[V any] struct {
	max int
	ttl time.Duration

	mu sync.Mutex
	m  map[string]cached[V] // guarded by mu
}

type cached[V any] struct {
	v       V
	expires time.Time
}

func newTTLCache[V any](max int, ttl time.Duration) *ttlCache[V] {
	return &ttlCache[V]{max: max, ttl: ttl, m: make(map[string]cached[V])}
}

// get returns the answer cached under key if it has not expired, else
// ask's, which it caches unless ask fails. When the cache is full, the
// expired answers go, and if none had, the one expiring first.
func (c *ttlCache[V]) get(key string, ask func() (V, error)) (V, error) {
	now := time.Now()
	c.mu.Lock()
	e, ok := c.m[key]
	c.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.v, nil
	}
	v, err := ask()
	if err != nil {
		return v, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[key]; !ok && len(c.m) >= c.max {
		var first string
		for k, e := range c.m {
			if !now.Before(e.expires) {
				delete(c.m, k)
			} else if first == "" || e.expires.Before(c.m[first].expires) {
				first = k
			}
		}
		if len(c.m) >= c.max {
			delete(c.m, first)
		}
	}
	c.m[key] = cached[V]{v: v, expires: now.Add(c.ttl)}
	return v, nil
}

// len returns how many answers the cache holds.
func (c *ttlCache[V]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// Checker decides whether a request with a bearer token may reach a
// path; DelegatedAuth is the one Main uses.
type Checker interface {
	Check(ctx context.Context, token, verb, path string) error
}

// Handler serves inner (manager.Handler) with /livez added, the paths
// of allow (exact, or a prefix when ending in "*") anonymously, and every
// other path only to a request whose bearer token auth accepts; a
// refusal is the *AuthError's status with its message as the body.
func Handler(inner http.Handler, auth Checker, allow []string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /livez", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.Handle("/", inner)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !allowed(allow, r.URL.Path) {
			token, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if r.Header.Get("Authorization") == token {
				token = "" // not a bearer token
			}
			verb := strings.ToLower(r.Method)
			if r.Method == http.MethodHead {
				verb = "get"
			}
			ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
			err := auth.Check(ctx, strings.TrimSpace(token), verb, r.URL.Path)
			cancel()
			if err != nil {
				code := http.StatusUnauthorized
				if ae, ok := err.(*AuthError); ok {
					code = ae.Code
				}
				http.Error(w, err.Error(), code)
				return
			}
		}
		mux.ServeHTTP(w, r)
	})
}

func allowed(allow []string, path string) bool {
	for _, a := range allow {
		a = strings.TrimSpace(a)
		if p, ok := strings.CutSuffix(a, "*"); ok && a != "" && strings.HasPrefix(path, p) {
			return true
		}
		if a != "" && a == path {
			return true
		}
	}
	return false
}

// tlsConfig loads --tls-cert-file and --tls-private-key-file, or
// generates a self-signed certificate for localhost, the loopback
// addresses and --bind-address, valid for a year.
func tlsConfig(cfg config) (*tls.Config, error) {
	var cert tls.Certificate
	var err error
	if cfg.tlsCert != "" {
		cert, err = tls.LoadX509KeyPair(cfg.tlsCert, cfg.tlsKey)
	} else {
		cert, err = selfSigned(cfg.bindAddress)
	}
	if err != nil {
		return nil, err
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

func selfSigned(bind string) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return tls.Certificate{}, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "ctrlkit-manager@" + now.UTC().Format(time.RFC3339)},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	if ip := net.ParseIP(bind); ip != nil && !ip.IsUnspecified() && !ip.IsLoopback() {
		tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

func tlsListener(l net.Listener, tc *tls.Config) net.Listener { return tls.NewListener(l, tc) }
