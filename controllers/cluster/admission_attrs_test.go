package cluster_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// Admission sees the object's kind, namespace and name (the generated
// one on a create with generateName), what an AdmissionReview carries.
func TestAdmissionAttributesKindAndName(t *testing.T) {
	var seen []cluster.Attributes
	c := newMemory(t, cluster.Options{Admission: []cluster.AdmissionFunc{func(_ context.Context, a cluster.Attributes) error {
		if a.Resource == "pods" || a.Name == "web" {
			seen = append(seen, a)
		}
		return nil
	}}})
	ctx := t.Context()
	_, err := c.Namespaces().Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "web"}})
	require.NoError(t, err)
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{GenerateName: "p-", Namespace: "web"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}
	_, err = c.Pods().Create(ctx, pod)
	require.NoError(t, err)
	pod.Status.Phase = api.PodRunning
	_, err = c.Pods().UpdateStatus(ctx, pod)
	require.NoError(t, err)

	require.Len(t, seen, 3)
	require.Equal(t, api.GroupVersionKind{Version: "v1", Kind: "Namespace"}, seen[0].Kind)
	require.Equal(t, "", seen[0].Namespace)
	require.Equal(t, "web", seen[0].Name)
	for _, a := range seen[1:] {
		require.Equal(t, api.GroupVersionKind{Version: "v1", Kind: "Pod"}, a.Kind)
		require.Equal(t, "web", a.Namespace)
		require.True(t, strings.HasPrefix(a.Name, "p-") && len(a.Name) > 2, "name %q", a.Name)
	}
	require.Equal(t, "status", seen[2].Subresource)
}
