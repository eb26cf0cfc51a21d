package serving_test

import (
	"crypto/x509"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/ctrlkit/ctrlkit/controllers/apiserver/serving"
	"github.com/ctrlkit/ctrlkit/controllers/rbac"
)

const unauthorized = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`

func serve(t *testing.T, h http.Handler, opts serving.Options, method, path, host, auth string) (int, string) {
	t.Helper()
	r := httptest.NewRequest(method, "http://127.0.0.1:6443"+path, nil)
	if host != "" {
		r.Host = host
	}
	if auth != "" {
		r.Header.Set("Authorization", auth)
	}
	w := httptest.NewRecorder()
	serving.Handler(h, opts).ServeHTTP(w, r)
	b, _ := io.ReadAll(w.Result().Body)
	return w.Code, string(b)
}

var ok = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })

func TestHandlerToken(t *testing.T) {
	opts := serving.Options{Token: "s3cret-token", Port: "6443"}
	for _, tc := range []struct {
		name, method, path, auth string
		code                     int
	}{
		{"no token", "GET", "/api/v1/secrets", "", 401},
		{"wrong token", "GET", "/api/v1/secrets", "Bearer s3cret-tokeN", 401},
		{"prefix of the token", "GET", "/api/v1/secrets", "Bearer s3cret", 401},
		{"token longer", "GET", "/api/v1/secrets", "Bearer s3cret-token2", 401},
		{"basic auth", "GET", "/api/v1/secrets", "Basic czNjcmV0LXRva2Vu", 401},
		{"scheme only", "GET", "/api/v1/secrets", "Bearer ", 401},
		{"token without scheme", "GET", "/api/v1/secrets", "s3cret-token", 401},
		{"POST without token", "POST", "/api/v1/namespaces/default/pods", "", 401},
		{"pprof without token", "GET", "/debug/pprof/", "", 401},
		{"metrics without token", "GET", "/metrics", "", 401},
		{"health check below healthz", "GET", "/healthz/ping", "", 401},
		{"right token", "GET", "/api/v1/secrets", "Bearer s3cret-token", 200},
		{"scheme in lower case", "GET", "/api/v1/secrets", "bearer s3cret-token", 200},
		{"healthz", "GET", "/healthz", "", 200},
		{"livez", "GET", "/livez", "", 200},
		{"readyz", "GET", "/readyz", "", 200},
		{"version", "GET", "/version", "", 200},
		{"version/", "GET", "/version/", "", 200},
	} {
		code, body := serve(t, ok, opts, tc.method, tc.path, "", tc.auth)
		require.Equal(t, tc.code, code, tc.name)
		if code == 401 {
			require.JSONEq(t, unauthorized, body, tc.name)
		}
	}
	// Without a token nothing is authenticated.
	code, _ := serve(t, ok, serving.Options{}, "GET", "/api/v1/secrets", "", "")
	require.Equal(t, 200, code)
}

// A token other than the admin's is the Authenticate hook's to accept
// (a service account token), as that user; refused or failing, it is 401.
func TestHandlerAuthenticate(t *testing.T) {
	whoami := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, _ := rbac.UserFrom(r.Context())
		_, _ = io.WriteString(w, u.Name)
	})
	opts := serving.Options{Token: "admin-token", Authenticate: func(_ *http.Request, tok string) (rbac.User, bool, error) {
		switch tok {
		case "sa-token":
			return rbac.User{Name: "system:serviceaccount:team:builder"}, true, nil
		case "expired-sa-token":
			return rbac.User{}, true, errors.New("service account token has expired")
		}
		return rbac.User{}, false, nil
	}}
	for _, tc := range []struct {
		auth string
		code int
		body string
	}{
		{"Bearer admin-token", 200, rbac.AdminUser},
		{"Bearer sa-token", 200, "system:serviceaccount:team:builder"},
		{"Bearer expired-sa-token", 401, unauthorized},
		{"Bearer someone-else", 401, unauthorized},
		{"", 401, unauthorized},
	} {
		code, body := serve(t, whoami, opts, "GET", "/api/v1/pods", "", tc.auth)
		require.Equal(t, tc.code, code, tc.auth)
		if code == 401 {
			require.JSONEq(t, tc.body, body, tc.auth)
		} else {
			require.Equal(t, tc.body, body, tc.auth)
		}
	}
}

// The Host header must name the listener: DNS rebinding sends the
// attacker's name.
func TestHandlerHost(t *testing.T) {
	for _, tc := range []struct {
		opts serving.Options
		host string
		code int
	}{
		{serving.Options{Port: "6443"}, "127.0.0.1:6443", 200},
		{serving.Options{Port: "6443"}, "127.0.0.1", 200},
		{serving.Options{Port: "6443"}, "localhost:6443", 200},
		{serving.Options{Port: "6443"}, "LocalHost.:6443", 200},
		{serving.Options{Port: "6443"}, "[::1]:6443", 200},
		{serving.Options{Port: "6443"}, "[::1]", 200},
		{serving.Options{Port: "6443"}, "127.0.0.2:6443", 200},
		{serving.Options{Port: "6443"}, "localhost:8080", 421},
		{serving.Options{Port: "6443"}, "attacker.example:6443", 421},
		{serving.Options{Port: "6443"}, "attacker.example", 421},
		{serving.Options{Port: "6443"}, "localhost.attacker.example:6443", 421},
		{serving.Options{Port: "6443"}, "127.0.0.1.nip.io:6443", 421},
		{serving.Options{Port: "6443"}, "10.0.0.5:6443", 421},
		{serving.Options{Port: "6443", Hosts: []string{"My-Box"}}, "my-box:6443", 200},
		{serving.Options{Port: "6443", Hosts: []string{"10.0.0.5"}}, "10.0.0.5:6443", 200},
		{serving.Options{Port: "6443", Hosts: []string{"10.0.0.5"}}, "10.0.0.6:6443", 421},
		{serving.Options{Port: "6443", Hosts: []string{"0.0.0.0"}}, "10.0.0.6:6443", 200},
		{serving.Options{Port: "6443", Hosts: []string{"0.0.0.0"}}, "attacker.example:6443", 421},
	} {
		// Even on a public path and with no token required.
		code, body := serve(t, ok, tc.opts, "GET", "/healthz", tc.host, "")
		require.Equal(t, tc.code, code, "%q with %+v", tc.host, tc.opts)
		if code == 421 {
			require.Contains(t, body, `"kind":"Status"`)
			require.Contains(t, body, `"code":421`)
		}
	}
}

func TestNewCredentials(t *testing.T) {
	c, err := serving.NewCredentials("127.0.0.1", "0.0.0.0", "my-box", "[::1]", "10.0.0.5")
	require.NoError(t, err)
	require.Len(t, c.Token, 43, "32 bytes, base64url without padding")
	other, err := serving.NewToken()
	require.NoError(t, err)
	require.NotEqual(t, c.Token, other)
	pool, err := serving.CertPool(c.CAPEM)
	require.NoError(t, err)
	leaf := c.Cert.Leaf
	require.ElementsMatch(t, []string{"localhost", "my-box"}, leaf.DNSNames)
	var ips []string
	for _, ip := range leaf.IPAddresses {
		ips = append(ips, ip.String())
	}
	require.ElementsMatch(t, []string{"127.0.0.1", "::1", "10.0.0.5"}, ips)
	for _, name := range []string{"localhost", "127.0.0.1", "::1", "my-box", "10.0.0.5"} {
		_, err := leaf.Verify(x509.VerifyOptions{DNSName: name, Roots: pool})
		require.NoError(t, err, name)
	}
	_, err = leaf.Verify(x509.VerifyOptions{DNSName: "attacker.example", Roots: pool})
	require.Error(t, err)
	_, err = serving.CertPool([]byte("no pem"))
	require.Error(t, err)
}

// A served handler reached over TLS with a client built from the written
// kubeconfig; the file is 0600.
func TestKubeconfigClient(t *testing.T) {
	creds, err := serving.NewCredentials()
	require.NoError(t, err)
	ts := httptest.NewUnstartedServer(serving.Handler(ok, serving.Options{Token: creds.Token}))
	ts.TLS = creds.TLSConfig()
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake refused below
	ts.StartTLS()
	defer ts.Close()
	_, port, _ := net.SplitHostPort(ts.Listener.Addr().String())
	path := filepath.Join(t.TempDir(), "sub", "kubeconfig")
	require.NoError(t, serving.WriteKubeconfig(path, serving.Kubeconfig{Server: "https://localhost:" + port, CAData: creds.CAPEM, Token: creds.Token}))
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	kc, err := serving.ReadKubeconfig(path, "")
	require.NoError(t, err)
	require.Equal(t, creds.Token, kc.Token)
	client, err := kc.Client()
	require.NoError(t, err)
	resp, err := client.Get(kc.Server + "/api")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	// A client without the CA does not trust the server.
	_, err = http.Get(kc.Server + "/api")
	require.Error(t, err)

	var doc map[string]any
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(b, &doc))
	require.Equal(t, "ctrlkit", doc["current-context"])
	require.Equal(t, []any{map[string]any{"name": "ctrlkit", "context": map[string]any{"cluster": "ctrlkit", "user": "ctrlkit"}}}, doc["contexts"])
}

// Merging keeps every other entry and field, replaces ctrlkit's, sets
// the current context and keeps the file's mode.
func TestMergeKubeconfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config")
	require.NoError(t, os.WriteFile(path, []byte(`apiVersion: v1
kind: Config
clusters:
- name: prod
  cluster: {server: "https://prod.example:6443", certificate-authority: /etc/prod-ca.crt}
- name: ctrlkit
  cluster: {server: "https://127.0.0.1:1"}
users:
- name: admin
  user: {client-certificate: /x.crt, client-key: /x.key}
contexts:
- name: prod
  context: {cluster: prod, user: admin, namespace: web}
current-context: prod
preferences: {colors: true}
`), 0o640))
	require.NoError(t, serving.MergeKubeconfig(path, serving.Kubeconfig{Server: "https://127.0.0.1:6443", CAData: []byte("PEM"), Token: "tok"}))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, yaml.Unmarshal(b, &doc))
	require.Equal(t, "ctrlkit", doc["current-context"])
	require.Equal(t, map[string]any{"colors": true}, doc["preferences"])
	require.Equal(t, []any{
		map[string]any{"name": "prod", "cluster": map[string]any{"server": "https://prod.example:6443", "certificate-authority": "/etc/prod-ca.crt"}},
		map[string]any{"name": "ctrlkit", "cluster": map[string]any{"server": "https://127.0.0.1:6443", "certificate-authority-data": "UEVN"}},
	}, doc["clusters"])
	require.Equal(t, []any{
		map[string]any{"name": "admin", "user": map[string]any{"client-certificate": "/x.crt", "client-key": "/x.key"}},
		map[string]any{"name": "ctrlkit", "user": map[string]any{"token": "tok"}},
	}, doc["users"])
	require.Len(t, doc["contexts"], 2)
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o640), st.Mode().Perm())
	kc, err := serving.ReadKubeconfig(path, "ctrlkit")
	require.NoError(t, err)
	require.Equal(t, serving.Kubeconfig{Name: "ctrlkit", Server: "https://127.0.0.1:6443", CAData: []byte("PEM"), Token: "tok"}, kc)

	// A missing file is created, 0600.
	fresh := filepath.Join(t.TempDir(), ".kube", "config")
	require.NoError(t, serving.MergeKubeconfig(fresh, serving.Kubeconfig{Server: "https://127.0.0.1:6443", Token: "tok"}))
	st, err = os.Stat(fresh)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())

	// The user's kubeconfig is $KUBECONFIG's first path.
	t.Setenv("KUBECONFIG", fresh+string(filepath.ListSeparator)+path)
	p, err := serving.UserKubeconfig()
	require.NoError(t, err)
	require.Equal(t, fresh, p)
}
