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

const sliceManifest = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx, ports: [{name: http, containerPort: 8080}]}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: http}]
`

// Issue 31: `ctrlkit up` runs the EndpointSlice controller. `kubectl get
// endpointslices` lists the service's slice with its two pods, and
// `kubectl describe service` (which reads slices) shows them as its
// Endpoints.
func TestKubectlEndpointSlices(t *testing.T) {
	kubectl := kubectltest.Path(t)
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	_, stderr, _ := upServing(t, "--kubeconfig", kc)
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
	require.NoError(t, os.WriteFile(manifest, []byte(sliceManifest), 0o600))
	require.Eventually(t, func() bool {
		out, err := command("apply", "-f", manifest).CombinedOutput()
		return err == nil && strings.Contains(string(out), "service/web")
	}, 20*time.Second, 200*time.Millisecond)

	sep := regexp.MustCompile(`\s{2,}`)
	var row []string
	require.Eventually(t, func() bool {
		lines := strings.Split(strings.TrimSpace(run("get", "endpointslices", "-l", "kubernetes.io/service-name=web")), "\n")
		if len(lines) != 2 {
			return false
		}
		require.Equal(t, []string{"NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"}, sep.Split(strings.TrimSpace(lines[0]), -1))
		row = sep.Split(strings.TrimSpace(lines[1]), -1)
		return len(row) == 5 && len(strings.Split(row[3], ",")) == 2
	}, 30*time.Second, 200*time.Millisecond, "the slice lists both pods")
	require.Regexp(t, `^web-[a-z0-9]{5}$`, row[0])
	require.Equal(t, []string{"IPv4", "8080"}, row[1:3])
	require.Regexp(t, `^10\.244\.\d+\.\d+,10\.244\.\d+\.\d+$`, row[3])
	require.Equal(t, "endpointslice-controller.k8s.io",
		run("get", "endpointslice", row[0], "-o", "jsonpath={.metadata.labels.endpointslice\\.kubernetes\\.io/managed-by}"))

	// describe lists the ready endpoints: once both pods are ready.
	endpoints := regexp.MustCompile(`(?m)^Endpoints:\s+10\.244\.\d+\.\d+:8080,10\.244\.\d+\.\d+:8080$`)
	require.Eventually(t, func() bool { return endpoints.MatchString(run("describe", "service", "web")) },
		30*time.Second, 200*time.Millisecond, "describe shows the slice's ready endpoints")
}
