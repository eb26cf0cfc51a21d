// Package deployment is the Deployment controller: it rolls a pod
// template out through ReplicaSets, as kube-controller-manager's
// deployment controller does, and leaves the pods to the ReplicaSet
// controller.
//
// # Usage
//
//	f := informer.NewFactory(informer.FactoryOptions{})
//	dc, err := deployment.New(c, f, deployment.Options{}) // c is any client.Client
//	f.Start(ctx)
//	err = dc.Run(ctx) // until ctx ends
//	f.Shutdown()
//
// The controller depends on the client contract (package
// controllers/client) and informers only, so it runs the same on the
// in-process cluster, a real API server and the recording fake. It reads
// Deployments, ReplicaSets and pods from shared informers of f (named
// "deployments", "replicasets", "pods") and writes ReplicaSets and
// Deployment status through the client's resources. A
// Deployment is synced when it changes, when a ReplicaSet it controls (or
// an orphan its selector picks) changes, when a pod of a Recreate
// Deployment is deleted, and at its progress deadline.
//
// # One sync
//
// Each sync is Decide, a pure function of the Deployment, the ReplicaSets
// it owns, their pods and the time, returning a Plan; the shell
// (Controller.Reconcile) claims the ReplicaSets first and carries the Plan
// out afterwards. Decide follows kcm's syncDeployment:
//
//  1. Ownership. ReplicaSets whose labels the selector picks are adopted
//     (a controller reference added, after a live read confirms the
//     Deployment still exists under its UID); owned ones it no longer
//     picks are released (ctrlutil.Claimer). A Deployment with an empty
//     selector only gets a SelectingAll warning and its observedGeneration.
//  2. Which ReplicaSet is new. The oldest owned ReplicaSet whose template
//     equals the Deployment's, but for the pod-template-hash label, is the
//     new one; the rest are old. The new one gets revision = the highest
//     old revision + 1 (deployment.kubernetes.io/revision) — so a rollback,
//     a template changed back to an earlier one, reuses that earlier
//     ReplicaSet and bumps its revision — plus the Deployment's annotations
//     and minReadySeconds. The Deployment's own revision annotation follows
//     its new ReplicaSet's.
//  3. Paused. A paused Deployment gets Progressing Unknown
//     DeploymentPaused (DeploymentResumed once resumed) and is only scaled
//     and cleaned up: no new ReplicaSet, no rollout.
//  4. Scaling. When an active ReplicaSet's desired-replicas annotation
//     differs from spec.replicas, the Deployment was scaled: the only
//     active ReplicaSet takes all replicas; a saturated new one leaves the
//     old ones none; otherwise, in a rolling update, the difference between
//     replicas + maxSurge and the sum of the ReplicaSets' sizes is spread
//     over the active ReplicaSets in proportion to their size measured
//     against their max-replicas annotation (the capacity when they were
//     last scaled), larger ones first, the rounding leftover to the first
//     (proportional scaling; kcm's getProportion and
//     getReplicaSetFraction, rounding half away from zero).
//  5. Rolling update. maxSurge (a percentage rounds up) and
//     maxUnavailable (a percentage rounds down) are resolved against
//     replicas; both 0 resolve maxUnavailable to 1, and both given as 0 is
//     invalid (ErrInvalidStrategy). The new ReplicaSet, named
//     <deployment>-<pod-template-hash> with the hash label on its labels,
//     selector and template (so on its pods), is created if missing, and
//     grown as far as replicas + maxSurge over all ReplicaSets allows. If
//     that changed nothing, old ReplicaSets are scaled down, oldest first:
//     first by their unavailable pods (never more than all sizes −
//     minAvailable − the new one's unavailable pods), then by the
//     available pods beyond minAvailable = replicas − maxUnavailable. So a
//     rollout of 10 with maxSurge 3 and maxUnavailable 2 never asks for
//     more than 13 pods and never takes availability below 8.
//  6. Recreate. Old ReplicaSets are scaled to 0; while any still reports
//     pods or owns a pod that is not Succeeded or Failed, nothing else
//     happens; then the new ReplicaSet is created (or scaled) at full size.
//  7. Cleanup. Once a rollout is complete (and while paused), the oldest
//     old ReplicaSets beyond revisionHistoryLimit (default 10) are deleted
//     if they are empty: spec and status replicas 0, status of their
//     current generation, not being deleted.
//  8. Status. replicas, updatedReplicas (the new ReplicaSet's),
//     readyReplicas, availableReplicas, unavailableReplicas,
//     terminatingReplicas (the ReplicaSets' sum, unset while one has none:
//     DeploymentReplicaSetTerminatingReplicas, on by default since v1.35)
//     and observedGeneration; Available True (MinimumReplicasAvailable) when at
//     least replicas − maxUnavailable are available, else False
//     (MinimumReplicasUnavailable); during a rollout, Progressing True with
//     NewReplicaSetCreated, FoundNewReplicaSet, ReplicaSetUpdated (on any
//     progress: more updated, ready or available pods, fewer old ones) or
//     NewReplicaSetAvailable (complete), and False with
//     ProgressDeadlineExceeded when the condition was last updated more
//     than progressDeadlineSeconds ago; a ReplicaSet's ReplicaFailure
//     condition is mirrored. The status is written with UpdateStatus only
//     when it changed; a rollout that has neither completed nor timed out
//     is requeued for its deadline, so the timeout is reported although
//     nothing else happens.
//
// The hash is the 32-bit FNV-1a hash of the template's JSON encoding and
// of status.collisionCount (when set), its decimal digits mapped onto
// kcm's safe alphabet "bcdfghjklmnpqrstvwxz2456789" (PodTemplateHash). A
// create that finds the name taken by a ReplicaSet with another template
// bumps collisionCount, so the next sync picks another name.
//
// # Writes
//
// ReplicaSet writes go through a read-your-writes gate
// (reconcile.Consistency): the next sync of a Deployment waits until the
// informer shows the ReplicaSets it wrote, so a lagging cache never makes
// it create or scale twice. Every write carries the cached
// resourceVersion as its precondition; a conflict retries the sync.
//
// # Behaviours of kube-controller-manager implemented
//
// Adoption and release of ReplicaSets; the pod-template-hash label and
// <deployment>-<hash> names with collision counting; revisions and
// rollback by template; maxSurge/maxUnavailable rounding and fenceposts;
// rolling update steps (reconcileNewReplicaSet, cleanupUnhealthyReplicas,
// scaleDownOldReplicaSetsForRollingUpdate); Recreate waiting for old pods;
// pausing; scaling events and proportional scaling with the
// desired-replicas and max-replicas annotations; revisionHistoryLimit
// cleanup; the Available, Progressing and ReplicaFailure conditions and
// their reasons, ProgressDeadlineExceeded with a requeue at the deadline;
// ScalingReplicaSet events; annotations copied from the Deployment (but
// kubectl's last-applied configuration); 5 workers
// (--concurrent-deployment-syncs).
//
// # Deliberate differences and what is left out
//
//   - An old ReplicaSet counts as available no more pods than its
//     spec.replicas. kcm counts status.availableReplicas, which right after
//     a scale-down still includes the pods about to go, so a sync that runs
//     before the ReplicaSet controller has caught up can scale down twice
//     for the same pods. With current statuses the two agree.
//   - The hash is computed over JSON, not over kcm's spew dump of the Go
//     struct: names differ from kcm's for the same template.
//   - The Deployment's revision annotation is written with Update (kcm
//     sends it along with UpdateStatus, which the client contract limits
//     to the status).
//   - kcm requeues rate-limited when less than a second is left before the
//     deadline; this requeues one second after it.
//   - Left out: the deployment.kubernetes.io/revision-history annotation,
//     the deprecated rollbackTo (spec.rollbackTo and its annotation), the
//     ReplicaSetCreateError condition on the sync after a failed create is
//     only written with its event (it is written, but not re-judged), the
//     terminatingReplicas counts and the podReplacementPolicy of newer
//     Kubernetes, and metrics.
//
// # Wiring and Run
//
// Its informers are wired with reconcile.Watch and
// reconcile.WatchEvents: a Deployment's events enqueue it, a
// ReplicaSet's the Deployment that controls it (or, for an orphan, those
// whose selector picks it), and a pod's delete the Deployment of its
// ReplicaSet (the last old pod of a Recreate rollout). Run returns once
// every worker has exited: ctx's error after a clean drain, or the error
// of a drain that did not end cleanly (it wraps
// reconcile.ErrShutdownTimeout or workqueue.ErrDrainAborted), never
// reduced to ctx's error.
package deployment
