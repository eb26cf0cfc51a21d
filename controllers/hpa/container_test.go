package hpa_test

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane"
	"github.com/ctrlkit/ctrlkit/source"
)

// A ContainerResource metric scales on the app container alone (its
// sidecar does not dilute it), beside a memory metric that cannot be
// computed (the pods request no memory): as kcm, the autoscaler scales
// up on the metric that works, its current metrics line up with
// spec.metrics (the failed one's entry empty), and it records kcm's
// events — the failing metric's, then SuccessfulRescale. Once every
// metric fails, ScalingActive is False and FailedComputeMetricsReplicas
// is recorded.
func TestContainerResourceMetricAndEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		cp, err := controlplane.Start(ctx, controlplane.Options{Nodes: 2})
		require.NoError(t, err)
		defer func() { require.NoError(t, cp.Stop()) }()
		c := cp.Cluster
		always := api.ContainerRestartPolicy("Always")
		cpu := func(m string) api.ResourceRequirements {
			return api.ResourceRequirements{Requests: api.ResourceList{api.ResourceCPU: api.MustParse(m)}}
		}
		two := int32(2)
		app := map[string]string{"app": "web"}
		d := &api.Deployment{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"},
			Spec: api.DeploymentSpec{Replicas: &two, Selector: &api.LabelSelector{MatchLabels: app},
				Template: api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: app}, Spec: api.PodSpec{
					InitContainers: []api.Container{{Name: "proxy", Image: "envoy:1", RestartPolicy: &always, Resources: cpu("100m")}},
					Containers:     []api.Container{{Name: "app", Image: "nginx:1.27", Resources: cpu("100m")}}}}}}
		hundred, eighty := int32(100), int32(80)
		h := &api.HorizontalPodAutoscaler{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"},
			Spec: api.HorizontalPodAutoscalerSpec{ScaleTargetRef: api.CrossVersionObjectReference{Kind: "Deployment", Name: "web", APIVersion: "apps/v1"},
				MinReplicas: &two, MaxReplicas: 3, Metrics: []api.MetricSpec{
					{Type: api.ContainerResourceMetricSourceType, ContainerResource: &api.ContainerResourceMetricSource{Name: api.ResourceCPU, Container: "app",
						Target: api.MetricTarget{Type: api.UtilizationMetricType, AverageUtilization: &hundred}}},
					{Type: api.ResourceMetricSourceType, Resource: &api.ResourceMetricSource{Name: api.ResourceMemory,
						Target: api.MetricTarget{Type: api.UtilizationMetricType, AverageUtilization: &eighty}}},
				}}}
		require.NoError(t, cp.Apply(ctx, d))
		require.NoError(t, cp.Settle(ctx, 0))
		cp.Load.SetUtilization("default", 150) // the app containers at 150m of 100m
		require.NoError(t, cp.Apply(ctx, h))
		time.Sleep(time.Minute)
		require.NoError(t, cp.Settle(ctx, 0))

		got, _, err := c.Deployments().Get(ctx, "default/web")
		require.NoError(t, err)
		require.Equal(t, int32(3), *got.Spec.Replicas)
		a, _, err := c.HorizontalPodAutoscalers().Get(ctx, "default/web")
		require.NoError(t, err)
		require.Len(t, a.Status.CurrentMetrics, 2)
		cr := a.Status.CurrentMetrics[0].ContainerResource
		require.NotNil(t, cr)
		require.Equal(t, "app", cr.Container)
		require.Equal(t, int32(150), *cr.Current.AverageUtilization)
		require.Equal(t, "150m", cr.Current.AverageValue.String())
		require.Equal(t, api.MetricStatus{}, a.Status.CurrentMetrics[1], "the failed metric's entry is empty")
		cond := func(typ string) api.HorizontalPodAutoscalerCondition {
			for _, c := range a.Status.Conditions {
				if c.Type == typ {
					return c
				}
			}
			return api.HorizontalPodAutoscalerCondition{}
		}
		require.Equal(t, "the HPA was able to successfully calculate a replica count from cpu container resource utilization (percentage of request)", cond("ScalingActive").Message)

		events := func() []string {
			l, err := c.Events().List(ctx, source.ListOptions{})
			require.NoError(t, err)
			var out []string
			for _, e := range l.Items {
				if e.InvolvedObject.Kind == "HorizontalPodAutoscaler" && e.InvolvedObject.Name == "web" {
					require.Equal(t, "horizontal-pod-autoscaler", e.Source.Component)
					out = append(out, fmt.Sprintf("%s %s %s", e.Type, e.Reason, e.Message))
				}
			}
			return out
		}
		evs := strings.Join(events(), "\n")
		require.Contains(t, evs, "Normal SuccessfulRescale New size: 3; reason: cpu container resource utilization (percentage of request) above target")
		require.Regexp(t, `Warning FailedGetResourceMetric failed to get memory utilization: missing request for memory in container app of Pod web-[a-z0-9]+-[a-z0-9]+`, evs)

		// Now the container metric names a container the pods lack: the
		// metrics API has no sample of it, so every pod is missing one (as
		// kcm, before it would look at the container's requests), and every
		// metric fails.
		a.Spec.Metrics[0].ContainerResource.Container = "web"
		_, err = c.HorizontalPodAutoscalers().Update(ctx, a, "")
		require.NoError(t, err)
		time.Sleep(time.Minute)
		require.NoError(t, cp.Settle(ctx, 0))
		a, _, err = c.HorizontalPodAutoscalers().Get(ctx, "default/web")
		require.NoError(t, err)
		active := cond("ScalingActive")
		require.Equal(t, api.ConditionFalse, active.Status)
		require.Equal(t, "FailedGetContainerResourceMetric", active.Reason)
		require.Regexp(t, `^the HPA was unable to compute the replica count: failed to get cpu utilization: did not receive metrics for targeted pods \(pods might be unready\)$`, active.Message)
		require.Equal(t, []api.MetricStatus{{}, {}}, a.Status.CurrentMetrics)
		evs = strings.Join(events(), "\n")
		require.Regexp(t, `Warning FailedComputeMetricsReplicas invalid metrics \(2 invalid out of 2\), first error is: failed to get web container metric value: failed to get cpu utilization: did not receive metrics for targeted pods \(pods might be unready\)`, evs)
	})
}
