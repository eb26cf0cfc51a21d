package scheduler

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// FilterVolumeZone is kube-scheduler's VolumeZone plugin
// (pkg/scheduler/framework/plugins/volumezone), the filter after
// VolumeBinding: a bound volume's zone and region labels must match the
// node's.
const FilterVolumeZone = "VolumeZone"

// ReasonVolumeZoneConflict is VolumeZone's rejection (ErrReasonConflict).
const ReasonVolumeZoneConflict = "node(s) had no available volume zone"

// The deprecated failure-domain labels VolumeZone reads beside
// topology.kubernetes.io/zone and /region.
const (
	LabelFailureDomainBetaZone   = "failure-domain.beta.kubernetes.io/zone"
	LabelFailureDomainBetaRegion = "failure-domain.beta.kubernetes.io/region"
)

// volumeTopologyLabels are the volume labels VolumeZone matches, in
// kube-scheduler's order.
var volumeTopologyLabels = []string{
	LabelFailureDomainBetaZone,
	LabelFailureDomainBetaRegion,
	api.LabelTopologyZone,
	api.LabelTopologyRegion,
}

// multiZoneDelimiter separates the zones of a volume's zone label
// ("us-west1-a__us-west1-b"), as k8s.io/cloud-provider's
// LabelMultiZoneDelimiter.
const multiZoneDelimiter = "__"

var reasonsVolumeZone = []string{ReasonVolumeZoneConflict}

// volumeTopology is one topology label of a bound volume and the values
// it admits.
type volumeTopology struct {
	key    string
	values []string
}

// labelZonesToSet parses a zone label value as k8s.io/cloud-provider's
// LabelZonesToSet: zones separated by "__", each trimmed; an empty zone
// makes the whole value invalid (ok false).
func labelZonesToSet(value string) (zones []string, ok bool) {
	for z := range strings.SplitSeq(value, multiZoneDelimiter) {
		z = strings.TrimSpace(z)
		if z == "" {
			return nil, false
		}
		if !slices.Contains(zones, z) {
			zones = append(zones, z)
		}
	}
	return zones, true
}

// volumeZonePreFilter is VolumeZone's PreFilter for a pod whose claims
// VolumeBinding's PreFilter found all present and bound: in volume order,
// the volume of each claim, whose absence rejects the pod
// (`persistentvolume "pv-1" not found`, the lister's NotFound), and
// otherwise the topology labels of the volumes (a value that does not
// parse is ignored, as kube-scheduler logs and ignores it). No topology
// at all is kube's Skip: the Filter checks nothing.
func volumeZonePreFilter(pod *api.Pod, claims ClaimLookup, volumes VolumeLookup) (tops []volumeTopology, reject string) {
	for i := range pod.Spec.Volumes {
		src := pod.Spec.Volumes[i].PersistentVolumeClaim
		if src == nil {
			continue
		}
		pvc, ok := claims(pod.Namespace, src.ClaimName)
		if !ok || pvc == nil || pvc.Spec.VolumeName == "" {
			continue // VolumeBinding's PreFilter has rejected such claims
		}
		pv, ok := volumes(pvc.Spec.VolumeName)
		if !ok || pv == nil {
			return nil, fmt.Sprintf("persistentvolume %q not found", pvc.Spec.VolumeName)
		}
		for _, key := range volumeTopologyLabels {
			v, ok := pv.Labels[key]
			if !ok {
				continue
			}
			if zones, ok := labelZonesToSet(v); ok {
				tops = append(tops, volumeTopology{key: key, values: zones})
			}
		}
	}
	return tops, ""
}

// gaTopologyLabel maps a deprecated failure-domain label to its
// topology.kubernetes.io successor (kube's translateToGALabel).
func gaTopologyLabel(key string) string {
	switch key {
	case LabelFailureDomainBetaRegion:
		return api.LabelTopologyRegion
	case LabelFailureDomainBetaZone:
		return api.LabelTopologyZone
	}
	return key
}

// filterVolumeZone is VolumeZone's Filter: a node without any of the
// four topology labels passes (a single-zone cluster); otherwise every
// topology label of the pod's bound volumes needs the node's value of
// that label — or, for a deprecated label the node lacks, of its GA
// successor — among the volume's values.
func filterVolumeZone(pc *podCtx, n *NodeInfo) []string {
	tops := pc.volumes.zones
	if len(tops) == 0 {
		return nil
	}
	constrained := false
	for _, key := range volumeTopologyLabels {
		if _, ok := n.labels[key]; ok {
			constrained = true
			break
		}
	}
	if !constrained {
		return nil
	}
	for _, t := range tops {
		v, ok := n.labels[t.key]
		if !ok {
			v, ok = n.labels[gaTopologyLabel(t.key)]
		}
		if !ok || !slices.Contains(t.values, v) {
			return reasonsVolumeZone
		}
	}
	return nil
}

// volumeZoneIndex is VolumeZone's index in filters.
var volumeZoneIndex = slices.IndexFunc(filters, func(f filter) bool { return f.name == FilterVolumeZone })
