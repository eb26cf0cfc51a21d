package cli_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// --dry-run=server with a real kubectl: create, apply and delete answer
// as kube-apiserver does and store nothing; kubectl diff exits 0 when the
// manifest matches what is stored and 1, printing the diff, when it does
// not — both through dry-run patches that leave the object unchanged.
func TestKubectlDryRunServer(t *testing.T) {
	if _, err := exec.LookPath("diff"); err != nil {
		msg := "kubectl diff needs a diff binary on PATH (diffutils)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	kubectlRun := kubectlOn(t, ctx)
	run := func(args ...string) string {
		t.Helper()
		out, err := kubectlRun(args...)
		require.NoError(t, err, "kubectl %s:\n%s", strings.Join(args, " "), out)
		return out
	}
	dir := t.TempDir()
	manifest := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		return p
	}
	notFound := func(args ...string) {
		t.Helper()
		out, err := kubectlRun(args...)
		require.Error(t, err, out)
		require.Contains(t, out, "NotFound")
	}

	// create: printed as it would be stored, not stored.
	out := run("create", "configmap", "cfg", "--from-literal=color=blue", "--dry-run=server", "-o", "yaml")
	require.Contains(t, out, "color: blue")
	require.Contains(t, out, "uid: ")
	require.Contains(t, out, "creationTimestamp: ")
	notFound("get", "configmap", "cfg")
	require.Equal(t, "deployment.apps/web created (server dry run)\n",
		run("create", "deployment", "web", "--image=nginx:1.27", "--dry-run=server"))
	notFound("get", "deployment", "web")
	// An invalid object is refused in a dry run too.
	out, err := kubectlRun("create", "deployment", "Bad_Name", "--image=nginx", "--dry-run=server")
	require.Error(t, err)
	require.Contains(t, out, `Deployment.apps "Bad_Name" is invalid`)

	// apply: a new object, then a change to a stored one.
	cm := func(color string) string {
		return manifest("cm-"+color+".yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  color: "+color+"\n")
	}
	require.Equal(t, "configmap/cfg created (server dry run)\n", run("apply", "-f", cm("blue"), "--dry-run=server"))
	notFound("get", "configmap", "cfg")
	require.Equal(t, "configmap/cfg created\n", run("apply", "-f", cm("blue")))
	rv := run("get", "configmap", "cfg", "-o", "jsonpath={.metadata.resourceVersion}")
	require.Equal(t, "configmap/cfg configured (server dry run)\n", run("apply", "-f", cm("green"), "--dry-run=server"))
	require.Equal(t, "green", run("apply", "-f", cm("green"), "--dry-run=server", "-o", "jsonpath={.data.color}"))
	require.Equal(t, "blue "+rv, run("get", "configmap", "cfg", "-o", "jsonpath={.data.color} {.metadata.resourceVersion}"))

	// diff: 0 and nothing when the same, 1 and the diff when different.
	out, err = kubectlRun("diff", "-f", cm("blue"))
	require.NoError(t, err, out)
	require.Empty(t, out)
	out, err = kubectlRun("diff", "-f", cm("red"))
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "kubectl diff: %v\n%s", err, out)
	require.Equal(t, 1, exit.ExitCode(), out)
	require.Contains(t, out, "-  color: blue")
	require.Contains(t, out, "+  color: red")
	require.Equal(t, "blue "+rv, run("get", "configmap", "cfg", "-o", "jsonpath={.data.color} {.metadata.resourceVersion}"))

	// delete: reported, not done.
	require.Equal(t, "configmap \"cfg\" deleted (server dry run)\n", run("delete", "configmap", "cfg", "--dry-run=server"))
	require.Equal(t, "blue "+rv, run("get", "configmap", "cfg", "-o", "jsonpath={.data.color} {.metadata.resourceVersion}"))
	// scale, label and patch in a dry run leave it too.
	run("create", "deployment", "web", "--image=nginx:1.27", "--replicas=2")
	run("scale", "deployment", "web", "--replicas=5", "--dry-run=server")
	run("label", "configmap", "cfg", "team=a", "--dry-run=server")
	run("patch", "configmap", "cfg", "-p", `{"data":{"color":"pink"}}`, "--dry-run=server")
	require.Equal(t, "2", run("get", "deployment", "web", "-o", "jsonpath={.spec.replicas}"))
	require.Equal(t, "blue "+rv+" ", run("get", "configmap", "cfg", "-o", "jsonpath={.data.color} {.metadata.resourceVersion} {.metadata.labels}"))
}
