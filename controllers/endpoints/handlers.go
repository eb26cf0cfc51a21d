package endpoints

import (
	"maps"
	"slices"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// selects reports whether svc's selector picks a pod with these labels.
// A service without a selector selects nothing (kcm skips a nil
// selector; an empty one does not survive JSON here, so it counts as
// none).
func selects(svc *api.Service, podLabels map[string]string) bool {
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

// servicesForPod returns the keys of the services (of the pod's
// namespace) whose selector picks p: GetPodServiceMemberships.
func servicesForPod(services []*api.Service, p *api.Pod) []string {
	var keys []string
	for _, s := range services {
		if s.Namespace == p.Namespace && selects(s, p.Labels) {
			keys = append(keys, api.Key(s))
		}
	}
	slices.Sort(keys)
	return keys
}

// servicesForPodChange is GetServicesToUpdateOnPodChange: the services
// to sync after a pod went from old to cur. Nothing for a resync (same
// resourceVersion) or a change no Endpoints shows; the services of the
// new labels after a change of the pod; after a change of labels
// (or hostname, subdomain) also the services of the old ones — all of
// both when the pod changed too, only those that picked one but not the
// other when only the labels did.
func servicesForPodChange(services []*api.Service, old, cur *api.Pod) []string {
	if old.ResourceVersion == cur.ResourceVersion {
		return nil
	}
	podChanged, labelsChanged := podEndpointsChanged(old, cur)
	if !podChanged && !labelsChanged {
		return nil
	}
	now := servicesForPod(services, cur)
	if !labelsChanged {
		return now
	}
	before := servicesForPod(services, old)
	set := map[string]int{}
	for _, k := range before {
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
// Endpoints (deletion timestamp, readiness, IPs; name, namespace, uid
// and node are fixed by then), and whether it may alter which services
// pick the pod or its hostname (labels, hostname, subdomain).
func podEndpointsChanged(old, cur *api.Pod) (podChanged, labelsChanged bool) {
	labelsChanged = !maps.Equal(old.Labels, cur.Labels) ||
		old.Spec.Hostname != cur.Spec.Hostname || old.Spec.Subdomain != cur.Spec.Subdomain
	switch {
	case (old.DeletionTimestamp == nil) != (cur.DeletionTimestamp == nil):
		podChanged = true
	case api.IsPodReady(old) != api.IsPodReady(cur):
		podChanged = true
	case old.Status.PodIP != cur.Status.PodIP || !slices.Equal(old.Status.PodIPs, cur.Status.PodIPs):
		podChanged = true
	case (old.Status.Phase == api.PodSucceeded || old.Status.Phase == api.PodFailed) !=
		(cur.Status.Phase == api.PodSucceeded || cur.Status.Phase == api.PodFailed):
		// Not in kcm's list: a pod turning terminal while already not
		// ready leaves the Endpoints here, and kcm's pod would wait for
		// the next resync.
		podChanged = true
	}
	return podChanged, labelsChanged
}
