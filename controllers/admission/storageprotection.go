package admission

import (
	"context"
	"slices"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// The finalizers of kube's storage object in-use protection.
const (
	// PVCProtectionFinalizer keeps a claim a pod uses from being removed
	// (package controllers/pvcprotection removes it).
	PVCProtectionFinalizer = "kubernetes.io/pvc-protection"
	// PVProtectionFinalizer keeps a bound volume from being removed
	// (package controllers/pvprotection removes it).
	PVProtectionFinalizer = "kubernetes.io/pv-protection"
)

// StorageObjectInUseProtection is kube-apiserver's plugin of that name, a
// MutatingFunc: every PersistentVolumeClaim created gets
// PVCProtectionFinalizer and every PersistentVolume PVProtectionFinalizer,
// unless it has it already. The protection controllers remove them when
// the object is deleted and no longer in use.
func StorageObjectInUseProtection(_ context.Context, a Attributes) error {
	if a.Operation != Create || a.Subresource != "" {
		return nil
	}
	var meta *api.ObjectMeta
	var finalizer string
	switch o := a.Object.(type) {
	case *api.PersistentVolumeClaim:
		meta, finalizer = &o.ObjectMeta, PVCProtectionFinalizer
	case *api.PersistentVolume:
		meta, finalizer = &o.ObjectMeta, PVProtectionFinalizer
	default:
		return nil
	}
	if !slices.Contains(meta.Finalizers, finalizer) {
		meta.Finalizers = append(meta.Finalizers, finalizer)
	}
	return nil
}
