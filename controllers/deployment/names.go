package deployment

import (
	"encoding/binary"
	"encoding/json"
	"hash/fnv"
	"maps"
	"strconv"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Labels and annotations the controller writes, with Kubernetes' names.
const (

	// revisionHistoryAnnotation and rollbackToAnnotation are not
	// implemented, but never copied either, as kcm does not copy them.
	revisionHistoryAnnotation = "deployment.kubernetes.io/revision-history"
	rollbackToAnnotation      = "deprecated.deployment.rollback.to"
)

// Condition types and reasons of a Deployment, as kcm writes them.
const (
	// ConditionAvailable is True when at least replicas - maxUnavailable
	// pods are available.
	ConditionAvailable = "Available"
	// ConditionProgressing tells how the latest rollout goes.
	ConditionProgressing = "Progressing"
	// ConditionReplicaFailure mirrors a ReplicaSet's ReplicaFailure.
	ConditionReplicaFailure = "ReplicaFailure"

	// ReasonMinimumReplicasAvailable: Available True.
	ReasonMinimumReplicasAvailable = "MinimumReplicasAvailable"
	// ReasonMinimumReplicasUnavailable: Available False.
	ReasonMinimumReplicasUnavailable = "MinimumReplicasUnavailable"
	// ReasonNewReplicaSetCreated: Progressing True, the new ReplicaSet was
	// just created.
	ReasonNewReplicaSetCreated = "NewReplicaSetCreated"
	// ReasonFoundNewReplicaSet: Progressing True, first seen on an
	// existing new ReplicaSet.
	ReasonFoundNewReplicaSet = "FoundNewReplicaSet"
	// ReasonReplicaSetUpdated: Progressing True, the rollout made progress.
	ReasonReplicaSetUpdated = "ReplicaSetUpdated"
	// ReasonNewReplicaSetAvailable: Progressing True, the rollout is complete.
	ReasonNewReplicaSetAvailable = "NewReplicaSetAvailable"
	// ReasonProgressDeadlineExceeded: Progressing False, no progress for
	// progressDeadlineSeconds.
	ReasonProgressDeadlineExceeded = "ProgressDeadlineExceeded"
	// ReasonDeploymentPaused: Progressing Unknown while paused.
	ReasonDeploymentPaused = "DeploymentPaused"
	// ReasonDeploymentResumed: Progressing Unknown once resumed.
	ReasonDeploymentResumed = "DeploymentResumed"
	// ReasonReplicaSetCreateError: Progressing False, creating the new
	// ReplicaSet failed (also the event's reason).
	ReasonReplicaSetCreateError = "ReplicaSetCreateError"
	// ReasonScalingReplicaSet is the reason of the events of every scale.
	ReasonScalingReplicaSet = "ScalingReplicaSet"
	// ReasonSelectingAll is the warning for an empty selector.
	ReasonSelectingAll = "SelectingAll"
)

// safeAlphabet is the alphabet of kcm's rand.SafeEncodeString: no vowels
// (no words) and none of 0, 1, 3 (easily confused letters).
const safeAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// PodTemplateHash returns the value of the pod-template-hash label of the
// ReplicaSet for template: the 32-bit FNV-1a hash of the template's JSON
// encoding followed, when collisionCount is set, by the count as 4
// little-endian bytes; its decimal digits are then mapped onto a safe
// alphabet, as kcm's ComputeHash and SafeEncodeString do. kcm feeds the
// hash a spew dump of the Go struct instead of JSON, so the values differ
// from kcm's; they are stable across runs and releases of this package.
// The template's own pod-template-hash label, if any, is ignored.
func PodTemplateHash(template *api.PodTemplateSpec, collisionCount *int32) string {
	t := template.DeepCopy()
	if _, ok := t.Labels[api.LabelPodTemplateHash]; ok {
		t.Labels = maps.Clone(t.Labels)
		delete(t.Labels, api.LabelPodTemplateHash)
	}
	b, err := json.Marshal(t)
	if err != nil {
		panic("deployment: encoding a pod template: " + err.Error()) // api types always encode
	}
	h := fnv.New32a()
	h.Write(b)
	if collisionCount != nil {
		h.Write(binary.LittleEndian.AppendUint32(nil, uint32(*collisionCount)))
	}
	digits := []byte(strconv.FormatUint(uint64(h.Sum32()), 10))
	for i, c := range digits {
		digits[i] = safeAlphabet[int(c)%len(safeAlphabet)]
	}
	return string(digits)
}

// equalIgnoreHash reports whether two templates are equal but for the
// pod-template-hash label (kcm's EqualIgnoreHash), compared by their JSON
// encoding, so that a nil and an empty map are equal as the API sees them.
func equalIgnoreHash(a, b *api.PodTemplateSpec) bool {
	enc := func(t *api.PodTemplateSpec) string {
		t = t.DeepCopy()
		delete(t.Labels, api.LabelPodTemplateHash)
		if len(t.Labels) == 0 {
			t.Labels = nil
		}
		bs, _ := json.Marshal(t)
		return string(bs)
	}
	return enc(a) == enc(b)
}

// revision returns a ReplicaSet's revision annotation, 0 when absent or
// malformed.
func revision(rs *api.ReplicaSet) int64 {
	v, err := strconv.ParseInt(rs.Annotations[api.AnnotationDeploymentRevision], 10, 64)
	if err != nil {
		return 0
	}
	return v
}

// int32Annotation reads a non-negative int32 annotation.
func int32Annotation(rs *api.ReplicaSet, key string) (int32, bool) {
	s, ok := rs.Annotations[key]
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil || v < 0 {
		return 0, false
	}
	return int32(v), true
}

// skipCopyAnnotation lists the Deployment annotations not copied to its
// ReplicaSets (kcm's skipCopyAnnotation).
func skipCopyAnnotation(key string) bool {
	switch key {
	case api.AnnotationLastAppliedConfig, api.AnnotationDeploymentRevision, revisionHistoryAnnotation,
		api.AnnotationDesiredReplicas, api.AnnotationMaxReplicas, rollbackToAnnotation:
		return true
	}
	return false
}

// copyAnnotations copies d's annotations onto rs (kcm's
// copyDeploymentAnnotationsToReplicaSet) and reports a change.
func copyAnnotations(d *api.Deployment, rs *api.ReplicaSet) bool {
	changed := false
	for k, v := range d.Annotations {
		if skipCopyAnnotation(k) {
			continue
		}
		if cur, ok := rs.Annotations[k]; ok && cur == v {
			continue
		}
		if rs.Annotations == nil {
			rs.Annotations = map[string]string{}
		}
		rs.Annotations[k] = v
		changed = true
	}
	return changed
}

// setReplicasAnnotations records desired and max on rs and reports a
// change (kcm's SetReplicasAnnotations).
func setReplicasAnnotations(rs *api.ReplicaSet, desired, max int32) bool {
	if !replicasAnnotationsNeedUpdate(rs, desired, max) {
		return false
	}
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	rs.Annotations[api.AnnotationDesiredReplicas] = strconv.Itoa(int(desired))
	rs.Annotations[api.AnnotationMaxReplicas] = strconv.Itoa(int(max))
	return true
}

// replicasAnnotationsNeedUpdate is kcm's ReplicasAnnotationsNeedUpdate.
func replicasAnnotationsNeedUpdate(rs *api.ReplicaSet, desired, max int32) bool {
	return rs.Annotations[api.AnnotationDesiredReplicas] != strconv.Itoa(int(desired)) ||
		rs.Annotations[api.AnnotationMaxReplicas] != strconv.Itoa(int(max))
}
