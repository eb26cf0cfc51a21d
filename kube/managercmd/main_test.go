package managercmd_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/kube/managercmd"
	"github.com/ctrlkit/ctrlkit/source"
)

// These tests run managercmd.Main against ctrlkit's API server over
// real HTTP (a kubeconfig file, client-go's transport, TLS serving on a
// real port): synctest cannot hold sockets, so every wait is a bounded
// poll with a deadline.

const (
	scraperToken = "scraper-token" // authenticated, may get /metrics
	nobodyToken  = "nobody-token"  // authenticated, may get nothing
)

// lockedWriter is a strings.Builder safe for the command writing and the
// test reading at once.
type lockedWriter struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// reviews answers TokenReviews and SubjectAccessReviews, which ctrlkit's
// API server does not serve, and passes everything else to next.
func reviews(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/apis/authentication.k8s.io/v1/tokenreviews":
			var tr authnv1.TokenReview
			if err := json.NewDecoder(r.Body).Decode(&tr); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			switch tr.Spec.Token {
			case scraperToken:
				tr.Status = authnv1.TokenReviewStatus{Authenticated: true, User: authnv1.UserInfo{Username: "scraper", Groups: []string{"system:authenticated"}}}
			case nobodyToken:
				tr.Status = authnv1.TokenReviewStatus{Authenticated: true, User: authnv1.UserInfo{Username: "nobody"}}
			default:
				tr.Status = authnv1.TokenReviewStatus{Error: "unknown token"}
			}
			tr.APIVersion, tr.Kind = "authentication.k8s.io/v1", "TokenReview"
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			_ = json.NewEncoder(w).Encode(tr)
		case "/apis/authorization.k8s.io/v1/subjectaccessreviews":
			var sar authzv1.SubjectAccessReview
			if err := json.NewDecoder(r.Body).Decode(&sar); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			nr := sar.Spec.NonResourceAttributes
			sar.Status.Allowed = sar.Spec.User == "scraper" && nr != nil && nr.Verb == "get" &&
				(nr.Path == "/metrics" || strings.HasPrefix(nr.Path, "/debug/pprof"))
			sar.APIVersion, sar.Kind = "authorization.k8s.io/v1", "SubjectAccessReview"
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			_ = json.NewEncoder(w).Encode(sar)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// apiServer starts ctrlkit's API server over HTTP and returns its
// cluster and a kubeconfig file reaching it.
func apiServer(t *testing.T) (*cluster.Cluster, string) {
	t.Helper()
	c, err := cluster.New(t.Context(), cluster.Options{})
	require.NoError(t, err)
	srv, err := apiserver.New(c, apiserver.Options{})
	require.NoError(t, err)
	hs := httptest.NewServer(reviews(srv))
	t.Cleanup(hs.Close)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(kubeconfig, fmt.Appendf(nil, `apiVersion: v1
kind: Config
clusters:
- name: test
  cluster:
    server: %s
users:
- name: test
  user:
    token: admin
contexts:
- name: test
  context: {cluster: test, user: test}
current-context: test
`, hs.URL), 0o600))
	return c, kubeconfig
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

// running is one managercmd.Main in a goroutine.
type running struct {
	stderr *lockedWriter
	cancel context.CancelFunc
	done   chan int
}

func start(t *testing.T, args ...string) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	r := &running{stderr: new(lockedWriter), cancel: cancel, done: make(chan int, 1)}
	go func() { r.done <- managercmd.Main(ctx, args, io.Discard, r.stderr) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-r.done:
		case <-time.After(30 * time.Second):
			t.Errorf("manager did not exit; stderr:\n%s", r.stderr)
		}
	})
	return r
}

// stop ends the manager's context and returns its exit code.
func (r *running) stop(t *testing.T) int {
	t.Helper()
	r.cancel()
	select {
	case code := <-r.done:
		r.done <- code
		return code
	case <-time.After(30 * time.Second):
		t.Fatalf("manager did not exit; stderr:\n%s", r.stderr)
		return -1
	}
}

var identityRE = regexp.MustCompile(`identity (\S+)`)

func (r *running) identity(t *testing.T) string {
	t.Helper()
	require.Eventually(t, func() bool { return identityRE.MatchString(r.stderr.String()) }, 20*time.Second, 20*time.Millisecond, "stderr: %s", r.stderr)
	return identityRE.FindStringSubmatch(r.stderr.String())[1]
}

func holder(t *testing.T, c *cluster.Cluster) string {
	leases, err := client.For[*api.Lease](c)
	require.NoError(t, err)
	l, _, err := leases.Get(t.Context(), "kube-system/kube-controller-manager")
	if err != nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

func deployment(ns, name string, replicas int32) *api.Deployment {
	labels := map[string]string{"app": name}
	return &api.Deployment{
		ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name},
		Spec: api.DeploymentSpec{
			Replicas: &replicas,
			Selector: &api.LabelSelector{MatchLabels: labels},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: labels},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}},
			},
		},
	}
}

func count[T api.Object](t *testing.T, c *cluster.Cluster) int {
	r, err := client.For[T](c)
	require.NoError(t, err)
	l, err := r.List(t.Context(), source.ListOptions{})
	require.NoError(t, err)
	return len(l.Items)
}

func get(t *testing.T, url, token string) (int, string) {
	t.Helper()
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // the manager's self-signed certificate
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := hc.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func leArgs(kubeconfig, port string, more ...string) []string {
	return append([]string{"--kubeconfig", kubeconfig, "--secure-port", port,
		"--leader-elect-lease-duration=3s", "--leader-elect-renew-deadline=2s", "--leader-elect-retry-period=200ms"}, more...)
}
