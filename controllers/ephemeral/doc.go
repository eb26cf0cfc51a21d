// Package ephemeral is kube-controller-manager's ephemeral volume
// controller (ephemeral-volume-controller,
// pkg/controller/volume/ephemeral): it creates the
// PersistentVolumeClaims of a pod's generic ephemeral volumes.
//
// # Contract
//
// For each volume of a pod with an ephemeral source, the claim
// <pod name>-<volume name> (ClaimName) is created in the pod's namespace
// from the volume's claim template: the template's labels, annotations
// and spec, owned by the pod (an owner reference of apiVersion v1, kind
// Pod, controller and blockOwnerDeletion true), so the garbage
// collector deletes it with the pod. A claim of that name that exists
// already is used if the pod controls it (IsForPod); otherwise the pod
// gets the Warning event FailedBinding "ephemeral volume <volume>: PVC
// <ns>/<claim> was not created for pod <ns>/<pod> (pod is not owner)"
// — kcm's wording — the remaining volumes of the pod are not handled,
// and the pod is retried with back-off: its claim never appears, so it
// does not run where claims are checked. A failed create is the same
// event ("ephemeral volume <volume>: create PVC <claim>: <error>") and a
// retry.
//
// Pods being deleted are left alone. As in kcm, a pod is synced when it
// is added (its spec's volumes are immutable, so updates are ignored)
// and when a claim named after one of its ephemeral volumes is deleted
// (the claim is made again while the pod lives). Events are recorded
// as kcm's component "ephemeral_volume".
//
// The claims are then bound as any other by the PersistentVolume
// controller (controllers/persistentvolume), which also counts a pod's
// ephemeral volumes as its use of their claims (WaitForPodScheduled).
//
// Left out: the controller's metrics
// (ephemeral_volume_controller_create_total and _failures_total).
//
// The controller depends on the client contract (package
// controllers/client) and informers only.
package ephemeral
