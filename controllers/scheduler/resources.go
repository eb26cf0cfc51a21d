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

// PodRequests returns what pod requests: api.PodRequests (Kubernetes'
// k8s.io/component-helpers/resource.PodRequests, the one computation the
// scheduler and resource quota share) in the scheduler's units — the
// larger of the largest init container, where a restartable init
// container (a sidecar, restartPolicy Always) adds to every init container
// started after it, and the sum of the containers and the sidecars; plus
// spec.overhead. The total is rounded up to a millicore and a byte once,
// as kube-scheduler does.
//
// With nonZero, a container missing a cpu or memory request counts as
// DefaultMilliCPURequest or DefaultMemoryRequest (kube-scheduler's
// NonMissingContainerRequests, used by the LeastAllocated score and
// SelectorSpread's peers, never by the NodeResourcesFit filter); an
// explicit zero stays zero.
func PodRequests(pod *api.Pod, nonZero bool) Resources {
	var opts api.PodRequestsOptions
	if nonZero {
		opts.NonMissingContainerRequests = api.ResourceList{
			api.ResourceCPU:    api.NewMilliQuantity(DefaultMilliCPURequest, api.DecimalSI),
			api.ResourceMemory: api.NewQuantity(DefaultMemoryRequest, api.BinarySI),
		}
	}
	return ResourcesFromList(api.PodRequestsWith(pod, opts))
}
