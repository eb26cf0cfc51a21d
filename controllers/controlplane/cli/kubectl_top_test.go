package cli_test

import (
	"context"
	"github.com/ctrlkit/ctrlkit/internal/kubectltest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// kubectl top pod and node against `ctrlkit up --listen`: metrics.k8s.io
// is discovered and its PodMetrics and NodeMetrics (the simulated usage
// the HPA reads; 0% load by default) printed.
func TestKubectlTop(t *testing.T) {
	kubectl := kubectltest.Path(t)
	kubeconfig := t.TempDir() + "/kubeconfig"
	upServing(t, "--kubeconfig", kubeconfig)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cache := t.TempDir()
	run := func(args ...string) (string, error) {
		out, err := exec.CommandContext(ctx, kubectl, append([]string{"--kubeconfig", kubeconfig, "--cache-dir", cache}, args...)...).CombinedOutput()
		return string(out), err
	}
	out, err := run("create", "deployment", "web", "--image=nginx", "--replicas=2")
	require.NoError(t, err, out)
	out, err = run("wait", "--for=condition=Available", "deployment/web", "--timeout=30s")
	require.NoError(t, err, out)

	require.Eventually(t, func() bool {
		out, err = run("top", "pod", "-l", "app=web")
		return err == nil && strings.Count(out, "web-") == 2
	}, 30*time.Second, 200*time.Millisecond, "%v\n%s", err, out)
	require.Regexp(t, `(?m)^NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)\s*$`, out)
	require.Regexp(t, `(?m)^web-\S+\s+0m\s+0Mi\s*$`, out)

	out, err = run("top", "pod", "-l", "app=web", "--containers")
	require.NoError(t, err, out)
	require.Regexp(t, `(?m)^web-\S+\s+nginx\s+0m\s+0Mi\s*$`, out)

	out, err = run("top", "node")
	require.NoError(t, err, out)
	require.Regexp(t, `(?m)^NAME\s+CPU\(cores\)\s+CPU\(%\)\s+MEMORY\(bytes\)\s+MEMORY\(%\)\s*$`, out)
	require.Regexp(t, `(?m)^\S+\s+0m\s+0%\s+0Mi\s+0%\s*$`, out)

	out, err = run("get", "--raw", "/apis/metrics.k8s.io/v1beta1")
	require.NoError(t, err, out)
	require.Contains(t, out, `"kind":"PodMetrics"`)
}
