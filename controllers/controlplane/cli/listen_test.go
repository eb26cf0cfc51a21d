package cli_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/apiserver/serving"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane/cli"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// upServing runs `up --listen 127.0.0.1:0 args...` until the test ends
// (real sockets: bounded waits, no sleeps beyond polling) and returns
// the URL it serves on once it printed it, and a stop that returns the
// exit code.
func upServing(t *testing.T, args ...string) (url string, stderr *lockedBuffer, stop func() int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	stderr = new(lockedBuffer)
	done := make(chan int, 1)
	go func() {
		done <- cli.Main(ctx, append([]string{"up", "--listen", "127.0.0.1:0", "--nodes", "1", "-f", t.TempDir()}, args...), io.Discard, stderr,
			cli.Options{Stdin: strings.NewReader(""), Terminal: func() bool { return false }})
	}()
	stop = sync.OnceValue(func() int { cancel(); return <-done })
	t.Cleanup(func() { stop() })
	re := regexp.MustCompile(` on (https?://127\.0\.0\.1:\d+)`)
	require.Eventually(t, func() bool {
		m := re.FindStringSubmatch(stderr.String())
		if m != nil {
			url = m[1]
		}
		return m != nil
	}, 30*time.Second, 50*time.Millisecond, "stderr: %s", stderr)
	return url, stderr, stop
}

func get(c *http.Client, url, host, token string) (int, string) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, err.Error()
	}
	if host != "" {
		req.Host = host
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

const unauthorized = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`

// `up --listen` serves the Kubernetes API of the running control plane and
// the manager's endpoints on one loopback port, over TLS behind a token,
// and writes the kubeconfig that reaches it; a non-loopback address is
// refused.
func TestUpListen(t *testing.T) {
	var errOut lockedBuffer
	require.Equal(t, 2, cli.Main(t.Context(), []string{"up", "--listen", "0.0.0.0:0"}, io.Discard, &errOut, cli.Options{}))
	require.Contains(t, errOut.String(), "--listen-non-loopback")

	kubeconfig := filepath.Join(t.TempDir(), "dir", "kubeconfig")
	url, stderr, stop := upServing(t, "--kubeconfig", kubeconfig, "--pprof")
	require.True(t, strings.HasPrefix(url, "https://"), url)
	require.Contains(t, stderr.String(), "kubeconfig: "+kubeconfig)
	st, err := os.Stat(kubeconfig)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	kc, err := serving.ReadKubeconfig(kubeconfig, "ctrlkit")
	require.NoError(t, err)
	require.Equal(t, url, kc.Server)
	client, err := kc.Client()
	require.NoError(t, err)
	client.Timeout = 5 * time.Second

	require.Eventually(t, func() bool {
		code, body := get(client, url+"/api/v1/nodes", "", "")
		return code == http.StatusOK && strings.Contains(body, `"name":"node-1"`)
	}, 30*time.Second, 50*time.Millisecond, "stderr: %s", stderr)
	// The manager leads once it has won its election and synced: wait for
	// that, not for a proxy of it.
	require.Eventually(t, func() bool {
		code, body := get(client, url+"/readyz", "", "")
		return code == http.StatusOK && strings.Contains(body, "leader: true")
	}, 30*time.Second, 50*time.Millisecond)
	code, body := get(client, url+"/apis/apps/v1", "", "")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, `"name":"deployments"`)
	// The root CA publisher put the serving CA in every namespace, as in
	// a real cluster (pods verify the API server with it).
	require.Eventually(t, func() bool {
		code, body = get(client, url+"/api/v1/namespaces/default/configmaps/kube-root-ca.crt", "", "")
		return code == http.StatusOK
	}, 30*time.Second, 50*time.Millisecond)
	var rootCA struct {
		Data map[string]string `json:"data"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &rootCA))
	require.Equal(t, string(kc.CAData), rootCA.Data["ca.crt"])
	code, body = get(client, url+"/metrics", "", "")
	require.Equal(t, http.StatusOK, code, "the core build serves /metrics")
	require.Contains(t, body, "# TYPE apiserver_request_total counter")
	code, body = get(client, url+"/debug/pprof/", "", "")
	require.Equal(t, http.StatusOK, code, "--pprof serves the profiler")
	require.Contains(t, body, "goroutine")

	// Without the token, or with another: 401 with kube's Status.
	anonymous, err := serving.Kubeconfig{CAData: kc.CAData}.Client()
	require.NoError(t, err)
	for _, path := range []string{"/api/v1/secrets", "/api/v1/nodes", "/debug/pprof/", "/metrics"} {
		code, body = get(anonymous, url+path, "", "")
		require.Equal(t, http.StatusUnauthorized, code, path)
		require.JSONEq(t, unauthorized, body, path)
		code, body = get(anonymous, url+path, "", kc.Token[:len(kc.Token)-1]+"x")
		require.Equal(t, http.StatusUnauthorized, code, path)
		require.JSONEq(t, unauthorized, body, path)
	}
	for _, path := range []string{"/healthz", "/livez", "/readyz", "/version"} {
		code, _ = get(anonymous, url+path, "", "")
		require.Equal(t, http.StatusOK, code, "%s is public, as in kube-apiserver", path)
	}
	// DNS rebinding: the attacker's name in the Host header.
	port := url[strings.LastIndex(url, ":")+1:]
	code, body = get(client, url+"/api/v1/secrets", "attacker.example:"+port, "")
	require.Equal(t, http.StatusMisdirectedRequest, code)
	require.Contains(t, body, `"kind":"Status"`)
	code, _ = get(client, url+"/api/v1/secrets", "localhost:"+port, "")
	require.Equal(t, http.StatusOK, code)
	// Plain HTTP to the TLS port is refused.
	code, _ = get(&http.Client{Timeout: 5 * time.Second}, "http"+strings.TrimPrefix(url, "https")+"/api/v1/secrets", "", "")
	require.Equal(t, http.StatusBadRequest, code)
	require.Equal(t, 0, stop(), "stderr: %s", stderr)
}

// The opt-out serves plain HTTP without authentication, and says so; the
// Host check stays, and pprof is not served without --pprof.
func TestUpListenInsecure(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	url, stderr, stop := upServing(t, "--insecure-http-no-auth", "--kubeconfig", kubeconfig)
	require.True(t, strings.HasPrefix(url, "http://"), url)
	require.Contains(t, stderr.String(), "WITHOUT TLS OR AUTHENTICATION")
	client := &http.Client{Timeout: 5 * time.Second}
	require.Eventually(t, func() bool {
		code, body := get(client, url+"/api/v1/nodes", "", "")
		return code == http.StatusOK && strings.Contains(body, `"name":"node-1"`)
	}, 30*time.Second, 50*time.Millisecond, "stderr: %s", stderr)
	code, _ := get(client, url+"/debug/pprof/", "", "")
	require.Equal(t, http.StatusNotFound, code, "pprof only with --pprof")
	code, _ = get(client, url+"/api/v1/secrets", "attacker.example", "")
	require.Equal(t, http.StatusMisdirectedRequest, code)
	kc, err := serving.ReadKubeconfig(kubeconfig, "")
	require.NoError(t, err)
	require.Equal(t, serving.Kubeconfig{Name: "ctrlkit", Server: url}, kc)
	require.Equal(t, 0, stop(), "stderr: %s", stderr)
}

// --merge-kubeconfig merges into $KUBECONFIG, keeping what is there.
func TestUpListenMergeKubeconfig(t *testing.T) {
	user := filepath.Join(t.TempDir(), "config")
	require.NoError(t, os.WriteFile(user, []byte("apiVersion: v1\nkind: Config\nclusters:\n- name: prod\n  cluster: {server: \"https://prod.example\"}\ncurrent-context: prod\n"), 0o600))
	t.Setenv("KUBECONFIG", user)
	url, stderr, stop := upServing(t, "--kubeconfig", filepath.Join(t.TempDir(), "own"), "--merge-kubeconfig")
	require.Contains(t, stderr.String(), "merged cluster, user and context \"ctrlkit\" into "+user)
	b, err := os.ReadFile(user)
	require.NoError(t, err)
	require.Contains(t, string(b), "https://prod.example")
	require.Contains(t, string(b), "current-context: ctrlkit")
	kc, err := serving.ReadKubeconfig(user, "")
	require.NoError(t, err)
	require.Equal(t, url, kc.Server)
	require.NotEmpty(t, kc.Token)
	require.Equal(t, 0, stop(), "stderr: %s", stderr)
}

// The flags of serving need --listen.
func TestUpServingFlagsNeedListen(t *testing.T) {
	for _, f := range []string{"--pprof", "--insecure-http-no-auth", "--merge-kubeconfig", "--kubeconfig=x"} {
		var errOut lockedBuffer
		require.Equal(t, 2, cli.Main(t.Context(), []string{"up", f}, io.Discard, &errOut, cli.Options{}), f)
		require.Contains(t, errOut.String(), "need --listen")
	}
}
