package ctrlutil

import (
	"maps"
	"slices"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// ServiceSelects reports whether svc's selector picks a pod with these
// labels. A service without a selector picks none (kcm skips a nil
// selector; an empty one does not survive JSON here, so it counts as
// none).
func ServiceSelects(svc *api.Service, podLabels map[string]string) bool {
	if len(svc.Spec.Selector) == 0 {
		return false
	}
	for k, v := range svc.Spec.Selector {
		if got, ok := podLabels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// ServicesForPod returns the sorted keys of the services among services
// (of p's namespace) whose selector picks p: kcm's
// GetPodServiceMemberships (pkg/controller/util/endpoint), shared by the
// Endpoints and EndpointSlice controllers.
func ServicesForPod(services []*api.Service, p *api.Pod) []string {
	var keys []string
	for _, s := range services {
		if s.Namespace == p.Namespace && ServiceSelects(s, p.Labels) {
			keys = append(keys, api.Key(s))
		}
	}
	slices.Sort(keys)
	return keys
}

// ServicesForPodChange is kcm's GetServicesToUpdateOnPodChange: the
// sorted keys of the services to sync after a pod went from old to cur.
// None for a resync (same resourceVersion) or a change no Endpoints or
// EndpointSlice shows; the services of the new labels after a change of
// the pod; after a change of its labels (or hostname, subdomain) also
// those of the old ones — all of both when the pod changed too, only
// those that picked it before or after but not both otherwise.
func ServicesForPodChange(services []*api.Service, old, cur *api.Pod) []string {
	if old.ResourceVersion == cur.ResourceVersion {
		return nil
	}
	podChanged, labelsChanged := podEndpointsChanged(old, cur)
	if !podChanged && !labelsChanged {
		return nil
	}
	now := ServicesForPod(services, cur)
	if !labelsChanged {
		return now
	}
	set := map[string]int{}
	for _, k := range ServicesForPod(services, old) {
		set[k] |= 1
	}
	for _, k := range now {
		set[k] |= 2
	}
	var keys []string
	for k, in := range set {
		if podChanged || in != 3 {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// podEndpointsChanged is kcm's: whether the change may alter an
// endpoint (deletion timestamp, readiness, IPs), and whether it may alter
// which services pick the pod or its hostname (labels, hostname,
// subdomain). Two changes kcm does not list count too: the node name
// (set once, at binding; a slice's endpoint carries it) and a pod
// turning terminal (one already not ready leaves its endpoint then, and
// kcm's would wait for the next resync).
func podEndpointsChanged(old, cur *api.Pod) (podChanged, labelsChanged bool) {
	labelsChanged = !maps.Equal(old.Labels, cur.Labels) ||
		old.Spec.Hostname != cur.Spec.Hostname || old.Spec.Subdomain != cur.Spec.Subdomain
	podChanged = (old.DeletionTimestamp == nil) != (cur.DeletionTimestamp == nil) ||
		api.IsPodReady(old) != api.IsPodReady(cur) ||
		old.Status.PodIP != cur.Status.PodIP || !slices.Equal(old.Status.PodIPs, cur.Status.PodIPs) ||
		old.Spec.NodeName != cur.Spec.NodeName ||
		podTerminal(old) != podTerminal(cur)
	return podChanged, labelsChanged
}

func podTerminal(p *api.Pod) bool {
	return p.Status.Phase == api.PodSucceeded || p.Status.Phase == api.PodFailed
}
