package apiserver_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver/protobuf"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver/satoken"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/stretchr/testify/require"
)

// tokenServer serves a cluster with the service account team/builder, a
// pod running as it on node-1, and service account tokens.
func tokenServer(t *testing.T, maxExp time.Duration) (*cluster.Cluster, *apiserver.Server, *httptest.Server) {
	t.Helper()
	ctx := t.Context()
	issuer, err := satoken.New(satoken.Options{})
	require.NoError(t, err)
	c, srv := newServer(t, ctx, apiserver.Options{ServiceAccountTokens: issuer, ServiceAccountMaxTokenExpiration: maxExp})
	_, err = c.Namespaces().Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "team"}})
	require.NoError(t, err)
	_, err = c.ServiceAccounts().Create(ctx, &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: "builder", Namespace: "team"}})
	require.NoError(t, err)
	_, err = c.Nodes().Create(ctx, &api.Node{ObjectMeta: api.ObjectMeta{Name: "node-1"}})
	require.NoError(t, err)
	_, err = c.Pods().Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "team"},
		Spec: api.PodSpec{ServiceAccountName: "builder", NodeName: "node-1", Containers: []api.Container{{Name: "c", Image: "nginx"}}}})
	require.NoError(t, err)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return c, srv, ts
}

const tokenPath = "/api/v1/namespaces/team/serviceaccounts/builder/token"

func TestTokenRequest(t *testing.T) {
	c, srv, ts := tokenServer(t, 0)
	ctx := t.Context()
	before := time.Now()
	r := do(t, ts, "POST", tokenPath, jsonCT, `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{}}`)
	require.Equal(t, http.StatusCreated, r.code, r.raw)
	require.Equal(t, "TokenRequest", r.body["kind"])
	require.Equal(t, "builder", meta(r)["name"])
	spec := r.body["spec"].(map[string]any)
	require.Equal(t, float64(3600), spec["expirationSeconds"], "kube's default")
	require.Equal(t, []any{satoken.DefaultIssuer}, spec["audiences"], "the API audiences")
	st := r.body["status"].(map[string]any)
	exp, err := time.Parse(time.RFC3339, st["expirationTimestamp"].(string))
	require.NoError(t, err)
	require.WithinDuration(t, before.Add(time.Hour), exp, 2*time.Second)
	tok := st["token"].(string)

	u, ok, err := srv.AuthenticateToken(ctx, tok)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "system:serviceaccount:team:builder", u.Name)
	sa, _, err := c.ServiceAccounts().Get(ctx, "team/builder")
	require.NoError(t, err)
	require.Equal(t, string(sa.UID), u.UID)
	require.Equal(t, []string{"system:serviceaccounts", "system:serviceaccounts:team", "system:authenticated"}, u.Groups)
	require.Len(t, u.Extra[apiserver.ExtraCredentialID], 1)
	require.True(t, strings.HasPrefix(u.Extra[apiserver.ExtraCredentialID][0], "JTI="))

	// Not this server's tokens: not recognized at all.
	_, ok, err = srv.AuthenticateToken(ctx, "0123456789abcdef")
	require.NoError(t, err)
	require.False(t, ok)
	other, err := satoken.New(satoken.Options{})
	require.NoError(t, err)
	forged, err := other.Sign(satoken.Claims{Subject: u.Name, Audience: []string{satoken.DefaultIssuer},
		Expiry: time.Now().Add(time.Hour).Unix(), Kubernetes: satoken.Private{Namespace: "team", ServiceAccount: satoken.Ref{Name: "builder", UID: u.UID}}})
	require.NoError(t, err)
	_, ok, _ = srv.AuthenticateToken(ctx, forged)
	require.False(t, ok, "a token of another key")

	// Deleting the service account invalidates its tokens; one of the
	// same name made again does not revive them (its UID differs).
	_, err = c.ServiceAccounts().Delete(ctx, "team/builder", "")
	require.NoError(t, err)
	_, ok, err = srv.AuthenticateToken(ctx, tok)
	require.True(t, ok)
	require.ErrorIs(t, err, apiserver.ErrInvalidToken)
	_, err = c.ServiceAccounts().Create(ctx, &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: "builder", Namespace: "team"}})
	require.NoError(t, err)
	_, _, err = srv.AuthenticateToken(ctx, tok)
	require.ErrorContains(t, err, "does not match claim")
}

func TestTokenRequestBoundToPod(t *testing.T) {
	c, srv, ts := tokenServer(t, 0)
	ctx := t.Context()
	pod, _, err := c.Pods().Get(ctx, "team/web")
	require.NoError(t, err)
	node, _, err := c.Nodes().Get(ctx, "node-1")
	require.NoError(t, err)
	r := do(t, ts, "POST", tokenPath, jsonCT, `{"spec":{"expirationSeconds":600,"boundObjectRef":{"kind":"Pod","apiVersion":"v1","name":"web"}}}`)
	require.Equal(t, http.StatusCreated, r.code, r.raw)
	tok := r.body["status"].(map[string]any)["token"].(string)
	u, ok, err := srv.AuthenticateToken(ctx, tok)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, []string{"web"}, u.Extra[apiserver.ExtraPodName])
	require.Equal(t, []string{string(pod.UID)}, u.Extra[apiserver.ExtraPodUID])
	require.Equal(t, []string{"node-1"}, u.Extra[apiserver.ExtraNodeName])
	require.Equal(t, []string{string(node.UID)}, u.Extra[apiserver.ExtraNodeUID])

	// The pod gone, the token is invalidated.
	_, err = c.Pods().DeleteWith(ctx, "team/web", cluster.DeleteOptions{GracePeriodSeconds: new(int64)})
	require.NoError(t, err)
	_, _, err = srv.AuthenticateToken(ctx, tok)
	require.ErrorContains(t, err, "service account token has been invalidated")
}

func TestTokenRequestRefusals(t *testing.T) {
	c, _, ts := tokenServer(t, 0)
	ctx := t.Context()
	_, err := c.ServiceAccounts().Create(ctx, &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: "other", Namespace: "team"}})
	require.NoError(t, err)
	cases := []struct {
		name, path, body string
		code             int
		msg              string
	}{
		{"too short", tokenPath, `{"spec":{"expirationSeconds":60}}`, 422,
			`TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes`},
		{"too long", tokenPath, `{"spec":{"expirationSeconds":4294967297}}`, 422, "may not specify a duration larger than 2^32 seconds"},
		{"name mismatch", tokenPath, `{"metadata":{"name":"x"},"spec":{}}`, 422, "must match the service account name if specified"},
		{"namespace mismatch", tokenPath, `{"metadata":{"namespace":"x"},"spec":{}}`, 422, "must match the service account namespace if specified"},
		{"uid mismatch", tokenPath, `{"metadata":{"uid":"nope"},"spec":{}}`, 409, "the UID in the token request (nope) does not match the UID of the service account"},
		{"no such account", "/api/v1/namespaces/team/serviceaccounts/ghost/token", `{"spec":{}}`, 404, `serviceaccounts "ghost" not found`},
		{"pod of another account", "/api/v1/namespaces/team/serviceaccounts/other/token",
			`{"spec":{"boundObjectRef":{"kind":"Pod","apiVersion":"v1","name":"web"}}}`, 400,
			`cannot bind token for serviceaccount "other" to pod running with different serviceaccount name.`},
		{"bound uid stale", tokenPath, `{"spec":{"boundObjectRef":{"kind":"Pod","apiVersion":"v1","name":"web","uid":"old"}}}`, 409,
			"the UID in the bound object reference (old) does not match the UID in record. The object might have been deleted and then recreated"},
		{"bound kind", tokenPath, `{"spec":{"boundObjectRef":{"kind":"ConfigMap","apiVersion":"v1","name":"x"}}}`, 400,
			"cannot bind token to object of type /v1, Kind=ConfigMap"},
		{"bound pod missing", tokenPath, `{"spec":{"boundObjectRef":{"kind":"Pod","apiVersion":"v1","name":"gone"}}}`, 404, `pods "gone" not found`},
		{"not a TokenRequest", tokenPath, `{"apiVersion":"v1","kind":"Pod"}`, 400, "not a TokenRequest object: v1, Kind=Pod"},
		{"malformed", tokenPath, `{"spec":`, 400, "could not be decoded as a TokenRequest"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, ts, "POST", tc.path, jsonCT, tc.body)
			require.Equal(t, tc.code, r.code, r.raw)
			require.Contains(t, r.body["message"], tc.msg)
		})
	}
	r := do(t, ts, "GET", tokenPath, "", "")
	require.Equal(t, http.StatusMethodNotAllowed, r.code, r.raw)
	r = do(t, ts, "POST", tokenPath, "text/plain", `{}`)
	require.Equal(t, http.StatusUnsupportedMediaType, r.code, r.raw)
}

// kubectl create token sends a protobuf TokenRequest; a longer lifetime
// than --service-account-max-token-expiration is shortened with kube's
// warning.
func TestTokenRequestProtobufAndMaxExpiration(t *testing.T) {
	_, _, ts := tokenServer(t, 2*time.Hour)
	body, err := protobuf.Marshal([]byte(`{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest",` +
		`"metadata":{"name":"builder"},"spec":{"expirationSeconds":86400,"audiences":["vault"]}}`))
	require.NoError(t, err)
	req, err := http.NewRequestWithContext(t.Context(), "POST", ts.URL+tokenPath, strings.NewReader(string(body)))
	require.NoError(t, err)
	req.Header.Set("Content-Type", protobuf.MediaType)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	require.Equal(t, `299 - "requested expiration of 86400 seconds shortened to 7200 seconds"`, resp.Header.Get("Warning"))
}

func TestTokenDiscoveryAndAbsence(t *testing.T) {
	_, _, ts := tokenServer(t, 0)
	r := do(t, ts, "GET", "/api/v1", "", "")
	require.Contains(t, r.raw, `"name":"serviceaccounts/token"`)
	require.Contains(t, r.raw, `"kind":"TokenRequest"`)

	// Without an issuer the subresource is not served, as kube-apiserver
	// without --service-account-issuer.
	c, srv := newServer(t, t.Context(), apiserver.Options{})
	_, err := c.ServiceAccounts().Create(t.Context(), &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: "builder", Namespace: "default"}})
	require.NoError(t, err)
	plain := httptest.NewServer(srv)
	defer plain.Close()
	r = do(t, plain, "POST", "/api/v1/namespaces/default/serviceaccounts/builder/token", jsonCT, `{"spec":{}}`)
	require.Equal(t, http.StatusNotFound, r.code, r.raw)
	require.NotContains(t, do(t, plain, "GET", "/api/v1", "", "").raw, "serviceaccounts/token")
}

func TestTokenReview(t *testing.T) {
	_, _, ts := tokenServer(t, 0)
	r := do(t, ts, "POST", tokenPath, jsonCT, `{"spec":{"audiences":["vault"]}}`)
	require.Equal(t, http.StatusCreated, r.code, r.raw)
	tok := r.body["status"].(map[string]any)["token"].(string)
	review := func(token, auds string) response {
		return do(t, ts, "POST", "/apis/authentication.k8s.io/v1/tokenreviews", jsonCT,
			`{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"`+token+`"`+auds+`}}`)
	}
	r = review(tok, `,"audiences":["vault"]`)
	require.Equal(t, http.StatusCreated, r.code, r.raw)
	st := status(r)
	require.Equal(t, true, st["authenticated"], r.raw)
	require.Equal(t, "system:serviceaccount:team:builder", st["user"].(map[string]any)["username"])
	require.Equal(t, []any{"vault"}, st["audiences"])
	require.NotContains(t, r.raw, tok, "the token is not echoed")

	// For the API audiences (the default), a vault token does not do.
	r = review(tok, "")
	require.Equal(t, nil, status(r)["authenticated"], r.raw)
	require.Contains(t, status(r)["error"], "token audiences")
	r = review("garbage", "")
	require.Equal(t, http.StatusCreated, r.code, r.raw)
	require.Equal(t, nil, status(r)["authenticated"])
	r = review("", "")
	require.Equal(t, http.StatusUnprocessableEntity, r.code, r.raw)
}
