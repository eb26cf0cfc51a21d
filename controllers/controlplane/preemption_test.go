package controlplane_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane"
	"github.com/ctrlkit/ctrlkit/source"
)

// Issue 31: DefaultPreemption on the control plane. A low-priority
// Deployment fills the node; a high-priority one preempts one of its
// pods — the victim gets DisruptionTarget PreemptionByScheduler, is
// deleted, and a Preempted event from default-scheduler names the
// preemptor — and runs on the node it was nominated to, while the
// victim's replacement waits with no victims to preempt.
func TestPreemptionEndToEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		cp, err := controlplane.Start(ctx, controlplane.Options{Nodes: 1})
		require.NoError(t, err)
		defer func() { require.NoError(t, cp.Stop()) }()
		c := cp.Cluster

		objs, err := api.Decode([]byte(`
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: low}
value: 100
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: batch, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: batch}}
  template:
    metadata: {labels: {app: batch}}
    spec:
      priorityClassName: low
      terminationGracePeriodSeconds: 5
      containers: [{name: batch, image: busybox, resources: {requests: {cpu: "2"}}}]
`), api.DecodeOptions{})
		require.NoError(t, err)
		require.NoError(t, cp.Apply(ctx, objs...))
		require.NoError(t, cp.Settle(ctx, 0))

		pods := func(app string) []*api.Pod {
			l, err := c.Pods().List(ctx, source.ListOptions{})
			require.NoError(t, err)
			var out []*api.Pod
			for _, p := range l.Items {
				if p.Labels["app"] == app {
					out = append(out, p)
				}
			}
			return out
		}
		batch := pods("batch")
		require.Len(t, batch, 2)
		for _, p := range batch {
			require.Equal(t, "node-1", p.Spec.NodeName)
		}

		objs, err = api.Decode([]byte(`
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      priorityClassName: high
      containers: [{name: web, image: nginx, resources: {requests: {cpu: "2"}}}]
`), api.DecodeOptions{})
		require.NoError(t, err)
		require.NoError(t, cp.Apply(ctx, objs...))
		require.NoError(t, cp.Settle(ctx, 0))
		time.Sleep(time.Minute)
		synctest.Wait()

		web := pods("web")
		require.Len(t, web, 1)
		require.Equal(t, "node-1", web[0].Spec.NodeName)
		// The binding cleared the nomination (kube's
		// ClearingNominatedNodeNameAfterBinding, on by default).
		require.Empty(t, web[0].Status.NominatedNodeName)
		require.Equal(t, api.PodRunning, web[0].Status.Phase)

		// One of the two batch pods survived; the other was preempted
		// and its replacement is pending.
		var running, pending []*api.Pod
		for _, p := range pods("batch") {
			if p.Spec.NodeName != "" {
				running = append(running, p)
			} else {
				pending = append(pending, p)
			}
		}
		require.Len(t, running, 1)
		require.Len(t, pending, 1)
		cond, ok := pending[0].Status.GetCondition(api.PodScheduled)
		require.True(t, ok)
		require.Equal(t, "0/1 nodes are available: 1 Insufficient cpu."+
			" preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.", cond.Message)

		evs, err := c.Events().List(ctx, source.ListOptions{})
		require.NoError(t, err)
		var preempted []string
		for _, e := range evs.Items {
			if e.Reason == "Preempted" {
				require.Equal(t, "default-scheduler", e.Source.Component)
				require.Equal(t, "Pod", e.InvolvedObject.Kind)
				require.NotEqual(t, running[0].Name, e.InvolvedObject.Name)
				preempted = append(preempted, e.Message)
			}
		}
		require.Equal(t, []string{"Preempted by pod " + string(web[0].UID) + " on node node-1"}, preempted)
	})
}
