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
	total := aggregateContainers(pod, func(c *Container) ResourceList {
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
	})
	if !opts.ExcludeOverhead {
		addResources(total, pod.Spec.Overhead)
	}
	return total
}

// PodLimits returns the resource limits of a pod by Kubernetes' rule
// (k8s.io/component-helpers/resource.PodLimits): the containers' limits
// aggregated as PodRequests aggregates requests (sidecars beside the app
// containers, the largest init container as a floor), plus spec.overhead
// for each resource that has a non-zero limit (a pod with no limit on a
// resource stays unlimited on it). The result is never nil and is the
// caller's to change.
func PodLimits(pod *Pod) ResourceList {
	total := aggregateContainers(pod, func(c *Container) ResourceList { return c.Resources.Limits })
	for name, q := range pod.Spec.Overhead {
		if cur, ok := total[name]; ok && !cur.IsZero() {
			total[name] = cur.Add(q)
		}
	}
	return total
}

// aggregateContainers is the per-resource larger of the largest init
// container's list (sidecars started before it added) and the sum of the
// app containers' and sidecars' lists, where of(c) is container c's list.
func aggregateContainers(pod *Pod, of func(c *Container) ResourceList) ResourceList {
	total := ResourceList{}
	for i := range pod.Spec.Containers {
		addResources(total, of(&pod.Spec.Containers[i]))
	}
	sidecars := ResourceList{} // the restartable init containers started so far
	largestInit := ResourceList{}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		l := of(c)
		var running ResourceList // what runs while c starts
		if IsRestartableInitContainer(c) {
			addResources(total, l)
			addResources(sidecars, l)
			running = sidecars
		} else {
			running = sidecars.DeepCopy()
			addResources(running, l)
		}
		maxResources(largestInit, running)
	}
	maxResources(total, largestInit)
	return total
}

// DefaultRequestsFromLimits gives every container and init container of
// spec a request equal to its limit for each resource it limits but does
// not request. It is kube-apiserver's defaulting of a Pod
// (SetDefaults_Pod in k8s.io/kubernetes pkg/apis/core/v1/defaults.go),
// which the in-process cluster applies when it stores a pod; it is the
// only place ctrlkit derives requests from limits, so everything that
// reads a stored pod's requests (PodRequests, the scheduler, resource
// quota) sees the defaulted ones. As in Kubernetes, pod templates are not
// defaulted this way: their pods are, when they are created.
func DefaultRequestsFromLimits(spec *PodSpec) {
	for _, cs := range [][]Container{spec.InitContainers, spec.Containers} {
		for i := range cs {
			r := &cs[i].Resources
			for name, q := range r.Limits {
				if _, ok := r.Requests[name]; ok {
					continue
				}
				if r.Requests == nil {
					r.Requests = ResourceList{}
				}
				r.Requests[name] = q
			}
		}
	}
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
