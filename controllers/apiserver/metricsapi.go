package apiserver

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/source"
)

// ResourceUsage reports what a pod uses now, as metrics-server samples
// it: CPU in millicores and memory in bytes over a window ending at the
// returned time; ok false for a pod without a sample (one not running).
type ResourceUsage func(ctx context.Context, pod *api.Pod) (cpuMilli, memoryBytes int64, at time.Time, window time.Duration, ok bool)

// metricsGroupVersion is the resource metrics API's group version.
const metricsGroupVersion = "metrics.k8s.io/v1beta1"

// metricsResources are its discovery entries (metrics-server's).
var metricsResources = []apiResource{
	{Name: "nodes", Kind: "NodeMetrics", Verbs: []string{"get", "list"}},
	{Name: "pods", Namespaced: true, Kind: "PodMetrics", Verbs: []string{"get", "list"}},
}

// resourceMetricsGroup is the discovery entry of metrics.k8s.io, listed
// when Options.ResourceUsage is set.
func (s *Server) resourceMetricsGroup() (apiGroup, bool) {
	if s.opts.ResourceUsage == nil {
		return apiGroup{}, false
	}
	v := groupVersion{GroupVersion: metricsGroupVersion, Version: "v1beta1"}
	return apiGroup{Name: "metrics.k8s.io", Versions: []groupVersion{v}, PreferredVersion: v}, true
}

// usageJSON is a metrics.k8s.io usage: cpu and memory quantities.
type usageJSON struct {
	CPU    string `json:"cpu"`
	Memory string `json:"memory"`
}

type containerMetrics struct {
	Name  string    `json:"name"`
	Usage usageJSON `json:"usage"`
}

// podMetrics is metrics.k8s.io/v1beta1 PodMetrics.
type podMetrics struct {
	api.TypeMeta `json:",inline"`
	Metadata     api.ObjectMeta     `json:"metadata"`
	Timestamp    api.Time           `json:"timestamp"`
	Window       string             `json:"window"`
	Containers   []containerMetrics `json:"containers"`
}

// nodeMetrics is metrics.k8s.io/v1beta1 NodeMetrics.
type nodeMetrics struct {
	api.TypeMeta `json:",inline"`
	Metadata     api.ObjectMeta `json:"metadata"`
	Timestamp    api.Time       `json:"timestamp"`
	Window       string         `json:"window"`
	Usage        usageJSON      `json:"usage"`
}

type metricsList[T any] struct {
	api.TypeMeta `json:",inline"`
	Metadata     ListMeta `json:"metadata"`
	Items        []T      `json:"items"`
}

// serveResourceMetrics serves GET of metrics.k8s.io/v1beta1 pods and
// nodes, list and get, as metrics-server: a pod's usage split among its
// containers by their CPU and memory requests, a node's the sum of its
// pods'; a label selector filters. It reports whether path was its.
func (s *Server) serveResourceMetrics(w http.ResponseWriter, r *http.Request, p string) bool {
	rest, ok := strings.CutPrefix(p, "/apis/"+metricsGroupVersion+"/")
	if !ok || s.opts.ResourceUsage == nil {
		return false
	}
	if r.Method != http.MethodGet {
		writeError(w, newError(http.StatusMethodNotAllowed, "MethodNotAllowed",
			"the server does not allow this method on the requested resource"), nil, "")
		return true
	}
	segs := strings.Split(rest, "/")
	namespace := ""
	if len(segs) >= 3 && segs[0] == "namespaces" {
		namespace, segs = segs[1], segs[2:]
	}
	if len(segs) == 0 || len(segs) > 2 || (segs[0] != "pods" && segs[0] != "nodes") || (segs[0] == "nodes" && namespace != "") {
		writeError(w, notFound(), nil, "")
		return true
	}
	name := ""
	if len(segs) == 2 {
		name = segs[1]
	}
	sel, err := api.ParseSelector(r.URL.Query().Get("labelSelector"))
	if err != nil {
		writeError(w, badRequest("labelSelector: %v", err), nil, "")
		return true
	}
	ctx := r.Context()
	pods, err := s.c.Pods().List(ctx, source.ListOptions{})
	if err != nil {
		writeError(w, err, nil, "")
		return true
	}
	type usage struct {
		cpu, mem int64
		at       time.Time
		window   time.Duration
	}
	var pm []podMetrics
	byNode := map[string]*usage{}
	for _, p := range pods.Items {
		cpu, mem, at, window, ok := s.opts.ResourceUsage(ctx, p)
		if !ok {
			continue
		}
		if u := byNode[p.Spec.NodeName]; p.Spec.NodeName != "" {
			if u == nil {
				u = &usage{at: at, window: window}
				byNode[p.Spec.NodeName] = u
			}
			u.cpu += cpu
			u.mem += mem
		}
		if segs[0] != "pods" || (namespace != "" && p.Namespace != namespace) || (name != "" && p.Name != name) || !sel.Matches(p.Labels) {
			continue
		}
		pm = append(pm, podMetrics{
			TypeMeta:   api.TypeMeta{APIVersion: metricsGroupVersion, Kind: "PodMetrics"},
			Metadata:   api.ObjectMeta{Name: p.Name, Namespace: p.Namespace, Labels: p.Labels, CreationTimestamp: api.NewTime(at)},
			Timestamp:  api.NewTime(at),
			Window:     window.String(),
			Containers: splitUsage(p, cpu, mem),
		})
	}
	if segs[0] == "pods" {
		if name != "" {
			if len(pm) == 0 {
				writeError(w, newError(http.StatusNotFound, "NotFound", "podmetrics.metrics.k8s.io \""+name+"\" not found"), nil, "")
				return true
			}
			writeJSON(w, http.StatusOK, pm[0])
			return true
		}
		writeJSON(w, http.StatusOK, metricsList[podMetrics]{TypeMeta: api.TypeMeta{APIVersion: metricsGroupVersion, Kind: "PodMetricsList"}, Items: nonNil(pm)})
		return true
	}
	nodes, err := s.c.Nodes().List(ctx, source.ListOptions{})
	if err != nil {
		writeError(w, err, nil, "")
		return true
	}
	var nm []nodeMetrics
	now := time.Now()
	for _, n := range nodes.Items {
		if (name != "" && n.Name != name) || !sel.Matches(n.Labels) {
			continue
		}
		u := byNode[n.Name]
		if u == nil {
			u = &usage{at: now, window: 30 * time.Second}
		}
		nm = append(nm, nodeMetrics{
			TypeMeta:  api.TypeMeta{APIVersion: metricsGroupVersion, Kind: "NodeMetrics"},
			Metadata:  api.ObjectMeta{Name: n.Name, Labels: n.Labels, CreationTimestamp: api.NewTime(u.at)},
			Timestamp: api.NewTime(u.at),
			Window:    u.window.String(),
			Usage:     usageJSON{CPU: milliQuantity(u.cpu), Memory: byteQuantity(u.mem)},
		})
	}
	if name != "" {
		if len(nm) == 0 {
			writeError(w, newError(http.StatusNotFound, "NotFound", "nodemetrics.metrics.k8s.io \""+name+"\" not found"), nil, "")
			return true
		}
		writeJSON(w, http.StatusOK, nm[0])
		return true
	}
	writeJSON(w, http.StatusOK, metricsList[nodeMetrics]{TypeMeta: api.TypeMeta{APIVersion: metricsGroupVersion, Kind: "NodeMetricsList"}, Items: nonNil(nm)})
	return true
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// splitUsage splits a pod's usage among its containers in proportion to
// their requests (evenly when none has one).
func splitUsage(p *api.Pod, cpu, mem int64) []containerMetrics {
	out := make([]containerMetrics, len(p.Spec.Containers))
	share := func(total int64, res api.ResourceName, milli bool) []int64 {
		reqs := make([]int64, len(p.Spec.Containers))
		var sum int64
		for i, c := range p.Spec.Containers {
			q := c.Resources.Requests[res]
			if milli {
				reqs[i] = q.MilliValue()
			} else {
				reqs[i] = q.Value()
			}
			sum += reqs[i]
		}
		parts := make([]int64, len(reqs))
		left := total
		for i := range reqs {
			switch {
			case i == len(reqs)-1:
				parts[i] = left
			case sum == 0:
				parts[i] = total / int64(len(reqs))
			default:
				parts[i] = total * reqs[i] / sum
			}
			left -= parts[i]
		}
		return parts
	}
	cpus, mems := share(cpu, api.ResourceCPU, true), share(mem, api.ResourceMemory, false)
	for i, c := range p.Spec.Containers {
		out[i] = containerMetrics{Name: c.Name, Usage: usageJSON{CPU: milliQuantity(cpus[i]), Memory: byteQuantity(mems[i])}}
	}
	return slices.Clip(out)
}

func milliQuantity(m int64) string { return strconv.FormatInt(m, 10) + "m" }

func byteQuantity(b int64) string {
	if b%(1<<10) == 0 && b > 0 {
		return strconv.FormatInt(b>>10, 10) + "Ki"
	}
	return strconv.FormatInt(b, 10)
}
