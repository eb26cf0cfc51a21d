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
// # Wiring
//
// The collector is a reconcile.Controller like every controller under
// controllers/, with one request ("pass") and one worker, which owns the
// quarantine. It is a periodic pass, not driven by events, so it has no
// event handler: its informers are caches it reads, and Run waits for
// them (reconcile's AddSyncCheck) before the first pass. The first
// reconcile, right after the sync, schedules the first pass Period later
// (kcm's wait.Until would run one at once); each pass requeues the
// request after Period (Result.RequeueAfter). Run is the loop's Run: when
// ctx ends, a pass in flight finishes with a live context for up to
// reconcile.DefaultShutdownTimeout (then its context is cancelled), and
// Run returns ctx.Err() after a clean drain, else the drain's error
// (reconcile.ErrShutdownTimeout, workqueue.ErrDrainAborted).
//
// Left out: kcm's gcTerminating, which force-deletes terminating pods on
// nodes that are not ready and carry the node.kubernetes.io/out-of-service
// taint; the deletion of terminated pods beyond the threshold is not rate
// limited.
package podgc
