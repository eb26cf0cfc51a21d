package hpa

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// The defaults, as kube-controller-manager's.
const (
	// DefaultTolerance is --horizontal-pod-autoscaler-tolerance: usage
	// ratios within 10% of 1 do not scale.
	DefaultTolerance = 0.1
	// DefaultCPUInitializationPeriod is
	// --horizontal-pod-autoscaler-cpu-initialization-period: a pod
	// started less than this ago counts only once ready and once a full
	// metric window has passed since it became ready.
	DefaultCPUInitializationPeriod = 5 * time.Minute
	// DefaultInitialReadinessDelay is
	// --horizontal-pod-autoscaler-initial-readiness-delay: after the
	// initialization period, a pod that turned unready within this long
	// of its start has never been ready.
	DefaultInitialReadinessDelay = 30 * time.Second
)

// PodMetric is one pod's usage of a resource, as the metrics API
// reports it: Value in milli-units (millicores for cpu), averaged over
// Window ending at Timestamp.
type PodMetric struct {
	// Value is the usage in milli-units.
	Value int64
	// Timestamp is the end of the sample's window.
	Timestamp time.Time
	// Window is the sample's averaging window.
	Window time.Duration
}

// Tolerance is the band around a usage ratio of 1 within which no
// scaling happens, per direction (kcm's tolerances; autoscaling/v2
// behavior.*.tolerance).
type Tolerance struct {
	// ScaleDown: ratios down to 1-ScaleDown do not scale down.
	ScaleDown float64
	// ScaleUp: ratios up to 1+ScaleUp do not scale up.
	ScaleUp float64
}

func (t Tolerance) within(ratio float64) bool {
	return (1.0-t.ScaleDown) <= ratio && ratio <= (1.0+t.ScaleUp)
}

// Readiness are the timing parameters of GroupPods.
type Readiness struct {
	// CPUInitializationPeriod; see DefaultCPUInitializationPeriod.
	CPUInitializationPeriod time.Duration
	// InitialReadinessDelay; see DefaultInitialReadinessDelay.
	InitialReadinessDelay time.Duration
}

// Groups are the pods of a target sorted as kcm's groupPods does.
type Groups struct {
	// Ready pods have a metric and count.
	Ready int
	// Unready pods (Pending, not ready, or too fresh for their cpu
	// sample) are left out, or count as using nothing on a scale-up.
	Unready map[string]bool
	// Missing pods have no metric: they count as using 100% (or the
	// target, if higher) on a scale-down and nothing on a scale-up.
	Missing map[string]bool
	// Ignored pods (being deleted, or terminal) do not count at all.
	Ignored map[string]bool
}

// GroupPods sorts pods by what their metrics are worth at now (kcm's
// groupPods). Readiness only matters for cpu.
func GroupPods(pods []*api.Pod, metrics map[string]PodMetric, resource api.ResourceName, r Readiness, now time.Time) Groups {
	g := Groups{Unready: map[string]bool{}, Missing: map[string]bool{}, Ignored: map[string]bool{}}
	for _, p := range pods {
		if p.DeletionTimestamp != nil || p.Status.Phase == api.PodFailed || p.Status.Phase == api.PodSucceeded {
			g.Ignored[p.Name] = true
			continue
		}
		if p.Status.Phase == api.PodPending || p.Status.Phase == "" {
			g.Unready[p.Name] = true
			continue
		}
		m, ok := metrics[p.Name]
		if !ok {
			g.Missing[p.Name] = true
			continue
		}
		if resource == api.ResourceCPU {
			var ready *api.PodCondition
			for i := range p.Status.Conditions {
				if p.Status.Conditions[i].Type == api.PodReady {
					ready = &p.Status.Conditions[i]
				}
			}
			unready := false
			switch {
			case ready == nil || p.Status.StartTime == nil:
				unready = true
			case p.Status.StartTime.Time.Add(r.CPUInitializationPeriod).After(now):
				// Still initializing: the sample counts once ready for
				// a whole window.
				unready = ready.Status == api.ConditionFalse || m.Timestamp.Before(ready.LastTransitionTime.Time.Add(m.Window))
			default:
				// Unready and never ready since its start.
				unready = ready.Status == api.ConditionFalse && p.Status.StartTime.Time.Add(r.InitialReadinessDelay).After(ready.LastTransitionTime.Time)
			}
			if unready {
				g.Unready[p.Name] = true
				continue
			}
		}
		g.Ready++
	}
	return g
}

// ErrNoMetrics is matched (errors.Is) by the errors of ResourceReplicas
// and the other computations when they have nothing to compute from;
// their text is kcm's alone.
var ErrNoMetrics = errors.New("hpa: no metrics")

// noMetrics is an error with kcm's text msg that is ErrNoMetrics.
func noMetrics(msg string) error { return noMetricsError(msg) }

type noMetricsError string

func (e noMetricsError) Error() string { return string(e) }

func (noMetricsError) Is(target error) bool { return target == ErrNoMetrics }

// podRequests returns each pod's request of resource in milli-units
// (kcm's calculatePodRequestsFromContainers): the sum over its
// containers and restartable init containers (sidecars), or, when
// container is not "", that container's alone; a container without the
// request, or a pod without the container, is an error.
func podRequests(pods []*api.Pod, container string, resource api.ResourceName) (map[string]int64, error) {
	out := map[string]int64{}
	for _, p := range pods {
		var sum int64
		found := false
		count := func(c *api.Container) error {
			if container != "" && c.Name != container {
				return nil
			}
			found = true
			q, ok := c.Resources.Requests[resource]
			if !ok {
				if q, ok = c.Resources.Limits[resource]; !ok { // requests default to limits
					return fmt.Errorf("missing request for %s in container %s of Pod %s", resource, c.Name, p.Name)
				}
			}
			sum += q.MilliValue()
			return nil
		}
		for i := range p.Spec.Containers {
			if err := count(&p.Spec.Containers[i]); err != nil {
				return nil, err
			}
		}
		for i := range p.Spec.InitContainers {
			if c := &p.Spec.InitContainers[i]; api.IsRestartableInitContainer(c) {
				if err := count(c); err != nil {
					return nil, err
				}
			}
		}
		if container != "" && !found {
			return nil, fmt.Errorf("container %s not found in Pod %s", container, p.Name)
		}
		out[p.Name] = sum
	}
	return out, nil
}

// utilizationRatio is kcm's GetResourceUtilizationRatio: the average
// utilization (percent of request, truncated) of the pods with metrics,
// its ratio to target, and the raw average usage.
func utilizationRatio(metrics map[string]PodMetric, requests map[string]int64, target int32) (ratio float64, utilization int32, avg int64, err error) {
	var usage, req int64
	n := 0
	for name, m := range metrics {
		r, ok := requests[name]
		if !ok {
			continue // a pod gone between the two reads
		}
		usage += m.Value
		req += r
		n++
	}
	if req == 0 {
		return 0, 0, 0, noMetrics("no metrics returned matched known pods")
	}
	utilization = int32(usage * 100 / req)
	return float64(utilization) / float64(target), utilization, usage / int64(n), nil
}

// ResourceReplicas is kcm's ReplicaCalculator.GetResourceReplicas: the
// replica count the pods' usage of resource asks for, given the
// current count (the target's spec.replicas) and a target utilization
// in percent of the request. It also returns the utilization and
// average usage it saw (over the ready pods with metrics).
//
// desired = ceil(ratio × ready pods), unless the ratio is within the
// tolerance. Then missing and unready pods are accounted for the way
// that can only damp the change: on a scale-down missing pods count as
// using max(100%, target) of their request, on a scale-up as using
// nothing, and unready pods as using nothing on a scale-up; the ratio
// is recomputed, and if it is now within tolerance, or flips direction,
// or the new count would move against the ratio, nothing changes.
func ResourceReplicas(current, target int32, pods []*api.Pod, metrics map[string]PodMetric, resource api.ResourceName, tol Tolerance, r Readiness, now time.Time) (replicas, utilization int32, avg int64, err error) {
	return resourceReplicas(current, target, pods, metrics, resource, "", tol, r, now)
}

// ContainerResourceReplicas is ResourceReplicas for a ContainerResource
// metric (kcm's GetResourceReplicas with a container): metrics hold the
// usage of the named container of each pod, and utilization is in
// percent of that container's request.
func ContainerResourceReplicas(current, target int32, pods []*api.Pod, metrics map[string]PodMetric, resource api.ResourceName, container string, tol Tolerance, r Readiness, now time.Time) (replicas, utilization int32, avg int64, err error) {
	return resourceReplicas(current, target, pods, metrics, resource, container, tol, r, now)
}

func resourceReplicas(current, target int32, pods []*api.Pod, metrics map[string]PodMetric, resource api.ResourceName, container string, tol Tolerance, r Readiness, now time.Time) (replicas, utilization int32, avg int64, err error) {
	if len(pods) == 0 {
		return 0, 0, 0, noMetrics("no pods returned by selector while calculating replica count")
	}
	g := GroupPods(pods, metrics, resource, r, now)
	m := map[string]PodMetric{}
	for name, v := range metrics {
		if !g.Ignored[name] && !g.Unready[name] {
			m[name] = v
		}
	}
	if len(m) == 0 {
		return 0, 0, 0, noMetrics("did not receive metrics for targeted pods (pods might be unready)")
	}
	requests, err := podRequests(pods, container, resource)
	if err != nil {
		return 0, 0, 0, err
	}
	ratio, utilization, avg, err := utilizationRatio(m, requests, target)
	if err != nil {
		return 0, 0, 0, err
	}
	upWithUnready := len(g.Unready) > 0 && ratio > 1.0
	if !upWithUnready && len(g.Missing) == 0 {
		if tol.within(ratio) {
			return current, utilization, avg, nil
		}
		return int32(math.Ceil(ratio * float64(g.Ready))), utilization, avg, nil
	}
	if len(g.Missing) > 0 {
		if ratio < 1.0 {
			fallback := int64(max(100, target))
			for name := range g.Missing {
				m[name] = PodMetric{Value: requests[name] * fallback / 100}
			}
		} else if ratio > 1.0 {
			for name := range g.Missing {
				m[name] = PodMetric{}
			}
		}
	}
	if upWithUnready {
		for name := range g.Unready {
			m[name] = PodMetric{}
		}
	}
	newRatio, _, _, err := utilizationRatio(m, requests, target)
	if err != nil {
		return 0, 0, 0, err
	}
	if tol.within(newRatio) || (ratio < 1.0 && newRatio > 1.0) || (ratio > 1.0 && newRatio < 1.0) {
		return current, utilization, avg, nil
	}
	n := int32(math.Ceil(newRatio * float64(len(m))))
	if (newRatio < 1.0 && n > current) || (newRatio > 1.0 && n < current) {
		return current, utilization, avg, nil
	}
	return n, utilization, avg, nil
}

// metricUsageRatio is kcm's GetMetricUsageRatio: the pods' average value
// (integer division) and its ratio to the target.
func metricUsageRatio(metrics map[string]PodMetric, target int64) (float64, int64) {
	var total int64
	for _, m := range metrics {
		total += m.Value
	}
	avg := total / int64(len(metrics))
	return float64(avg) / float64(target), avg
}

// PodsMetricReplicas is kcm's GetMetricReplicas (calcPlainMetricReplicas):
// the replica count a Pods metric with an AverageValue target (milli-
// units) asks for, and the average value seen. The pods are grouped as
// for a resource metric other than cpu (readiness does not matter; a
// Pending pod is unready); missing pods count as using the target on a
// scale-down and nothing on a scale-up, unready pods as using nothing on
// a scale-up, with the same damping as ResourceReplicas.
func PodsMetricReplicas(current int32, target int64, pods []*api.Pod, metrics map[string]PodMetric, tol Tolerance, r Readiness, now time.Time) (replicas int32, avg int64, err error) {
	return plainReplicas(current, target, pods, metrics, "", tol, r, now)
}

// RawResourceReplicas is kcm's GetRawResourceReplicas: the replica count
// a Resource or ContainerResource metric with an AverageValue target
// (milli-units of usage per pod) asks for, and the average usage seen:
// PodsMetricReplicas's computation over the usage of resource, the pods
// grouped as for that resource (cpu readiness counts).
func RawResourceReplicas(current int32, target int64, pods []*api.Pod, metrics map[string]PodMetric, resource api.ResourceName, tol Tolerance, r Readiness, now time.Time) (replicas int32, avg int64, err error) {
	return plainReplicas(current, target, pods, metrics, resource, tol, r, now)
}

// plainReplicas is kcm's calcPlainMetricReplicas.
func plainReplicas(current int32, target int64, pods []*api.Pod, metrics map[string]PodMetric, resource api.ResourceName, tol Tolerance, r Readiness, now time.Time) (replicas int32, avg int64, err error) {
	if len(pods) == 0 {
		return 0, 0, noMetrics("no pods returned by selector while calculating replica count")
	}
	g := GroupPods(pods, metrics, resource, r, now)
	m := map[string]PodMetric{}
	for name, v := range metrics {
		if !g.Ignored[name] && !g.Unready[name] {
			m[name] = v
		}
	}
	if len(m) == 0 {
		return 0, 0, noMetrics("did not receive metrics for targeted pods (pods might be unready)")
	}
	ratio, avg := metricUsageRatio(m, target)
	upWithUnready := len(g.Unready) > 0 && ratio > 1.0
	if !upWithUnready && len(g.Missing) == 0 {
		if tol.within(ratio) {
			return current, avg, nil
		}
		return int32(math.Ceil(ratio * float64(g.Ready))), avg, nil
	}
	if len(g.Missing) > 0 {
		if ratio < 1.0 {
			for name := range g.Missing {
				m[name] = PodMetric{Value: target}
			}
		} else if ratio > 1.0 {
			for name := range g.Missing {
				m[name] = PodMetric{}
			}
		}
	}
	if upWithUnready {
		for name := range g.Unready {
			m[name] = PodMetric{}
		}
	}
	newRatio, _ := metricUsageRatio(m, target)
	if tol.within(newRatio) || (ratio < 1.0 && newRatio > 1.0) || (ratio > 1.0 && newRatio < 1.0) {
		return current, avg, nil
	}
	n := int32(math.Ceil(newRatio * float64(len(m))))
	if (newRatio < 1.0 && n > current) || (newRatio > 1.0 && n < current) {
		return current, avg, nil
	}
	return n, avg, nil
}

// readyPods is kcm's getReadyPodsCount: the Running and Ready pods.
func readyPods(pods []*api.Pod) (int64, error) {
	if len(pods) == 0 {
		return 0, noMetrics("no pods returned by selector while calculating replica count")
	}
	var n int64
	for _, p := range pods {
		if p.Status.Phase != api.PodRunning {
			continue
		}
		for _, c := range p.Status.Conditions {
			if c.Type == api.PodReady && c.Status == api.ConditionTrue {
				n++
			}
		}
	}
	return n, nil
}

// ObjectMetricReplicas is kcm's GetObjectMetricReplicas
// (getUsageRatioReplicaCount) for an Object metric with a Value target:
// ratio = value / target; within the tolerance nothing changes,
// otherwise ceil(ratio × ready pods), capped at MaxInt32. A current count
// of 0 skips the tolerance and the pods: ceil(ratio).
func ObjectMetricReplicas(current int32, target, value int64, pods []*api.Pod, tol Tolerance) (int32, error) {
	ratio := float64(value) / float64(target)
	if current == 0 {
		return int32(math.Ceil(ratio)), nil
	}
	if tol.within(ratio) {
		return current, nil
	}
	ready, err := readyPods(pods)
	if err != nil {
		return 0, fmt.Errorf("unable to calculate ready pods: %s", err)
	}
	f := ratio * float64(ready)
	if f > math.MaxInt32 {
		return math.MaxInt32, nil
	}
	return int32(math.Ceil(f)), nil
}

// ObjectPerPodMetricReplicas is kcm's GetObjectPerPodMetricReplicas for
// an Object metric with an AverageValue target: with statusReplicas the
// scale's status.replicas, ratio = value / (target × statusReplicas);
// outside the tolerance the count is ceil(value / target). It also
// returns the value per pod, ceil(value / statusReplicas) (the whole
// value when statusReplicas is 0, where kcm divides by zero).
func ObjectPerPodMetricReplicas(statusReplicas int32, target, value int64, tol Tolerance) (replicas int32, perPod int64) {
	if statusReplicas == 0 {
		return int32(math.Ceil(float64(value) / float64(target))), value
	}
	replicas = statusReplicas
	ratio := float64(value) / (float64(target) * float64(statusReplicas))
	if !tol.within(ratio) {
		replicas = int32(math.Ceil(float64(value) / float64(target)))
	}
	return replicas, int64(math.Ceil(float64(value) / float64(statusReplicas)))
}
