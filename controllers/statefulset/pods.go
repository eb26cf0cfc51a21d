package statefulset

import (
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/ctrlutil"
)

// The claim retention policies' values.
const (
	retain = "Retain"
	remove = "Delete"
)

// startOrdinal is spec.ordinals.start, default 0.
func startOrdinal(set *api.StatefulSet) int {
	if set.Spec.Ordinals != nil {
		return int(set.Spec.Ordinals.Start)
	}
	return 0
}

// replicaCount is spec.replicas, which the API server defaults to 1.
func replicaCount(set *api.StatefulSet) int {
	if set.Spec.Replicas == nil {
		return 1
	}
	return int(*set.Spec.Replicas)
}

// parentAndOrdinal splits a pod name "<parent>-<ordinal>"
// (getParentNameAndOrdinal); a name without a numeric suffix has
// ordinal -1.
func parentAndOrdinal(name string) (string, int) {
	i := strings.LastIndexByte(name, '-')
	if i < 0 || i == len(name)-1 {
		return "", -1
	}
	n, err := strconv.ParseInt(name[i+1:], 10, 32)
	if err != nil || n < 0 || name[i+1] == '+' {
		return "", -1
	}
	return name[:i], int(n)
}

// ordinalOf returns p's ordinal, -1 if its name has none.
func ordinalOf(p *api.Pod) int {
	_, o := parentAndOrdinal(p.Name)
	return o
}

// isMemberOf reports whether p is named after set.
func isMemberOf(set *api.StatefulSet, p *api.Pod) bool {
	parent, o := parentAndOrdinal(p.Name)
	return o >= 0 && parent == set.Name
}

// inRange reports whether ordinal o is one the set should run.
func inRange(set *api.StatefulSet, o int) bool {
	start := startOrdinal(set)
	return o >= start && o < start+replicaCount(set)
}

func podName(set *api.StatefulSet, ordinal int) string {
	return set.Name + "-" + strconv.Itoa(ordinal)
}

// claimName is "<template>-<set>-<ordinal>".
func claimName(set *api.StatefulSet, template string, ordinal int) string {
	return template + "-" + set.Name + "-" + strconv.Itoa(ordinal)
}

// newPod builds the pod of ordinal from template, made for set at
// revision: named <set>-<ordinal>, hostname that name and subdomain the
// governing service, the identity and revision labels, and one volume per
// claim template (replacing a template volume of the same name).
func newPod(set *api.StatefulSet, template *api.PodTemplateSpec, revision string, ordinal int) *api.Pod {
	p := ctrlutil.PodFromTemplate(template, set)
	p.GenerateName = ""
	p.Name = podName(set, ordinal)
	p.Labels = maps.Clone(p.Labels)
	if p.Labels == nil {
		p.Labels = map[string]string{}
	}
	setIdentity(set, p)
	p.Labels[api.LabelControllerRevisionHash] = revision
	vols := make([]api.Volume, 0, len(set.Spec.VolumeClaimTemplates)+len(p.Spec.Volumes))
	names := map[string]bool{}
	for _, t := range set.Spec.VolumeClaimTemplates {
		names[t.Name] = true
		vols = append(vols, api.Volume{Name: t.Name, VolumeSource: api.VolumeSource{
			PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: claimName(set, t.Name, ordinal)}}})
	}
	for _, v := range p.Spec.Volumes {
		if !names[v.Name] {
			vols = append(vols, v)
		}
	}
	if len(vols) > 0 {
		p.Spec.Volumes = vols
	}
	return p
}

// setIdentity sets what makes a pod the member of its ordinal: its
// hostname, subdomain and identity labels (updateIdentity).
func setIdentity(set *api.StatefulSet, p *api.Pod) {
	p.Namespace = set.Namespace
	p.Spec.Hostname = p.Name
	p.Spec.Subdomain = set.Spec.ServiceName
	p.Labels[api.LabelStatefulSetPodName] = p.Name
	p.Labels[api.LabelPodIndex] = strconv.Itoa(ordinalOf(p))
}

// identityMatches reports whether p's identity labels are right; its
// hostname and subdomain cannot change once created.
func identityMatches(set *api.StatefulSet, p *api.Pod) bool {
	return isMemberOf(set, p) && p.Namespace == set.Namespace &&
		p.Labels[api.LabelStatefulSetPodName] == p.Name && p.Labels[api.LabelPodIndex] == strconv.Itoa(ordinalOf(p))
}

// newClaim builds the claim of template t for ordinal: the template
// with the set's selector labels added, in the set's namespace.
func newClaim(set *api.StatefulSet, t *api.PersistentVolumeClaim, ordinal int) *api.PersistentVolumeClaim {
	c := t.DeepCopy()
	c.TypeMeta = api.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"}
	c.Name = claimName(set, t.Name, ordinal)
	c.Namespace = set.Namespace
	c.ResourceVersion, c.UID, c.OwnerReferences = "", "", nil
	c.Status = api.PersistentVolumeClaimStatus{}
	if set.Spec.Selector != nil && len(set.Spec.Selector.MatchLabels) > 0 {
		if c.Labels == nil {
			c.Labels = map[string]string{}
		}
		maps.Copy(c.Labels, set.Spec.Selector.MatchLabels)
	}
	return c
}

func revisionOf(p *api.Pod) string { return p.Labels[api.LabelControllerRevisionHash] }

// isCreated: a pod the API server stores has a phase; one this package
// builds has none.
func isCreated(p *api.Pod) bool { return p.Status.Phase != "" }

func isTerminating(p *api.Pod) bool { return p.DeletionTimestamp != nil }

func isTerminal(p *api.Pod) bool {
	return p.Status.Phase == api.PodFailed || p.Status.Phase == api.PodSucceeded
}

func isRunningAndReady(p *api.Pod) bool {
	return p.Status.Phase == api.PodRunning && api.IsPodReady(p)
}

// availableAt returns when a running, ready pod becomes available:
// minReadySeconds after its Ready condition turned True. ok is false for
// a pod that is not running and ready.
func availableAt(p *api.Pod, minReadySeconds int32) (time.Time, bool) {
	if !isRunningAndReady(p) {
		return time.Time{}, false
	}
	c, _ := p.Status.GetCondition(api.PodReady)
	return c.LastTransitionTime.Add(time.Duration(minReadySeconds) * time.Second), true
}

// isRunningAndAvailable is kcm's isRunningAndAvailable over
// podutil.IsPodAvailable: ready for more than minReadySeconds at now.
func isRunningAndAvailable(p *api.Pod, minReadySeconds int32, now time.Time) bool {
	if !isRunningAndReady(p) {
		return false
	}
	if minReadySeconds == 0 {
		return true
	}
	c, _ := p.Status.GetCondition(api.PodReady)
	at, _ := availableAt(p, minReadySeconds)
	return !c.LastTransitionTime.IsZero() && at.Before(now)
}

func isUnavailable(p *api.Pod, minReadySeconds int32, now time.Time) bool {
	return !isRunningAndAvailable(p, minReadySeconds, now) || isTerminating(p)
}
