package cli_test

import (
	"context"
	"github.com/ctrlkit/ctrlkit/internal/kubectltest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// pruneSet is the set kubectl apply --prune tests apply: a Deployment, a
// ConfigMap and a Service, in two namespaces.
const (
	pruneDeployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default, labels: {app: x}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 0
      containers: [{name: web, image: nginx}]
`
	pruneConfigMap = `apiVersion: v1
kind: ConfigMap
metadata: {name: cfg, namespace: default, labels: {app: x}}
data: {color: blue}
`
	pruneService = `apiVersion: v1
kind: Service
metadata: {name: svc, namespace: other, labels: {app: x}}
spec:
  selector: {app: web}
  ports: [{port: 80}]
`
)

// kubectlUp starts `ctrlkit up --listen` and returns a kubectl runner on
// it with the environment env added.
func kubectlUp(t *testing.T, ctx context.Context, env ...string) func(args ...string) (string, error) {
	t.Helper()
	kubectl := kubectltest.Path(t)
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	_, stderr, _ := upServing(t, "--kubeconfig", kc)
	cache := t.TempDir()
	return func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, kubectl, append([]string{"--kubeconfig", kc, "--cache-dir", cache}, args...)...)
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return string(out) + "\nctrlkit: " + stderr.String(), err
		}
		return string(out), nil
	}
}

// writeSet writes the manifests docs into a new directory and returns it.
func writeSet(t *testing.T, docs ...string) string {
	t.Helper()
	dir := t.TempDir()
	for i, d := range docs {
		require.NoError(t, os.WriteFile(filepath.Join(dir, string(rune('a'+i))+".yaml"), []byte(d), 0o600))
	}
	return dir
}

// Issue 32: the legacy kubectl apply --prune -l app=x against ctrlkit
// up: applied again without the Deployment, kubectl lists the kinds of
// its default allowlist by the label selector in the namespace and
// deletes the Deployment (its ReplicaSet and pods go with it), keeping
// the others and what the selector does not select.
func TestKubectlApplyPruneLabelSelector(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Second)
	defer cancel()
	kubectlRun := kubectlUp(t, ctx)
	run := func(args ...string) string {
		t.Helper()
		out, err := kubectlRun(args...)
		require.NoError(t, err, "kubectl %s:\n%s", strings.Join(args, " "), out)
		return out
	}
	require.Eventually(t, func() bool { _, err := kubectlRun("get", "namespace", "default"); return err == nil },
		20*time.Second, 100*time.Millisecond)
	svc := strings.Replace(pruneService, "namespace: other", "namespace: default", 1)
	run("create", "configmap", "unlabelled")
	run("create", "configmap", "elsewhere")
	run("label", "configmap", "elsewhere", "app=y")

	all := writeSet(t, pruneDeployment, pruneConfigMap, svc)
	out := run("apply", "--prune", "-l", "app=x", "-f", all)
	require.Contains(t, out, "deployment.apps/web created")
	require.Contains(t, out, "configmap/cfg created")
	require.Contains(t, out, "service/svc created")
	require.Eventually(t, func() bool {
		out, err := kubectlRun("get", "pods", "-l", "app=web", "-o", "name")
		return err == nil && strings.Count(out, "pod/") == 2
	}, 20*time.Second, 100*time.Millisecond)

	out = run("apply", "--prune", "-l", "app=x", "-f", all)
	require.NotContains(t, out, "pruned")

	out = run("apply", "--prune", "-l", "app=x", "-f", writeSet(t, pruneConfigMap, svc))
	require.Contains(t, out, "deployment.apps/web pruned")
	require.NotContains(t, out, "configmap/cfg pruned")
	require.NotContains(t, out, "service/svc pruned")
	require.Eventually(t, func() bool {
		out, err := kubectlRun("get", "deployments,replicasets,pods", "-o", "name")
		return err == nil && strings.TrimSpace(out) == ""
	}, 20*time.Second, 100*time.Millisecond)
	require.Equal(t, "configmap/cfg\nconfigmap/elsewhere\nconfigmap/kube-root-ca.crt\nconfigmap/unlabelled\n", run("get", "configmaps", "-o", "name"))
	run("get", "service", "svc")
}
