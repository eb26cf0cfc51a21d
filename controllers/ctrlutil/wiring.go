package ctrlutil

import "github.com/ctrlkit/ctrlkit/controllers/api"

// ControllerKey returns the map function of an owned kind
// (controller-runtime's Owns) for reconcile.Watch: it maps an object to
// the key ("namespace/name") of the controller its controller reference
// names, when that controller is of the given kind, and to nothing
// otherwise. It trusts the reference: a controller that must check the
// referenced owner's UID against its cache resolves the reference
// itself. reconcile.Watch maps both the old and the new object of an
// update, so a changed controller reference reconciles the old
// controller too.
func ControllerKey[T api.MetaObject](kind string) func(T) []string {
	return func(obj T) []string {
		meta := obj.GetObjectMeta()
		ref := meta.ControllerRef()
		if ref == nil || ref.Kind != kind {
			return nil
		}
		return []string{api.NamespacedKey(meta.Namespace, ref.Name)}
	}
}
