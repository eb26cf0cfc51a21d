package ctrlutil

import (
	"fmt"
	"slices"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// ControllerOf returns obj's controller reference, or nil.
func ControllerOf[T api.MetaObject](obj T) *api.OwnerReference {
	return obj.GetObjectMeta().ControllerRef()
}

// SetControllerReference makes owner the controller of obj: it adds (or
// updates) an owner reference with controller and blockOwnerDeletion set.
// It fails if another object already controls obj, or if obj is
// namespaced in another namespace than a namespaced owner (Kubernetes'
// garbage collector would delete it at once).
func SetControllerReference[T api.MetaObject](owner api.Object, obj T) error {
	om, m := owner.GetObjectMeta(), obj.GetObjectMeta()
	if om.Namespace != "" && m.Namespace != om.Namespace {
		return fmt.Errorf("ctrlutil: %s %q cannot own %q in namespace %q: an owner must be in its dependents' namespace or cluster-scoped",
			owner.GroupVersionKind().Kind, om.Name, m.Name, m.Namespace)
	}
	ref := api.NewControllerRef(owner)
	if cur := m.ControllerRef(); cur != nil && cur.UID != ref.UID {
		return fmt.Errorf("ctrlutil: %q is already controlled by %s %q", m.Name, cur.Kind, cur.Name)
	}
	for i, r := range m.OwnerReferences {
		if r.UID == ref.UID {
			m.OwnerReferences[i] = ref
			return nil
		}
	}
	m.OwnerReferences = append(m.OwnerReferences, ref)
	return nil
}

// RemoveOwnerReference removes every owner reference to uid from obj and
// reports whether there was one.
func RemoveOwnerReference[T api.MetaObject](obj T, uid api.UID) bool {
	m := obj.GetObjectMeta()
	n := len(m.OwnerReferences)
	m.OwnerReferences = slices.DeleteFunc(m.OwnerReferences, func(r api.OwnerReference) bool { return r.UID == uid })
	if len(m.OwnerReferences) == 0 {
		m.OwnerReferences = nil
	}
	return len(m.OwnerReferences) != n
}

// HasFinalizer reports whether obj carries finalizer f.
func HasFinalizer[T api.MetaObject](obj T, f string) bool {
	return slices.Contains(obj.GetObjectMeta().Finalizers, f)
}

// AddFinalizer adds finalizer f to obj unless it is there, and reports
// whether it changed obj.
func AddFinalizer[T api.MetaObject](obj T, f string) bool {
	m := obj.GetObjectMeta()
	if slices.Contains(m.Finalizers, f) {
		return false
	}
	m.Finalizers = append(m.Finalizers, f)
	return true
}

// RemoveFinalizer removes finalizer f from obj and reports whether it
// changed obj.
func RemoveFinalizer[T api.MetaObject](obj T, f string) bool {
	m := obj.GetObjectMeta()
	n := len(m.Finalizers)
	m.Finalizers = slices.DeleteFunc(m.Finalizers, func(s string) bool { return s == f })
	if len(m.Finalizers) == 0 {
		m.Finalizers = nil
	}
	return len(m.Finalizers) != n
}

// PodFromTemplate returns a new pod made from template for owner, as
// kube-controller-manager makes them: the template's labels, annotations,
// finalizers and spec (deep-copied), in owner's namespace, named by
// generateName "<owner name>-" (cut so that a 5-character suffix keeps
// the name within 63 characters), controlled by owner.
func PodFromTemplate(template *api.PodTemplateSpec, owner api.Object) *api.Pod {
	t := template.DeepCopy()
	om := owner.GetObjectMeta()
	prefix := om.Name
	if len(prefix) > maxGenerateNamePrefix {
		prefix = prefix[:maxGenerateNamePrefix]
	}
	pod := &api.Pod{
		TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: api.ObjectMeta{
			Namespace:       om.Namespace,
			GenerateName:    prefix + "-",
			Labels:          t.Labels,
			Annotations:     t.Annotations,
			Finalizers:      t.Finalizers,
			OwnerReferences: []api.OwnerReference{api.NewControllerRef(owner)},
		},
		Spec: t.Spec,
	}
	return pod
}

// maxGenerateNamePrefix leaves room for "-" and the 5-character random
// suffix within a 63-character name.
const maxGenerateNamePrefix = 63 - 6
