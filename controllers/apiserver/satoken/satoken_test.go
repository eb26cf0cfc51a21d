package satoken_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/apiserver/satoken"
	"github.com/stretchr/testify/require"
)

func claims(now time.Time, aud ...string) satoken.Claims {
	return satoken.Claims{Subject: satoken.Username("ns", "sa"), Audience: aud,
		IssuedAt: now.Unix(), NotBefore: now.Unix(), Expiry: now.Add(time.Hour).Unix(), ID: satoken.NewID(),
		Kubernetes: satoken.Private{Namespace: "ns", ServiceAccount: satoken.Ref{Name: "sa", UID: "u1"}}}
}

func TestVerifyTimes(t *testing.T) {
	i, err := satoken.New(satoken.Options{})
	require.NoError(t, err)
	now := time.Unix(1_800_000_000, 0)
	tok, err := i.Sign(claims(now, satoken.DefaultIssuer))
	require.NoError(t, err)
	for _, tc := range []struct {
		at   time.Time
		want string
	}{
		{now, ""},
		{now.Add(time.Hour + satoken.Leeway), ""}, // within the leeway
		{now.Add(time.Hour + satoken.Leeway + time.Second), "service account token has expired"},
		{now.Add(-satoken.Leeway), ""},
		{now.Add(-satoken.Leeway - time.Second), "service account token is not valid yet"},
	} {
		c, err := i.Verify(tok, tc.at)
		if tc.want == "" {
			require.NoError(t, err, tc.at)
			require.Equal(t, "ns", c.Kubernetes.Namespace)
			require.Equal(t, satoken.DefaultIssuer, c.Issuer)
		} else {
			require.EqualError(t, err, tc.want, tc.at)
		}
	}
}

func TestVerifyAudiences(t *testing.T) {
	i, err := satoken.New(satoken.Options{Issuer: "https://issuer.example", Audiences: []string{"api", "also-api"}})
	require.NoError(t, err)
	require.Equal(t, []string{"api", "also-api"}, i.Audiences())
	now := time.Now()
	tok, err := i.Sign(claims(now, "vault", "also-api"))
	require.NoError(t, err)
	_, err = i.Verify(tok, now)
	require.NoError(t, err, "one API audience is enough")
	_, err = i.Verify(tok, now, "vault")
	require.NoError(t, err)
	vaultOnly, err := i.Sign(claims(now, "vault"))
	require.NoError(t, err)
	_, err = i.Verify(vaultOnly, now)
	require.EqualError(t, err, `token audiences ["vault"] is invalid for the target audiences ["api" "also-api"]`)

	d, err := satoken.New(satoken.Options{})
	require.NoError(t, err)
	require.Equal(t, []string{satoken.DefaultIssuer}, d.Audiences(), "the issuer is the default audience")
}

func TestVerifyRefusesWhatItDidNotSign(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	i, err := satoken.New(satoken.Options{Key: key})
	require.NoError(t, err)
	same, err := satoken.New(satoken.Options{Key: key})
	require.NoError(t, err)
	require.Equal(t, i.KeyID(), same.KeyID(), "the key id derives from the key")
	other, err := satoken.New(satoken.Options{})
	require.NoError(t, err)
	otherIssuer, err := satoken.New(satoken.Options{Key: key, Issuer: "https://elsewhere"})
	require.NoError(t, err)
	now := time.Now()
	tok, err := i.Sign(claims(now, satoken.DefaultIssuer))
	require.NoError(t, err)
	_, err = same.Verify(tok, now)
	require.NoError(t, err, "same key and issuer")

	parts := strings.Split(tok, ".")
	enc := base64.RawURLEncoding
	payload, _ := enc.DecodeString(parts[1])
	forgedPayload := enc.EncodeToString([]byte(strings.Replace(string(payload), `"name":"sa"`, `"name":"admin"`, 1)))
	noneHeader := enc.EncodeToString([]byte(`{"alg":"none","kid":"` + i.KeyID() + `"}`))
	for name, s := range map[string]string{
		"other key":       mustSign(t, other, claims(now, satoken.DefaultIssuer)),
		"other issuer":    mustSign(t, otherIssuer, claims(now, satoken.DefaultIssuer)),
		"payload swapped": parts[0] + "." + forgedPayload + "." + parts[2],
		"alg none":        noneHeader + "." + parts[1] + ".",
		"signature cut":   parts[0] + "." + parts[1] + "." + parts[2][:10],
		"not a jwt":       "0123456789abcdef",
		"empty":           "",
		"dots":            "..",
		"bad base64":      "!!.!!.!!",
		"huge":            strings.Repeat("a", satoken.MaxTokenBytes) + ".a.a",
	} {
		_, err := i.Verify(s, now)
		require.ErrorIs(t, err, satoken.ErrNotMine, name)
	}
	// A subject that does not name the private claim's account.
	c := claims(now, satoken.DefaultIssuer)
	c.Subject = satoken.Username("ns", "admin")
	_, err = i.Verify(mustSign(t, i, c), now)
	require.ErrorContains(t, err, "the subject does not name the service account")

	_, err = satoken.New(satoken.Options{Key: mustKey(t, elliptic.P384())})
	require.Error(t, err, "ES256 needs P-256")
}

func mustSign(t *testing.T, i *satoken.Issuer, c satoken.Claims) string {
	t.Helper()
	s, err := i.Sign(c)
	require.NoError(t, err)
	return s
}

func mustKey(t *testing.T, c elliptic.Curve) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(c, rand.Reader)
	require.NoError(t, err)
	return k
}

func TestNewIDIsAUUID(t *testing.T) {
	a, b := satoken.NewID(), satoken.NewID()
	require.NotEqual(t, a, b)
	require.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, a)
}

func FuzzVerify(f *testing.F) {
	i, err := satoken.New(satoken.Options{})
	require.NoError(f, err)
	now := time.Now()
	tok, err := i.Sign(claims(now, satoken.DefaultIssuer))
	require.NoError(f, err)
	f.Add(tok)
	f.Add("a.b.c")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := i.Verify(s, now)
		if err == nil && c.Kubernetes.ServiceAccount.Name != "sa" {
			t.Fatalf("verified a token it did not sign: %q", s)
		}
	})
}
