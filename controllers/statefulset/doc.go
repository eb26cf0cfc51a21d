// Package statefulset is the StatefulSet controller: it runs pods with
// stable identities — names <set>-<ordinal>, each with its hostname, the
// governing service as subdomain (so web-0.nginx resolves) and its own
// PersistentVolumeClaims — brought up, scaled down and updated in ordinal
// order, as kube-controller-manager's statefulset controller
// (pkg/controller/statefulset) does.
//
// # Usage
//
//	ctl, err := statefulset.New(c, f, statefulset.Options{}) // c is any client.Client
//	f.Start(ctx)
//	go ctl.Run(ctx)
//
// The controller depends on the client contract (package
// controllers/client) and informers only: it reads sets, pods,
// ControllerRevisions and claims from the factory's shared informers
// (named after the resources) and writes through the client's resources,
// so it runs the same on the in-process cluster, a real API server and
// the recording fake.
//
// Claims bind through a PersistentVolume controller
// (controllers/persistentvolume);
// pods are scheduled and run by controllers/scheduler and
// controllers/kubelet; claims owned under the retention policy are
// deleted by controllers/garbagecollector.
//
// # One sync
//
// A sync reads the set, its pods (those named after it, adopting orphans
// its selector picks and releasing pods it no longer selects), its
// ControllerRevisions (adopted the same way) and its namespace's claims
// from the informers, and hands them with the instant to decide, a pure
// function returning the writes; the shell makes them in order, stopping
// at the first failure, then writes the status and trims the history.
// Writes go through consistency gates, so the next sync of the set waits
// until the caches show them. No expectations, by package reconcile's
// rule ("Expectations or the gate"): a sync never needs to go on while
// its writes are unobserved, and pod names are fixed, so even a stale
// cache would only mean a failed create.
//
// decide follows kcm's UpdateStatefulSet:
//
//  1. Revisions (getStatefulSetRevisions). The template is recorded as a
//     ControllerRevision named <set>-<hash> (FNV-32a of the revision
//     data, a strategic merge patch replacing spec.template, and of
//     status.collisionCount, spelled in apimachinery's safe alphabet),
//     labelled with the template's labels and controller-revision-hash
//     <hash>, numbered one past the newest. An unchanged template reuses
//     the newest revision; a template equal to an older revision (a
//     rollback) renumbers that one; a new one is created — a name taken
//     by other data bumps collisionCount, a name taken by the same data
//     (the revision made before a restart on a stale list) is that
//     revision, as kcm's CreateControllerRevision reads and compares
//     it. The update revision is that
//     one; the current revision is status.currentRevision (or the update
//     revision, for a new set).
//  2. Members. Ordinals start at spec.ordinals.start (0). Pods with an
//     ordinal in [start, start+replicas) are members, those outside are
//     condemned. A missing member is built at the current revision if the
//     strategy is RollingUpdate and its index is below the partition, else
//     at the update revision (newVersionedStatefulSetPod) — so a pod below
//     the partition, deleted, comes back at the old template. Pods carry
//     controller-revision-hash (the revision's name),
//     statefulset.kubernetes.io/pod-name and apps.kubernetes.io/pod-index.
//  3. In ordinal order (processReplica): a Failed or Succeeded member is
//     deleted (it is recreated on a later sync, once gone); a missing one
//     is created, its claims first — <template>-<set>-<ordinal>, labelled
//     with the selector's labels, created only if missing, so a recreated
//     pod gets the same claim and volume — unless a claim is being deleted
//     or still owned by an earlier pod of that name (PodClaimIsStale). A
//     Pending pod gets missing claims back. With OrderedReady (the default)
//     the sync stops at a pod it created, at a terminating one, and at
//     one not Running and Ready or not yet available (ready for more than
//     minReadySeconds); Parallel goes on. A member's identity labels are
//     repaired, and its claims' owner references made to match the
//     retention policy.
//  4. Condemned pods, highest ordinal first (processCondemned): their
//     claims' owner references first; then with OrderedReady one at a
//     time, waiting for a terminating one, and only when it is healthy —
//     or is the first unhealthy pod of the set; Parallel deletes them all.
//  5. OnDelete stops here: pods are replaced only when someone deletes
//     them. RollingUpdate (updateStatefulSetAfterInvariantEstablished, the
//     MaxUnavailableStatefulSet path): with u members unavailable, up to
//     maxUnavailable−u members not at the update revision are deleted,
//     from the highest ordinal down to the partition; maxUnavailable is
//     an int or a percentage of replicas rounded up (default and at
//     least one). The next syncs recreate them at the update revision.
//
// The status counts the pods that exist: replicas, readyReplicas (Running
// and Ready), availableReplicas, currentReplicas and updatedReplicas (not
// terminating, at the current / update revision), with currentRevision,
// updateRevision, collisionCount and observedGeneration. When every pod is
// updated and ready under RollingUpdate, the update revision becomes the
// current one (completeRollingUpdate) — never with a partition above 0
// and pods below it, as in the MySQL example of Kubernetes' "Run a
// Replicated Stateful Application". A pod ready but not yet available
// requeues the set for the instant it becomes available.
//
// Retention (persistentVolumeClaimRetentionPolicy, Retain/Retain by
// default): whenDeleted Delete makes the set an owner of the claims, so
// the garbage collector deletes them with the set; whenScaled Delete
// makes a condemned pod the owner of its claims (and drops the set's
// reference) before the pod is deleted, so they go with it; a member's
// claims lose such a pod reference when the set is scaled back up.
//
// The history keeps the current and update revisions and every revision
// a pod uses, plus at most revisionHistoryLimit (10) others; older ones
// are deleted (truncateHistory).
//
// # Differences and omissions
//
//   - An unset updateStrategy.rollingUpdate (the in-process cluster does
//     not default it) means partition 0, as the API server's default does.
//   - Writes of one sync are sequential (kcm creates Parallel pods in
//     slow-start batches); the first failure ends the sync.
//   - Existing pods' volumes and hostnames cannot change (the API server
//     refuses), so only identity labels are repaired.
//   - Left out: the StatefulSet conditions, the
//     pod.alpha.kubernetes.io/initialized annotation, claim templates
//     changed after creation (kcm ignores them too), PVC resizing,
//     metrics, and kcm's 30 s resync.
//   - A pod whose claim is unbound is not held Pending by the scheduler or
//     the kubelet of this repository (see controllers/persistentvolume):
//     the binder simply binds first.
//
// # Wiring and Run
//
// Its informers are wired with reconcile.Watch and
// reconcile.WatchEvents: a set's events enqueue it; a pod's the set its
// controller reference resolves to (same UID) or, for an orphan, the
// sets whose selector picks it; a claim's, and a revision's add or
// delete, the sets of its namespace whose selector picks its labels. Run
// returns once every worker has exited: ctx's error after a clean drain,
// or the error of a drain that did not end cleanly (it wraps
// reconcile.ErrShutdownTimeout or workqueue.ErrDrainAborted), never
// reduced to ctx's error.
package statefulset
