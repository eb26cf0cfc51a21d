package cluster

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

func horizontalPodAutoscalerKind() *kind[*api.HorizontalPodAutoscaler] {
	k := newKind[*api.HorizontalPodAutoscaler]()
	k.defaults = defaultHorizontalPodAutoscaler
	k.validate = validateHorizontalPodAutoscaler
	return k
}

// The bounds of kube's autoscaling validation.
const (
	maxHPAPeriodSeconds              = 1800
	maxHPAStabilizationWindowSeconds = 3600
)

// defaultHorizontalPodAutoscaler is autoscaling/v2's
// SetDefaults_HorizontalPodAutoscaler: minReplicas 1, 80% average cpu
// utilization when no metric is given, and, when a behavior is given,
// each direction's unset fields filled from its defaults (scale up: no
// stabilization, Max of 4 pods and 100% per 15 s; scale down: Max of
// 100% per 15 s, its window left to the controller's 300 s).
func defaultHorizontalPodAutoscaler(h *api.HorizontalPodAutoscaler) {
	s := &h.Spec
	defaultInt32(&s.MinReplicas, 1)
	if len(s.Metrics) == 0 {
		s.Metrics = []api.MetricSpec{{Type: api.ResourceMetricSourceType, Resource: &api.ResourceMetricSource{Name: api.ResourceCPU,
			Target: api.MetricTarget{Type: api.UtilizationMetricType, AverageUtilization: ptr(int32(80))}}}}
	}
	if b := s.Behavior; b != nil {
		b.ScaleUp = defaultScalingRules(b.ScaleUp, ptr(int32(0)), []api.HPAScalingPolicy{
			{Type: "Pods", Value: 4, PeriodSeconds: 15}, {Type: "Percent", Value: 100, PeriodSeconds: 15}})
		b.ScaleDown = defaultScalingRules(b.ScaleDown, nil, []api.HPAScalingPolicy{{Type: "Percent", Value: 100, PeriodSeconds: 15}})
	}
}

// defaultScalingRules is kube's copyHPAScalingRules over a direction's
// defaults: a field set in r wins (an empty policy list too: validation
// refuses it).
func defaultScalingRules(r *api.HPAScalingRules, window *int32, policies []api.HPAScalingPolicy) *api.HPAScalingRules {
	out := &api.HPAScalingRules{StabilizationWindowSeconds: window, SelectPolicy: ptr("Max"), Policies: policies}
	if r == nil {
		return out
	}
	if r.SelectPolicy != nil {
		out.SelectPolicy = r.SelectPolicy
	}
	if r.StabilizationWindowSeconds != nil {
		out.StabilizationWindowSeconds = r.StabilizationWindowSeconds
	}
	if r.Policies != nil {
		out.Policies = r.Policies
	}
	out.Tolerance = r.Tolerance
	return out
}

// validateHorizontalPodAutoscaler is kube's
// validateHorizontalPodAutoscalerSpec (pkg/apis/autoscaling/validation),
// with HPAScaleToZero on (beta, its v1.37 default): minReplicas ≥ 0 (0
// needs an Object or External metric), maxReplicas ≥ 1 and ≥
// minReplicas, the scale target's kind, name and group-qualified
// apiVersion, the metrics, and the behavior.
func validateHorizontalPodAutoscaler(h *api.HorizontalPodAutoscaler, fs *fieldErrors) {
	s := h.Spec
	if s.MinReplicas != nil && *s.MinReplicas < 0 {
		fs.invalid("spec.minReplicas", strconv.Itoa(int(*s.MinReplicas)), "must be greater than or equal to 0")
	}
	switch {
	case s.MaxReplicas == 0:
		fs.required("spec.maxReplicas", "must be set and greater than 0")
	case s.MaxReplicas < 0:
		fs.invalid("spec.maxReplicas", strconv.Itoa(int(s.MaxReplicas)), "must be greater than or equal to 1")
	}
	if s.MinReplicas != nil && s.MaxReplicas < *s.MinReplicas {
		fs.invalid("spec.maxReplicas", strconv.Itoa(int(s.MaxReplicas)), "must be greater than or equal to `minReplicas`")
	}
	ref, rp := s.ScaleTargetRef, "spec.scaleTargetRef"
	if ref.Kind == "" {
		fs.required(rp+".kind", "")
	} else {
		checkPathSegmentName(fs, rp+".kind", ref.Kind)
	}
	if ref.Name == "" {
		fs.required(rp+".name", "")
	} else {
		checkPathSegmentName(fs, rp+".name", ref.Name)
	}
	switch group, _, ok := strings.Cut(ref.APIVersion, "/"); {
	case strings.Count(ref.APIVersion, "/") > 1:
		fs.invalid(rp+".apiVersion", ref.APIVersion, "unexpected GroupVersion string: "+ref.APIVersion)
	case !ok || group == "":
		fs.invalid(rp+".apiVersion", ref.APIVersion, "apiVersion must specify API group")
	}
	validateHPAMetrics(h, fs)
	if b := s.Behavior; b != nil {
		validateScalingRules(fs, "spec.behavior.scaleUp", b.ScaleUp)
		validateScalingRules(fs, "spec.behavior.scaleDown", b.ScaleDown)
	}
}

// validateScalingRules is kube's validateScalingRules.
func validateScalingRules(fs *fieldErrors, path string, r *api.HPAScalingRules) {
	if r == nil {
		return
	}
	if w := r.StabilizationWindowSeconds; w != nil && *w < 0 {
		fs.invalid(path+".stabilizationWindowSeconds", strconv.Itoa(int(*w)), "must be greater than or equal to zero")
	} else if w != nil && *w > maxHPAStabilizationWindowSeconds {
		fs.invalid(path+".stabilizationWindowSeconds", strconv.Itoa(int(*w)), fmt.Sprintf("must be less than or equal to %d", maxHPAStabilizationWindowSeconds))
	}
	if p := r.SelectPolicy; p != nil && *p != "Max" && *p != "Min" && *p != "Disabled" {
		fs.add(FieldUnsupported, path+".selectPolicy", *p, `supported values: "Disabled", "Max", "Min"`)
	}
	if len(r.Policies) == 0 {
		fs.required(path+".policies", "must specify at least one Policy")
	}
	for i, p := range r.Policies {
		pp := fmt.Sprintf("%s.policies[%d]", path, i)
		if p.Type != "Pods" && p.Type != "Percent" {
			fs.add(FieldUnsupported, pp+".type", p.Type, `supported values: "Percent", "Pods"`)
		}
		if p.Value <= 0 {
			fs.invalid(pp+".value", strconv.Itoa(int(p.Value)), "must be greater than zero")
		}
		if p.PeriodSeconds <= 0 {
			fs.invalid(pp+".periodSeconds", strconv.Itoa(int(p.PeriodSeconds)), "must be greater than zero")
		}
		if p.PeriodSeconds > maxHPAPeriodSeconds {
			fs.invalid(pp+".periodSeconds", strconv.Itoa(int(p.PeriodSeconds)), fmt.Sprintf("must be less than or equal to %d", maxHPAPeriodSeconds))
		}
	}
	if t := r.Tolerance; t != nil && t.Sign() < 0 {
		fs.invalid(path+".tolerance", t.String(), "must be greater than or equal to 0")
	}
}

// validateHPAMetrics is kube's validateMetrics: each metric, and a
// minReplicas of 0 only with an Object or External metric.
func validateHPAMetrics(h *api.HorizontalPodAutoscaler, fs *fieldErrors) {
	path := "spec.metrics"
	hasObjectOrExternal := false
	for i, m := range h.Spec.Metrics {
		validateMetricSpec(fs, fmt.Sprintf("%s[%d]", path, i), m)
		if m.Type == api.ObjectMetricSourceType || m.Type == api.ExternalMetricSourceType {
			hasObjectOrExternal = true
		}
	}
	if h.Spec.MinReplicas != nil && *h.Spec.MinReplicas == 0 && !hasObjectOrExternal {
		fs.forbidden(path, "must specify at least one Object or External metric to support scaling to zero replicas")
	}
}

const supportedMetricSourceTypes = `supported values: "ContainerResource", "External", "Object", "Pods", "Resource"`

// validateMetricSpec is kube's validateMetricSpec: a known type, the
// source of that type set and valid, no other source set.
func validateMetricSpec(fs *fieldErrors, path string, m api.MetricSpec) {
	if m.Type == "" {
		fs.required(path+".type", "must specify a metric source type")
	}
	known := true
	switch m.Type {
	case api.ObjectMetricSourceType, api.PodsMetricSourceType, api.ResourceMetricSourceType,
		api.ExternalMetricSourceType, api.ContainerResourceMetricSourceType:
	default:
		known = false
		fs.add(FieldUnsupported, path+".type", string(m.Type), supportedMetricSourceTypes)
	}
	// The sources set, in kube's order; only the first is validated.
	var present []string
	if m.Object != nil {
		if present = append(present, "object"); len(present) == 1 {
			validateObjectMetricSource(fs, path+".object", m.Object)
		}
	}
	if m.External != nil {
		if present = append(present, "external"); len(present) == 1 {
			validateMetricIdentifier(fs, path+".external.metric", m.External.Metric)
			t, tp := m.External.Target, path+".external.target"
			validateMetricTarget(fs, tp, t)
			if t.Value == nil && t.AverageValue == nil {
				fs.required(tp+".averageValue", "must set either a target value for metric or a per-pod target")
			}
			if t.Value != nil && t.AverageValue != nil {
				fs.forbidden(tp+".value", "may not set both a target value for metric and a per-pod target")
			}
		}
	}
	if m.Pods != nil {
		if present = append(present, "pods"); len(present) == 1 {
			validateMetricIdentifier(fs, path+".pods.metric", m.Pods.Metric)
			validateMetricTarget(fs, path+".pods.target", m.Pods.Target)
			if m.Pods.Target.AverageValue == nil {
				fs.required(path+".pods.target.averageValue", "must specify a positive target averageValue")
			}
		}
	}
	if m.Resource != nil {
		if present = append(present, "resource"); len(present) == 1 {
			if m.Resource.Name == "" {
				fs.required(path+".resource.name", "must specify a resource name")
			}
			validateRawOrUtilizationTarget(fs, path+".resource.target", m.Resource.Target)
		}
	}
	if m.ContainerResource != nil {
		if present = append(present, "containerResource"); len(present) == 1 {
			cr, cp := m.ContainerResource, path+".containerResource"
			if cr.Name == "" {
				fs.required(cp+".name", "must specify a resource name")
			}
			if cr.Container == "" {
				fs.required(cp+".container", "must specify a container")
			} else {
				checkDNS1123Label(fs, cp+".container", cr.Container)
			}
			validateRawOrUtilizationTarget(fs, cp+".target", cr.Target)
		}
	}
	expected := ""
	if known {
		expected = map[api.MetricSourceType]string{api.ObjectMetricSourceType: "object", api.PodsMetricSourceType: "pods",
			api.ResourceMetricSourceType: "resource", api.ExternalMetricSourceType: "external",
			api.ContainerResourceMetricSourceType: "containerResource"}[m.Type]
		found := false
		for _, p := range present {
			found = found || p == expected
		}
		if !found {
			fs.required(path+"."+expected, "must populate information for the given metric source")
		}
	}
	if len(present) != 1 {
		for _, p := range present {
			if p != expected {
				fs.forbidden(path+"."+p, "must populate the given metric source only")
			}
		}
	}
}

func validateObjectMetricSource(fs *fieldErrors, path string, o *api.ObjectMetricSource) {
	ref, rp := o.DescribedObject, path+".describedObject"
	if ref.Kind == "" {
		fs.required(rp+".kind", "")
	} else {
		checkPathSegmentName(fs, rp+".kind", ref.Kind)
	}
	if ref.Name == "" {
		fs.required(rp+".name", "")
	} else {
		checkPathSegmentName(fs, rp+".name", ref.Name)
	}
	// schema.ParseGroupVersion: "", "v1" or "group/version"; an empty
	// group is allowed for described objects.
	if strings.Count(ref.APIVersion, "/") > 1 {
		fs.invalid(rp+".apiVersion", ref.APIVersion, fmt.Sprintf("unexpected GroupVersion string: %s", ref.APIVersion))
	}
	validateMetricIdentifier(fs, path+".metric", o.Metric)
	validateMetricTarget(fs, path+".target", o.Target)
	if o.Target.Value == nil && o.Target.AverageValue == nil {
		fs.required(path+".target.averageValue", "must set either a target value or averageValue")
	}
}

func validateRawOrUtilizationTarget(fs *fieldErrors, path string, t api.MetricTarget) {
	validateMetricTarget(fs, path, t)
	if t.AverageUtilization == nil && t.AverageValue == nil {
		fs.required(path+".averageUtilization", "must set either a target raw value or a target utilization")
	}
	if t.AverageUtilization != nil && t.AverageValue != nil {
		fs.forbidden(path+".averageValue", "may not set both a target raw value and a target utilization")
	}
}

// validateMetricTarget is kube's validateMetricTarget.
func validateMetricTarget(fs *fieldErrors, path string, t api.MetricTarget) {
	if t.Type == "" {
		fs.required(path+".type", "must specify a metric target type")
	}
	switch t.Type {
	case api.UtilizationMetricType, api.ValueMetricType, api.AverageValueMetricType:
	default:
		*fs = append(*fs, FieldError{Type: FieldInvalid, Field: path + ".type", Value: string(t.Type), BadValue: string(t.Type),
			Detail: "must be either Utilization, Value, or AverageValue"})
	}
	if t.Value != nil && t.Value.Sign() != 1 {
		fs.invalid(path+".value", t.Value.String(), "must be positive")
	}
	if t.AverageValue != nil && t.AverageValue.Sign() != 1 {
		fs.invalid(path+".averageValue", t.AverageValue.String(), "must be positive")
	}
	if u := t.AverageUtilization; u != nil && *u < 1 {
		invalidInt(fs, path+".averageUtilization", int64(*u), "must be greater than 0")
	}
}

// validateMetricIdentifier is kube's validateMetricIdentifier.
func validateMetricIdentifier(fs *fieldErrors, path string, id api.MetricIdentifier) {
	if id.Name == "" {
		fs.required(path+".name", "must specify a metric name")
	} else {
		checkPathSegmentName(fs, path+".name", id.Name)
	}
}
