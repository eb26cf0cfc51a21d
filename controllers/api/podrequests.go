package api

// PodRequestsOptions tune PodRequestsWith. The zero value computes what
// PodRequests does.
type PodRequestsOptions struct {
	// NonMissingContainerRequests, if set, is what a container counts as
	// for each resource named here that it does not request at all (an
	// explicit zero request stays zero): kube-scheduler passes its
	// default cpu and memory requests so that best-effort pods still
	// spread.
	NonMissingContainerRequests ResourceList
	// ExcludeOverhead leaves spec.overhead out.
	ExcludeOverhead bool
}

// PodRequests returns the resources a pod requests, computed once for
// every component that needs it (the scheduler, resource quota), by
// Kubernetes' rule (k8s.io/component-helpers/resource.PodRequests): per
// resource, the larger of
//
//   - the largest init container request, where every restartable init
//     container (a sidecar, restartPolicy Always) started before an init
//     container adds to that one's request, and
//   - the sum of the app containers plus all restartable init containers,
//
// plus spec.overhead. A resource no container requests (and the overhead
// does not name) is absent from the result; the result is never nil and
// is the caller's to change.
func PodRequests(pod *Pod) ResourceList {
	return PodRequestsWith(pod, PodRequestsOptions{})
}

// PodRequestsWith is PodRequests with options.
func PodRequestsWith(pod *Pod, opts PodRequestsOptions) ResourceList {
	containerReqs := func(c *Container) ResourceList {
		reqs := c.Resources.Requests
		if len(opts.NonMissingContainerRequests) == 0 {
			return reqs
		}
		out := reqs.DeepCopy()
		for name, q := range opts.NonMissingContainerRequests {
			if _, ok := reqs[name]; !ok {
				if out == nil {
					out = ResourceList{}
				}
				out[name] = q
			}
		}
		return out
	}

	total := ResourceList{}
	for i := range pod.Spec.Containers {
		addResources(total, containerReqs(&pod.Spec.Containers[i]))
	}
	sidecars := ResourceList{} // the restartable init containers started so far
	largestInit := ResourceList{}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		reqs := containerReqs(c)
		var running ResourceList // what runs while c starts
		if IsRestartableInitContainer(c) {
			addResources(total, reqs)
			addResources(sidecars, reqs)
			running = sidecars
		} else {
			running = sidecars.DeepCopy()
			addResources(running, reqs)
		}
		maxResources(largestInit, running)
	}
	maxResources(total, largestInit)
	if !opts.ExcludeOverhead {
		addResources(total, pod.Spec.Overhead)
	}
	return total
}

// IsRestartableInitContainer reports whether init container c is a
// sidecar: its restartPolicy is Always, so it starts before the init
// containers after it and runs beside the app containers.
func IsRestartableInitContainer(c *Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == ContainerRestartPolicy(RestartPolicyAlways)
}

// addResources adds l to into, resource by resource.
func addResources(into, l ResourceList) {
	for name, q := range l {
		if cur, ok := into[name]; ok {
			into[name] = cur.Add(q)
		} else {
			into[name] = q
		}
	}
}

// maxResources raises into to l, resource by resource.
func maxResources(into, l ResourceList) {
	for name, q := range l {
		if cur, ok := into[name]; !ok || q.Cmp(cur) > 0 {
			into[name] = q
		}
	}
}
