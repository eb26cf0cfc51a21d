package ctrlutil_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/ctrlutil"
)

func replicaSet(name, uid string) *api.ReplicaSet {
	rs := &api.ReplicaSet{
		TypeMeta:   api.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: api.UID(uid)},
	}
	rs.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	rs.Spec.Template.Labels = map[string]string{"app": "web"}
	rs.Spec.Template.Spec.Containers = []api.Container{{Name: "nginx", Image: "nginx:1.27"}}
	return rs
}

func TestControllerReferences(t *testing.T) {
	rs := replicaSet("web", "u1")
	p := newPod("p")
	require.NoError(t, ctrlutil.SetControllerReference(rs, p))
	require.NoError(t, ctrlutil.SetControllerReference(rs, p), "idempotent")
	require.Len(t, p.OwnerReferences, 1)
	ref := ctrlutil.ControllerOf(p)
	require.Equal(t, "ReplicaSet", ref.Kind)
	require.Equal(t, api.UID("u1"), ref.UID)
	require.True(t, *ref.BlockOwnerDeletion)

	other := replicaSet("other", "u2")
	require.ErrorContains(t, ctrlutil.SetControllerReference(other, p), `already controlled by ReplicaSet "web"`)
	elsewhere := newPod("q")
	elsewhere.Namespace = "kube-system"
	require.ErrorContains(t, ctrlutil.SetControllerReference(rs, elsewhere), "must be in its dependents' namespace")

	require.True(t, ctrlutil.RemoveOwnerReference(p, "u1"))
	require.False(t, ctrlutil.RemoveOwnerReference(p, "u1"))
	require.Nil(t, p.OwnerReferences)
}

func TestFinalizers(t *testing.T) {
	p := newPod("p")
	require.True(t, ctrlutil.AddFinalizer(p, "example.com/cleanup"))
	require.False(t, ctrlutil.AddFinalizer(p, "example.com/cleanup"))
	require.True(t, ctrlutil.HasFinalizer(p, "example.com/cleanup"))
	require.True(t, ctrlutil.RemoveFinalizer(p, "example.com/cleanup"))
	require.False(t, ctrlutil.RemoveFinalizer(p, "example.com/cleanup"))
	require.Nil(t, p.Finalizers)
}

func TestPodFromTemplate(t *testing.T) {
	rs := replicaSet("web", "u1")
	rs.Spec.Template.Annotations = map[string]string{"a": "b"}
	p := ctrlutil.PodFromTemplate(&rs.Spec.Template, rs)
	require.Equal(t, "web-", p.GenerateName)
	require.Equal(t, "default", p.Namespace)
	require.Equal(t, map[string]string{"app": "web"}, p.Labels)
	require.Equal(t, "nginx:1.27", p.Spec.Containers[0].Image)
	require.True(t, api.IsControlledBy(p, rs))

	// The pod owns copies: changing it leaves the template alone.
	p.Labels["app"] = "changed"
	p.Spec.Containers[0].Image = "changed"
	require.Equal(t, "web", rs.Spec.Template.Labels["app"])
	require.Equal(t, "nginx:1.27", rs.Spec.Template.Spec.Containers[0].Image)

	long := replicaSet(strings.Repeat("x", 70), "u3")
	p = ctrlutil.PodFromTemplate(&long.Spec.Template, long)
	require.Len(t, p.GenerateName, 58, "room for a 5-character suffix within 63")
}
