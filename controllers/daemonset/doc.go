// Package daemonset is kube-controller-manager's DaemonSet controller: it
// runs one pod of every DaemonSet on each node that should run it, keeps
// that pod there (replacing it if it fails), removes it from nodes that
// no longer should, rolls template changes out node by node, records
// every template in a ControllerRevision, and reports what it sees in
// the set's status.
//
// # Which nodes
//
// A node should run a set's pod (ShouldRun, kcm's NodeShouldRunDaemonPod)
// when the pod the set would put there — its template, with the daemon
// tolerations — fits it: spec.nodeName, if the template sets one, names
// the node; spec.nodeSelector and the required node affinity admit the
// node's labels and name; and the node has no NoSchedule or NoExecute
// taint the pod does not tolerate. A pod already on a node may stay when
// only NoSchedule taints are untolerated (they keep new pods off, they do
// not evict): it is deleted when a NoExecute taint, a selector or an
// affinity says it must go.
//
// The daemon tolerations (AddDaemonTolerations) are what keep daemons on
// sick nodes: node.kubernetes.io/not-ready and /unreachable NoExecute
// with no tolerationSeconds, so the taint-based eviction never removes
// them; /disk-pressure, /memory-pressure, /pid-pressure and
// /unschedulable NoSchedule; /network-unavailable NoSchedule for a
// hostNetwork pod. They are added to every pod the controller creates.
// The fluentd-elasticsearch DaemonSet of Kubernetes' DaemonSet
// documentation tolerates node-role.kubernetes.io/master NoSchedule
// itself, and so runs on control-plane nodes too.
//
// # The algorithm
//
// A queue holds set keys. A set's own events enqueue it; a pod's event
// enqueues the set its controller reference resolves to (or, for an
// orphan, every set whose selector picks it); a node's add enqueues the
// sets that should run on it, its update the sets for which ShouldRun's
// answer changed, its delete every set; a ControllerRevision's event
// enqueues its set. A sync (kcm's syncDaemonSet):
//
//  1. Reads the set; a set selecting everything is refused with a
//     SelectingAll event; a set being deleted is left alone.
//  2. Builds the history (constructHistory): claims the set's
//     ControllerRevisions, finds the one whose data is the current
//     template — creating it (named <set>-<hash>, labelled
//     controller-revision-hash=<hash> and with the template's labels, so
//     `kubectl get controllerrevision -l name=fluentd` finds
//     it), keeping the highest of duplicates, and numbering it one above
//     every older revision. A name taken by another template bumps
//     status.collisionCount.
//  3. Claims the pods (adopt orphans the selector picks, release those it
//     no longer picks) and groups them by node: spec.nodeName, or before
//     binding the node their affinity pins them to.
//  4. If the expectations of the previous sync are not yet met, only
//     writes the status (without observedGeneration) and requeues. (This
//     partial sync is why the controller has expectations on top of its
//     read-your-writes gates: package reconcile's rule, "Expectations or
//     the gate".)
//  5. Decides (a pure function of the set, nodes, pods, hash, back-off and
//     now), node by node: a node that should run a pod and has none gets
//     one; on a node where the pod may stay, Failed pods are deleted —
//     each subject to a back-off per (set, node) of 1 s doubling to
//     15 min, the set requeued when it ends — and Succeeded ones too, and
//     of the others all but the oldest (scheduled first, then by creation
//     time) are deleted; a node where it may not stay loses its pods.
//     Unscheduled pods pinned to nodes that no longer exist are deleted.
//     When that finds nothing to do, the update strategy takes its step.
//  6. Acts: expects the creates (counted) and deletes (by UID), creates
//     at most burstReplicas (250) pods in slow-start batches — each the
//     template plus the daemon tolerations and the hash label, its
//     required node affinity replaced by metadata.name In [node]
//     (ReplaceDaemonSetPodNodeNameNodeAffinity), so that the scheduler
//     places it on that node — and deletes at most 250 concurrently.
//  7. Deletes old revisions beyond revisionHistoryLimit (10), oldest
//     first, never one a pod still runs; writes the status if it changed.
//
// # Updates
//
// RollingUpdate (the default) with maxSurge 0 deletes old pods so that at
// most maxUnavailable (default 1, a percentage rounded up) nodes lack an
// available pod of the current revision — an old pod that is not
// available is replaced at once — and lets the next sync create the
// replacements. With maxSurge it creates the new pod beside the old one
// (on at most maxSurge nodes at a time) and deletes the old one once the
// new one is available. OnDelete does nothing: a pod deleted by someone
// else comes back at the current revision.
//
// # Status
//
// desiredNumberScheduled: nodes that should run a pod;
// currentNumberScheduled: of them, those that have one;
// numberMisscheduled: other nodes that have one; numberReady,
// numberAvailable (ready for minReadySeconds) and updatedNumberScheduled
// (current revision) judge each node's oldest pod; numberUnavailable is
// desired minus available; observedGeneration the generation acted on.
// With minReadySeconds, a set with ready pods not yet available is synced
// again after minReadySeconds.
//
// # kube-controller-manager behaviours
//
// Implemented: NodeShouldRunDaemonPod's rules, the daemon tolerations,
// pinning by matchFields and scheduling by the scheduler (the
// scheduler's NodeAffinity filter honours matchFields), one pod per node
// with the oldest kept, deletion from ineligible nodes and of unscheduled
// pods of vanished nodes, failed and succeeded pod deletion with the
// failed-pod back-off (flowcontrol.Backoff 1 s – 15 min, collected after
// 30 min idle), burstReplicas 250, expectations, slow-start creates, 2
// workers, ControllerRevisions with hash labels, revision numbers,
// deduplication, collision counts and the history limit, adoption and
// release of pods and revisions, RollingUpdate with maxUnavailable and
// maxSurge (kcm's rollingUpdate, both branches) and OnDelete, the status
// fields above, the events SuccessfulCreate, FailedCreate,
// SuccessfulDelete, FailedDelete, FailedDaemonPod and SelectingAll.
//
// Deliberately different or left out:
//
//   - Pods bound to a node that was deleted are left to the pod garbage
//     collector (controllers/podgc), as kcm does; this controller deletes
//     only the unscheduled ones.
//   - The update step runs in a sync whose pod management had nothing to
//     do. That is what kcm's expectations make of a real informer; kcm's
//     unit tests, whose fake pod control observes writes at once, see
//     both in one sync (the ported tables say where).
//   - After deduplicating revisions relabels pods, the sync ends; the
//     next one, held by the read-your-writes gate until the pod cache
//     shows the new labels, decides. kcm decides at once from a cache
//     that may still show the old labels, and may replace pods that are
//     in fact current.
//   - Nodes are walked in name order, where kcm walks a map (random).
//   - A node's delete enqueues every set (kcm waits for the pods' events);
//     a node update enqueues the sets whose ShouldRun answer changed,
//     without kcm's separate queue for node updates.
//   - The deprecated templateGeneration annotation and the
//     pod-template-generation label are not written or read: revisions
//     are told by the hash label alone.
//   - Revision hashes hash the template's JSON, not a dump of the Go
//     struct, so their values differ from kcm's.
//   - No metrics; the namespace-terminating create error is not
//     special-cased; status writes are not retried in place on conflict
//     (the sync fails and retries with back-off); the status condition
//     list is left alone.
//
// # Wiring
//
// The controller depends on the client contract (package
// controllers/client) and informers only: New takes any client.Client —
// the in-process cluster, a real API server, the recording fake — writes
// through its resources, and reads from the factory's shared informers
// named after the resources ("daemonsets", "pods", "nodes",
// "controllerrevisions"). Call
// f.Start after New, then Run; Run returns when its ctx ends, after its
// workers have exited. Pods need a scheduler to be bound (see
// controllers/scheduler) and kubelets to run (controllers/kubelet).
//
// # Wiring and Run
//
// Its informers are wired with reconcile.WatchEvents, as kube-
// controller-manager's handlers: a set's events enqueue it (its delete
// drops its expectations first); a pod's lower its set's expectations
// (ctrlutil.PodExpectations, through reconcile.Observe) and enqueue the
// set its controller reference resolves to, or for an orphan the sets
// that could adopt it, as a revision's do; a node's add enqueues the
// sets that should run on it, its update those for which ShouldRun
// changed, its delete every set. Run returns once every worker has
// exited: ctx's error after a clean drain, or the error of a drain that
// did not end cleanly (it wraps reconcile.ErrShutdownTimeout or
// workqueue.ErrDrainAborted), never reduced to ctx's error.
package daemonset
