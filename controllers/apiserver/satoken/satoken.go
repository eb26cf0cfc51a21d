package satoken

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"
)

// DefaultIssuer is the issuer (iss) and API audience of tokens when
// Options.Issuer is empty: what kind and kubeadm configure
// (--service-account-issuer).
const DefaultIssuer = "https://kubernetes.default.svc.cluster.local"

// Leeway is how far a token's times may be off the verifier's clock, as
// go-jose's jwt.DefaultLeeway that kube-apiserver uses.
const Leeway = time.Minute

// MaxTokenBytes bounds the size of a token Verify parses; longer ones are
// refused before any decoding.
const MaxTokenBytes = 16 << 10

// Ref names an object a token refers to: its name and UID.
type Ref struct {
	// Name of the object.
	Name string `json:"name,omitempty"`
	// UID of the object.
	UID string `json:"uid,omitempty"`
}

// Claims are the claims of a service account token: the registered
// ones kube-apiserver sets and its private "kubernetes.io" claim.
type Claims struct {
	// Issuer (iss).
	Issuer string `json:"iss"`
	// Subject (sub): system:serviceaccount:NAMESPACE:NAME.
	Subject string `json:"sub"`
	// Audience (aud).
	Audience []string `json:"aud"`
	// Expiry (exp), IssuedAt (iat) and NotBefore (nbf), in Unix seconds.
	Expiry int64 `json:"exp"`
	// IssuedAt (iat).
	IssuedAt int64 `json:"iat"`
	// NotBefore (nbf).
	NotBefore int64 `json:"nbf"`
	// ID (jti), a random UUID: the credential's id.
	ID string `json:"jti,omitempty"`
	// Kubernetes is the private claim.
	Kubernetes Private `json:"kubernetes.io"`
}

// Private is the "kubernetes.io" claim: the service account and the
// object the token is bound to.
type Private struct {
	// Namespace of the service account.
	Namespace string `json:"namespace"`
	// ServiceAccount the token authenticates as.
	ServiceAccount Ref `json:"serviceaccount"`
	// Pod, Secret, Node: the bound object (a pod-bound token also names
	// the pod's node).
	Pod *Ref `json:"pod,omitempty"`
	// Secret the token is bound to.
	Secret *Ref `json:"secret,omitempty"`
	// Node the token (or its pod) is bound to.
	Node *Ref `json:"node,omitempty"`
}

// Options configure an Issuer. The zero value issues with DefaultIssuer
// and a fresh P-256 key.
type Options struct {
	// Issuer is the iss claim and, with Audiences empty, the one API
	// audience.
	Issuer string
	// Audiences are the API server's audiences (--api-audiences): a
	// token must name one of them to authenticate, and a TokenRequest
	// without audiences gets them. Default: [Issuer].
	Audiences []string
	// Key signs tokens (ES256). Nil: a new P-256 key, so tokens of an
	// earlier Issuer do not verify.
	Key *ecdsa.PrivateKey
}

// Issuer signs and verifies service account tokens: JWTs signed with
// ES256. It is safe for concurrent use.
type Issuer struct {
	key       *ecdsa.PrivateKey
	kid       string
	iss       string
	audiences []string
}

// New returns an Issuer.
func New(opts Options) (*Issuer, error) {
	key := opts.Key
	if key == nil {
		var err error
		if key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
			return nil, fmt.Errorf("satoken: key: %w", err)
		}
	} else if key.Curve != elliptic.P256() {
		return nil, errors.New("satoken: the key must be ECDSA P-256 (ES256)")
	}
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return nil, fmt.Errorf("satoken: key: %w", err)
	}
	sum := sha256.Sum256(der)
	iss := opts.Issuer
	if iss == "" {
		iss = DefaultIssuer
	}
	auds := slices.Clone(opts.Audiences)
	if len(auds) == 0 {
		auds = []string{iss}
	}
	// kube-apiserver's key id: the base64url SHA-256 of the public key's
	// DER encoding.
	return &Issuer{key: key, kid: base64.RawURLEncoding.EncodeToString(sum[:]), iss: iss, audiences: auds}, nil
}

// Audiences returns the API audiences (a copy).
func (i *Issuer) Audiences() []string { return slices.Clone(i.audiences) }

// IssuerURL returns the iss claim of the tokens.
func (i *Issuer) IssuerURL() string { return i.iss }

// KeyID returns the kid of the tokens' header.
func (i *Issuer) KeyID() string { return i.kid }

// PublicKey returns the verification key.
func (i *Issuer) PublicKey() crypto.PublicKey { return &i.key.PublicKey }

// Username returns a service account's user name,
// system:serviceaccount:NAMESPACE:NAME.
func Username(namespace, name string) string {
	return "system:serviceaccount:" + namespace + ":" + name
}

// Sign returns the token of c, whose Issuer it sets.
func (i *Issuer) Sign(c Claims) (string, error) {
	c.Issuer = i.iss
	header, err := json.Marshal(map[string]string{"alg": "ES256", "kid": i.kid})
	if err != nil {
		return "", err
	}
	payload, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	signing := enc.EncodeToString(header) + "." + enc.EncodeToString(payload)
	sum := sha256.Sum256([]byte(signing))
	r, s, err := ecdsa.Sign(rand.Reader, i.key, sum[:])
	if err != nil {
		return "", fmt.Errorf("satoken: sign: %w", err)
	}
	// JWS ES256: R and S, 32 bytes each, big-endian.
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return signing + "." + enc.EncodeToString(sig), nil
}

// ErrNotMine is returned by Verify for a string that is not a JWT this
// Issuer signed (another issuer, another key, not a JWT at all): another
// authenticator may know it.
var ErrNotMine = errors.New("satoken: not a service account token of this issuer")

// Verify checks token's signature, issuer, audience (one of audiences,
// or of the API audiences when audiences is empty) and times against now
// (within Leeway), and returns its claims. A token this Issuer did not
// sign is ErrNotMine; a token it signed that is expired or not yet valid
// is an error worded as kube-apiserver's ("service account token has
// expired").
func (i *Issuer) Verify(token string, now time.Time, audiences ...string) (*Claims, error) {
	if len(audiences) == 0 {
		audiences = i.audiences
	}
	if len(token) > MaxTokenBytes || strings.Count(token, ".") != 2 {
		return nil, ErrNotMine
	}
	enc := base64.RawURLEncoding
	parts := strings.Split(token, ".")
	hb, err := enc.DecodeString(parts[0])
	if err != nil {
		return nil, ErrNotMine
	}
	var header struct {
		Alg string `json:"alg"`
		Kid string `json:"kid"`
	}
	if json.Unmarshal(hb, &header) != nil || header.Alg != "ES256" || header.Kid != i.kid {
		return nil, ErrNotMine
	}
	sig, err := enc.DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		return nil, ErrNotMine
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
	if !ecdsa.Verify(&i.key.PublicKey, sum[:], r, s) {
		return nil, ErrNotMine
	}
	pb, err := enc.DecodeString(parts[1])
	if err != nil {
		return nil, ErrNotMine
	}
	var c Claims
	if err := json.Unmarshal(pb, &c); err != nil {
		return nil, ErrNotMine
	}
	if c.Issuer != i.iss {
		return nil, ErrNotMine
	}
	if !slices.ContainsFunc(c.Audience, func(a string) bool { return slices.Contains(audiences, a) }) {
		return nil, fmt.Errorf("token audiences %q is invalid for the target audiences %q", c.Audience, audiences)
	}
	sec := now.Unix()
	lw := int64(Leeway / time.Second)
	switch {
	case sec > c.Expiry+lw:
		return nil, errors.New("service account token has expired")
	case sec+lw < c.NotBefore:
		return nil, errors.New("service account token is not valid yet")
	case sec+lw < c.IssuedAt:
		return nil, errors.New("service account token is issued in the future")
	}
	if c.Kubernetes.ServiceAccount.Name == "" || c.Subject != Username(c.Kubernetes.Namespace, c.Kubernetes.ServiceAccount.Name) {
		return nil, errors.New("service account token claims could not be validated: the subject does not name the service account")
	}
	return &c, nil
}

// NewID returns a random UUID (version 4), a token's jti.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
