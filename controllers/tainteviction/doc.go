// Package tainteviction is kube-controller-manager's taint eviction
// controller (the taint manager of the node lifecycle controller before
// it): it deletes the pods running on a node with a NoExecute taint they
// do not tolerate, at once or after their tolerationSeconds.
//
// # Usage
//
//	te, err := tainteviction.New(c, f, tainteviction.Options{})
//	f.Start(ctx)
//	go te.Run(ctx)
//
// It reads pods and nodes from shared informers and deletes pods through
// the client contract (package controllers/client: the in-process cluster
// or a real API server); it depends on those two only. The node lifecycle controller (package nodelifecycle)
// adds the node.kubernetes.io/unreachable and not-ready NoExecute taints;
// anyone may add others.
//
// # Algorithm
//
// It remembers each node's NoExecute taints and, per pod, a pending
// eviction (Pending: when it was first decided and when it is due). When
// a node's NoExecute taints change, every pod on it is re-decided; when a
// pod is bound to a node, or its tolerations change, that pod is (kcm's
// handleNodeUpdate and handlePodUpdate; node updates go first). Decide is
// the policy, kcm's processPodOnNode, a pure function of the pod, the
// taints, its pending eviction and the time:
//
//   - no NoExecute taint (it was removed): cancel the pending eviction;
//   - a taint no toleration tolerates: evict now;
//   - all tolerated, and the tolerations used (the first matching one per
//     taint, as v1helper.GetMatchingTolerations) have no tolerationSeconds:
//     cancel — tolerated forever;
//   - otherwise evict after the shortest tolerationSeconds of those,
//     counted from when the pod was first found on the tainted node; a
//     pending eviction is never postponed. The DefaultTolerationSeconds
//     admission of controllers/cluster gives every pod not-ready and
//     unreachable tolerations of 300 s, so a pod leaves a dead node five
//     minutes after it is tainted.
//
// An eviction reads the pod, sets its DisruptionTarget
// condition (reason DeletionByTaintManager, "Taint manager: deleting due
// to NoExecute taint") and deletes it with its own grace period and its
// uid as precondition. Events (reason TaintManagerEviction): "Marking for
// deletion Pod ns/name" when it fires, "Cancelling deletion of Pod
// ns/name" when a pending one is cancelled.
//
// # Wiring
//
// The controller is a reconcile.Controller, wired as every controller
// under controllers/ is, with reconcile.WatchEvents; no handler of its
// own. Its requests are a node (its NoExecute taints changed, or it came
// or went: kcm's NodeUpdated), a pod (it came or went, or its node,
// tolerations or deletion changed: kcm's PodUpdated) and Fire, the
// deletion of the evictions that are due. Live node events are queued at
// a higher priority than pods' (WatchOptions.Priority), so evictions
// start without waiting for pod events, as kcm's workers prefer node
// updates; the informers' initial lists come at the queue's low priority.
// One worker reconciles, so the remembered taints and the pending
// evictions have one owner. Each reconcile handles its request, deletes
// the pods whose eviction is due, and puts Fire in the queue for the next
// one due (AddAfter keeps the earlier of two times; a Fire that finds
// nothing due only waits again): the timed queue of kcm's
// TimedWorkerQueue, on the controller's own work queue.
//
// Run is the loop's Run: when ctx ends, the reconcile in flight (an
// eviction, say) finishes with a live context for up to
// reconcile.DefaultShutdownTimeout, then its context is cancelled; Run
// returns ctx.Err() after a clean drain, else the drain's error
// (reconcile.ErrShutdownTimeout, workqueue.ErrDrainAborted). Pending
// evictions live in memory only: the next start decides them anew from
// the caches, counting tolerationSeconds from then.
//
// # Differences from kube-controller-manager
//
//   - DaemonSet pods (controlled by a DaemonSet) are never evicted, as
//     Kubernetes' old node controller skipped them: the DaemonSet would put them
//     straight back. Current Kubernetes gets the same result differently,
//     by giving DaemonSet pods tolerations of the node lifecycle taints
//     without tolerationSeconds; those are honoured here too.
//   - A pod already being deleted is left to its kubelet.
//   - A pod re-decided at the very instant its pending eviction was
//     decided keeps an identical one (kcm re-creates it, with a
//     cancellation event).
//   - One attempt per eviction (kcm retries five times, 10 ms apart); the
//     DisruptionTarget condition is written with UpdateStatus, not a patch.
//   - One worker instead of eight sharded by node; the reconcile loop's
//     metrics (reconcile.Options.Metrics) are not exposed.
package tainteviction
