package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/controlplane/cli"
)

func writeManifest(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

// upOnce runs `up --once --nodes 1 args...` in a bubble (virtual time).
func upOnce(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		var out, errOut bytes.Buffer
		code = cli.Main(t.Context(), append([]string{"up", "--once", "--nodes", "1"}, args...), &out, &errOut, cli.Options{})
		stdout, stderr = out.String(), errOut.String()
	})
	return code, stdout, stderr
}

// A path that does not exist fails the command before anything runs, as
// kubectl apply -f does.
func TestUpOnceMissingFile(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.yaml")
	fine := writeManifest(t, "cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fine}\n")
	code, out, errOut := upOnce(t, "-f", fine, "-f", missing)
	require.Equal(t, 1, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
	require.Contains(t, errOut, `the path "`+missing+`" does not exist`)
	require.Empty(t, out, "nothing was started")
}

// An object the API refuses fails the command after the rest is applied;
// one that already exists is left as it is and does not.
func TestUpOnceApplyFailure(t *testing.T) {
	bad := writeManifest(t, "bad.yaml", `apiVersion: apps/v1
kind: Deployment
metadata: {name: mismatch}
spec:
  replicas: 1
  selector: {matchLabels: {app: a}}
  template:
    metadata: {labels: {app: b}}
    spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {name: solo}
spec: {containers: [{name: c, image: nginx}]}
`)
	code, out, errOut := upOnce(t, "-f", bad)
	require.Equal(t, 1, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
	require.Contains(t, errOut, "Deployment default/mismatch")
	require.Regexp(t, `default\s+solo\s+1/1\s+Running`, out, "the rest is applied")
	require.Contains(t, out, "failed: 1 of 2 objects failed to apply")

	pod := writeManifest(t, "pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: solo}\nspec: {containers: [{name: c, image: nginx}]}\n")
	code, out, errOut = upOnce(t, "-f", pod, "-f", pod)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
	require.Contains(t, errOut, "already exists")
}

// A readiness probe with an initial delay changes nothing while it waits:
// --once waits for the pods to be Ready, not merely for quiet.
func TestUpOnceWaitsForReadiness(t *testing.T) {
	slow := writeManifest(t, "slow.yaml", `apiVersion: apps/v1
kind: Deployment
metadata: {name: slow}
spec:
  replicas: 2
  selector: {matchLabels: {app: slow}}
  template:
    metadata: {labels: {app: slow}}
    spec:
      containers:
      - name: c
        image: nginx
        readinessProbe:
          httpGet: {path: /, port: 80}
          initialDelaySeconds: 30
          periodSeconds: 10
`)
	code, out, errOut := upOnce(t, "--quiet", "5s", "-f", slow)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
	require.Regexp(t, `(?m)^default\s+slow-\S+\s+1/1\s+Running`, out)
	require.NotRegexp(t, `(?m)^default\s+slow-\S+\s+0/1`, out)
	require.Regexp(t, `default\s+slow\s+2/2\s+2\s+2`, out, "the Deployment is available")
	require.Contains(t, out, "every pod is ready")
}

// A pod that never becomes Ready is a cluster that never settles: exit 1
// with what was not ready.
func TestUpOnceNeverReady(t *testing.T) {
	never := writeManifest(t, "never.yaml", `apiVersion: v1
kind: Pod
metadata:
  name: never
  annotations: {sim.ctrlkit.io/ready: never}
spec:
  containers:
  - name: c
    image: nginx
    readinessProbe: {httpGet: {path: /, port: 80}}
`)
	code, out, errOut := upOnce(t, "--quiet", "5s", "--timeout", "1m", "-f", never)
	require.Equal(t, 1, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
	require.Contains(t, out, "not settled after 1m0s")
	require.Contains(t, out, "pod default/never: not ready (Running on node-1)")
	require.Contains(t, out, "failed: the cluster did not settle")
}
