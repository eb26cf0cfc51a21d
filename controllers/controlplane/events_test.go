package controlplane_test

import (
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane"
	"github.com/ctrlkit/ctrlkit/source"
)

// Issue 31: the events of a scenario as a real cluster records them — the
// scheduler's (default-scheduler), the kubelet's (source kubelet, host
// the node) and the node lifecycle controller's (node-controller).
func TestScenarioEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		cp, err := controlplane.Start(ctx, controlplane.Options{Nodes: 1})
		require.NoError(t, err)
		defer func() { require.NoError(t, cp.Stop()) }()
		c := cp.Cluster

		pod := func(name, cpu string) *api.Pod {
			p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name}}
			p.Spec.Containers = []api.Container{{Name: "app", Image: "nginx:1.27",
				Resources: api.ResourceRequirements{Requests: api.ResourceList{api.ResourceCPU: api.MustParse(cpu)}}}}
			return p
		}
		require.NoError(t, cp.Apply(ctx, pod("web", "100m"), pod("huge", "100")))
		require.NoError(t, cp.Settle(ctx, 0))
		time.Sleep(5 * time.Second)
		synctest.Wait()

		// describe lists "<type> <reason> <source> [<fieldPath>: ]<message>"
		// per event.
		describe := func(kind, ns, name string) []string {
			l, err := c.Events().List(ctx, source.ListOptions{})
			require.NoError(t, err)
			var out []string
			for _, e := range l.Items {
				if e.InvolvedObject.Kind != kind || e.InvolvedObject.Namespace != ns || e.InvolvedObject.Name != name {
					continue
				}
				src := e.Source.Component
				if e.Source.Host != "" {
					src += ", " + e.Source.Host
				}
				require.Equal(t, e.Source.Component, e.ReportingController)
				require.Equal(t, e.Source.Host, e.ReportingInstance)
				msg := e.Message
				if p := e.InvolvedObject.FieldPath; p != "" {
					msg = p + ": " + msg // as kubectl describe prints it
				}
				out = append(out, fmt.Sprintf("%s %s %s %s", e.Type, e.Reason, src, msg))
			}
			return out
		}
		require.Equal(t, []string{
			"Normal Scheduled default-scheduler Successfully assigned default/web to node-1",
			`Normal Pulled kubelet, node-1 spec.containers{app}: Container image "nginx:1.27" already present on machine and can be accessed by the pod`,
			"Normal Created kubelet, node-1 spec.containers{app}: Container created",
			"Normal Started kubelet, node-1 spec.containers{app}: Container started",
		}, describe("Pod", "default", "web"))
		require.Equal(t, []string{
			"Warning FailedScheduling default-scheduler 0/1 nodes are available: 1 Insufficient cpu." +
				" preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
		}, describe("Pod", "default", "huge"))
		require.Equal(t, []string{
			"Normal RegisteredNode node-controller Registered Node node-1 in Controller",
		}, describe("Node", "", "node-1"))

		// The node dies: past the grace period the node lifecycle
		// controller marks it and its pods not ready.
		cp.Kubelets[0].Stop()
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		require.Contains(t, describe("Node", "", "node-1"), "Normal NodeNotReady node-controller Node node-1 status is now: NodeNotReady")
		require.Contains(t, describe("Pod", "default", "web"), "Warning NodeNotReady node-controller Node is not ready")

		// The node comes back; deleting the pod kills its container.
		cp.Kubelets[0].Start()
		_, err = c.Pods().Delete(ctx, "default/web", "")
		require.NoError(t, err)
		time.Sleep(time.Minute)
		synctest.Wait()
		require.True(t, slices.ContainsFunc(describe("Pod", "default", "web"), func(s string) bool {
			return s == "Normal Killing kubelet, node-1 spec.containers{app}: Stopping container app"
		}), "%v", describe("Pod", "default", "web"))
	})
}
