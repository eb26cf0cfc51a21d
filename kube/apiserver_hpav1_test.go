package kube_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// client-go's typed AutoscalingV1 client, in protobuf, over the
// autoscaling/v2 store: create (v1 defaults), get, list, watch and a
// status update; the AutoscalingV2 client reads the same object with
// its CPU metric.
func TestClientsetAutoscalingV1(t *testing.T) {
	cs, protoResponses := protobufClientset(t)
	ctx := t.Context()
	hpas := cs.AutoscalingV1().HorizontalPodAutoscalers("default")
	w, err := hpas.Watch(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	defer w.Stop()

	pct := int32(70)
	created, err := hpas.Create(ctx, &autoscalingv1.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: autoscalingv1.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv1.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
			MaxReplicas:    5, TargetCPUUtilizationPercentage: &pct,
		}}, metav1.CreateOptions{})
	require.NoError(t, err)
	require.EqualValues(t, 1, *created.Spec.MinReplicas, "v1's default")
	require.EqualValues(t, 70, *created.Spec.TargetCPUUtilizationPercentage)

	select {
	case ev := <-w.ResultChan():
		require.Equal(t, watch.Added, ev.Type)
		got, ok := ev.Object.(*autoscalingv1.HorizontalPodAutoscaler)
		require.True(t, ok, "%T", ev.Object)
		require.EqualValues(t, 70, *got.Spec.TargetCPUUtilizationPercentage)
	case <-time.After(10 * time.Second):
		t.Fatal("no watch event")
	}

	v2, err := cs.AutoscalingV2().HorizontalPodAutoscalers("default").Get(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, created.ResourceVersion, v2.ResourceVersion)
	require.Len(t, v2.Spec.Metrics, 1)
	require.Equal(t, autoscalingv2.ResourceMetricSourceType, v2.Spec.Metrics[0].Type)
	require.EqualValues(t, 70, *v2.Spec.Metrics[0].Resource.Target.AverageUtilization)

	cur := int32(40)
	created.Status = autoscalingv1.HorizontalPodAutoscalerStatus{CurrentReplicas: 2, DesiredReplicas: 2, CurrentCPUUtilizationPercentage: &cur}
	updated, err := hpas.UpdateStatus(ctx, created, metav1.UpdateOptions{})
	require.NoError(t, err)
	require.EqualValues(t, 40, *updated.Status.CurrentCPUUtilizationPercentage)

	l, err := hpas.List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	require.Len(t, l.Items, 1)
	require.EqualValues(t, 2, l.Items[0].Status.CurrentReplicas)
	require.Positive(t, protoResponses.Load())
}
