package scheduler

import (
	"slices"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/informer"
)

// FilterNodeVolumeLimits is kube-scheduler's NodeVolumeLimits plugin, its
// CSI part (pkg/scheduler/framework/plugins/nodevolumelimits/csi.go): a
// node holds at most its CSINode's allocatable count of volumes per CSI
// driver.
const FilterNodeVolumeLimits = "NodeVolumeLimits"

// ReasonMaxVolumeCount is NodeVolumeLimits' rejection
// (ErrReasonMaxVolumeCountExceeded).
const ReasonMaxVolumeCount = "node(s) exceed max volume count"

var reasonsMaxVolumeCount = []string{ReasonMaxVolumeCount}

// CSINodeLookup returns the CSINode of the node called name (a lister;
// must not block).
type CSINodeLookup func(name string) (*api.CSINode, bool)

// CSINodesFrom returns a CSINodeLookup over an informer's lister of
// CSINodes (keys name), for Options.CSINodes.
func CSINodesFrom(l informer.Lister[*api.CSINode]) CSINodeLookup { return l.Get }

// csiState is NodeVolumeLimits' PreFilter state: the CSI volumes of the
// pod being scheduled (unique name → driver), and the lookups to count
// those of the pods on a node.
type csiState struct {
	volumes  map[string]string
	claims   ClaimLookup
	pvs      VolumeLookup
	csiNodes CSINodeLookup
}

// csiVolumes adds to into the CSI volumes of pod, keyed by a name unique
// per volume, as kube's filterAttachableVolumes: a claim bound to a
// volume with spec.csi counts as driver/volumeHandle (so two pods using
// one volume count it once), an inline CSI volume as driver plus the pod
// and volume names. Claims that are missing, unbound or bound to a
// non-CSI volume are not counted.
func csiVolumes(pod *api.Pod, claims ClaimLookup, pvs VolumeLookup, into map[string]string) {
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		switch {
		case v.CSI != nil:
			into[v.CSI.Driver+"/"+pod.Namespace+"/"+pod.Name+"/"+v.Name] = v.CSI.Driver
		case v.PersistentVolumeClaim != nil || v.Ephemeral != nil:
			name, _, _ := podClaimName(pod, v)
			pvc, ok := claims(pod.Namespace, name)
			if !ok || pvc == nil || pvc.Spec.VolumeName == "" {
				continue
			}
			pv, ok := pvs(pvc.Spec.VolumeName)
			if !ok || pv == nil || pv.Spec.CSI == nil {
				continue
			}
			into[pv.Spec.CSI.Driver+"/"+pv.Spec.CSI.VolumeHandle] = pv.Spec.CSI.Driver
		}
	}
}

// newCSIState is NodeVolumeLimits' PreFilter: nil (kube's Skip) when a
// lookup is missing or the pod has no CSI volume.
func newCSIState(pod *api.Pod, claims ClaimLookup, pvs VolumeLookup, csiNodes CSINodeLookup) *csiState {
	if claims == nil || pvs == nil || csiNodes == nil {
		return nil
	}
	s := &csiState{volumes: map[string]string{}, claims: claims, pvs: pvs, csiNodes: csiNodes}
	csiVolumes(pod, claims, pvs, s.volumes)
	if len(s.volumes) == 0 {
		return nil
	}
	return s
}

// filterNodeVolumeLimits is NodeVolumeLimits' Filter: the node's limits
// are its CSINode's drivers' allocatable.count (a node without a CSINode,
// or a driver without a count, has no limit); the volumes already on the
// node are those of its bound and assumed pods; the pod's volumes already
// there are not counted again; a driver whose count on the node plus the
// pod's new ones exceeds its limit rejects the node, Unschedulable (a
// preemption victim's volumes free room).
func filterNodeVolumeLimits(pc *podCtx, n *NodeInfo) []string {
	s := pc.volumes.csi
	if s == nil {
		return nil
	}
	cn, ok := s.csiNodes(n.Name)
	if !ok || cn == nil {
		return nil
	}
	limits := map[string]int{}
	for _, d := range cn.Spec.Drivers {
		if d.Allocatable != nil && d.Allocatable.Count != nil {
			limits[d.Name] = int(*d.Allocatable.Count)
		}
	}
	if len(limits) == 0 {
		return nil
	}
	attached := map[string]string{}
	for _, pi := range n.Pods {
		if len(pi.Claims) > 0 || slices.ContainsFunc(pi.Pod.Spec.Volumes, func(v api.Volume) bool { return v.CSI != nil }) {
			csiVolumes(pi.Pod, s.claims, s.pvs, attached)
		}
	}
	perDriver := map[string]int{}
	for _, d := range attached {
		perDriver[d]++
	}
	added := map[string]int{}
	for k, d := range s.volumes {
		if _, on := attached[k]; !on {
			added[d]++
		}
	}
	for d, c := range added {
		limit, ok := limits[d]
		if !ok {
			continue
		}
		if perDriver[d]+c > limit {
			return reasonsMaxVolumeCount
		}
	}
	return nil
}
