package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/apiserver/serving"
	"github.com/ctrlkit/ctrlkit/etcd/etcdtest"
)

// syncBuffer is a bytes.Buffer safe for the command writing and the test
// reading at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// replica is one `ctrlkit up` running until stop is called, reached
// through the kubeconfig it wrote (TLS, bearer token).
type replica struct {
	stderr *syncBuffer
	url    string
	client *http.Client
	stop   func() int
}

var servingRE = regexp.MustCompile(` on (https://127\.0\.0\.1:\d+)`)

func startReplica(t *testing.T, args ...string) *replica {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), runTimeout)
	r := &replica{stderr: new(syncBuffer)}
	done := make(chan int, 1)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	go func() {
		done <- run(ctx, append([]string{"up", "--listen", "127.0.0.1:0", "--kubeconfig", kubeconfig}, args...), io.Discard, r.stderr)
	}()
	r.stop = sync.OnceValue(func() int { cancel(); return <-done })
	t.Cleanup(func() { r.stop() })
	eventually(t, func() bool {
		m := servingRE.FindStringSubmatch(r.stderr.String())
		if m != nil {
			r.url = m[1]
		}
		return m != nil
	}, "the replica serves (stderr: %s)", r.stderr)
	kc, err := serving.ReadKubeconfig(kubeconfig, "")
	require.NoError(t, err)
	require.Equal(t, r.url, kc.Server)
	r.client, err = kc.Client()
	require.NoError(t, err)
	r.client.Timeout = 5 * time.Second
	return r
}

func (r *replica) get(path string) string {
	resp, err := r.client.Get(r.url + path)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// eventually polls cond every 100 ms for up to 30 s: the etcd build runs
// in real time against a real etcd server (no synctest bubble holds its
// network I/O), so the wait is a bounded poll.
func eventually(t *testing.T, cond func() bool, msg string, args ...any) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf(msg, args...)
		}
	}
}

// Two replicas on one etcd with --leader-elect: the first leads and its
// controllers' metrics are scraped under client-go's and
// controller-runtime's names; the second, started with --nodes=0, only
// campaigns; when the first stops, it resigns and the second leads.
func TestUpLeaderElectAndMetrics(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two replicas on a real etcd, ~10 s")
	}
	ec := etcdtest.New(t, etcdtest.Options{Members: 1})
	etcdFlag := "--etcd=" + strings.Join(ec.Endpoints(), ",")
	first := startReplica(t, etcdFlag, "--leader-elect", "--nodes=2", "-f", "testdata/app")
	eventually(t, func() bool { return strings.Contains(first.get("/readyz"), "leader: true") }, "the first replica leads: %s", first.get("/readyz"))
	deploymentSynced := regexp.MustCompile(`(?m)^controller_runtime_reconcile_total\{controller="deployment",result="success"\} [1-9]`)
	eventually(t, func() bool { return deploymentSynced.MatchString(first.get("/metrics")) }, "the deployment controller reconciled")
	m := first.get("/metrics")
	for _, name := range []string{
		`workqueue_adds_total{controller="deployment",name="deployment"}`,
		`workqueue_depth{controller="deployment",name="deployment",priority=""}`,
		`workqueue_work_duration_seconds_count{controller="deployment",name="deployment"}`,
		`controller_runtime_reconcile_time_seconds_count{controller="replicaset-controller"}`,
		`go_goroutines `,
	} {
		require.Contains(t, m, name)
	}

	second := startReplica(t, etcdFlag, "--leader-elect", "--nodes=0", "-f", t.TempDir())
	eventually(t, func() bool { return strings.Contains(second.get("/readyz"), "leader: false") }, "the second replica stands by: %s", second.get("/readyz"))
	require.Equal(t, 0, first.stop(), "stderr: %s", first.stderr)
	eventually(t, func() bool { return strings.Contains(second.get("/readyz"), "leader: true") }, "the second replica leads once the first resigned: %s", second.get("/readyz"))
	require.Equal(t, 0, second.stop(), "stderr: %s", second.stderr)
}
