package cli_test

import (
	"context"
	"github.com/ctrlkit/ctrlkit/internal/kubectltest"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane"
)

// Issue 32: `kubectl autoscale` creates an autoscaling/v1
// HorizontalPodAutoscaler (a protobuf body), served over the
// autoscaling/v2 store; `kubectl get hpa` prints kube's columns, each
// version reads the same object in its form, and the autoscaler kubectl
// made drives the HPA controller: the HPA and its Deployment, as kubectl
// left them in the store, run in a control plane (in a synctest bubble)
// whose simulated load scales the Deployment, and the status it wrote
// prints in kubectl's TARGETS and REPLICAS.
func TestKubectlAutoscale(t *testing.T) {
	kubectl := kubectltest.Path(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c, err := cluster.New(ctx, cluster.Options{})
	require.NoError(t, err)
	srv, err := apiserver.New(c, apiserver.Options{})
	require.NoError(t, err)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	kc := writeKubeconfig(t, ts.URL)
	cache := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.CommandContext(ctx, kubectl, append([]string{"--kubeconfig", kc, "--cache-dir", cache}, args...)...).CombinedOutput()
		require.NoError(t, err, "kubectl %s:\n%s", strings.Join(args, " "), out)
		return string(out)
	}

	require.Equal(t, "deployment.apps/web created\n", run("create", "deployment", "web", "--image=nginx:1.27", "--replicas=2"))
	require.Equal(t, "deployment.apps/web resource requirements updated\n", run("set", "resources", "deployment", "web", "--requests=cpu=100m"))
	require.Equal(t, "horizontalpodautoscaler.autoscaling/web autoscaled\n", run("autoscale", "deployment", "web", "--min=2", "--max=5", "--cpu-percent=80"))

	out := run("get", "hpa")
	require.Regexp(t, `(?m)^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE\s*$`, out)
	require.Regexp(t, `(?m)^web\s+Deployment/web\s+cpu: <unknown>/80%\s+2\s+5\s+0\s+\d+s\s*$`, out)

	// kubectl keeps the version of a full resource name only: a short
	// name (hpa.v1.autoscaling) resolves to the preferred version, v2
	// (client-go's restmapper shortcutExpander), against kube as here.
	v1 := run("get", "horizontalpodautoscalers.v1.autoscaling", "web", "-o", "yaml")
	require.Contains(t, v1, "apiVersion: autoscaling/v1\n")
	require.Contains(t, v1, "  targetCPUUtilizationPercentage: 80\n")
	require.Contains(t, v1, "  minReplicas: 2\n")
	require.NotContains(t, v1, "metrics:")
	v2 := run("get", "horizontalpodautoscalers.v2.autoscaling", "web", "-o", "yaml")
	require.Contains(t, v2, "apiVersion: autoscaling/v2\n")
	require.Regexp(t, `(?s)metrics:\n  - resource:\n      name: cpu\n      target:\n        averageUtilization: 80\n        type: Utilization\n    type: Resource\n`, v2)

	explain := run("explain", "hpa.spec", "--api-version=autoscaling/v1")
	require.Contains(t, explain, "VERSION:    v1\n")
	require.Regexp(t, `(?m)^  targetCPUUtilizationPercentage\s+<integer>`, explain)
	require.NotContains(t, explain, "metrics")

	// The objects kubectl made run in a control plane: 2 pods at 160% of
	// an 80% target scale to ceil(2 × 160 / 80) = 4, and once those are
	// ready at 160% too, to the maximum, 5.
	hpa, _, err := c.HorizontalPodAutoscalers().Get(ctx, "default/web")
	require.NoError(t, err)
	deploy, _, err := c.Deployments().Get(ctx, "default/web")
	require.NoError(t, err)
	var status api.HorizontalPodAutoscalerStatus
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		cp, err := controlplane.Start(ctx, controlplane.Options{Nodes: 1})
		require.NoError(t, err)
		defer func() { require.NoError(t, cp.Stop()) }()
		cp.Load.SetUtilization("default", 160)
		d, h := deploy.DeepCopy(), hpa.DeepCopy()
		d.ResourceVersion, d.UID, h.ResourceVersion, h.UID = "", "", "", ""
		require.NoError(t, cp.Apply(ctx, d))
		require.NoError(t, cp.Settle(ctx, 0))
		require.NoError(t, cp.Apply(ctx, h))
		seq := []int32{2}
		for range 36 { // 3 minutes
			time.Sleep(5 * time.Second)
			synctest.Wait()
			got, _, err := cp.Cluster.Deployments().Get(ctx, "default/web")
			require.NoError(t, err)
			if n := *got.Spec.Replicas; n != seq[len(seq)-1] {
				seq = append(seq, n)
			}
		}
		require.Equal(t, []int32{2, 4, 5}, seq)
		got, _, err := cp.Cluster.HorizontalPodAutoscalers().Get(ctx, "default/web")
		require.NoError(t, err)
		status = got.Status
	})
	require.EqualValues(t, 5, status.DesiredReplicas)

	hpa.Status = status
	_, err = c.HorizontalPodAutoscalers().UpdateStatus(ctx, hpa)
	require.NoError(t, err)
	out = run("get", "hpa", "web")
	require.Regexp(t, `(?m)^web\s+Deployment/web\s+cpu: 160%/80%\s+2\s+5\s+5\s+\d+s\s*$`, out)
	require.Contains(t, run("get", "horizontalpodautoscalers.v1.autoscaling", "web", "-o", "yaml"), "  currentCPUUtilizationPercentage: 160\n")
}
