// Package podgc is kube-controller-manager's pod garbage collector: it
// deletes the pods nobody else will. It depends on the client contract
// (package controllers/client: the in-process cluster or a real API
// server) and the shared informers only.
//
// Every Options.Period (20 s, kcm's gcCheckPeriod) it looks at the pods
// and nodes in its informers' caches and decides, in a pure function of
// (pods, nodes, quarantine, now), which pods to delete:
//
//   - Terminated pods (phase Succeeded or Failed) beyond
//     Options.TerminatedPodThreshold (12,500 by default, kcm's
//     --terminated-pod-gc-threshold; ≤ 0 disables it), oldest first by
//     creation time, so the store does not fill with finished pods.
//   - Orphaned pods: bound to a node that does not exist. A node missing
//     from the cache is first quarantined for Options.Quarantine (40 s,
//     kcm's quarantineTime) — a node may just be slow to appear in a
//     cache — and then confirmed missing by a live read of the store;
//     only then are its pods deleted. Kubernetes' old node controller did this
//     every 30 s; kcm moved it here.
//   - Terminating pods that were never scheduled: a deletionTimestamp and
//     no spec.nodeName. No kubelet will ever confirm their deletion.
//
// Before deleting a pod that is not terminal, it marks it Failed with a
// DisruptionTarget condition (reason DeletionByPodGC), as kcm does, so
// that a Job's controller counts it as a failure; then it deletes it with
// grace period 0 and the pod's UID as precondition (a pod re-created
// under the same name is not touched).
//
// Left out: kcm's gcTerminating, which force-deletes terminating pods on
// nodes that are not ready and carry the node.kubernetes.io/out-of-service
// taint; the deletion of terminated pods beyond the threshold is not rate
// limited.
package podgc
