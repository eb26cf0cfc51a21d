package cluster_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// The metric validation of HorizontalPodAutoscalers. The error cases and
// the part of the message they look for are ported from
// k8s.io/kubernetes/pkg/apis/autoscaling/validation/validation_test.go
// (TestValidateHorizontalPodAutoscaler's errorCases for metrics), with
// the field path each is reported at.
func TestValidateHPAMetrics(t *testing.T) {
	ctx := context.Background()
	q := func(s string) *api.Quantity { v := api.MustParse(s); return &v }
	i32 := func(v int32) *int32 { return &v }
	avg := api.MetricTarget{Type: api.AverageValueMetricType, AverageValue: q("100m")}
	pods := func(p *api.PodsMetricSource) api.MetricSpec {
		return api.MetricSpec{Type: api.PodsMetricSourceType, Pods: p}
	}
	object := func(o *api.ObjectMetricSource) api.MetricSpec {
		return api.MetricSpec{Type: api.ObjectMetricSourceType, Object: o}
	}
	external := func(e *api.ExternalMetricSource) api.MetricSpec {
		return api.MetricSpec{Type: api.ExternalMetricSourceType, External: e}
	}
	dep := api.CrossVersionObjectReference{Kind: "ReplicationController", Name: "myrc"}
	cases := []struct {
		metric api.MetricSpec
		min    *int32
		path   string
		msg    string
	}{
		{api.MetricSpec{Type: api.ResourceMetricSourceType, Resource: &api.ResourceMetricSource{Name: api.ResourceCPU,
			Target: api.MetricTarget{Type: api.UtilizationMetricType, AverageUtilization: i32(70), AverageValue: q("100m")}}}, nil,
			"spec.metrics[0].resource.target.averageValue", "may not set both a target raw value and a target utilization"},
		{api.MetricSpec{Type: api.ResourceMetricSourceType, Resource: &api.ResourceMetricSource{
			Target: api.MetricTarget{Type: api.UtilizationMetricType, AverageUtilization: i32(70)}}}, nil,
			"spec.metrics[0].resource.name", "must specify a resource name"},
		{api.MetricSpec{Type: api.ResourceMetricSourceType, Resource: &api.ResourceMetricSource{Name: api.ResourceCPU,
			Target: api.MetricTarget{Type: api.UtilizationMetricType, AverageUtilization: i32(-10)}}}, nil,
			"spec.metrics[0].resource.target.averageUtilization", "Invalid value: -10: must be greater than 0"},
		{api.MetricSpec{Type: api.ContainerResourceMetricSourceType, ContainerResource: &api.ContainerResourceMetricSource{Name: api.ResourceCPU,
			Target: api.MetricTarget{Type: api.UtilizationMetricType, AverageUtilization: i32(70)}}}, nil,
			"spec.metrics[0].containerResource.container", "must specify a container"},
		{api.MetricSpec{Type: api.ContainerResourceMetricSourceType, ContainerResource: &api.ContainerResourceMetricSource{Name: api.ResourceCPU, Container: "---***",
			Target: api.MetricTarget{Type: api.UtilizationMetricType, AverageUtilization: i32(70)}}}, nil,
			"spec.metrics[0].containerResource.container", `Invalid value: "---***"`},
		{api.MetricSpec{Type: api.ResourceMetricSourceType, Resource: &api.ResourceMetricSource{Name: api.ResourceCPU,
			Target: api.MetricTarget{Type: api.UtilizationMetricType}}}, nil,
			"spec.metrics[0].resource.target.averageUtilization", "must set either a target raw value or a target utilization"},
		{pods(&api.PodsMetricSource{Target: avg}), nil, "spec.metrics[0].pods.metric.name", "must specify a metric name"},
		{pods(&api.PodsMetricSource{Metric: api.MetricIdentifier{Name: "somemetric"}, Target: api.MetricTarget{Type: api.AverageValueMetricType}}), nil,
			"spec.metrics[0].pods.target.averageValue", "Required value: must specify a positive target averageValue"},
		{object(&api.ObjectMetricSource{DescribedObject: dep, Metric: api.MetricIdentifier{Name: "somemetric"},
			Target: api.MetricTarget{Type: api.ValueMetricType}}), nil,
			"spec.metrics[0].object.target.averageValue", "must set either a target value or averageValue"},
		{object(&api.ObjectMetricSource{DescribedObject: api.CrossVersionObjectReference{Name: "myrc"}, Metric: api.MetricIdentifier{Name: "somemetric"},
			Target: api.MetricTarget{Type: api.ValueMetricType, Value: q("100")}}), nil,
			"spec.metrics[0].object.describedObject.kind", "object.describedObject.kind: Required"},
		{external(&api.ExternalMetricSource{Target: avg}), nil, "spec.metrics[0].external.metric.name", "must specify a metric name"},
		{external(&api.ExternalMetricSource{Metric: api.MetricIdentifier{Name: "foo/../"}, Target: avg}), nil,
			"spec.metrics[0].external.metric.name", "'/'"},
		{external(&api.ExternalMetricSource{Metric: api.MetricIdentifier{Name: "somemetric"}, Target: api.MetricTarget{Type: api.ValueMetricType}}), nil,
			"spec.metrics[0].external.target.averageValue", "must set either a target value for metric or a per-pod target"},
		{external(&api.ExternalMetricSource{Metric: api.MetricIdentifier{Name: "somemetric"}, Target: api.MetricTarget{Type: api.ValueMetricType, Value: q("-300")}}), nil,
			"spec.metrics[0].external.target.value", `Invalid value: "-300": must be positive`},
		{external(&api.ExternalMetricSource{Metric: api.MetricIdentifier{Name: "somemetric"}, Target: api.MetricTarget{Type: api.AverageValueMetricType, AverageValue: q("-300")}}), nil,
			"spec.metrics[0].external.target.averageValue", "must be positive"},
		{external(&api.ExternalMetricSource{Metric: api.MetricIdentifier{Name: "somemetric"}, Target: api.MetricTarget{Type: api.ValueMetricType, Value: q("300"), AverageValue: q("300")}}), nil,
			"spec.metrics[0].external.target.value", "may not set both a target value for metric and a per-pod target"},
		{external(&api.ExternalMetricSource{Metric: api.MetricIdentifier{Name: "somemetric"}, Target: api.MetricTarget{Type: "boogity", Value: q("300")}}), nil,
			"spec.metrics[0].external.target.type", `Invalid value: "boogity": must be either Utilization, Value, or AverageValue`},
		{external(&api.ExternalMetricSource{Metric: api.MetricIdentifier{Name: "somemetric"}, Target: api.MetricTarget{Value: q("300")}}), nil,
			"spec.metrics[0].external.target.type", "must specify a metric target type"},
		{external(&api.ExternalMetricSource{Metric: api.MetricIdentifier{Name: "somemetric"}}), nil,
			"spec.metrics[0].external.target.type", "must specify a metric target"},
		{api.MetricSpec{}, nil, "spec.metrics[0].type", "must specify a metric source type"},
		{api.MetricSpec{Type: "InvalidType"}, nil, "spec.metrics[0].type", "type: Unsupported value"},
		{api.MetricSpec{Type: api.PodsMetricSourceType}, nil, "spec.metrics[0].pods", "Required value: must populate information for the given metric source"},
		{api.MetricSpec{Type: api.ResourceMetricSourceType,
			Resource: &api.ResourceMetricSource{Name: api.ResourceCPU, Target: avg},
			Pods:     &api.PodsMetricSource{Metric: api.MetricIdentifier{Name: "somemetric"}, Target: avg}}, nil,
			"spec.metrics[0].pods", "must populate the given metric source only"},
		// validateMetrics with HPAScaleToZero (beta, on in v1.37).
		{pods(&api.PodsMetricSource{Metric: api.MetricIdentifier{Name: "somemetric"}, Target: avg}), i32(0),
			"spec.metrics", "Forbidden: must specify at least one Object or External metric to support scaling to zero replicas"},
	}
	for _, tc := range cases {
		t.Run(tc.path+" "+tc.msg, func(t *testing.T) {
			c := newMemory(t, cluster.Options{})
			h := &api.HorizontalPodAutoscaler{ObjectMeta: api.ObjectMeta{Name: "myautoscaler"},
				Spec: api.HorizontalPodAutoscalerSpec{ScaleTargetRef: api.CrossVersionObjectReference{Kind: "Deployment", Name: "d", APIVersion: "apps/v1"},
					MinReplicas: tc.min, MaxReplicas: 5, Metrics: []api.MetricSpec{tc.metric}}}
			_, err := c.HorizontalPodAutoscalers().Create(ctx, h)
			var inv *cluster.InvalidError
			if !errors.As(err, &inv) {
				t.Fatalf("got %v, want an *InvalidError", err)
			}
			for _, fe := range inv.Errors {
				if fe.Field == tc.path && strings.Contains(fe.Error(), tc.msg) {
					return
				}
			}
			t.Errorf("no error at %s saying %q in %v", tc.path, tc.msg, err)
		})
	}
}

// Valid metric specs of every kind are accepted, and scaling to zero
// with an Object metric.
func TestValidateHPAMetricsAccepts(t *testing.T) {
	ctx := context.Background()
	c := newMemory(t, cluster.Options{})
	q := func(s string) *api.Quantity { v := api.MustParse(s); return &v }
	zero, seventy := int32(0), int32(70)
	h := &api.HorizontalPodAutoscaler{ObjectMeta: api.ObjectMeta{Name: "all"},
		Spec: api.HorizontalPodAutoscalerSpec{ScaleTargetRef: api.CrossVersionObjectReference{Kind: "Deployment", Name: "d", APIVersion: "apps/v1"},
			MinReplicas: &zero, MaxReplicas: 5, Metrics: []api.MetricSpec{
				{Type: api.ResourceMetricSourceType, Resource: &api.ResourceMetricSource{Name: api.ResourceCPU,
					Target: api.MetricTarget{Type: api.UtilizationMetricType, AverageUtilization: &seventy}}},
				{Type: api.PodsMetricSourceType, Pods: &api.PodsMetricSource{Metric: api.MetricIdentifier{Name: "qps"},
					Target: api.MetricTarget{Type: api.AverageValueMetricType, AverageValue: q("10")}}},
				{Type: api.ObjectMetricSourceType, Object: &api.ObjectMetricSource{
					DescribedObject: api.CrossVersionObjectReference{Kind: "Service", Name: "web", APIVersion: "v1"},
					Metric:          api.MetricIdentifier{Name: "requests"}, Target: api.MetricTarget{Type: api.ValueMetricType, Value: q("100")}}},
				{Type: api.ContainerResourceMetricSourceType, ContainerResource: &api.ContainerResourceMetricSource{Name: api.ResourceCPU, Container: "app",
					Target: api.MetricTarget{Type: api.AverageValueMetricType, AverageValue: q("100m")}}},
			}}}
	if _, err := c.HorizontalPodAutoscalers().Create(ctx, h); err != nil {
		t.Fatal(err)
	}
}

// The rest of kube's validateHorizontalPodAutoscalerSpec
// (pkg/apis/autoscaling/validation/validation_test.go,
// TestValidateHorizontalPodAutoscaler's error rows for the replicas, the
// scale target and the behavior).
func TestValidateHPASpec(t *testing.T) {
	ctx := context.Background()
	i32 := func(v int32) *int32 { return &v }
	str := func(s string) *string { return &s }
	q := func(s string) *api.Quantity { v := api.MustParse(s); return &v }
	ref := api.CrossVersionObjectReference{Kind: "ReplicationController", Name: "myrc", APIVersion: "v1.core/v1"}
	rules := func(r api.HPAScalingRules) *api.HorizontalPodAutoscalerBehavior {
		return &api.HorizontalPodAutoscalerBehavior{ScaleUp: &r}
	}
	policy := func(p api.HPAScalingPolicy) *api.HorizontalPodAutoscalerBehavior {
		return rules(api.HPAScalingRules{Policies: []api.HPAScalingPolicy{p}})
	}
	cases := []struct {
		name   string
		mutate func(s *api.HorizontalPodAutoscalerSpec)
		path   string
		msg    string
	}{
		{"min negative", func(s *api.HorizontalPodAutoscalerSpec) { s.MinReplicas = i32(-1) }, "spec.minReplicas", "must be greater than or equal to 0"},
		{"max unset", func(s *api.HorizontalPodAutoscalerSpec) { s.MaxReplicas = 0; s.MinReplicas = i32(0) }, "spec.maxReplicas", "Required value: must be set and greater than 0"},
		{"max below min", func(s *api.HorizontalPodAutoscalerSpec) { s.MinReplicas = i32(7) }, "spec.maxReplicas", "must be greater than or equal to `minReplicas`"},
		{"kind required", func(s *api.HorizontalPodAutoscalerSpec) { s.ScaleTargetRef.Kind = "" }, "spec.scaleTargetRef.kind", "Required value"},
		{"kind path segment", func(s *api.HorizontalPodAutoscalerSpec) { s.ScaleTargetRef.Kind = "..." + "/" }, "spec.scaleTargetRef.kind", "may not contain '/'"},
		{"name required", func(s *api.HorizontalPodAutoscalerSpec) { s.ScaleTargetRef.Name = "" }, "spec.scaleTargetRef.name", "Required value"},
		{"name path segment", func(s *api.HorizontalPodAutoscalerSpec) { s.ScaleTargetRef.Name = ".." }, "spec.scaleTargetRef.name", "may not be '..'"},
		{"apiVersion without group", func(s *api.HorizontalPodAutoscalerSpec) { s.ScaleTargetRef.APIVersion = "v1" }, "spec.scaleTargetRef.apiVersion", "apiVersion must specify API group"},
		{"apiVersion empty", func(s *api.HorizontalPodAutoscalerSpec) { s.ScaleTargetRef.APIVersion = "" }, "spec.scaleTargetRef.apiVersion", "apiVersion must specify API group"},
		{"apiVersion malformed", func(s *api.HorizontalPodAutoscalerSpec) { s.ScaleTargetRef.APIVersion = "a/b/c" }, "spec.scaleTargetRef.apiVersion", "unexpected GroupVersion string: a/b/c"},
		{"window negative", func(s *api.HorizontalPodAutoscalerSpec) {
			s.Behavior = rules(api.HPAScalingRules{StabilizationWindowSeconds: i32(-1)})
		}, "spec.behavior.scaleUp.stabilizationWindowSeconds", "must be greater than or equal to zero"},
		{"window too long", func(s *api.HorizontalPodAutoscalerSpec) {
			s.Behavior = rules(api.HPAScalingRules{StabilizationWindowSeconds: i32(3601)})
		}, "spec.behavior.scaleUp.stabilizationWindowSeconds", "must be less than or equal to 3600"},
		{"select policy", func(s *api.HorizontalPodAutoscalerSpec) {
			s.Behavior = rules(api.HPAScalingRules{SelectPolicy: str("Average")})
		}, "spec.behavior.scaleUp.selectPolicy", `Unsupported value: "Average"`},
		{"no policies", func(s *api.HorizontalPodAutoscalerSpec) {
			s.Behavior = &api.HorizontalPodAutoscalerBehavior{ScaleDown: &api.HPAScalingRules{Policies: []api.HPAScalingPolicy{}}}
		}, "spec.behavior.scaleDown.policies", "must specify at least one Policy"},
		{"policy type", func(s *api.HorizontalPodAutoscalerSpec) {
			s.Behavior = policy(api.HPAScalingPolicy{Type: "Repeat", Value: 1, PeriodSeconds: 60})
		}, "spec.behavior.scaleUp.policies[0].type", `Unsupported value: "Repeat"`},
		{"policy value", func(s *api.HorizontalPodAutoscalerSpec) {
			s.Behavior = policy(api.HPAScalingPolicy{Type: "Pods", Value: 0, PeriodSeconds: 60})
		}, "spec.behavior.scaleUp.policies[0].value", "must be greater than zero"},
		{"policy period zero", func(s *api.HorizontalPodAutoscalerSpec) {
			s.Behavior = policy(api.HPAScalingPolicy{Type: "Pods", Value: 1})
		}, "spec.behavior.scaleUp.policies[0].periodSeconds", "must be greater than zero"},
		{"policy period too long", func(s *api.HorizontalPodAutoscalerSpec) {
			s.Behavior = policy(api.HPAScalingPolicy{Type: "Percent", Value: 1, PeriodSeconds: 1801})
		}, "spec.behavior.scaleUp.policies[0].periodSeconds", "must be less than or equal to 1800"},
		{"tolerance negative", func(s *api.HorizontalPodAutoscalerSpec) {
			s.Behavior = rules(api.HPAScalingRules{Tolerance: q("-0.1")})
		}, "spec.behavior.scaleUp.tolerance", "must be greater than or equal to 0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newMemory(t, cluster.Options{})
			h := &api.HorizontalPodAutoscaler{ObjectMeta: api.ObjectMeta{Name: "myautoscaler"},
				Spec: api.HorizontalPodAutoscalerSpec{ScaleTargetRef: ref, MinReplicas: i32(1), MaxReplicas: 5}}
			tc.mutate(&h.Spec)
			_, err := c.HorizontalPodAutoscalers().Create(ctx, h)
			var inv *cluster.InvalidError
			if !errors.As(err, &inv) {
				t.Fatalf("got %v, want an *InvalidError", err)
			}
			for _, fe := range inv.Errors {
				if fe.Field == tc.path && strings.Contains(fe.Error(), tc.msg) {
					return
				}
			}
			t.Errorf("no error at %s saying %q in %v", tc.path, tc.msg, err)
		})
	}
}

// autoscaling/v2's defaults: minReplicas 1, 80% cpu, and a behavior's
// unset fields from each direction's defaults.
func TestHPADefaults(t *testing.T) {
	ctx := context.Background()
	c := newMemory(t, cluster.Options{})
	sixty := int32(60)
	_, err := c.HorizontalPodAutoscalers().Create(ctx, &api.HorizontalPodAutoscaler{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: api.HorizontalPodAutoscalerSpec{ScaleTargetRef: api.CrossVersionObjectReference{Kind: "Deployment", Name: "web", APIVersion: "apps/v1"},
			MaxReplicas: 5, Behavior: &api.HorizontalPodAutoscalerBehavior{ScaleDown: &api.HPAScalingRules{StabilizationWindowSeconds: &sixty}}}})
	if err != nil {
		t.Fatal(err)
	}
	h, _, err := c.HorizontalPodAutoscalers().Get(ctx, "default/web")
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(h.Spec)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"scaleTargetRef":{"kind":"Deployment","name":"web","apiVersion":"apps/v1"},"minReplicas":1,"maxReplicas":5,` +
		`"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":80}}}],` +
		`"behavior":{"scaleUp":{"stabilizationWindowSeconds":0,"selectPolicy":"Max","policies":[{"type":"Pods","value":4,"periodSeconds":15},{"type":"Percent","value":100,"periodSeconds":15}]},` +
		`"scaleDown":{"stabilizationWindowSeconds":60,"selectPolicy":"Max","policies":[{"type":"Percent","value":100,"periodSeconds":15}]}}}`
	if string(got) != want {
		t.Errorf("defaulted spec\n got %s\nwant %s", got, want)
	}
}
