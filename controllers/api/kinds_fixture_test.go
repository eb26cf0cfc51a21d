package api_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// TestKindsFixtureCoversRegistry checks testdata/kinds.yaml, the sample
// objects with which the API server, the garbage collector and the kube
// client check that they serve every registered kind: one object of each
// registered kind, in registration order, and nothing else.
func TestKindsFixtureCoversRegistry(t *testing.T) {
	objs, err := api.DecodeFile("testdata/kinds.yaml", api.DecodeOptions{})
	require.NoError(t, err)
	var got []api.GroupVersionKind
	for _, o := range objs {
		got = append(got, o.GroupVersionKind())
		want := "sample"
		if _, ok := o.(*api.CustomResourceDefinition); ok {
			want = "samples.example.com" // a CRD's name is <plural>.<group>
		}
		require.Equal(t, want, o.GetObjectMeta().Name)
	}
	require.Equal(t, api.Kinds(), got, "testdata/kinds.yaml has one sample of every registered kind, in order")
}

// TestScaleFields checks that the kinds with a scale subresource, and
// only they, say where their replicas and selector are, and that the
// fields read and write the object's own (the samples of
// testdata/kinds.yaml).
func TestScaleFields(t *testing.T) {
	objs, err := api.DecodeFile("testdata/kinds.yaml", api.DecodeOptions{})
	require.NoError(t, err)
	for _, o := range objs {
		k, ok := api.InfoOf(o.GroupVersionKind())
		require.True(t, ok)
		require.Equal(t, k.Scale, k.ScaleFields != nil, "%s: ScaleFields set exactly when Scale is", k.Kind)
		if !k.Scale {
			continue
		}
		spec, status, selector := k.ScaleFields(o)
		require.NotNil(t, spec, k.Kind)
		n := int32(7)
		*spec = &n
		again, _, _ := k.ScaleFields(o)
		require.Equal(t, int32(7), **again, "%s: spec.replicas written through the pointer", k.Kind)
		require.Zero(t, status, k.Kind)
		require.Equal(t, "app=sample", selector, k.Kind)
		other, _, _ := k.ScaleFields(&api.ConfigMap{})
		require.Nil(t, other, "%s: an object of another kind has no fields", k.Kind)
	}
}
