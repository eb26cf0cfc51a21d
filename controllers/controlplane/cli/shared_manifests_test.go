package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/controlplane/cli"
	"github.com/ctrlkit/ctrlkit/internal/sharedtest"
)

// The real manifests of the shared folder, read in place. The CronJob in
// batch/v1beta1 (removed in Kubernetes 1.25) is refused with kubectl's
// words, as against a v1.37 server, and the command fails; the other
// documents are still applied.
func TestUpRefusesRemovedVersions(t *testing.T) {
	dir := sharedtest.Dir(t, "manifests")
	synctest.Test(t, func(t *testing.T) {
		var out, errOut bytes.Buffer
		code := cli.Main(t.Context(), []string{"up", "--once", "--nodes", "1", "--quiet", "10s", "-f", filepath.Join(dir, "hello-cronjob.yaml"), "-f", filepath.Join(dir, "pi-job.yaml")}, &out, &errOut, cli.Options{})
		require.Equal(t, 1, code, "stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
		all := out.String() + errOut.String()
		require.Contains(t, all, `CronJob "hello": no matches for kind "CronJob" in version "batch/v1beta1" (removed from Kubernetes; the current version is batch/v1)`)
		require.Regexp(t, `default\s+pi\s+Complete\s+1/1`, out.String(), "the other manifest is applied")
		require.NotRegexp(t, `default\s+hello\s+\*/1`, out.String())
	})
}

// With --accept-removed-versions every shared manifest runs unchanged to
// the state it describes (the bare pod's namespace comes from a file of
// the test's own, as a real cluster needs it too).
func TestUpSharedManifestsAcceptRemoved(t *testing.T) {
	dir := sharedtest.Dir(t, "manifests")
	ns := filepath.Join(t.TempDir(), "ns.yaml")
	require.NoError(t, os.WriteFile(ns, []byte("apiVersion: v1\nkind: Namespace\nmetadata: {name: demo}\n"), 0o600))
	synctest.Test(t, func(t *testing.T) {
		var out, errOut bytes.Buffer
		code := cli.Main(t.Context(), []string{"up", "--once", "--nodes", "3", "--quiet", "10s", "--accept-removed-versions", "-f", ns, "-f", dir}, &out, &errOut, cli.Options{})
		require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
		o := out.String()
		for _, row := range []string{
			`default\s+web-0\s+1/1\s+Running`, `default\s+web-1\s+1/1\s+Running`,
			`default\s+web\s+2/2\s+2`,
			// A daemon on each of the 3 simulated nodes; the node registered
			// by hand (node.json) has no kubelet, so its daemon stays Pending.
			`fluentd-elasticsearch\s+4\s+4\s+3\s+4\s+3`,
			`default\s+pi\s+Complete\s+1/1\s+0`,
			`default\s+hello\s+\*/1 \* \* \* \*\s+false`,
			`demo\s+demo-pod\s+1/1\s+Running`,
			`default\s+nginx\s+ClusterIP\s+None\s+80/TCP\s+10\.244\.\d+\.\d+:80,10\.244`,
		} {
			require.Regexp(t, row, o)
		}
	})
}
