package api_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// DecodeInto: JSON and YAML into an unregistered type, strict as Decode
// (unknown fields by path, duplicate keys) unless lenient.
func TestDecodeInto(t *testing.T) {
	var h api.HorizontalPodAutoscalerV1
	require.NoError(t, api.DecodeInto([]byte("apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata: {name: web}\nspec: {maxReplicas: 3, targetCPUUtilizationPercentage: 50}\n"),
		&h, "HorizontalPodAutoscaler", api.DecodeOptions{}))
	require.Equal(t, "web", h.Name)
	require.EqualValues(t, 50, *h.Spec.TargetCPUUtilizationPercentage)

	unknown := []byte(`{"metadata":{"name":"web"},"spec":{"maxReplicas":3,"metrics":[]}}`)
	err := api.DecodeInto(unknown, &api.HorizontalPodAutoscalerV1{}, "HorizontalPodAutoscaler", api.DecodeOptions{Source: "body"})
	require.ErrorIs(t, err, api.ErrUnknownField)
	require.EqualError(t, err, `api: body: document 1: HorizontalPodAutoscaler: unknown field "spec.metrics"`)
	var de *api.DecodeError
	require.True(t, errors.As(err, &de))
	require.NoError(t, api.DecodeInto(unknown, &api.HorizontalPodAutoscalerV1{}, "HorizontalPodAutoscaler", api.DecodeOptions{Lenient: true}))

	dup := []byte(`{"spec":{"maxReplicas":3,"maxReplicas":4}}`)
	require.ErrorIs(t, api.DecodeInto(dup, &api.HorizontalPodAutoscalerV1{}, "HorizontalPodAutoscaler", api.DecodeOptions{}), api.ErrDuplicateField)
	require.Error(t, api.DecodeInto([]byte(`{"spec":`), &api.HorizontalPodAutoscalerV1{}, "HorizontalPodAutoscaler", api.DecodeOptions{}))
}
