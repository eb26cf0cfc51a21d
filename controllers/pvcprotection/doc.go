// Package pvcprotection is kube-controller-manager's PVC protection
// controller (persistentvolumeclaim-protection-controller): a
// PersistentVolumeClaim a pod uses is not removed while the pod may still
// use it.
//
// Claims carry the Finalizer kubernetes.io/pvc-protection: kube-apiserver's
// StorageObjectInUseProtection admission plugin
// (admission.StorageObjectInUseProtection) adds it on create, and this
// controller adds it to any claim not being deleted that lacks it. A
// claim being deleted keeps it while a pod scheduled to a node mounts the
// claim (Uses; a finished pod counts until it is deleted, as in kcm) —
// the pod cache is asked first, then the server, since the cache may
// not have seen a pod created just now — and loses it otherwise, so the
// deletion completes. A pod that is deleted, finished (Terminated) or not
// scheduled syncs the claims it mounts.
//
// A generic ephemeral volume mounts its claim <pod>-<volume> when the pod
// controls it, as kcm's podUsesPVC.
//
// Left out: the alpha Unused condition
// (PersistentVolumeClaimUnusedSinceTime).
//
// The controller depends on the client contract (package
// controllers/client) and informers only.
package pvcprotection
