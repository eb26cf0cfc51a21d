// Package job is the Job controller: kube-controller-manager's
// pkg/controller/job rebuilt on ctrlkit, with the TTL-after-finished
// controller's deletion folded in.
//
// # Usage
//
//	f := informer.NewFactory(informer.FactoryOptions{})
//	jc, err := job.New(c, f, job.Options{})   // c is any client.Client
//	f.Start(ctx)
//	go jc.Run(ctx)
//
// The controller depends on the client contract (package
// controllers/client) and informers only, so it runs the same on the
// in-process cluster, a real API server and the recording fake. It reads
// jobs and pods from the factory's shared informers ("jobs", "pods") and
// writes only through the client's resources. Its reads follow its
// writes: a Consistency gate per informer holds the next
// sync of a job until the caches show what the last one wrote, which
// stands in for kcm's pod expectations and finalizer expectations (package
// reconcile's rule, "Expectations or the gate": a job's sync has nothing
// to do that cannot wait for its previous writes, so the gate alone).
// A pod create that times out may have been written and returns no
// resourceVersion to wait for: the next sync then waits until the pod
// cache is as new as a consistent list taken after it.
//
// # Selector
//
// kube-apiserver, not the controller, generates a job's selector: the
// cluster package's Job defaulting labels the template with
// batch.kubernetes.io/controller-uid, controller-uid,
// batch.kubernetes.io/job-name and job-name and selects on the first,
// unless spec.manualSelector is set. The controller claims the pods that
// selector picks (adopting orphans, releasing pods that no longer match)
// with ctrlutil.Claimer.
//
// # One sync
//
// decide is a pure function of the job, its pods, the back-off record of
// its failures and now; the sync performs its plan:
//
//  1. Counting, exactly once. Every pod is created with the finalizer
//     batch.kubernetes.io/job-tracking. A pod that finished (Succeeded;
//     Failed; or being deleted while not Succeeded, which kcm counts as a
//     failure, so that a pod deleted right after it finished is not lost)
//     and still carries the finalizer is recorded first in
//     status.uncountedTerminatedPods — an Indexed job's success directly
//     in completedIndexes — and that status is written (the flush). Then
//     the finalizers of the recorded pods are removed, and the final
//     status moves every recorded UID into succeeded / failed. A pod
//     without the finalizer has been counted and is never looked at
//     again; a pod recorded but not yet released is released on the next
//     sync and counted then; so a restart between any two steps neither
//     loses nor double-counts a pod.
//  2. The verdict, in kcm's order: a podFailurePolicy rule with action
//     FailJob (reason PodFailurePolicy); status.failed above backoffLimit
//     (default 6; MaxInt32 beside backoffLimitPerIndex) or, with
//     restartPolicy OnFailure, the running pods' container restarts
//     reaching it (BackoffLimitExceeded); activeDeadlineSeconds since
//     startTime (DeadlineExceeded); with backoffLimitPerIndex, more failed
//     indexes than maxFailedIndexes (MaxFailedIndexesExceeded) or every
//     index finished and one failed (FailedIndexes); a successPolicy rule
//     met (SuccessPolicy, "Matched rules at index <i>"); success:
//     completions successes (Indexed: completed indexes), or with no
//     completions one success and no pod running (CompletionsReached).
//     The verdict is first written as FailureTarget or SuccessCriteriaMet;
//     the pods still running are deleted (status.active drops to 0 and
//     status.terminating counts them until they end); Failed or Complete
//     (with completionTime, and the event) is added once no pod runs or
//     terminates, as kcm 1.31 and later do (the v1.37 default).
//  3. Suspension: spec.suspend deletes the running pods (each released
//     of its finalizer first, as kcm's deleteJobPods does, so that it is
//     not counted as failed) and sets
//     Suspended (JobSuspended); resuming sets it False (JobResumed) and
//     restarts startTime, so the deadline counts from the resumption.
//  4. kcm's arithmetic: wanted active pods = min(parallelism,
//     completions − succeeded), or parallelism until one succeeds when
//     completions is nil. Extra pods are released of their finalizer and
//     deleted (ctrlutil.RankForDeletion order; not counted as failed);
//     missing ones are created once the re-creation back-off has
//     passed: after n failures since the last success DefaultBackoff ×
//     2^(n−1), at most MaxBackoff (10 s and 10 min, kcm v1.37), counted
//     from the last failure's finish. A pod's finish is kcm's
//     getFinishedTime: the last finishedAt once every container and
//     sidecar (restartable init container) terminated, else when Ready
//     turned False, else the deletion timestamp minus the grace period,
//     else the creation time. Indexed jobs create the lowest
//     indexes that are neither completed nor running, each pod carrying
//     batch.kubernetes.io/job-completion-index as annotation and label,
//     JOB_COMPLETION_INDEX in its environment, hostname <job>-<index>
//     and generateName <job>-<index>-; pods of completed, failed or
//     out-of-range indexes and duplicates are deleted. completedIndexes
//     and failedIndexes are written as kcm writes them ("1,3-5,7,8": a
//     run of two is two indexes).
//  5. Status: active, ready, terminating, succeeded, failed, startTime,
//     completionTime, completedIndexes, conditions.
//
// ttlSecondsAfterFinished is not this controller's: as in kcm, the
// TTL-after-finished controller (package controllers/ttlafterfinished)
// deletes a finished job when it expires.
//
// The sync requeues itself for the next instant time alone changes the
// verdict: the active deadline, the back-off's end.
//
// Pods of a deleted or finished job lose their tracking finalizer.
//
// # podFailurePolicy
//
// Rules are tried in order on each newly Failed pod, the first match
// with a known action deciding: onExitCodes (In / NotIn over the
// non-zero exit codes of terminated containers, the named one or any,
// regular containers before init containers; another operator matches
// nothing) or onPodConditions (the pod's conditions in the pod's order
// against the listed type and status). FailJob fails the job, Ignore
// does not count the pod toward backoffLimit (it is replaced at once),
// Count counts it, FailIndex counts it and fails its index (with
// backoffLimitPerIndex); no match counts it. With a policy (or
// podReplacementPolicy Failed) a terminating pod is counted, and
// replaced, only once it is Failed.
//
// # backoffLimitPerIndex
//
// An Indexed job with backoffLimitPerIndex retries each index on its
// own: every pod carries batch.kubernetes.io/job-index-failure-count (and
// job-index-ignored-failure-count once an Ignore rule matched) — the
// failures of its index before it. A failed pod whose count reached the
// limit, or matched a FailIndex rule, fails its index
// (status.failedIndexes); otherwise its replacement waits the index's
// own back-off (the global record is not used) and the failed pod keeps
// its finalizer, uncounted, until the replacement exists, as kcm does,
// so that the count passes on. Pods of failed indexes are not replaced.
//
// # successPolicy
//
// An Indexed job whose successPolicy rule is met (succeededIndexes all
// succeeded, or succeededCount of them; or succeededCount indexes in
// all) gets SuccessCriteriaMet with reason SuccessPolicy; its remaining
// pods are deleted, then Complete follows with the same reason and
// message.
//
// # managedBy
//
// A job whose spec.managedBy is set to anything but ControllerName
// (kubernetes.io/job-controller) belongs to another controller: its
// events and its pods' do not enqueue it, and a sync of its key does
// nothing, so neither its status nor its pods are touched.
//
// # Left out, deliberately
//
// The JobReadyPods/elastic-indexed resizing details, pod creation in
// slow-start batches and burst limits (a sync creates every missing pod),
// and metrics. A pod deleted because its job is suspended is not counted
// as a failure (our choice; it keeps a suspend/resume cycle from eating
// the back-off limit). The back-off record lives in memory, as kcm's does,
// and is lost on restart. An adopted orphan pod (created without the
// tracking finalizer) is not counted when it finishes; kcm does not add
// the finalizer to adopted pods either. kube-apiserver's defaulting here (the cluster
// package) always sets completions, also when parallelism is above 1,
// where Kubernetes leaves it nil; the controller handles nil completions
// for jobs that reach it that way.
//
// # Wiring and Run
//
// Its informers are wired with reconcile.Watch and
// reconcile.WatchEvents: a job's events enqueue it (reconcile.ByKey); a
// pod's enqueue the job its controller reference names (the old one too
// when an update changed the reference) or, for an orphan, the jobs
// whose selector picks it. Run returns once every worker has exited:
// ctx's error after a clean drain, or the error of a drain that did not
// end cleanly (it wraps reconcile.ErrShutdownTimeout or
// workqueue.ErrDrainAborted), never reduced to ctx's error.
package job
