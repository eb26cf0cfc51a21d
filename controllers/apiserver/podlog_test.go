package apiserver_test

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// t0 is when the simulated containers of these tests started.
var t0 = time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)

// runningPod stores pod p of default on node n1 with containers web
// (restarted once: its previous run exited 2) and side, both running
// since t0, and its log annotation.
func runningPod(t *testing.T, c *cluster.Cluster, annotations map[string]string) {
	t.Helper()
	ctx := t.Context()
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "default", Annotations: annotations},
		Spec: api.PodSpec{NodeName: "n1", Containers: []api.Container{{Name: "web", Image: "nginx"}, {Name: "side", Image: "busybox"}}}}
	_, err := c.Pods().Create(ctx, pod)
	require.NoError(t, err)
	pod, _, err = c.Pods().Get(ctx, "default/p")
	require.NoError(t, err)
	pod.Status.Phase = api.PodRunning
	pod.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(t0.Add(2 * time.Second))}}
	pod.Status.ContainerStatuses = []api.ContainerStatus{
		{Name: "web", Image: "nginx", Ready: true, RestartCount: 1,
			State: api.ContainerState{Running: &api.ContainerStateRunning{StartedAt: api.NewTime(t0)}},
			LastTerminationState: api.ContainerState{Terminated: &api.ContainerStateTerminated{ExitCode: 2, Reason: "Error",
				StartedAt: api.NewTime(t0.Add(-time.Minute)), FinishedAt: api.NewTime(t0.Add(-30 * time.Second)), ContainerID: "sim://1"}}},
		{Name: "side", Image: "busybox", State: api.ContainerState{Running: &api.ContainerStateRunning{StartedAt: api.NewTime(t0)}}},
	}
	_, err = c.Pods().UpdateStatus(ctx, pod)
	require.NoError(t, err)
}

// Issue 32: pods/log serves a deterministic simulated log of a
// container's run with kube's options (container, previous, timestamps,
// sinceTime, sinceSeconds, tailLines, limitBytes) and kube-apiserver's
// and the kubelet's errors.
func TestPodLog(t *testing.T) {
	c, ts := start(t, cluster.Options{})
	runningPod(t, c, map[string]string{"sim.ctrlkit.io/log.web": "one\ntwo\n", "sim.ctrlkit.io/log": "pod-wide"})
	const log = "/api/v1/namespaces/default/pods/p/log"

	r := do(t, ts, "GET", log+"?container=web", "", "")
	require.Equal(t, 200, r.code, r.raw)
	require.Equal(t, "[ctrlkit] container web started: image nginx, restart 1\none\ntwo\n[ctrlkit] container web is ready\n", r.raw)
	require.Equal(t, "[ctrlkit] container side started: image busybox, restart 0\npod-wide\n", do(t, ts, "GET", log+"?container=side", "", "").raw)
	require.Equal(t, "[ctrlkit] container web started: image nginx, restart 0\none\ntwo\n[ctrlkit] container web terminated: Error, exit code 2\n",
		do(t, ts, "GET", log+"?container=web&previous=true", "", "").raw)
	require.Equal(t, "two\n[ctrlkit] container web is ready\n", do(t, ts, "GET", log+"?container=web&tailLines=2", "", "").raw)
	require.Empty(t, do(t, ts, "GET", log+"?container=web&tailLines=0", "", "").raw)
	require.Equal(t, "[ctrl", do(t, ts, "GET", log+"?container=web&limitBytes=5", "", "").raw)
	require.Equal(t, "2026-12-06T10:00:00Z [ctrlkit] container side started: image busybox, restart 0\n2026-12-06T10:00:00Z pod-wide\n",
		do(t, ts, "GET", log+"?container=side&timestamps=true", "", "").raw)
	require.Equal(t, "[ctrlkit] container web is ready\n", do(t, ts, "GET", log+"?container=web&sinceTime=2026-12-06T10:00:01Z", "", "").raw)
	require.Empty(t, do(t, ts, "GET", log+"?container=web&sinceSeconds=1", "", "").raw) // t0 is long ago

	for _, tc := range []struct {
		query, reason, message string
		code                   int
	}{
		{"", "BadRequest", "a container name must be specified for pod p, choose one of: [web side]", 400},
		{"?container=nope", "BadRequest", "container nope is not valid for pod p", 400},
		{"?container=side&previous=true", "BadRequest", `previous terminated container "side" in pod "p" not found`, 400},
		{"?container=web&tailLines=x", "BadRequest", "tailLines", 400},
		{"?container=web&follow=maybe", "BadRequest", "follow", 400},
		{"?container=web&tailLines=-1", "Invalid", "must be greater than or equal to 0", 422},
		{"?container=web&limitBytes=0", "Invalid", "must be greater than 0", 422},
		{"?container=web&sinceSeconds=0", "Invalid", "must be greater than 0", 422},
		{"?container=web&sinceSeconds=5&sinceTime=2026-12-06T10:00:01Z", "Invalid", "at most one of `sinceTime` or `sinceSeconds` may be specified", 422},
		{"?container=web&sinceTime=yesterday", "BadRequest", "sinceTime", 400},
	} {
		r := do(t, ts, "GET", log+tc.query, "", "")
		require.Equal(t, tc.code, r.code, "%s: %s", tc.query, r.raw)
		require.Equal(t, tc.reason, r.body["reason"], tc.query)
		require.Contains(t, r.body["message"], tc.message, tc.query)
	}
	require.Equal(t, 404, do(t, ts, "GET", "/api/v1/namespaces/default/pods/missing/log", "", "").code)
	require.Equal(t, 405, do(t, ts, "POST", log+"?container=web", jsonCT, "{}").code)
	require.Equal(t, 404, do(t, ts, "GET", "/api/v1/namespaces/default/configmaps/x/log", "", "").code)

	// A pod not yet started: the kubelet's message; one not scheduled:
	// an empty log, as kube-apiserver.
	ctx := t.Context()
	_, err := c.Pods().Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "pending", Namespace: "default"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "x", Image: "i"}}}})
	require.NoError(t, err)
	r = do(t, ts, "GET", "/api/v1/namespaces/default/pods/pending/log", "", "")
	require.Equal(t, 200, r.code)
	require.Empty(t, r.raw)
	_, err = c.Bind(ctx, "default", "pending", "n1")
	require.NoError(t, err)
	p, _, err := c.Pods().Get(ctx, "default/pending")
	require.NoError(t, err)
	p.Status.ContainerStatuses = []api.ContainerStatus{{Name: "x", State: api.ContainerState{Waiting: &api.ContainerStateWaiting{Reason: "ContainerCreating"}}}}
	_, err = c.Pods().UpdateStatus(ctx, p)
	require.NoError(t, err)
	r = do(t, ts, "GET", "/api/v1/namespaces/default/pods/pending/log", "", "")
	require.Equal(t, 400, r.code)
	require.Equal(t, `container "x" in pod "pending" is waiting to start: ContainerCreating`, r.body["message"])
}

// Issue 32: a followed log sends the lines so far, then the lines the
// annotation gains, and ends with the run's termination line.
func TestPodLogFollow(t *testing.T) {
	c, ts := start(t, cluster.Options{})
	runningPod(t, c, map[string]string{"sim.ctrlkit.io/log.web": "one"})
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", ts.URL+"/api/v1/namespaces/default/pods/p/log?container=web&follow=true", nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	sc := bufio.NewScanner(resp.Body)
	next := func() string {
		t.Helper()
		require.True(t, sc.Scan(), "stream ended: %v", sc.Err())
		return sc.Text()
	}
	require.Equal(t, "[ctrlkit] container web started: image nginx, restart 1", next())
	require.Equal(t, "one", next())
	require.Equal(t, "[ctrlkit] container web is ready", next())

	pod, _, err := c.Pods().Get(ctx, "default/p")
	require.NoError(t, err)
	pod.Annotations["sim.ctrlkit.io/log.web"] = "one\ntwo\nthree"
	_, err = c.Pods().Update(ctx, pod, "")
	require.NoError(t, err)
	require.Equal(t, "two", next())
	require.Equal(t, "three", next())

	pod, _, err = c.Pods().Get(ctx, "default/p")
	require.NoError(t, err)
	pod.Status.ContainerStatuses[0].State = api.ContainerState{Terminated: &api.ContainerStateTerminated{ExitCode: 0, Reason: "Completed",
		StartedAt: api.NewTime(t0), FinishedAt: api.NewTime(t0.Add(time.Hour))}}
	_, err = c.Pods().UpdateStatus(ctx, pod)
	require.NoError(t, err)
	require.Equal(t, "[ctrlkit] container web terminated: Completed, exit code 0", next())
	require.False(t, sc.Scan(), "the stream ends with the run")
	require.NoError(t, sc.Err())
	require.True(t, strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain"))
}
