package scheduler

import (
	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Resources is an amount of the resources the scheduler accounts for, in
// the units kube-scheduler's framework.Resource uses: CPU in millicores,
// memory and ephemeral storage in bytes. The zero value is nothing.
type Resources struct {
	// MilliCPU is CPU in thousandths of a core.
	MilliCPU int64
	// Memory is in bytes.
	Memory int64
	// EphemeralStorage is in bytes.
	EphemeralStorage int64
}

// The requests kube-scheduler assumes, for scoring only, of a container
// that requests no CPU or no memory (its DefaultMilliCPURequest and
// DefaultMemoryRequest), so that best-effort pods still spread.
const (
	DefaultMilliCPURequest int64 = 100
	DefaultMemoryRequest   int64 = 200 * 1024 * 1024
)

// Add returns r + o.
func (r Resources) Add(o Resources) Resources {
	return Resources{r.MilliCPU + o.MilliCPU, r.Memory + o.Memory, r.EphemeralStorage + o.EphemeralStorage}
}

// Sub returns r − o.
func (r Resources) Sub(o Resources) Resources {
	return Resources{r.MilliCPU - o.MilliCPU, r.Memory - o.Memory, r.EphemeralStorage - o.EphemeralStorage}
}

// Max returns the per-resource maximum of r and o.
func (r Resources) Max(o Resources) Resources {
	return Resources{max(r.MilliCPU, o.MilliCPU), max(r.Memory, o.Memory), max(r.EphemeralStorage, o.EphemeralStorage)}
}

// IsZero reports whether r requests nothing.
func (r Resources) IsZero() bool { return r == Resources{} }

// ResourcesFromList reads cpu, memory and ephemeral-storage from l; other
// names are ignored. CPU is rounded up to a whole millicore and the byte
// counts up to a whole byte, as Quantity.MilliValue and Value do.
func ResourcesFromList(l api.ResourceList) Resources {
	var r Resources
	if q, ok := l[api.ResourceCPU]; ok {
		r.MilliCPU = q.MilliValue()
	}
	if q, ok := l[api.ResourceMemory]; ok {
		r.Memory = q.Value()
	}
	if q, ok := l[api.ResourceEphemeralStorage]; ok {
		r.EphemeralStorage = q.Value()
	}
	return r
}

// containerRequests reads one container's requests; with nonZero, a
// missing cpu or memory request counts as the defaults above (an explicit
// zero stays zero, as in kube-scheduler).
func containerRequests(c *api.Container, nonZero bool) Resources {
	l := c.Resources.Requests
	r := ResourcesFromList(l)
	if nonZero {
		if _, ok := l[api.ResourceCPU]; !ok {
			r.MilliCPU = DefaultMilliCPURequest
		}
		if _, ok := l[api.ResourceMemory]; !ok {
			r.Memory = DefaultMemoryRequest
		}
	}
	return r
}

// PodRequests returns what pod requests, computed as kube-scheduler's
// resource helper (k8s.io/component-helpers/resource.PodRequests) does:
// the sum over the containers, then per resource the larger of that and
// the largest init container — where a restartable init container (a
// sidecar, restartPolicy Always) adds to the sum and to every init
// container started after it — plus spec.overhead.
//
// With nonZero, a container missing a cpu or memory request counts as
// DefaultMilliCPURequest or DefaultMemoryRequest (kube-scheduler's
// NonMissingContainerRequests, used by the LeastAllocated score and
// SelectorSpread's peers, never by the NodeResourcesFit filter).
func PodRequests(pod *api.Pod, nonZero bool) Resources {
	var sum Resources
	for i := range pod.Spec.Containers {
		sum = sum.Add(containerRequests(&pod.Spec.Containers[i], nonZero))
	}
	var sidecars, initMax Resources
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		req := containerRequests(c, nonZero)
		if c.RestartPolicy != nil && *c.RestartPolicy == "Always" {
			sum = sum.Add(req)
			sidecars = sidecars.Add(req)
			req = sidecars
		} else {
			req = req.Add(sidecars)
		}
		initMax = initMax.Max(req)
	}
	sum = sum.Max(initMax)
	if pod.Spec.Overhead != nil {
		sum = sum.Add(ResourcesFromList(pod.Spec.Overhead))
	}
	return sum
}
