package hpa

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/source"
)

// MetricsClient reports the usage of a resource by the pods of a
// namespace that a selector picks, keyed by pod name: what kcm reads
// from the resource metrics API (metrics.k8s.io, served by
// metrics-server). A pod without a sample is left out.
type MetricsClient interface {
	PodMetrics(ctx context.Context, namespace string, selector api.Selector, resource api.ResourceName) (map[string]PodMetric, error)
}

// DefaultMetricWindow is the window of Load's samples (metrics-server's
// default resolution window).
const DefaultMetricWindow = 30 * time.Second

// Load is a MetricsClient for simulations and tests, driven by a load
// description that may change while the cluster runs: each running pod
// of a namespace uses a set percentage of its request (SetUtilization),
// unless its own usage was set (SetPod). Pods that are not Running have
// no sample, as with metrics-server. Samples are stamped with the time
// of the read and a window of DefaultMetricWindow. It is safe for
// concurrent use.
type Load struct {
	pods client.Resource[*api.Pod]
	mu   sync.Mutex
	// percent is each namespace's utilization; guarded by mu.
	percent map[string]int64
	// perPod is the usage in milli-units of single pods
	// ("namespace/name"); guarded by mu.
	perPod map[string]int64
	// objects reads the objects of Object metrics; guarded by mu.
	objects client.Client
}

// NewLoad returns a Load over pods (any client's), every namespace at 0%.
func NewLoad(pods client.Resource[*api.Pod]) *Load {
	return &Load{pods: pods, percent: map[string]int64{}, perPod: map[string]int64{}}
}

// SetUtilization makes every running pod of namespace use percent of its
// request (of whichever resource is asked for).
func (l *Load) SetUtilization(namespace string, percent int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.percent[namespace] = int64(percent)
}

// SetPod sets the usage of one pod in milli-units (millicores),
// overriding its namespace's utilization; negative removes the
// override.
func (l *Load) SetPod(namespace, name string, milli int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if milli < 0 {
		delete(l.perPod, namespace+"/"+name)
		return
	}
	l.perPod[namespace+"/"+name] = milli
}

// ContainerMetricsClient reports the usage of a resource by one
// container of each pod, keyed by pod name (what kcm reads from the
// resource metrics API for a ContainerResource metric); a pod without
// the container or its sample is left out. The autoscaler uses
// Options.Metrics for ContainerResource metrics when it implements this
// interface (Load does); otherwise they fail.
type ContainerMetricsClient interface {
	ContainerMetrics(ctx context.Context, namespace string, selector api.Selector, resource api.ResourceName, container string) (map[string]PodMetric, error)
}

// ContainerMetrics implements ContainerMetricsClient: a pod's usage (as
// PodMetrics reports it) shared among its containers in proportion to
// their requests of resource (evenly when none has one), the last
// container taking what division leaves — the split the metrics API of
// the API server reports to kubectl top.
func (l *Load) ContainerMetrics(ctx context.Context, namespace string, selector api.Selector, resource api.ResourceName, container string) (map[string]PodMetric, error) {
	pods, err := l.PodMetrics(ctx, namespace, selector, resource)
	if err != nil {
		return nil, err
	}
	if len(pods) == 0 {
		return nil, errNoResourceMetrics
	}
	sel, err := l.pods.Select(client.SelectOptions{Namespace: namespace})
	if err != nil {
		return nil, err
	}
	list, err := sel.List(ctx, source.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("hpa: load: %w", err)
	}
	out := map[string]PodMetric{}
	for _, p := range list.Items {
		m, ok := pods[p.Name]
		if !ok {
			continue
		}
		if v, ok := containerShare(p, resource, container, m.Value); ok {
			m.Value = v
			out[p.Name] = m
		}
	}
	return out, nil
}

// errNoResourceMetrics is kcm's error when the resource metrics API has
// no sample of any pod the selector picks.
var errNoResourceMetrics = errors.New("no metrics returned from resource metrics API")

// containerShare is container's part of a pod's usage total.
func containerShare(p *api.Pod, resource api.ResourceName, container string, total int64) (int64, bool) {
	cs := p.Spec.Containers
	var sum int64
	for _, c := range cs {
		q := c.Resources.Requests[resource]
		sum += q.MilliValue()
	}
	left := total
	for i, c := range cs {
		var part int64
		q := c.Resources.Requests[resource]
		switch {
		case i == len(cs)-1:
			part = left
		case sum == 0:
			part = total / int64(len(cs))
		default:
			part = total * q.MilliValue() / sum
		}
		if c.Name == container {
			return part, true
		}
		left -= part
	}
	return 0, false
}

// PodMetrics implements MetricsClient.
func (l *Load) PodMetrics(ctx context.Context, namespace string, selector api.Selector, resource api.ResourceName) (map[string]PodMetric, error) {
	sel, err := l.pods.Select(client.SelectOptions{Namespace: namespace})
	if err != nil {
		return nil, err
	}
	list, err := sel.List(ctx, source.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("hpa: load: %w", err)
	}
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]PodMetric{}
	for _, p := range list.Items {
		if p.Status.Phase != api.PodRunning || !selector.Matches(p.Labels) {
			continue
		}
		v, ok := l.perPod[namespace+"/"+p.Name]
		if !ok {
			var req int64
			for _, c := range p.Spec.Containers {
				q, ok := c.Resources.Requests[resource]
				if !ok {
					q = c.Resources.Limits[resource]
				}
				req += q.MilliValue()
			}
			v = req * l.percent[namespace] / 100
		}
		out[p.Name] = PodMetric{Value: v, Timestamp: now, Window: DefaultMetricWindow}
	}
	return out, nil
}

// MetricAnnotationPrefix prefixes the annotations from which Load reads
// custom metrics: a pod annotated sim.ctrlkit.io/metric-<name>:
// <quantity> reports that value of the Pods metric <name>; any object so
// annotated reports it as the Object metric <name> describing it.
const MetricAnnotationPrefix = "sim.ctrlkit.io/metric-"

// CustomMetricsClient reports custom metrics (what kcm reads from the
// custom metrics API, custom.metrics.k8s.io): per pod for Pods metrics,
// per object for Object metrics. Values are in milli-units. The
// autoscaler uses Options.Metrics for these when it implements this
// interface (Load does); otherwise Pods and Object metrics fail.
type CustomMetricsClient interface {
	// PodsMetric returns the metric's value for the pods of namespace
	// that selector picks, keyed by pod name; a pod without a sample is
	// left out.
	PodsMetric(ctx context.Context, namespace string, selector api.Selector, metric api.MetricIdentifier) (map[string]PodMetric, error)
	// ObjectMetric returns the metric's value for the object ref of
	// namespace describes.
	ObjectMetric(ctx context.Context, namespace string, ref api.CrossVersionObjectReference, metric api.MetricIdentifier) (PodMetric, error)
}

// ErrNoMetricValue is wrapped by Load's errors when an object or the
// pods carry no value of a metric.
var ErrNoMetricValue = errors.New("no metric value")

// WithObjects lets l read Object metrics from the objects of any kind c
// serves (without it, only pods); it returns l.
func (l *Load) WithObjects(c client.Client) *Load {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.objects = c
	return l
}

// metricSelected says whether the selector of a metric identifier's series: the
// simulation's series carry no labels, so a selector requiring one
// matches none. A nil selector selects every series, as kcm's nil
// metric selector does.
func metricSelected(m api.MetricIdentifier) (bool, error) {
	if m.Selector == nil {
		return true, nil
	}
	s, err := m.Selector.AsSelector()
	if err != nil {
		return false, err
	}
	return s.Matches(nil), nil
}

// annotationMetric parses the metric's annotation on meta, in
// milli-units.
func annotationMetric(meta *api.ObjectMeta, name string) (int64, bool, error) {
	v, ok := meta.Annotations[MetricAnnotationPrefix+name]
	if !ok {
		return 0, false, nil
	}
	q, err := api.ParseQuantity(v)
	if err != nil {
		return 0, false, fmt.Errorf("annotation %s%s of %s: %w", MetricAnnotationPrefix, name, meta.Name, err)
	}
	return q.MilliValue(), true, nil
}

// PodsMetric implements CustomMetricsClient: the running pods annotated
// with the metric report its value.
func (l *Load) PodsMetric(ctx context.Context, namespace string, selector api.Selector, metric api.MetricIdentifier) (map[string]PodMetric, error) {
	ok, err := metricSelected(metric)
	if err != nil {
		return nil, err
	}
	sel, err := l.pods.Select(client.SelectOptions{Namespace: namespace})
	if err != nil {
		return nil, err
	}
	list, err := sel.List(ctx, source.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("hpa: load: %w", err)
	}
	now := time.Now()
	out := map[string]PodMetric{}
	for _, p := range list.Items {
		if !ok || p.Status.Phase != api.PodRunning || !selector.Matches(p.Labels) {
			continue
		}
		v, found, err := annotationMetric(&p.ObjectMeta, metric.Name)
		if err != nil {
			return nil, err
		}
		if found {
			out[p.Name] = PodMetric{Value: v, Timestamp: now, Window: DefaultMetricWindow}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no pods of namespace %s report metric %s: %w", namespace, metric.Name, ErrNoMetricValue)
	}
	return out, nil
}

// ObjectMetric implements CustomMetricsClient: the described object's
// annotation for the metric is its value. Objects other than pods are
// read through the client given to WithObjects.
func (l *Load) ObjectMetric(ctx context.Context, namespace string, ref api.CrossVersionObjectReference, metric api.MetricIdentifier) (PodMetric, error) {
	ok, err := metricSelected(metric)
	if err != nil {
		return PodMetric{}, err
	}
	meta, err := l.object(ctx, namespace, ref)
	if err != nil {
		return PodMetric{}, err
	}
	v, found, err := annotationMetric(meta, metric.Name)
	if err != nil {
		return PodMetric{}, err
	}
	if !found || !ok {
		return PodMetric{}, fmt.Errorf("%s %s/%s reports no metric %s: %w", ref.Kind, namespace, ref.Name, metric.Name, ErrNoMetricValue)
	}
	return PodMetric{Value: v, Timestamp: time.Now(), Window: DefaultMetricWindow}, nil
}

// object reads the metadata of the object ref describes.
func (l *Load) object(ctx context.Context, namespace string, ref api.CrossVersionObjectReference) (*api.ObjectMeta, error) {
	key := api.NamespacedKey(namespace, ref.Name)
	group, version, found := strings.Cut(ref.APIVersion, "/")
	if !found {
		group, version = "", ref.APIVersion
	}
	if ref.Kind == "Pod" && group == "" {
		p, _, err := l.pods.Get(ctx, key)
		if err != nil {
			return nil, fmt.Errorf("unable to get Pod %s: %w", key, err)
		}
		return &p.ObjectMeta, nil
	}
	l.mu.Lock()
	c := l.objects
	l.mu.Unlock()
	if c == nil {
		return nil, fmt.Errorf("the simulated metrics cannot read a %s (only pods)", ref.Kind)
	}
	if version == "" {
		for _, gvk := range api.Kinds() {
			if gvk.Kind == ref.Kind {
				group, version = gvk.Group, gvk.Version
				break
			}
		}
	}
	u, err := c.ResourceFor(api.GroupVersionKind{Group: group, Version: version, Kind: ref.Kind})
	if err != nil {
		return nil, err
	}
	// Untyped hides Resource[T]'s type parameter; its Get is called by
	// reflection and its result seen as an api.Object.
	get := reflect.ValueOf(u).MethodByName("Get")
	if !get.IsValid() {
		return nil, fmt.Errorf("cannot read a %s", ref.Kind)
	}
	out := get.Call([]reflect.Value{reflect.ValueOf(ctx), reflect.ValueOf(key)})
	if e, _ := out[2].Interface().(error); e != nil {
		return nil, fmt.Errorf("unable to get %s %s: %w", ref.Kind, key, e)
	}
	obj, ok := out[0].Interface().(api.Object)
	if !ok {
		return nil, fmt.Errorf("cannot read a %s", ref.Kind)
	}
	return obj.GetObjectMeta(), nil
}
