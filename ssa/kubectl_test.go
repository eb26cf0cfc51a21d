package ssa

import (
	"context"
	"github.com/ctrlkit/ctrlkit/internal/kubectltest"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/stretchr/testify/require"
)

// kubectlOn returns a function running a real kubectl against the API
// server (with this package's field manager) of a new cluster without
// controllers, served in this process; as
// controllers/controlplane/cli's kubectl tests.
func kubectlOn(t *testing.T, ctx context.Context) func(args ...string) (string, error) {
	t.Helper()
	kubectl := kubectltest.Path(t)
	c, err := cluster.New(ctx, cluster.Options{})
	require.NoError(t, err)
	fm, err := New()
	require.NoError(t, err)
	srv, err := apiserver.New(c, apiserver.Options{FieldManager: fm})
	require.NoError(t, err)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(kc, []byte(`apiVersion: v1
kind: Config
clusters:
- name: ctrlkit
  cluster: {server: "`+ts.URL+`"}
contexts:
- name: ctrlkit
  context: {cluster: ctrlkit, user: nobody}
current-context: ctrlkit
users:
- name: nobody
  user: {}
`), 0o600))
	cache := t.TempDir()
	return func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, kubectl, append([]string{"--kubeconfig", kc, "--cache-dir", cache}, args...)...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
}

// A real kubectl's server-side apply: create with an Apply entry,
// re-apply a change, a conflict with another manager's update that
// kubectl reports and --force-conflicts settles, a field dropped from
// the file removed, managed fields shown with --show-managed-fields,
// and --dry-run=server storing nothing. The conflicting update is a
// kubectl patch; kubectl scale, through the scale subresource, takes
// spec.replicas too, and a re-apply conflicts with it.
func TestKubectlServerSideApply(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	kubectl := kubectlOn(t, ctx)
	run := func(args ...string) string {
		t.Helper()
		out, err := kubectl(args...)
		require.NoError(t, err, "kubectl %s:\n%s", strings.Join(args, " "), out)
		return out
	}
	dir := t.TempDir()
	file := func(name string, replicas int, extra string) string {
		p := filepath.Join(dir, name)
		body := sprintf(deploy, replicas)
		if extra != "" {
			body = strings.Replace(body, "  replicas:", extra+"\n  replicas:", 1)
		}
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		return p
	}
	get := func(jsonpath string) string {
		t.Helper()
		return run("get", "deployment", "web", "-o", "jsonpath="+jsonpath)
	}

	// Dry run first: nothing stored.
	out := run("apply", "--server-side", "--dry-run=server", "-f", file("d.yaml", 2, ""))
	require.Contains(t, out, "deployment.apps/web serverside-applied (server dry run)")
	_, err := kubectl("get", "deployment", "web")
	require.Error(t, err)

	out = run("apply", "--server-side", "-f", file("d.yaml", 2, ""))
	require.Contains(t, out, "deployment.apps/web serverside-applied")
	require.Equal(t, "2", get("{.spec.replicas}"))
	require.Equal(t, "kubectl Apply apps/v1", get(`{.metadata.managedFields[0].manager} {.metadata.managedFields[0].operation} {.metadata.managedFields[0].apiVersion}`))

	// -o yaml hides managedFields unless asked (kubectl does that).
	require.NotContains(t, run("get", "deployment", "web", "-o", "yaml"), "managedFields")
	shown := run("get", "deployment", "web", "-o", "yaml", "--show-managed-fields")
	require.Contains(t, shown, "managedFields:")
	require.Contains(t, shown, "manager: kubectl")
	require.Contains(t, shown, "f:replicas: {}")

	// A re-apply with a change updates.
	run("apply", "--server-side", "-f", file("d.yaml", 3, ""))
	require.Equal(t, "3", get("{.spec.replicas}"))

	// kubectl patch is an Update by another manager (kubectl-patch); an
	// apply of a different replicas by a third conflicts with it.
	run("patch", "deployment", "web", "--type=merge", "-p", `{"spec":{"replicas":5}}`)
	out, err = kubectl("apply", "--server-side", "--field-manager=other", "-f", file("d.yaml", 4, ""))
	require.Error(t, err)
	require.Contains(t, out, `Apply failed with 1 conflict: conflict with "kubectl-patch" using apps/v1: .spec.replicas`)
	require.Equal(t, "5", get("{.spec.replicas}"))

	out = run("apply", "--server-side", "--field-manager=other", "--force-conflicts", "-f", file("d.yaml", 4, ""))
	require.Contains(t, out, "serverside-applied")
	require.Equal(t, "4", get("{.spec.replicas}"))
	shown = run("get", "deployment", "web", "-o", "yaml", "--show-managed-fields")
	require.Contains(t, shown, "manager: other")

	// A field the manager stops applying, owned by nobody else, goes.
	run("apply", "--server-side", "--field-manager=labels", "-f", file("l.yaml", 4, "  minReadySeconds: 7"))
	require.Equal(t, "7", get("{.spec.minReadySeconds}"))
	run("apply", "--server-side", "--field-manager=labels", "-f", file("l.yaml", 4, ""))
	require.Equal(t, "", get("{.spec.minReadySeconds}"))
	require.Equal(t, "4", get("{.spec.replicas}"), "replicas is still owned by other")

	// kubectl scale owns spec.replicas through the scale subresource (the
	// manager is its User-Agent's "kubectl").
	run("scale", "deployment", "web", "--replicas=6")
	require.Equal(t, "6", get("{.spec.replicas}"))
	out, err = kubectl("apply", "--server-side", "--field-manager=other", "-f", file("d.yaml", 4, ""))
	require.Error(t, err)
	require.Contains(t, out, `Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using apps/v1: .spec.replicas`)
	require.Equal(t, "6", get("{.spec.replicas}"))
}
