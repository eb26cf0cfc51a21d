// Package disruption is kube-controller-manager's disruption controller:
// it keeps the status of every PodDisruptionBudget (policy/v1), which the
// eviction subresource of pods (POST pods/{name}/eviction, served by
// controllers/apiserver over controllers/cluster) reads to refuse an
// eviction that would break a budget. It depends on the client contract
// (package controllers/client) and the shared informers only.
//
// # Algorithm
//
// A sync of a budget (kcm's trySync) reads the pods of its namespace that
// its selector picks (a nil selector picks none, an empty one every pod)
// and calls Decide, a pure function of (budget, pods, scale lookup, now):
//
//   - expectedPods and desiredHealthy (ExpectedPods): with an integer
//     minAvailable, expectedPods is the number of selected pods and
//     desiredHealthy the integer — no controller is looked at. With
//     maxUnavailable, or a percentage minAvailable, expectedPods is the
//     sum of the desired replicas of the pods' distinct controllers,
//     found as kcm's finders do: a ReplicaSet (apps or extensions) not
//     controlled by a Deployment; the Deployment of a ReplicaSet; a
//     ReplicationController; a StatefulSet; else any kind the client
//     serves with a scale subresource, read live. Each finder checks the
//     reference's UID. Percentages round UP (a 34% minAvailable of 3 is
//     2, a 30% maxUnavailable of 7 is 3, so desiredHealthy 4);
//     desiredHealthy = expectedPods − maxUnavailable, at least 0. Pods
//     without a controller are not counted (event UnmanagedPods); a
//     controller reference that resolves to nothing, or to a kind without
//     a scale (a Job), fails the sync (event
//     CalculateExpectedPodCountFailed).
//   - disruptedPods (DisruptedPods): the entries the eviction API added
//     stand for DeletionTimeout (2 minutes) for selected pods not yet
//     being deleted; older ones are dropped with a NotDeleted event on
//     the pod; the budget is synced again when the earliest one expires.
//   - currentHealthy (CurrentHealthy): pods that are Ready, not being
//     deleted, and not standing in disruptedPods.
//   - disruptionsAllowed = currentHealthy − desiredHealthy, 0 when that is
//     negative or when expectedPods is 0 (a budget over nothing stays
//     safe when its first pods appear); observedGeneration the budget's
//     generation; the DisruptionAllowed condition True/SufficientPods
//     when disruptionsAllowed > 0, else False/InsufficientPods
//     (UpdateCondition, lastTransitionTime changed only with the status).
//
// The status is written (UpdateStatus, conditional on the budget's
// resourceVersion, so a stale status never overwrites the eviction API's
// decrement) only when it differs. When the status cannot be computed,
// FailSafe's status is written — no disruption allowed, condition
// False/SyncFailed with the error as its message — and the budget waits
// for its next event, as kcm; a failed write (a conflict) is retried with
// backoff. A budget with no matching pod records NoPods.
//
// # Wiring
//
// New(client, factory, Options) builds a reconcile.Controller over the
// shared informers poddisruptionbudgets, pods, replicasets, deployments,
// statefulsets and (when served) replicationcontrollers; Run runs it. A
// budget's events enqueue it; a pod's events enqueue the budgets whose
// selector picks it, before and after a label change. The workload
// informers are caches the finders read: as in kcm, changing a
// controller's replicas alone does not resync a budget (its pods
// changing does). Events are recorded as "disruption-controller".
//
// Deliberate differences from kcm: a pod matched by several budgets
// enqueues all of them (kcm picks the first and records
// MultiplePodDisruptionBudgets on the pod); kcm's stale-disruption worker,
// which resets a DisruptionTarget pod condition left on a pod that was
// not deleted within two minutes, is not implemented.
package disruption
