package cli_test

import (
	"context"
	"github.com/ctrlkit/ctrlkit/internal/kubectltest"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The default build serves /metrics in Prometheus' text format, behind
// the token as the API: `kubectl get --raw /metrics` reads
// kube-apiserver's request series (the LIST kubectl just made among
// them), the leader election, scheduler, workqueue and controller-runtime
// series, with a bounded label set (an unknown resource collapses).
func TestKubectlGetRawMetrics(t *testing.T) {
	kubectl := kubectltest.Path(t)
	kubeconfig := t.TempDir() + "/kubeconfig"
	upServing(t, "--kubeconfig", kubeconfig)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	run := func(args ...string) (string, error) {
		out, err := exec.CommandContext(ctx, kubectl, append([]string{"--kubeconfig", kubeconfig, "--cache-dir", t.TempDir()}, args...)...).CombinedOutput()
		return string(out), err
	}
	out, err := run("get", "pods", "-A")
	require.NoError(t, err, out)
	_, err = run("get", "--raw", "/api/v1/namespaces/default/nosuchthings/x")
	require.Error(t, err)
	_, err = run("get", "--raw", "/apis/made.up/v1/namespaces/default/things")
	require.Error(t, err)

	var body string
	require.Eventually(t, func() bool {
		body, err = run("get", "--raw", "/metrics")
		return err == nil && strings.Contains(body, "workqueue_adds_total{") && strings.Contains(body, "controller_runtime_reconcile_total{")
	}, 30*time.Second, 100*time.Millisecond, "%v\n%s", err, body)

	require.Contains(t, body, "# TYPE apiserver_request_total counter\n")
	require.Regexp(t, `(?m)^apiserver_request_total\{verb="LIST",dry_run="",group="",version="v1",resource="pods",subresource="",scope="cluster",component="apiserver",code="200"\} [1-9]`, body)
	// Unknown resources and groups: one series with empty resource labels.
	require.Regexp(t, `(?m)^apiserver_request_total\{verb="GET",dry_run="",group="",version="",resource="",subresource="",scope="",component="apiserver",code="404"\} [2-9]`, body)
	require.NotContains(t, body, "nosuchthings")
	require.NotContains(t, body, "made.up")
	require.Contains(t, body, "# TYPE apiserver_request_duration_seconds histogram\n")
	require.Regexp(t, `(?m)^apiserver_request_duration_seconds_bucket\{verb="LIST",dry_run="",group="",version="v1",resource="pods",subresource="",scope="cluster",component="apiserver",le="0.005"\} \d+$`, body)
	require.Regexp(t, `(?m)^apiserver_request_duration_seconds_bucket\{[^}]*resource="pods"[^}]*le="60"\} \d+$`, body)
	require.Contains(t, body, `leader_election_master_status{name="kube-controller-manager"} 1`)
	require.Regexp(t, `(?m)^scheduler_pending_pods\{queue="active"\} \d+$`, body)
	require.Contains(t, body, "# TYPE scheduler_schedule_attempts_total counter\n")
	require.Regexp(t, `(?m)^scheduler_schedule_attempts_total\{profile="default-scheduler",result="scheduled"\} \d+$`, body)
	require.Regexp(t, `(?m)^scheduler_schedule_attempts_total\{profile="default-scheduler",result="unschedulable"\} \d+$`, body)
	require.Regexp(t, `(?m)^scheduler_pending_pods\{queue="unschedulable"\} \d+$`, body)
	require.Regexp(t, `(?m)^workqueue_depth\{name="\w+",controller="\w+",priority=""\} \d+$`, body)
	require.Regexp(t, `(?m)^controller_runtime_reconcile_time_seconds_count\{controller="\w+"\} \d+$`, body)
	// Every line is a comment or a sample: name{labels} value.
	sample := regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? \S+$`)
	for _, line := range strings.Split(strings.TrimSpace(body), "\n") {
		if !strings.HasPrefix(line, "# ") {
			require.Regexp(t, sample, line)
		}
	}
}
