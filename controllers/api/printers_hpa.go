package api

import (
	"fmt"
	"strings"
	"time"
)

// horizontalPodAutoscalerColumns and horizontalPodAutoscalerCells are
// the table of HorizontalPodAutoscaler objects, in either served version
// (kube's printHorizontalPodAutoscaler).
var horizontalPodAutoscalerColumns = []Column{{"Name", "string", 0}, {"Reference", "string", 0},
	{"Targets", "string", 0}, {"MinPods", "string", 0}, {"MaxPods", "string", 0}, {"Replicas", "string", 0},
	{"Age", "string", 0}}

func horizontalPodAutoscalerCells(o Object, now time.Time) []any {
	h := o.(*HorizontalPodAutoscaler)
	minPods := "<unset>"
	if h.Spec.MinReplicas != nil {
		minPods = fmt.Sprint(*h.Spec.MinReplicas)
	}
	return []any{h.Name, h.Spec.ScaleTargetRef.Kind + "/" + h.Spec.ScaleTargetRef.Name,
		formatHPAMetrics(h.Spec.Metrics, h.Status.CurrentMetrics), minPods,
		int64(h.Spec.MaxReplicas), int64(h.Status.CurrentReplicas), age(h, now)}
}

// hpaMaxTargets is how many metrics the Targets column shows.
const hpaMaxTargets = 2

// formatHPAMetrics is the Targets column: "current/target" for each
// metric, the current value from the status metric of the same index
// ("<unknown>" when there is none), a resource metric prefixed with its
// resource ("cpu: 50%/80%"), the first two and "+ N more..." (kube's
// formatHPAMetrics).
func formatHPAMetrics(specs []MetricSpec, statuses []MetricStatus) string {
	if len(specs) == 0 {
		return "<none>"
	}
	list := make([]string, 0, len(specs))
	for i, spec := range specs {
		var st *MetricStatus
		if i < len(statuses) {
			st = &statuses[i]
		}
		list = append(list, formatHPAMetric(&spec, st))
	}
	if len(list) > hpaMaxTargets {
		return fmt.Sprintf("%s + %d more...", strings.Join(list[:hpaMaxTargets], ", "), len(list)-hpaMaxTargets)
	}
	return strings.Join(list, ", ")
}

// formatHPAMetric is one metric of the Targets column; st is the status
// metric of the same index, or nil.
func formatHPAMetric(spec *MetricSpec, st *MetricStatus) string {
	const unknown = "<unknown>"
	// valueOrAverage is an Object or External metric: its average value,
	// "(avg)", when the target is one, else its value.
	valueOrAverage := func(target MetricTarget, current *MetricValueStatus) string {
		cur := unknown
		if target.AverageValue != nil {
			if current != nil && current.AverageValue != nil {
				cur = quantityString(current.AverageValue)
			}
			return fmt.Sprintf("%s/%s (avg)", cur, quantityString(target.AverageValue))
		}
		if current != nil {
			cur = quantityString(current.Value)
		}
		return fmt.Sprintf("%s/%s", cur, quantityString(target.Value))
	}
	// resource is a Resource or ContainerResource metric: the average
	// value when the target is one, else the utilization.
	resource := func(name ResourceName, target MetricTarget, current *MetricValueStatus) string {
		cur := unknown
		if target.AverageValue != nil {
			if current != nil {
				cur = quantityString(current.AverageValue)
			}
			return fmt.Sprintf("%s: %s/%s", name, cur, quantityString(target.AverageValue))
		}
		if current != nil && current.AverageUtilization != nil {
			cur = fmt.Sprintf("%d%%", *current.AverageUtilization)
		}
		want := "<auto>"
		if target.AverageUtilization != nil {
			want = fmt.Sprintf("%d%%", *target.AverageUtilization)
		}
		return fmt.Sprintf("%s: %s/%s", name, cur, want)
	}
	switch {
	case spec.Type == ExternalMetricSourceType && spec.External != nil:
		var cur *MetricValueStatus
		if st != nil && st.External != nil {
			cur = &st.External.Current
		}
		return valueOrAverage(spec.External.Target, cur)
	case spec.Type == PodsMetricSourceType && spec.Pods != nil:
		cur := unknown
		if st != nil && st.Pods != nil {
			cur = quantityString(st.Pods.Current.AverageValue)
		}
		return fmt.Sprintf("%s/%s", cur, quantityString(spec.Pods.Target.AverageValue))
	case spec.Type == ObjectMetricSourceType && spec.Object != nil:
		var cur *MetricValueStatus
		if st != nil && st.Object != nil {
			cur = &st.Object.Current
		}
		return valueOrAverage(spec.Object.Target, cur)
	case spec.Type == ResourceMetricSourceType && spec.Resource != nil:
		var cur *MetricValueStatus
		if st != nil && st.Resource != nil {
			cur = &st.Resource.Current
		}
		return resource(spec.Resource.Name, spec.Resource.Target, cur)
	case spec.Type == ContainerResourceMetricSourceType && spec.ContainerResource != nil:
		var cur *MetricValueStatus
		if st != nil && st.ContainerResource != nil {
			cur = &st.ContainerResource.Current
		}
		return resource(spec.ContainerResource.Name, spec.ContainerResource.Target, cur)
	}
	return "<unknown type>"
}

// quantityString is q's canonical form, "<nil>" for none (as kube's
// *resource.Quantity prints).
func quantityString(q *Quantity) string {
	if q == nil {
		return "<nil>"
	}
	return q.String()
}
