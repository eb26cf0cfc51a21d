package managercmd_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/kube/managercmd"
)

// The manager runs the controllers through the HTTP client: a
// Deployment gets its ReplicaSet and pods; the Lease names the manager;
// /healthz is anonymous, /metrics needs a token the server accepts and
// authorizes; a second manager stands by and takes over as soon as the
// first one ends (it resigns the Lease); the first exits 0.
func TestManagerRunsControllersAndHandsOver(t *testing.T) {
	c, kubeconfig := apiServer(t)
	port := freePort(t)
	a := start(t, leArgs(kubeconfig, port, "--controllers=replicaset,deployment")...)
	idA := a.identity(t)
	require.Eventually(t, func() bool { return holder(t, c) == idA }, 20*time.Second, 20*time.Millisecond, "stderr: %s", a.stderr)

	deps, err := client.For[*api.Deployment](c)
	require.NoError(t, err)
	_, err = deps.Create(t.Context(), deployment("default", "web", 3))
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		return count[*api.ReplicaSet](t, c) == 1 && count[*api.Pod](t, c) == 3
	}, 30*time.Second, 50*time.Millisecond, "stderr: %s", a.stderr)

	base := "https://127.0.0.1:" + port
	code, body := get(t, base+"/healthz", "")
	require.Equal(t, http.StatusOK, code, body)
	code, _ = get(t, base+"/livez", "")
	require.Equal(t, http.StatusOK, code)
	require.Eventually(t, func() bool {
		code, body := get(t, base+"/readyz", "")
		return code == http.StatusOK && strings.Contains(body, "leader: true")
	}, 20*time.Second, 50*time.Millisecond)
	code, body = get(t, base+"/metrics", "")
	require.Equal(t, http.StatusUnauthorized, code)
	require.Contains(t, body, "bearer token is required")
	code, body = get(t, base+"/metrics", "wrong")
	require.Equal(t, http.StatusUnauthorized, code, body)
	require.Contains(t, body, "did not accept the token")
	code, body = get(t, base+"/metrics", nobodyToken)
	require.Equal(t, http.StatusForbidden, code)
	require.Contains(t, body, `user "nobody" cannot get path "/metrics"`)
	code, body = get(t, base+"/metrics", scraperToken)
	require.Equal(t, http.StatusOK, code, body)
	require.Contains(t, body, "workqueue_adds_total")
	// client-go's request series, as kube-controller-manager serves them:
	// the manager's GETs and POSTs counted by code, method and host.
	require.Regexp(t, `rest_client_requests_total\{code="200",host="127\.0\.0\.1:\d+",method="GET"\} [1-9]`, body)
	require.Regexp(t, `rest_client_requests_total\{code="201",host="127\.0\.0\.1:\d+",method="POST"\} [1-9]`, body)
	require.Regexp(t, `rest_client_request_duration_seconds_bucket\{host="127\.0\.0\.1:\d+",verb="GET",le="0\.005"\}`, body)
	require.Contains(t, body, "process_start_time_seconds")
	code, _ = get(t, base+"/debug/pprof/", nobodyToken)
	require.Equal(t, http.StatusForbidden, code)

	b := start(t, leArgs(kubeconfig, "0")...)
	idB := b.identity(t)
	require.NotEqual(t, idA, idB)
	require.Never(t, func() bool { return holder(t, c) != idA }, time.Second, 50*time.Millisecond, "b stands by while a renews")

	require.Equal(t, 0, a.stop(t), "stderr: %s", a.stderr)
	// a resigned: b takes over within a retry period or so, well before
	// the 3 s lease would have expired.
	stopped := time.Now()
	require.Eventually(t, func() bool { return holder(t, c) == idB }, 20*time.Second, 10*time.Millisecond, "stderr: %s", b.stderr)
	require.Less(t, time.Since(stopped), 3*time.Second, "takeover by release, not by expiry")

	// b runs the controllers now: a scale-up reaches the pods.
	d, _, err := deps.Get(t.Context(), "default/web")
	require.NoError(t, err)
	five := int32(5)
	d.Spec.Replicas = &five
	_, err = deps.Update(t.Context(), d, "")
	require.NoError(t, err)
	require.Eventually(t, func() bool { return count[*api.Pod](t, c) == 5 }, 30*time.Second, 50*time.Millisecond, "stderr: %s", b.stderr)
	require.Equal(t, 0, b.stop(t), "stderr: %s", b.stderr)
	require.Equal(t, "", holder(t, c), "b released the Lease on exit")
}

// --controllers=replicaset,-deployment: the ReplicaSet controller acts,
// the Deployment controller does not run (kube-controller-manager's
// syntax: without "*", "-foo" only excludes).
func TestControllersFlagLeavesDeploymentAlone(t *testing.T) {
	c, kubeconfig := apiServer(t)
	m := start(t, "--kubeconfig", kubeconfig, "--secure-port=0", "--leader-elect=false", "--controllers=replicaset,-deployment")
	deps, err := client.For[*api.Deployment](c)
	require.NoError(t, err)
	_, err = deps.Create(t.Context(), deployment("default", "web", 2))
	require.NoError(t, err)
	rss, err := client.For[*api.ReplicaSet](c)
	require.NoError(t, err)
	two := int32(2)
	d := deployment("default", "bare", 2)
	_, err = rss.Create(t.Context(), &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "bare"},
		Spec: api.ReplicaSetSpec{Replicas: &two, Selector: d.Spec.Selector, Template: d.Spec.Template}})
	require.NoError(t, err)
	// Once the bare ReplicaSet has its pods, the manager has been
	// running with synced caches; it started the ReplicaSet controller
	// alone, and once stopped (every worker drained) the Deployment has
	// got nothing.
	require.Eventually(t, func() bool { return count[*api.Pod](t, c) == 2 }, 30*time.Second, 50*time.Millisecond, "stderr: %s", m.stderr)
	require.Contains(t, m.stderr.String(), "controllers: replicaset-controller\n")
	require.Equal(t, 0, m.stop(t))
	require.Equal(t, 1, count[*api.ReplicaSet](t, c), "only the bare ReplicaSet")
}

// Bad flags exit 2 with a message naming the problem.
func TestBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"--controllers=nope"}, `unknown controller "nope"`},
		{[]string{"--kube-api-qps=0"}, "--kube-api-qps must be positive"},
		{[]string{"--kube-api-burst=0"}, "--kube-api-burst must be at least 1"},
		{[]string{"--concurrent-deployment-syncs=0"}, "--concurrent-deployment-syncs must be at least 1"},
		{[]string{"--secure-port=70000"}, "--secure-port must be in 0..65535"},
		{[]string{"--tls-cert-file=x"}, "go together"},
		{[]string{"extra"}, "unexpected arguments"},
		{[]string{"--kubeconfig=/nonexistent", "--leader-elect-renew-deadline=20s"}, "want RetryPeriod"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var stderr lockedWriter
			args := tc.args
			if tc.want == "want RetryPeriod" {
				_, kubeconfig := apiServer(t)
				args = []string{"--kubeconfig", kubeconfig, "--secure-port=0", tc.args[1]}
			}
			require.Equal(t, 2, managercmd.Main(t.Context(), args, nil, &stderr), "stderr: %s", stderr.String())
			require.Contains(t, stderr.String(), tc.want)
		})
	}
}

// The Lease is renewed through a client of its own, as
// kube-controller-manager's leader-election client: a new leader's
// catching up (a list per kind) and its controllers spend the manager's
// whole client-side rate limit (here 5 queries per second, seconds of
// queued requests), and never starve the renewals: the leader keeps its
// 3 s lease.
func TestLeaseRenewalsNotThrottledByControllers(t *testing.T) {
	c, kubeconfig := apiServer(t)
	m := start(t, leArgs(kubeconfig, "0", "--kube-api-qps=5", "--kube-api-burst=1")...)
	id := m.identity(t)
	require.Eventually(t, func() bool { return holder(t, c) == id }, 60*time.Second, 10*time.Millisecond, "stderr: %s", m.stderr)
	// Over two lease durations while requests queue on the rate limit.
	require.Never(t, func() bool {
		return holder(t, c) != id || strings.Contains(m.stderr.String(), "leadership lost")
	}, 8*time.Second, 50*time.Millisecond, "stderr: %s", m.stderr)
	require.Eventually(t, func() bool { return strings.Contains(m.stderr.String(), "leading; starting controllers") },
		60*time.Second, 50*time.Millisecond, "stderr: %s", m.stderr)
	require.Equal(t, id, holder(t, c))
	require.Equal(t, 0, m.stop(t), "stderr: %s", m.stderr)
}
