package api_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// TestHPATable ports the rows of TestPrintHPA in kube's
// pkg/printers/internalversion/printers_test.go (v1.37): the Targets
// column by metric type, with and without a current value, and "+ N
// more..." past two metrics.
func TestHPATable(t *testing.T) {
	ki, ok := api.InfoFor[*api.HorizontalPodAutoscaler]()
	require.True(t, ok)
	var names []string
	for _, c := range ki.Columns {
		names = append(names, c.Name)
	}
	require.Equal(t, []string{"Name", "Reference", "Targets", "MinPods", "MaxPods", "Replicas", "Age"}, names)

	q := func(s string) *api.Quantity { v := api.MustParse(s); return &v }
	i32 := func(v int32) *int32 { return &v }
	avg := func(s string) api.MetricTarget {
		return api.MetricTarget{Type: api.AverageValueMetricType, AverageValue: q(s)}
	}
	val := func(s string) api.MetricTarget { return api.MetricTarget{Type: api.ValueMetricType, Value: q(s)} }
	util := api.MetricTarget{Type: api.UtilizationMetricType, AverageUtilization: i32(80)}
	id := api.MetricIdentifier{Name: "some-metric"}
	ref := api.CrossVersionObjectReference{Kind: "Deployment", Name: "web"}

	external := func(tg api.MetricTarget) api.MetricSpec {
		return api.MetricSpec{Type: api.ExternalMetricSourceType, External: &api.ExternalMetricSource{Metric: id, Target: tg}}
	}
	externalNow := func(c api.MetricValueStatus) api.MetricStatus {
		return api.MetricStatus{Type: api.ExternalMetricSourceType, External: &api.ExternalMetricStatus{Metric: id, Current: c}}
	}
	pods := func(s string) api.MetricSpec {
		return api.MetricSpec{Type: api.PodsMetricSourceType, Pods: &api.PodsMetricSource{Metric: id, Target: avg(s)}}
	}
	podsNow := func(s string) api.MetricStatus {
		return api.MetricStatus{Type: api.PodsMetricSourceType, Pods: &api.PodsMetricStatus{Metric: id, Current: api.MetricValueStatus{AverageValue: q(s)}}}
	}
	object := func(tg api.MetricTarget) api.MetricSpec {
		return api.MetricSpec{Type: api.ObjectMetricSourceType, Object: &api.ObjectMetricSource{Metric: id, DescribedObject: ref, Target: tg}}
	}
	objectNow := func(c api.MetricValueStatus) api.MetricStatus {
		return api.MetricStatus{Type: api.ObjectMetricSourceType, Object: &api.ObjectMetricStatus{Metric: id, DescribedObject: ref, Current: c}}
	}
	res := func(tg api.MetricTarget) api.MetricSpec {
		return api.MetricSpec{Type: api.ResourceMetricSourceType, Resource: &api.ResourceMetricSource{Name: api.ResourceCPU, Target: tg}}
	}
	resNow := func(c api.MetricValueStatus) api.MetricStatus {
		return api.MetricStatus{Type: api.ResourceMetricSourceType, Resource: &api.ResourceMetricStatus{Name: api.ResourceCPU, Current: c}}
	}
	cres := func(tg api.MetricTarget) api.MetricSpec {
		return api.MetricSpec{Type: api.ContainerResourceMetricSourceType, ContainerResource: &api.ContainerResourceMetricSource{Name: api.ResourceCPU, Container: "app", Target: tg}}
	}
	cresNow := func(c api.MetricValueStatus) api.MetricStatus {
		return api.MetricStatus{Type: api.ContainerResourceMetricSourceType, ContainerResource: &api.ContainerResourceMetricStatus{Name: api.ResourceCPU, Container: "app", Current: c}}
	}
	half := api.MetricValueStatus{AverageUtilization: i32(50), AverageValue: q("50m")}

	for _, tc := range []struct {
		name    string
		min     *int32
		metrics []api.MetricSpec
		current []api.MetricStatus
		targets string
	}{
		{"minReplicas unset", nil, nil, nil, "<none>"},
		{"external, average value, no current", i32(2), []api.MetricSpec{external(avg("100m"))}, nil, "<unknown>/100m (avg)"},
		{"external, average value", i32(2), []api.MetricSpec{external(avg("100m"))}, []api.MetricStatus{externalNow(api.MetricValueStatus{AverageValue: q("50m")})}, "50m/100m (avg)"},
		{"external, value, no current", i32(2), []api.MetricSpec{external(val("100m"))}, nil, "<unknown>/100m"},
		{"external, value", i32(2), []api.MetricSpec{external(val("100m"))}, []api.MetricStatus{externalNow(api.MetricValueStatus{Value: q("50m")})}, "50m/100m"},
		{"pods, no current", i32(2), []api.MetricSpec{pods("100m")}, nil, "<unknown>/100m"},
		{"pods", i32(2), []api.MetricSpec{pods("100m")}, []api.MetricStatus{podsNow("50m")}, "50m/100m"},
		{"object, no current", i32(2), []api.MetricSpec{object(val("100m"))}, nil, "<unknown>/100m"},
		{"object", i32(2), []api.MetricSpec{object(val("100m"))}, []api.MetricStatus{objectNow(api.MetricValueStatus{Value: q("50m")})}, "50m/100m"},
		{"resource, value, no current", i32(2), []api.MetricSpec{res(avg("100m"))}, nil, "cpu: <unknown>/100m"},
		{"resource, value", i32(2), []api.MetricSpec{res(avg("100m"))}, []api.MetricStatus{resNow(half)}, "cpu: 50m/100m"},
		{"resource, utilization, no current", i32(2), []api.MetricSpec{res(util)}, nil, "cpu: <unknown>/80%"},
		{"resource, utilization", i32(2), []api.MetricSpec{res(util)}, []api.MetricStatus{resNow(half)}, "cpu: 50%/80%"},
		{"container resource, value, no current", i32(2), []api.MetricSpec{cres(avg("100m"))}, nil, "cpu: <unknown>/100m"},
		{"container resource, value", i32(2), []api.MetricSpec{cres(avg("100m"))}, []api.MetricStatus{cresNow(half)}, "cpu: 50m/100m"},
		{"container resource, utilization, no current", i32(2), []api.MetricSpec{cres(util)}, nil, "cpu: <unknown>/80%"},
		{"container resource, utilization", i32(2), []api.MetricSpec{cres(util)}, []api.MetricStatus{cresNow(half)}, "cpu: 50%/80%"},
		{"multiple specs", i32(2), []api.MetricSpec{pods("100m"), res(util), pods("400m")},
			[]api.MetricStatus{podsNow("50m"), resNow(api.MetricValueStatus{AverageUtilization: i32(50), AverageValue: q("40m")})},
			"50m/100m, cpu: 50%/80% + 1 more..."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &api.HorizontalPodAutoscaler{
				ObjectMeta: api.ObjectMeta{Name: "some-hpa"},
				Spec: api.HorizontalPodAutoscalerSpec{ScaleTargetRef: api.CrossVersionObjectReference{Kind: "ReplicationController", Name: "some-rc"},
					MinReplicas: tc.min, MaxReplicas: 10, Metrics: tc.metrics},
				Status: api.HorizontalPodAutoscalerStatus{CurrentReplicas: 4, DesiredReplicas: 5, CurrentMetrics: tc.current},
			}
			minPods := "<unset>"
			if tc.min != nil {
				minPods = "2"
			}
			require.Equal(t, []any{"some-hpa", "ReplicationController/some-rc", tc.targets, minPods, int64(10), int64(4), "<unknown>"},
				ki.Cells(h, time.Now()))
		})
	}
}
