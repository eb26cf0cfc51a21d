package scheduler

import (
	"fmt"
	"slices"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/ephemeral"
	"github.com/ctrlkit/ctrlkit/informer"
)

// FilterVolumeBinding is kube-scheduler's VolumeBinding plugin, the
// filter that runs after VolumeRestrictions (see volumeBindingPreFilter).
const FilterVolumeBinding = "VolumeBinding"

// The reasons of VolumeBinding, worded as kube-scheduler's
// pkg/scheduler/framework/plugins/volumebinding words them. The PreFilter
// rejections that name a claim ("persistentvolumeclaim "data" not found",
// …) are formatted per claim.
const (
	// ReasonUnboundImmediateClaims is the PreFilter rejection of a pod
	// with a claim that is not bound (volume_binding.go, PreFilter).
	ReasonUnboundImmediateClaims = "pod has unbound immediate PersistentVolumeClaims"
	// ReasonVolumeNodeAffinity rejects a node that a bound volume's
	// spec.nodeAffinity.required does not admit (binder.go,
	// ErrReasonNodeConflict).
	ReasonVolumeNodeAffinity = "node(s) didn't match PersistentVolume's node affinity"
	// ReasonVolumeNotExist rejects every node when a bound claim's volume
	// is not in the VolumeLookup (binder.go, ErrReasonPVNotExist).
	ReasonVolumeNotExist = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
)

// AnnBindCompleted is the annotation the PersistentVolume controller puts
// on a claim whose binding it has finished.
const AnnBindCompleted = "pv.kubernetes.io/bind-completed"

// reasonsVolume are VolumeBinding's Filter reason lists by a bit set —
// 1 node conflict, 2 bind conflict, 4 volume missing — in the order
// FindPodVolumes appends them (ErrReasonNotEnoughSpace, between the
// last two, never arises: storage capacity is not modelled).
var reasonsVolume [8][]string

func init() {
	names := []string{ReasonVolumeNodeAffinity, ReasonBindConflict, ReasonVolumeNotExist}
	for bits := 1; bits < 8; bits++ {
		for i, n := range names {
			if bits&(1<<i) != 0 {
				reasonsVolume[bits] = append(reasonsVolume[bits], n)
			}
		}
	}
}

// VolumeLookup returns the PersistentVolume called name (volumes are
// cluster-scoped), as a lister does; it must not block.
type VolumeLookup func(name string) (*api.PersistentVolume, bool)

// boundVolume is what VolumeBinding's Filter checks of one bound claim:
// the node affinity of its volume, or that the volume is missing.
type boundVolume struct {
	required *api.NodeSelector // nil: any node
	missing  bool
}

// volumeState is the pre-filter state of the volume plugins for one
// attempt, computed by the Scheduler from Options.Claims and
// Options.Volumes (the zero value checks nothing).
type volumeState struct {
	// rwopConflict: a ReadWriteOncePod claim of the pod is in use by
	// another pod (VolumeRestrictions).
	rwopConflict bool
	// reject is the PreFilter rejection of VolumeBinding or VolumeZone
	// (rejectBy, an index in filters): the pod fits on no node, and the
	// message is this text instead of per-node counts.
	reject   string
	rejectBy int
	// bound are the pod's bound claims whose volumes the Filter checks.
	bound []boundVolume
	// delayed are the pod's unbound claims of delayed binding
	// (WaitForFirstConsumer), sorted by requested size.
	delayed []*delayedClaim
	// zones are the topology labels of the bound volumes VolumeZone's
	// Filter matches; nil skips it.
	zones []volumeTopology
	// csi is NodeVolumeLimits' state; nil skips it.
	csi *csiState
}

// ClaimBound reports whether the claim is fully bound: spec.volumeName
// set and the binding finished — kube-scheduler's isPVCFullyBound asks
// for the pv.kubernetes.io/bind-completed annotation the PersistentVolume
// controller writes; a claim with status.phase Bound counts as well, so
// that a claim bound by hand (volumeName and phase, no annotation) is
// not held forever.
func ClaimBound(pvc *api.PersistentVolumeClaim) bool {
	if pvc.Spec.VolumeName == "" {
		return false
	}
	_, done := pvc.Annotations[AnnBindCompleted]
	return done || pvc.Status.Phase == "Bound"
}

// podClaimName is the claim a pod volume uses: a persistentVolumeClaim's
// claimName, or a generic ephemeral volume's <pod>-<volume> claim
// (isEphemeral); ok is false for a volume of no claim.
func podClaimName(pod *api.Pod, v *api.Volume) (name string, isEphemeral, ok bool) {
	switch {
	case v.PersistentVolumeClaim != nil:
		return v.PersistentVolumeClaim.ClaimName, false, true
	case v.Ephemeral != nil:
		return ephemeral.ClaimName(pod, v), true, true
	}
	return "", false, false
}

// volumeBindingPreFilter is VolumeBinding's PreFilter over the claims of
// pod (spec.volumes[].persistentVolumeClaim, and the claim of each generic
// ephemeral volume, which must exist and be the pod's — kube's
// podHasPVCs — in the pod's namespace), in kube-scheduler's two passes:
//
//  1. in volume order, the first claim that is missing, Lost or being
//     deleted rejects the pod with its own message
//     (`persistentvolumeclaim "data" not found`,
//     `persistentvolumeclaim "data" bound to non-existent persistentvolume "pv-1"`,
//     `persistentvolumeclaim "data" is being deleted`);
//  2. any claim not ClaimBound rejects it with
//     ReasonUnboundImmediateClaims, unless (with delay set) its class is
//     of WaitForFirstConsumer binding and it names no volume yet: such
//     a claim is left to the Filter (GetPodVolumeClaims).
//
// Otherwise it returns the bound claims' volumes for the Filter (with a
// nil volumes lookup, none: the volumes' node affinity is not checked)
// and the delayed claims. claims must not be nil.
func volumeBindingPreFilter(pod *api.Pod, claims ClaimLookup, volumes VolumeLookup, delay *delayEnv) (reject string, bound []boundVolume, delayed []*delayedClaim) {
	var found []*api.PersistentVolumeClaim
	for i := range pod.Spec.Volumes {
		name, isEphemeral, ok := podClaimName(pod, &pod.Spec.Volumes[i])
		if !ok {
			continue
		}
		pvc, ok := claims(pod.Namespace, name)
		switch {
		case (!ok || pvc == nil) && isEphemeral:
			// Normal right after the pod's creation: the ephemeral volume
			// controller has not made it yet.
			return fmt.Sprintf("waiting for ephemeral volume controller to create the persistentvolumeclaim %q", name), nil, nil
		case !ok || pvc == nil:
			return fmt.Sprintf("persistentvolumeclaim %q not found", name), nil, nil
		case pvc.Status.Phase == "Lost":
			return fmt.Sprintf("persistentvolumeclaim %q bound to non-existent persistentvolume %q", pvc.Name, pvc.Spec.VolumeName), nil, nil
		case pvc.DeletionTimestamp != nil:
			return fmt.Sprintf("persistentvolumeclaim %q is being deleted", pvc.Name), nil, nil
		}
		if isEphemeral {
			if err := ephemeral.IsForPod(pod, pvc); err != nil {
				return err.Error(), nil, nil
			}
		}
		found = append(found, pvc)
	}
	var boundClaims, delayedClaims []*api.PersistentVolumeClaim
	var classes []*api.StorageClass
	for _, pvc := range found {
		if ClaimBound(pvc) {
			boundClaims = append(boundClaims, pvc)
			continue
		}
		if delay != nil && pvc.Spec.VolumeName == "" {
			if sc := delay.delayedClass(pvc); sc != nil {
				delayedClaims = append(delayedClaims, pvc)
				classes = append(classes, sc)
				continue
			}
		}
		return ReasonUnboundImmediateClaims, nil, nil
	}
	if len(delayedClaims) > 0 {
		delayed = delay.newDelayedClaims(delayedClaims, classes)
	}
	if volumes == nil {
		return "", nil, delayed
	}
	for _, pvc := range boundClaims {
		pv, ok := volumes(pvc.Spec.VolumeName)
		switch {
		case !ok || pv == nil:
			bound = append(bound, boundVolume{missing: true})
		case pv.Spec.NodeAffinity != nil && pv.Spec.NodeAffinity.Required != nil:
			bound = append(bound, boundVolume{required: pv.Spec.NodeAffinity.Required})
		}
	}
	return "", bound, delayed
}

// filterVolumeBinding is VolumeBinding's Filter (FindPodVolumes). For
// the bound claims (checkBoundClaims), in claim order, the first whose
// volume is missing (ReasonVolumeNotExist) or whose volume's required
// node affinity does not admit the node's labels
// (ReasonVolumeNodeAffinity) decides; as kube-scheduler's
// CheckNodeAffinity, only labels are matched (a matchFields term on
// metadata.name sees ""). Then the delayed claims need a volume on the
// node (findDelayed), else ReasonBindConflict; every reason that applies
// is given.
func filterVolumeBinding(pc *podCtx, n *NodeInfo) []string {
	if len(pc.volumes.bound) == 0 && len(pc.volumes.delayed) == 0 {
		return nil
	}
	bits := 0
	labelsOnly := pc.withLabels(n.labels)
	for _, bv := range pc.volumes.bound {
		if bv.missing {
			bits |= 4
			break
		}
		if bv.required != nil && !bv.required.Matches(labelsOnly) {
			bits |= 1
			break
		}
	}
	if len(pc.volumes.delayed) > 0 && !findDelayed(pc, n, nil) {
		bits |= 2
	}
	return reasonsVolume[bits]
}

// volumeStateFor computes the volume plugins' pre-filter state of pi
// against the cache and the lookups, running the PreFilters of
// VolumeBinding (delay nil: every claim of Immediate binding) and then
// (with volumes set) VolumeZone; with claims nil, the zero state.
func volumeStateFor(pi *PodInfo, c *Cache, claims ClaimLookup, volumes VolumeLookup, delay *delayEnv) volumeState {
	if claims == nil {
		return volumeState{}
	}
	vs := volumeState{rwopConflict: rwopConflict(pi, c, claims)}
	vs.reject, vs.bound, vs.delayed = volumeBindingPreFilter(pi.Pod, claims, volumes, delay)
	vs.rejectBy = volumeBindingIndex
	if vs.reject == "" && volumes != nil {
		vs.zones, vs.reject = volumeZonePreFilter(pi.Pod, claims, volumes)
		vs.rejectBy = volumeZoneIndex
	}
	return vs
}

// volumeBindingIndex is VolumeBinding's index in filters.
var volumeBindingIndex = slices.IndexFunc(filters, func(f filter) bool { return f.name == FilterVolumeBinding })

// ClaimsFrom returns a ClaimLookup over an informer's lister of
// PersistentVolumeClaims (keys namespace/name), for Options.Claims.
func ClaimsFrom(l informer.Lister[*api.PersistentVolumeClaim]) ClaimLookup {
	return func(namespace, name string) (*api.PersistentVolumeClaim, bool) {
		return l.Namespace(namespace).Get(name)
	}
}

// VolumesFrom returns a VolumeLookup over an informer's lister of
// PersistentVolumes (keys name), for Options.Volumes.
func VolumesFrom(l informer.Lister[*api.PersistentVolume]) VolumeLookup {
	return l.Get
}
