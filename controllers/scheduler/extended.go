package scheduler

import (
	"slices"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// ScalarResource is an amount of a resource other than cpu, memory,
// ephemeral-storage and pods — an extended resource such as
// nvidia.com/gpu, hugepages-2Mi — in its integer units (Quantity.Value,
// as kube-scheduler's framework.Resource.ScalarResources).
type ScalarResource struct {
	// Name is the resource name.
	Name api.ResourceName
	// Value is the amount.
	Value int64
}

// isScalar reports whether name is accounted as a scalar resource.
func isScalar(name api.ResourceName) bool {
	switch name {
	case api.ResourceCPU, api.ResourceMemory, api.ResourceEphemeralStorage, api.ResourcePods:
		return false
	}
	return true
}

// scalarsFrom returns the scalar resources of l with a positive amount,
// sorted by name.
func scalarsFrom(l api.ResourceList) []ScalarResource {
	var out []ScalarResource
	for name, q := range l {
		if isScalar(name) {
			if v := q.Value(); v > 0 {
				out = append(out, ScalarResource{Name: name, Value: v})
			}
		}
	}
	slices.SortFunc(out, func(a, b ScalarResource) int { return strings.Compare(string(a.Name), string(b.Name)) })
	return out
}

// scalarAdd adds (sign 1) or subtracts (−1) rs to the amounts in m,
// dropping those that reach 0; it returns m (made when nil).
func scalarAdd(m map[api.ResourceName]int64, rs []ScalarResource, sign int64) map[api.ResourceName]int64 {
	if len(rs) == 0 {
		return m
	}
	if m == nil {
		m = make(map[api.ResourceName]int64, len(rs))
	}
	for _, r := range rs {
		if m[r.Name] += sign * r.Value; m[r.Name] == 0 {
			delete(m, r.Name)
		}
	}
	return m
}

// insufficientScalars returns the scalar resources pi requests more of
// than n has free (allocatable minus what its pods request), sorted by
// name. kube-scheduler's fitsRequest checks them after cpu, memory and
// ephemeral-storage, reasoning "Insufficient <name>".
func insufficientScalars(pi *PodInfo, n *NodeInfo) []api.ResourceName {
	var out []api.ResourceName
	for _, r := range pi.Scalars {
		if r.Value > n.scalarAlloc[r.Name]-n.scalarRequested[r.Name] {
			out = append(out, r.Name)
		}
	}
	return out
}

// scalarUnresolvable reports whether pi asks for more of a scalar
// resource than n has allocatable in all.
func scalarUnresolvable(pi *PodInfo, n *NodeInfo) bool {
	for _, r := range pi.Scalars {
		if r.Value > n.scalarAlloc[r.Name] {
			return true
		}
	}
	return false
}
