package cli_test

import (
	"context"
	"github.com/ctrlkit/ctrlkit/internal/kubectltest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const drainManifest = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 0
      containers: [{name: web, image: nginx}]
      volumes: [{name: scratch, emptyDir: {}}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: default}
spec:
  minAvailable: 2
  selector: {matchLabels: {app: web}}
`

// Issues 31 and 32: `kubectl drain` against `ctrlkit up --listen`. The
// node is cordoned, its pods are evicted through the eviction
// subresource; while the PodDisruptionBudget allows no disruption kubectl
// prints kube-apiserver's refusal and retries, and once the budget allows
// it the drain completes and the Deployment's pods run on the other node.
// `kubectl get pdb` shows the budget's allowed disruptions.
func TestKubectlDrain(t *testing.T) {
	kubectl := kubectltest.Path(t)
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	_, stderr, _ := upServing(t, "--nodes", "2", "--kubeconfig", kc)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Second)
	defer cancel()
	cache := t.TempDir()
	command := func(args ...string) *exec.Cmd {
		return exec.CommandContext(ctx, kubectl, append([]string{"--kubeconfig", kc, "--cache-dir", cache}, args...)...)
	}
	run := func(args ...string) string {
		t.Helper()
		out, err := command(args...).CombinedOutput()
		require.NoError(t, err, "kubectl %s:\n%s\nctrlkit: %s", strings.Join(args, " "), out, stderr)
		return string(out)
	}
	manifest := filepath.Join(t.TempDir(), "web.yaml")
	require.NoError(t, os.WriteFile(manifest, []byte(drainManifest), 0o600))
	require.Eventually(t, func() bool {
		out, err := command("apply", "-f", manifest).CombinedOutput()
		return err == nil && strings.Contains(string(out), "poddisruptionbudget.policy/web")
	}, 20*time.Second, 200*time.Millisecond)

	// Both pods ready: the budget (minAvailable 2) allows no disruption.
	pdbRow := func() []string {
		lines := strings.Split(strings.TrimSpace(run("get", "pdb")), "\n")
		require.Len(t, lines, 2)
		sep := regexp.MustCompile(`\s{2,}`)
		require.Equal(t, []string{"NAME", "MIN AVAILABLE", "MAX UNAVAILABLE", "ALLOWED DISRUPTIONS", "AGE"}, sep.Split(strings.TrimSpace(lines[0]), -1))
		return sep.Split(strings.TrimSpace(lines[1]), -1)[:4]
	}
	require.Eventually(t, func() bool {
		return run("get", "pdb", "web", "-o", "jsonpath={.status.currentHealthy}/{.status.expectedPods}") == "2/2"
	}, 20*time.Second, 200*time.Millisecond)
	require.Equal(t, []string{"web", "2", "N/A", "0"}, pdbRow())
	node := strings.Fields(run("get", "pods", "-l", "app=web", "-o", "jsonpath={.items[*].spec.nodeName}"))[0]

	// The drain blocks on the budget, retrying.
	var out lockedBuffer
	drain := command("drain", node, "--ignore-daemonsets", "--delete-emptydir-data", "--timeout=40s")
	drain.Stdout, drain.Stderr = &out, &out
	require.NoError(t, drain.Start())
	done := make(chan error, 1)
	go func() { done <- drain.Wait() }()
	require.Eventually(t, func() bool {
		return strings.Contains(out.String(), "Cannot evict pod as it would violate the pod's disruption budget.")
	}, 20*time.Second, 100*time.Millisecond, "drain output: %s", &out)
	require.Contains(t, out.String(), "node/"+node+" cordoned")
	require.Contains(t, out.String(), "(will retry after 5s)")
	require.Equal(t, "true", run("get", "node", node, "-o", "jsonpath={.spec.unschedulable}"))
	select {
	case err := <-done:
		t.Fatalf("drain ended while the budget holds: %v\n%s", err, &out)
	default:
	}

	// The budget is relaxed: the drain completes.
	run("patch", "pdb", "web", "--type", "merge", "-p", `{"spec":{"minAvailable":1}}`)
	select {
	case err := <-done:
		require.NoError(t, err, "drain output: %s", &out)
	case <-ctx.Done():
		t.Fatalf("drain did not complete: %s", &out)
	}
	require.Regexp(t, `pod/web-[a-z0-9-]+ evicted`, out.String())
	require.Contains(t, out.String(), "node/"+node+" drained")
	require.Eventually(t, func() bool {
		nodes := run("get", "pods", "-l", "app=web", "--field-selector", "status.phase=Running", "-o", "jsonpath={.items[*].spec.nodeName}")
		return len(strings.Fields(nodes)) == 2 && !strings.Contains(nodes, node)
	}, 20*time.Second, 200*time.Millisecond)
	require.Eventually(t, func() bool { return pdbRow()[3] == "1" }, 20*time.Second, 200*time.Millisecond)
	require.Equal(t, []string{"web", "1", "N/A", "1"}, pdbRow())
}
