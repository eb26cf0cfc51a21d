package apiserver

import (
	"encoding/json"
	"maps"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// The annotations in which autoscaling/v1 keeps what an autoscaling/v2
// HorizontalPodAutoscaler holds and v1 cannot express, as kube's
// pkg/apis/autoscaling/annotations.go names them.
const (
	hpaMetricsAnnotation        = "autoscaling.alpha.kubernetes.io/metrics"
	hpaCurrentMetricsAnnotation = "autoscaling.alpha.kubernetes.io/current-metrics"
	hpaConditionsAnnotation     = "autoscaling.alpha.kubernetes.io/conditions"
	hpaBehaviorAnnotation       = "autoscaling.alpha.kubernetes.io/behavior"
	hpaScaleDownTolerance       = "autoscaling.alpha.kubernetes.io/scale-down-tolerance"
	hpaScaleUpTolerance         = "autoscaling.alpha.kubernetes.io/scale-up-tolerance"
)

// hpaRoundTripAnnotations are dropped from the annotations of an object
// converted in either direction (kube's
// DropRoundTripHorizontalPodAutoscalerAnnotations): only conversion
// writes them.
var hpaRoundTripAnnotations = []string{
	hpaMetricsAnnotation, hpaBehaviorAnnotation, hpaScaleDownTolerance,
	hpaScaleUpTolerance, hpaCurrentMetricsAnnotation, hpaConditionsAnnotation,
}

// hpaDefaultCPUUtilization is the CPU utilization target of an
// autoscaler that names no metric (kube's DefaultCPUUtilization).
const hpaDefaultCPUUtilization = 80

// v1MetricSpec and the types below are autoscaling/v1's MetricSpec and
// MetricStatus, the v2beta1 shapes in which the metrics annotations hold
// the metrics v1 cannot express.
type v1MetricSpec struct {
	Type              api.MetricSourceType             `json:"type"`
	Object            *v1ObjectMetricSource            `json:"object,omitempty"`
	Pods              *v1PodsMetricSource              `json:"pods,omitempty"`
	Resource          *v1ResourceMetricSource          `json:"resource,omitempty"`
	ContainerResource *v1ContainerResourceMetricSource `json:"containerResource,omitempty"`
	External          *v1ExternalMetricSource          `json:"external,omitempty"`
}

type v1ObjectMetricSource struct {
	Target       api.CrossVersionObjectReference `json:"target"`
	MetricName   string                          `json:"metricName"`
	TargetValue  api.Quantity                    `json:"targetValue"`
	Selector     *api.LabelSelector              `json:"selector,omitempty"`
	AverageValue *api.Quantity                   `json:"averageValue,omitempty"`
}

type v1PodsMetricSource struct {
	MetricName         string             `json:"metricName"`
	TargetAverageValue api.Quantity       `json:"targetAverageValue"`
	Selector           *api.LabelSelector `json:"selector,omitempty"`
}

type v1ResourceMetricSource struct {
	Name                     api.ResourceName `json:"name"`
	TargetAverageUtilization *int32           `json:"targetAverageUtilization,omitempty"`
	TargetAverageValue       *api.Quantity    `json:"targetAverageValue,omitempty"`
}

type v1ContainerResourceMetricSource struct {
	Name                     api.ResourceName `json:"name"`
	TargetAverageUtilization *int32           `json:"targetAverageUtilization,omitempty"`
	TargetAverageValue       *api.Quantity    `json:"targetAverageValue,omitempty"`
	Container                string           `json:"container"`
}

type v1ExternalMetricSource struct {
	MetricName         string             `json:"metricName"`
	MetricSelector     *api.LabelSelector `json:"metricSelector,omitempty"`
	TargetValue        *api.Quantity      `json:"targetValue,omitempty"`
	TargetAverageValue *api.Quantity      `json:"targetAverageValue,omitempty"`
}

type v1MetricStatus struct {
	Type     api.MetricSourceType    `json:"type"`
	Object   *v1ObjectMetricStatus   `json:"object,omitempty"`
	Pods     *v1PodsMetricStatus     `json:"pods,omitempty"`
	Resource *v1ResourceMetricStatus `json:"resource,omitempty"`
}

type v1ObjectMetricStatus struct {
	Target       api.CrossVersionObjectReference `json:"target"`
	MetricName   string                          `json:"metricName"`
	CurrentValue api.Quantity                    `json:"currentValue"`
	Selector     *api.LabelSelector              `json:"selector,omitempty"`
	AverageValue *api.Quantity                   `json:"averageValue,omitempty"`
}

type v1PodsMetricStatus struct {
	MetricName          string             `json:"metricName"`
	CurrentAverageValue api.Quantity       `json:"currentAverageValue"`
	Selector            *api.LabelSelector `json:"selector,omitempty"`
}

type v1ResourceMetricStatus struct {
	Name                      api.ResourceName `json:"name"`
	CurrentAverageUtilization *int32           `json:"currentAverageUtilization,omitempty"`
	CurrentAverageValue       api.Quantity     `json:"currentAverageValue"`
}

// hpaBehaviorJSON is the behavior annotation's shape: kube marshals its
// internal HorizontalPodAutoscalerBehavior there, whose fields have no
// json tags, so the keys are the Go field names.
type hpaBehaviorJSON struct {
	ScaleUp   *hpaRulesJSON
	ScaleDown *hpaRulesJSON
}

type hpaRulesJSON struct {
	StabilizationWindowSeconds *int32
	SelectPolicy               *string
	Policies                   []hpaPolicyJSON
	Tolerance                  *api.Quantity
}

type hpaPolicyJSON struct {
	Type          string
	Value         int32
	PeriodSeconds int32
}

func rulesToJSON(r *api.HPAScalingRules) *hpaRulesJSON {
	if r == nil {
		return nil
	}
	out := &hpaRulesJSON{StabilizationWindowSeconds: r.StabilizationWindowSeconds, SelectPolicy: r.SelectPolicy, Tolerance: r.Tolerance}
	for _, p := range r.Policies {
		out.Policies = append(out.Policies, hpaPolicyJSON(p))
	}
	return out
}

func rulesFromJSON(r *hpaRulesJSON) *api.HPAScalingRules {
	if r == nil {
		return nil
	}
	out := &api.HPAScalingRules{StabilizationWindowSeconds: r.StabilizationWindowSeconds, SelectPolicy: r.SelectPolicy, Tolerance: r.Tolerance}
	for _, p := range r.Policies {
		out.Policies = append(out.Policies, api.HPAScalingPolicy(p))
	}
	return out
}

func isCPUUtilization(m *api.MetricSpec) bool {
	return m.Type == api.ResourceMetricSourceType && m.Resource != nil && m.Resource.Name == api.ResourceCPU &&
		m.Resource.Target.AverageUtilization != nil
}

func cpuUtilizationMetric(percent int32) api.MetricSpec {
	return api.MetricSpec{Type: api.ResourceMetricSourceType, Resource: &api.ResourceMetricSource{
		Name: api.ResourceCPU, Target: api.MetricTarget{Type: api.UtilizationMetricType, AverageUtilization: &percent},
	}}
}

func qty(q *api.Quantity) api.Quantity {
	if q == nil {
		return api.Quantity{}
	}
	return *q
}

func metricSpecToV1(m *api.MetricSpec) v1MetricSpec {
	out := v1MetricSpec{Type: m.Type}
	if s := m.Object; s != nil {
		out.Object = &v1ObjectMetricSource{Target: s.DescribedObject, MetricName: s.Metric.Name, Selector: s.Metric.Selector,
			TargetValue: qty(s.Target.Value), AverageValue: s.Target.AverageValue}
	}
	if s := m.Pods; s != nil {
		out.Pods = &v1PodsMetricSource{MetricName: s.Metric.Name, Selector: s.Metric.Selector, TargetAverageValue: qty(s.Target.AverageValue)}
	}
	if s := m.Resource; s != nil {
		out.Resource = &v1ResourceMetricSource{Name: s.Name, TargetAverageUtilization: s.Target.AverageUtilization, TargetAverageValue: s.Target.AverageValue}
	}
	if s := m.ContainerResource; s != nil {
		out.ContainerResource = &v1ContainerResourceMetricSource{Name: s.Name, Container: s.Container,
			TargetAverageUtilization: s.Target.AverageUtilization, TargetAverageValue: s.Target.AverageValue}
	}
	if s := m.External; s != nil {
		out.External = &v1ExternalMetricSource{MetricName: s.Metric.Name, MetricSelector: s.Metric.Selector,
			TargetValue: s.Target.Value, TargetAverageValue: s.Target.AverageValue}
	}
	return out
}

// utilizationOrAverage is the target type of a v1 Resource or
// ContainerResource metric: Utilization when it has a utilization.
func utilizationOrAverage(utilization *int32) api.MetricTargetType {
	if utilization == nil {
		return api.AverageValueMetricType
	}
	return api.UtilizationMetricType
}

func metricSpecFromV1(m *v1MetricSpec) api.MetricSpec {
	out := api.MetricSpec{Type: m.Type}
	if s := m.Object; s != nil {
		target := api.MetricTarget{Type: api.ValueMetricType, AverageValue: s.AverageValue}
		v := s.TargetValue
		if s.AverageValue == nil {
			target.Value = &v
		} else {
			// v1 cannot omit targetValue: only a non-zero one is kept
			// beside an averageValue (kube's conversion does the same).
			target.Type = api.AverageValueMetricType
			if !v.IsZero() {
				target.Value = &v
			}
		}
		out.Object = &api.ObjectMetricSource{DescribedObject: s.Target, Target: target,
			Metric: api.MetricIdentifier{Name: s.MetricName, Selector: s.Selector}}
	}
	if s := m.Pods; s != nil {
		v := s.TargetAverageValue
		out.Pods = &api.PodsMetricSource{Metric: api.MetricIdentifier{Name: s.MetricName, Selector: s.Selector},
			Target: api.MetricTarget{Type: api.AverageValueMetricType, AverageValue: &v}}
	}
	if s := m.Resource; s != nil {
		out.Resource = &api.ResourceMetricSource{Name: s.Name, Target: api.MetricTarget{
			Type: utilizationOrAverage(s.TargetAverageUtilization), AverageUtilization: s.TargetAverageUtilization, AverageValue: s.TargetAverageValue}}
	}
	if s := m.ContainerResource; s != nil {
		out.ContainerResource = &api.ContainerResourceMetricSource{Name: s.Name, Container: s.Container, Target: api.MetricTarget{
			Type: utilizationOrAverage(s.TargetAverageUtilization), AverageUtilization: s.TargetAverageUtilization, AverageValue: s.TargetAverageValue}}
	}
	if s := m.External; s != nil {
		t := api.ValueMetricType
		if s.TargetValue == nil {
			t = api.AverageValueMetricType
		}
		out.External = &api.ExternalMetricSource{Metric: api.MetricIdentifier{Name: s.MetricName, Selector: s.MetricSelector},
			Target: api.MetricTarget{Type: t, Value: s.TargetValue, AverageValue: s.TargetAverageValue}}
	}
	return out
}

func metricStatusToV1(m *api.MetricStatus) v1MetricStatus {
	out := v1MetricStatus{Type: m.Type}
	if s := m.Object; s != nil {
		out.Object = &v1ObjectMetricStatus{Target: s.DescribedObject, MetricName: s.Metric.Name, Selector: s.Metric.Selector,
			CurrentValue: qty(s.Current.Value), AverageValue: s.Current.AverageValue}
	}
	if s := m.Pods; s != nil {
		out.Pods = &v1PodsMetricStatus{MetricName: s.Metric.Name, Selector: s.Metric.Selector, CurrentAverageValue: qty(s.Current.AverageValue)}
	}
	if s := m.Resource; s != nil {
		out.Resource = &v1ResourceMetricStatus{Name: s.Name, CurrentAverageUtilization: s.Current.AverageUtilization,
			CurrentAverageValue: qty(s.Current.AverageValue)}
	}
	return out
}

func metricStatusFromV1(m *v1MetricStatus) api.MetricStatus {
	out := api.MetricStatus{Type: m.Type}
	if s := m.Object; s != nil {
		v := s.CurrentValue
		out.Object = &api.ObjectMetricStatus{DescribedObject: s.Target, Metric: api.MetricIdentifier{Name: s.MetricName, Selector: s.Selector},
			Current: api.MetricValueStatus{Value: &v, AverageValue: s.AverageValue}}
	}
	if s := m.Pods; s != nil {
		v := s.CurrentAverageValue
		out.Pods = &api.PodsMetricStatus{Metric: api.MetricIdentifier{Name: s.MetricName, Selector: s.Selector},
			Current: api.MetricValueStatus{AverageValue: &v}}
	}
	if s := m.Resource; s != nil {
		v := s.CurrentAverageValue
		out.Resource = &api.ResourceMetricStatus{Name: s.Name,
			Current: api.MetricValueStatus{AverageValue: &v, AverageUtilization: s.CurrentAverageUtilization}}
	}
	return out
}

// dropHPARoundTripAnnotations returns annotations without the
// round-trip annotations: a, when it has none, else a copy.
func dropHPARoundTripAnnotations(a map[string]string) map[string]string {
	has := false
	for _, k := range hpaRoundTripAnnotations {
		if _, ok := a[k]; ok {
			has = true
		}
	}
	if !has {
		return a
	}
	out := maps.Clone(a)
	for _, k := range hpaRoundTripAnnotations {
		delete(out, k)
	}
	return out
}

// hpaToV1 converts a stored autoscaling/v2 HorizontalPodAutoscaler to
// autoscaling/v1 as kube's pkg/apis/autoscaling/v1/conversion.go does:
// the first CPU utilization metric becomes targetCPUUtilizationPercentage,
// the other metrics, the behavior, the current metrics and the
// conditions go into annotations. in is not modified.
func hpaToV1(in *api.HorizontalPodAutoscaler) (*api.HorizontalPodAutoscalerV1, error) {
	in = in.DeepCopy()
	out := &api.HorizontalPodAutoscalerV1{
		TypeMeta:   api.TypeMeta{APIVersion: "autoscaling/v1", Kind: "HorizontalPodAutoscaler"},
		ObjectMeta: in.ObjectMeta,
	}
	out.Annotations = dropHPARoundTripAnnotations(out.Annotations)
	out.Spec = api.HorizontalPodAutoscalerSpecV1{
		ScaleTargetRef: in.Spec.ScaleTargetRef,
		MinReplicas:    in.Spec.MinReplicas,
		MaxReplicas:    in.Spec.MaxReplicas,
	}
	var others []v1MetricSpec
	for i := range in.Spec.Metrics {
		m := &in.Spec.Metrics[i]
		if isCPUUtilization(m) {
			if out.Spec.TargetCPUUtilizationPercentage == nil {
				out.Spec.TargetCPUUtilizationPercentage = m.Resource.Target.AverageUtilization
			}
			continue
		}
		others = append(others, metricSpecToV1(m))
	}

	st := &in.Status
	out.Status = api.HorizontalPodAutoscalerStatusV1{
		ObservedGeneration: st.ObservedGeneration,
		LastScaleTime:      st.LastScaleTime,
		CurrentReplicas:    st.CurrentReplicas,
		DesiredReplicas:    st.DesiredReplicas,
	}
	current := make([]v1MetricStatus, len(st.CurrentMetrics))
	for i := range st.CurrentMetrics {
		m := &st.CurrentMetrics[i]
		current[i] = metricStatusToV1(m)
		if m.Type == api.ResourceMetricSourceType && m.Resource != nil && m.Resource.Name == api.ResourceCPU &&
			m.Resource.Current.AverageUtilization != nil {
			out.Status.CurrentCPUUtilizationPercentage = m.Resource.Current.AverageUtilization
		}
	}

	var behavior *hpaBehaviorJSON
	if b := in.Spec.Behavior; b != nil {
		behavior = &hpaBehaviorJSON{ScaleUp: rulesToJSON(b.ScaleUp), ScaleDown: rulesToJSON(b.ScaleDown)}
	}
	for _, a := range []struct {
		key   string
		value any
		set   bool
	}{
		{hpaMetricsAnnotation, others, len(others) > 0},
		{hpaCurrentMetricsAnnotation, current, len(current) > 0},
		{hpaBehaviorAnnotation, behavior, behavior != nil},
		{hpaConditionsAnnotation, st.Conditions, len(st.Conditions) > 0},
	} {
		if !a.set {
			continue
		}
		b, err := json.Marshal(a.value)
		if err != nil {
			return nil, err
		}
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[a.key] = string(b)
	}
	return out, nil
}

// hpaAnnotation decodes the JSON value of the annotation key of ann;
// false when it is absent or does not decode (kube ignores such an
// annotation).
func hpaAnnotation[V any](ann map[string]string, key string) (V, bool) {
	var v V
	enc, ok := ann[key]
	if !ok || json.Unmarshal([]byte(enc), &v) != nil {
		return v, false
	}
	return v, true
}

// defaultHPAV1 applies autoscaling/v1's defaults to a decoded object
// (kube's SetDefaults_HorizontalPodAutoscaler): minReplicas 1. The
// default CPU target is applied by hpaFromV1, which sees the metrics
// annotation.
func defaultHPAV1(in *api.HorizontalPodAutoscalerV1) {
	if in.Spec.MinReplicas == nil {
		one := int32(1)
		in.Spec.MinReplicas = &one
	}
}

// hpaFromV1 converts an autoscaling/v1 HorizontalPodAutoscaler to the
// stored autoscaling/v2 form, the inverse of hpaToV1: the round-trip
// annotations are read back (an annotation that does not decode is
// ignored, as kube ignores it) and dropped, and an autoscaler left with
// no metric targets 80% CPU utilization. in is not modified.
func hpaFromV1(in *api.HorizontalPodAutoscalerV1) *api.HorizontalPodAutoscaler {
	in = in.DeepCopy()
	out := &api.HorizontalPodAutoscaler{
		TypeMeta:   api.TypeMeta{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler"},
		ObjectMeta: in.ObjectMeta,
	}
	ann := in.Annotations
	out.Spec = api.HorizontalPodAutoscalerSpec{
		ScaleTargetRef: in.Spec.ScaleTargetRef,
		MinReplicas:    in.Spec.MinReplicas,
		MaxReplicas:    in.Spec.MaxReplicas,
	}
	if p := in.Spec.TargetCPUUtilizationPercentage; p != nil {
		out.Spec.Metrics = []api.MetricSpec{cpuUtilizationMetric(*p)}
	}
	st := &in.Status
	out.Status = api.HorizontalPodAutoscalerStatus{
		ObservedGeneration: st.ObservedGeneration,
		LastScaleTime:      st.LastScaleTime,
		CurrentReplicas:    st.CurrentReplicas,
		DesiredReplicas:    st.DesiredReplicas,
	}
	if p := st.CurrentCPUUtilizationPercentage; p != nil {
		out.Status.CurrentMetrics = []api.MetricStatus{{Type: api.ResourceMetricSourceType, Resource: &api.ResourceMetricStatus{
			Name: api.ResourceCPU, Current: api.MetricValueStatus{AverageUtilization: p},
		}}}
	}

	if others, ok := hpaAnnotation[[]v1MetricSpec](ann, hpaMetricsAnnotation); ok {
		metrics := make([]api.MetricSpec, 0, len(others)+len(out.Spec.Metrics))
		for i := range others {
			metrics = append(metrics, metricSpecFromV1(&others[i]))
		}
		out.Spec.Metrics = append(metrics, out.Spec.Metrics...)
	}
	if b, ok := hpaAnnotation[hpaBehaviorJSON](ann, hpaBehaviorAnnotation); ok && (b.ScaleUp != nil || b.ScaleDown != nil) {
		out.Spec.Behavior = &api.HorizontalPodAutoscalerBehavior{ScaleUp: rulesFromJSON(b.ScaleUp), ScaleDown: rulesFromJSON(b.ScaleDown)}
	}
	if current, ok := hpaAnnotation[[]v1MetricStatus](ann, hpaCurrentMetricsAnnotation); ok {
		out.Status.CurrentMetrics = make([]api.MetricStatus, len(current))
		for i := range current {
			out.Status.CurrentMetrics[i] = metricStatusFromV1(&current[i])
		}
	}
	if len(out.Spec.Metrics) == 0 {
		out.Spec.Metrics = []api.MetricSpec{cpuUtilizationMetric(hpaDefaultCPUUtilization)}
	}
	if conds, ok := hpaAnnotation[[]api.HorizontalPodAutoscalerCondition](ann, hpaConditionsAnnotation); ok {
		out.Status.Conditions = conds
	}
	out.Annotations = dropHPARoundTripAnnotations(ann)
	return out
}
