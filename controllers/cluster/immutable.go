package cluster

import (
	"maps"
	"slices"
	"strconv"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

func immutable(fs *fieldErrors, path string, old, cur any) {
	if !jsonEqual(old, cur) {
		fs.add(FieldInvalid, path, "", "field is immutable")
	}
}

// validatePodUpdate allows, in a pod's spec, only what Kubernetes allows:
// container and init container images, activeDeadlineSeconds (set or
// shortened, never removed or lengthened), tolerations (additions only)
// and the removal of scheduling gates.
func validatePodUpdate(old, cur *api.Pod, fs *fieldErrors) {
	allowed := old.Spec.DeepCopy()
	if len(cur.Spec.Containers) == len(allowed.Containers) {
		for i := range allowed.Containers {
			allowed.Containers[i].Image = cur.Spec.Containers[i].Image
		}
	}
	if len(cur.Spec.InitContainers) == len(allowed.InitContainers) {
		for i := range allowed.InitContainers {
			allowed.InitContainers[i].Image = cur.Spec.InitContainers[i].Image
		}
	}
	if n, o := cur.Spec.ActiveDeadlineSeconds, old.Spec.ActiveDeadlineSeconds; n != nil && (o == nil || *n <= *o) {
		if *n <= 0 {
			fs.invalid("spec.activeDeadlineSeconds", strconv.FormatInt(*n, 10), "must be greater than 0")
		}
		allowed.ActiveDeadlineSeconds = n
	}
	if containsAllTolerations(cur.Spec.Tolerations, old.Spec.Tolerations) {
		allowed.Tolerations = cur.Spec.Tolerations
	}
	if gatesRemovedOnly(cur.Spec.SchedulingGates, old.Spec.SchedulingGates) {
		allowed.SchedulingGates = cur.Spec.SchedulingGates
	}
	if !jsonEqual(allowed, &cur.Spec) {
		fs.forbidden("spec", "pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, `spec.activeDeadlineSeconds`, `spec.tolerations` (only additions to existing tolerations) or `spec.schedulingGates` (only removals)")
	}
}

func gatesRemovedOnly(cur, old []api.PodSchedulingGate) bool {
	for _, g := range cur {
		if !slices.Contains(old, g) {
			return false
		}
	}
	return true
}

func containsAllTolerations(cur, old []api.Toleration) bool {
	for _, o := range old {
		found := false
		for _, c := range cur {
			if jsonEqual(o, c) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func validateDeploymentUpdate(old, cur *api.Deployment, fs *fieldErrors) {
	immutable(fs, "spec.selector", old.Spec.Selector, cur.Spec.Selector)
}

func validateReplicaSetUpdate(old, cur *api.ReplicaSet, fs *fieldErrors) {
	immutable(fs, "spec.selector", old.Spec.Selector, cur.Spec.Selector)
}

func validateDaemonSetUpdate(old, cur *api.DaemonSet, fs *fieldErrors) {
	immutable(fs, "spec.selector", old.Spec.Selector, cur.Spec.Selector)
}

// validateStatefulSetUpdate allows only replicas, template, updateStrategy,
// minReadySeconds, revisionHistoryLimit, ordinals and the claim retention
// policy to change, as Kubernetes does.
func validateStatefulSetUpdate(old, cur *api.StatefulSet, fs *fieldErrors) {
	a, b := old.Spec.DeepCopy(), cur.Spec.DeepCopy()
	for _, s := range []*api.StatefulSetSpec{a, b} {
		s.Replicas, s.Template, s.UpdateStrategy = nil, api.PodTemplateSpec{}, api.StatefulSetUpdateStrategy{}
		s.MinReadySeconds, s.RevisionHistoryLimit, s.Ordinals, s.PersistentVolumeClaimRetentionPolicy = 0, nil, nil, nil
	}
	if !jsonEqual(a, b) {
		fs.forbidden("spec", "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden")
	}
}

func validateJobUpdate(old, cur *api.Job, fs *fieldErrors) {
	immutable(fs, "spec.selector", old.Spec.Selector, cur.Spec.Selector)
	immutable(fs, "spec.completions", old.Spec.Completions, cur.Spec.Completions)
	immutable(fs, "spec.template", old.Spec.Template, cur.Spec.Template)
	immutable(fs, "spec.managedBy", old.Spec.ManagedBy, cur.Spec.ManagedBy)
}

func validateServiceUpdate(old, cur *api.Service, fs *fieldErrors) {
	if old.Spec.ClusterIP != "" && cur.Spec.ClusterIP != old.Spec.ClusterIP {
		fs.add(FieldInvalid, "spec.clusterIP", cur.Spec.ClusterIP, "field is immutable")
	}
}

func validateNamespaceUpdate(old, cur *api.Namespace, fs *fieldErrors) {
	// spec.finalizers may only shrink (the namespace controller's
	// finalize), never grow, once the namespace is being deleted.
	if old.DeletionTimestamp != nil {
		for _, f := range cur.Spec.Finalizers {
			if !slices.Contains(old.Spec.Finalizers, f) {
				fs.forbidden("spec.finalizers", "no new finalizers can be added if the namespace is being deleted")
			}
		}
	}
}

func clearNamespaceFinalizers[T api.Object](obj T) {
	if n, ok := any(obj).(*api.Namespace); ok {
		n.Spec.Finalizers = nil
	}
}
