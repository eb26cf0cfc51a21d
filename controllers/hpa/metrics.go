package hpa

import (
	"context"
	"fmt"
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
