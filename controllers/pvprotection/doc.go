// Package pvprotection is kube-controller-manager's PV protection
// controller (persistentvolume-protection-controller): a bound
// PersistentVolume is not removed.
//
// Volumes carry the Finalizer kubernetes.io/pv-protection:
// kube-apiserver's StorageObjectInUseProtection admission plugin
// (admission.StorageObjectInUseProtection) adds it on create, and this
// controller adds it to any volume not being deleted that lacks it. A
// volume being deleted keeps it while its phase is Bound and loses it
// once it is not (Released, Available, Failed), so the deletion
// completes.
//
// The controller depends on the client contract (package
// controllers/client) and informers only.
package pvprotection
