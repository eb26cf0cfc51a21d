package apiserver

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

func i32(v int32) *int32 { return &v }

func qp(s string) *api.Quantity { q := api.MustParse(s); return &q }

// TestHPAToV1Spec ports the rows of
// TestConvert_autoscaling_HorizontalPodAutoscalerSpec_To_v1_HorizontalPodAutoscalerSpec
// (kube pkg/apis/autoscaling/v1/conversion_test.go). The conversion here
// always makes a new object, so the rows that convert into a populated
// v1 spec check that nothing of the target leaks in.
func TestHPAToV1Spec(t *testing.T) {
	avg300m := api.MetricSpec{Type: api.ResourceMetricSourceType, Resource: &api.ResourceMetricSource{
		Name: api.ResourceCPU, Target: api.MetricTarget{Type: api.AverageValueMetricType, AverageValue: qp("300m")}}}
	for _, tc := range []struct {
		name    string
		metrics []api.MetricSpec
		want    api.HorizontalPodAutoscalerSpecV1
	}{
		{"TestConversionWithCPUAverageValueAndUtilizationBoth1", []api.MetricSpec{avg300m, cpuUtilizationMetric(70)},
			api.HorizontalPodAutoscalerSpecV1{MinReplicas: i32(1), MaxReplicas: 3, TargetCPUUtilizationPercentage: i32(70)}},
		{"TestConversionWithoutMetrics", []api.MetricSpec{},
			api.HorizontalPodAutoscalerSpecV1{MinReplicas: i32(1), MaxReplicas: 3}},
		{"TestConversionWithCPUUtilizationOnly", []api.MetricSpec{cpuUtilizationMetric(60)},
			api.HorizontalPodAutoscalerSpecV1{MinReplicas: i32(1), MaxReplicas: 3, TargetCPUUtilizationPercentage: i32(60)}},
		{"first CPU utilization wins", []api.MetricSpec{cpuUtilizationMetric(50), cpuUtilizationMetric(90)},
			api.HorizontalPodAutoscalerSpecV1{MinReplicas: i32(1), MaxReplicas: 3, TargetCPUUtilizationPercentage: i32(50)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := &api.HorizontalPodAutoscaler{Spec: api.HorizontalPodAutoscalerSpec{MinReplicas: i32(1), MaxReplicas: 3, Metrics: tc.metrics}}
			out, err := hpaToV1(in)
			require.NoError(t, err)
			assert.Equal(t, tc.want, out.Spec)
			_, kept := out.Annotations[hpaMetricsAnnotation]
			assert.Equal(t, len(tc.metrics) > 0 && tc.metrics[0].Resource.Target.Type == api.AverageValueMetricType, kept,
				"a metric other than CPU utilization goes into the metrics annotation")
		})
	}
}

// richHPA has everything autoscaling/v2 can say that v1 cannot.
func richHPA() *api.HorizontalPodAutoscaler {
	now := api.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	gen := int64(4)
	policy := "Max"
	sel := &api.LabelSelector{MatchLabels: map[string]string{"queue": "a"}}
	return &api.HorizontalPodAutoscaler{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "ns", ResourceVersion: "7", Annotations: map[string]string{"keep": "me"}},
		Spec: api.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: api.CrossVersionObjectReference{Kind: "Deployment", Name: "web", APIVersion: "apps/v1"},
			MinReplicas:    i32(2), MaxReplicas: 9,
			Metrics: []api.MetricSpec{
				{Type: api.PodsMetricSourceType, Pods: &api.PodsMetricSource{Metric: api.MetricIdentifier{Name: "qps", Selector: sel},
					Target: api.MetricTarget{Type: api.AverageValueMetricType, AverageValue: qp("10")}}},
				{Type: api.ObjectMetricSourceType, Object: &api.ObjectMetricSource{
					DescribedObject: api.CrossVersionObjectReference{Kind: "Ingress", Name: "main", APIVersion: "networking.k8s.io/v1"},
					Metric:          api.MetricIdentifier{Name: "rps"}, Target: api.MetricTarget{Type: api.ValueMetricType, Value: qp("2k")}}},
				{Type: api.ExternalMetricSourceType, External: &api.ExternalMetricSource{Metric: api.MetricIdentifier{Name: "queue_len"},
					Target: api.MetricTarget{Type: api.AverageValueMetricType, AverageValue: qp("30")}}},
				{Type: api.ContainerResourceMetricSourceType, ContainerResource: &api.ContainerResourceMetricSource{Name: api.ResourceMemory,
					Container: "app", Target: api.MetricTarget{Type: api.UtilizationMetricType, AverageUtilization: i32(70)}}},
				cpuUtilizationMetric(60),
			},
			Behavior: &api.HorizontalPodAutoscalerBehavior{
				ScaleUp: &api.HPAScalingRules{StabilizationWindowSeconds: i32(0), SelectPolicy: &policy, Tolerance: qp("50m"),
					Policies: []api.HPAScalingPolicy{{Type: "Pods", Value: 4, PeriodSeconds: 15}, {Type: "Percent", Value: 100, PeriodSeconds: 15}}},
			},
		},
		Status: api.HorizontalPodAutoscalerStatus{
			ObservedGeneration: &gen, LastScaleTime: &now, CurrentReplicas: 3, DesiredReplicas: 4,
			CurrentMetrics: []api.MetricStatus{
				{Type: api.ResourceMetricSourceType, Resource: &api.ResourceMetricStatus{Name: api.ResourceCPU,
					Current: api.MetricValueStatus{AverageValue: qp("250m"), AverageUtilization: i32(72)}}},
				{Type: api.PodsMetricSourceType, Pods: &api.PodsMetricStatus{Metric: api.MetricIdentifier{Name: "qps"},
					Current: api.MetricValueStatus{AverageValue: qp("12")}}},
			},
			Conditions: []api.HorizontalPodAutoscalerCondition{{Type: "AbleToScale", Status: api.ConditionTrue,
				LastTransitionTime: now, Reason: "ReadyForNewScale", Message: "recommended size matches current size"}},
		},
	}
}

// A v2 object read in v1 and written back loses nothing: the spec and
// status v1 cannot hold travel in the annotations, which are gone again
// in v2. (CPU utilization moves to the end of the metrics, as kube's
// conversion puts it.)
func TestHPAV1RoundTripKeepsV2(t *testing.T) {
	in := richHPA()
	v1, err := hpaToV1(in)
	require.NoError(t, err)
	assert.Equal(t, richHPA(), in, "conversion does not modify its input")
	assert.Equal(t, i32(60), v1.Spec.TargetCPUUtilizationPercentage)
	assert.Equal(t, i32(72), v1.Status.CurrentCPUUtilizationPercentage)
	assert.Equal(t, "7", v1.ResourceVersion)
	for _, k := range []string{hpaMetricsAnnotation, hpaCurrentMetricsAnnotation, hpaConditionsAnnotation, hpaBehaviorAnnotation, "keep"} {
		assert.Contains(t, v1.Annotations, k)
	}

	// Through JSON, as a client sees and sends it.
	b, err := json.Marshal(v1)
	require.NoError(t, err)
	var back api.HorizontalPodAutoscalerV1
	require.NoError(t, json.Unmarshal(b, &back))
	v2 := hpaFromV1(&back)
	want := richHPA()
	want.APIVersion, want.Kind = "autoscaling/v2", "HorizontalPodAutoscaler"
	assert.Equal(t, want.ObjectMeta.Annotations, v2.Annotations)
	assert.Equal(t, want.Spec, v2.Spec)
	assert.Equal(t, want.Status, v2.Status)
	assert.Equal(t, want, v2)
}

// The annotations hold kube's shapes: the v2beta1-style v1 MetricSpec
// and MetricStatus, and the behavior with the Go field names of kube's
// internal type.
func TestHPAV1AnnotationShapes(t *testing.T) {
	v1, err := hpaToV1(richHPA())
	require.NoError(t, err)
	assert.JSONEq(t, `[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10","selector":{"matchLabels":{"queue":"a"}}}},`+
		`{"type":"Object","object":{"target":{"kind":"Ingress","name":"main","apiVersion":"networking.k8s.io/v1"},"metricName":"rps","targetValue":"2k"}},`+
		`{"type":"External","external":{"metricName":"queue_len","targetAverageValue":"30"}},`+
		`{"type":"ContainerResource","containerResource":{"name":"memory","targetAverageUtilization":70,"container":"app"}}]`,
		v1.Annotations[hpaMetricsAnnotation])
	assert.JSONEq(t, `{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15},`+
		`{"Type":"Percent","Value":100,"PeriodSeconds":15}],"Tolerance":"50m"},"ScaleDown":null}`, v1.Annotations[hpaBehaviorAnnotation])
	assert.JSONEq(t, `[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":72,"currentAverageValue":"250m"}},`+
		`{"type":"Pods","pods":{"metricName":"qps","currentAverageValue":"12"}}]`, v1.Annotations[hpaCurrentMetricsAnnotation])
	assert.JSONEq(t, `[{"type":"AbleToScale","status":"True","lastTransitionTime":"2026-01-02T03:04:05Z","reason":"ReadyForNewScale",`+
		`"message":"recommended size matches current size"}]`, v1.Annotations[hpaConditionsAnnotation])
}

// A client's round-trip annotations on a v2 object are not kept when it
// is read in v1: only conversion writes them.
func TestHPAToV1DropsStaleAnnotations(t *testing.T) {
	in := &api.HorizontalPodAutoscaler{ObjectMeta: api.ObjectMeta{Annotations: map[string]string{
		hpaMetricsAnnotation: `[{"type":"Pods"}]`, hpaScaleUpTolerance: "1", "other": "x"}},
		Spec: api.HorizontalPodAutoscalerSpec{MaxReplicas: 2, Metrics: []api.MetricSpec{cpuUtilizationMetric(50)}}}
	out, err := hpaToV1(in)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"other": "x"}, out.Annotations)
	assert.Contains(t, in.Annotations, hpaMetricsAnnotation, "the input keeps its annotations")
}

// TestHPAFromV1BadAnnotations ports TestHorizontalPodAutoscalerAnnotations
// (kube pkg/apis/autoscaling/v1/defaults_test.go): annotations that do
// not decode are ignored and dropped.
func TestHPAFromV1BadAnnotations(t *testing.T) {
	for _, tc := range []struct{ name, value string }{
		{"test empty value for Annotations", ""},
		{"test random value for Annotations", "abc"},
		{"test empty array value for Annotations", "[]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := &api.HorizontalPodAutoscalerV1{ObjectMeta: api.ObjectMeta{Annotations: map[string]string{
				hpaConditionsAnnotation: tc.value, hpaMetricsAnnotation: tc.value,
				hpaBehaviorAnnotation: tc.value, hpaCurrentMetricsAnnotation: tc.value}},
				Spec: api.HorizontalPodAutoscalerSpecV1{MaxReplicas: 3}}
			before := in.DeepCopy()
			out := hpaFromV1(in)
			assert.Equal(t, before, in)
			assert.Empty(t, out.Annotations)
			assert.Equal(t, []api.MetricSpec{cpuUtilizationMetric(hpaDefaultCPUUtilization)}, out.Spec.Metrics)
			assert.Nil(t, out.Spec.Behavior)
			assert.Empty(t, out.Status.Conditions)
			assert.Empty(t, out.Status.CurrentMetrics)
		})
	}
}

// TestHPAV1Defaults ports TestSetDefaultHPA (kube
// pkg/apis/autoscaling/v1/defaults_test.go) and the conversion's 80% CPU
// default for an autoscaler without metrics.
func TestHPAV1Defaults(t *testing.T) {
	for _, tc := range []struct {
		min, want *int32
	}{{nil, i32(1)}, {i32(3), i32(3)}} {
		hpa := &api.HorizontalPodAutoscalerV1{Spec: api.HorizontalPodAutoscalerSpecV1{MinReplicas: tc.min, MaxReplicas: 5}}
		defaultHPAV1(hpa)
		assert.Equal(t, tc.want, hpa.Spec.MinReplicas)
	}
	v2 := hpaFromV1(&api.HorizontalPodAutoscalerV1{Spec: api.HorizontalPodAutoscalerSpecV1{MaxReplicas: 5}})
	assert.Equal(t, []api.MetricSpec{cpuUtilizationMetric(80)}, v2.Spec.Metrics)
	v2 = hpaFromV1(&api.HorizontalPodAutoscalerV1{Spec: api.HorizontalPodAutoscalerSpecV1{MaxReplicas: 5, TargetCPUUtilizationPercentage: i32(40)}})
	assert.Equal(t, []api.MetricSpec{cpuUtilizationMetric(40)}, v2.Spec.Metrics)
	v2 = hpaFromV1(&api.HorizontalPodAutoscalerV1{Status: api.HorizontalPodAutoscalerStatusV1{CurrentCPUUtilizationPercentage: i32(33)}})
	assert.Equal(t, []api.MetricStatus{{Type: api.ResourceMetricSourceType, Resource: &api.ResourceMetricStatus{
		Name: api.ResourceCPU, Current: api.MetricValueStatus{AverageUtilization: i32(33)}}}}, v2.Status.CurrentMetrics)
}

// The Object metric of v1 always has a targetValue: beside an
// averageValue a zero one is dropped, as kube's conversion drops it.
func TestHPAV1ObjectMetricTargetValue(t *testing.T) {
	m := metricSpecFromV1(&v1MetricSpec{Type: api.ObjectMetricSourceType, Object: &v1ObjectMetricSource{MetricName: "rps", AverageValue: qp("5")}})
	assert.Equal(t, api.MetricTarget{Type: api.AverageValueMetricType, AverageValue: qp("5")}, m.Object.Target)
	m = metricSpecFromV1(&v1MetricSpec{Type: api.ObjectMetricSourceType, Object: &v1ObjectMetricSource{MetricName: "rps", TargetValue: api.MustParse("3")}})
	assert.Equal(t, api.MetricTarget{Type: api.ValueMetricType, Value: qp("3")}, m.Object.Target)
}
