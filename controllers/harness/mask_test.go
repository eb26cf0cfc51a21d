package harness_test

import (
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/harness"
	"github.com/stretchr/testify/require"
)

// The ready-made masks rewrite what differs from run to run: a
// controller-uid label and selector, an address's IP, a name made of the
// time (in the name and where other objects mention it), the order of
// a list; a mask of another kind leaves an object alone.
func TestMasks(t *testing.T) {
	job := &api.Job{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "tick-29000000",
		Labels: map[string]string{"controller-uid": "8c1e", "batch.kubernetes.io/controller-uid": "8c1e"}}}
	job.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/controller-uid": "8c1e"}}
	got, err := harness.Normalize("Job", []api.Object{job}, harness.MaskControllerUID(), harness.MaskTimeNames("Job", "tick-"))
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, "tick-N", got[0].Name)
	require.NotContains(t, got[0].JSON, "8c1e")
	require.Contains(t, got[0].JSON, `"batch.kubernetes.io/controller-uid":"*"`)
	require.Contains(t, got[0].JSON, `"controller-uid":"*"`)
	require.Contains(t, got[0].JSON, `"name":"tick-N"`)

	ep := &api.Endpoints{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web"},
		Subsets: []api.EndpointSubset{{Addresses: []api.EndpointAddress{{IP: "10.0.0.7"}}}}}
	got, err = harness.Normalize("Endpoints", []api.Object{ep}, harness.MaskIPs())
	require.NoError(t, err)
	require.Contains(t, got[0].JSON, `"ip":"*"`)
	require.NotContains(t, got[0].JSON, "10.0.0.7")

	taints := func(keys ...string) *api.Node {
		n := &api.Node{ObjectMeta: api.ObjectMeta{Name: "node-x"}}
		for _, k := range keys {
			n.Spec.Taints = append(n.Spec.Taints, api.Taint{Key: k, Effect: "NoSchedule"})
		}
		return n
	}
	a, err := harness.Normalize("Node", []api.Object{taints("b", "a")}, harness.SortList("Node", "spec", "taints"))
	require.NoError(t, err)
	b, err := harness.Normalize("Node", []api.Object{taints("a", "b")}, harness.SortList("Node", "spec", "taints"))
	require.NoError(t, err)
	require.Equal(t, b, a)
	unsorted, err := harness.Normalize("Node", []api.Object{taints("b", "a")}, harness.SortList("Pod", "spec", "taints"))
	require.NoError(t, err)
	require.NotEqual(t, b, unsorted, "a mask of another kind")

	_, err = harness.Normalize("Node", nil, harness.Mask{Pattern: "("})
	require.ErrorContains(t, err, "mask 0")
}
