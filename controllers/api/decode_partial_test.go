package api_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// A bad document is reported with its position and field, and the
// documents around it still decode.
func TestDecodeKeepsGoodDocuments(t *testing.T) {
	objs, err := api.Decode([]byte(`apiVersion: v1
kind: ConfigMap
metadata: {name: a}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicass: 3
---
apiVersion: v1
kind: ConfigMap
metadata: {name: b}
---
kind: [
`), api.DecodeOptions{Source: "demo.yaml"})
	require.Len(t, objs, 2)
	require.Equal(t, "a", objs[0].GetObjectMeta().Name)
	require.Equal(t, "b", objs[1].GetObjectMeta().Name)
	var de *api.DecodeError
	require.ErrorAs(t, err, &de)
	require.Equal(t, 2, de.Doc)
	require.Equal(t, "demo.yaml", de.Source)
	require.ErrorContains(t, err, "spec.replicass")
	var all []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		all = j.Unwrap()
	}
	require.Len(t, all, 2)
	require.True(t, errors.As(all[1], &de))
	require.Equal(t, 4, de.Doc)
}
