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
		require.Equal(t, "sample", o.GetObjectMeta().Name)
	}
	require.Equal(t, api.Kinds(), got, "testdata/kinds.yaml has one sample of every registered kind, in order")
}
