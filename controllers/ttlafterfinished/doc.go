// Package ttlafterfinished is kube-controller-manager's TTL-after-finished
// controller (ttl-after-finished-controller): a Job with
// spec.ttlSecondsAfterFinished is deleted that many seconds after it
// finished.
//
// As kcm's: a job added or updated that is not being deleted, has a TTL
// and has finished (a Complete or Failed condition that is True) is
// synced. A sync computes its expiry (ExpireAt: the finishing
// condition's lastTransitionTime plus the TTL) and comes back when it is
// due; once due it reads the job fresh from the server (a TTL changed
// since counts) and deletes it with propagationPolicy Foreground (its
// pods go first) and its uid as precondition. A finishing condition
// without a time is an error, retried with back-off.
//
// The controller depends on the client contract (package
// controllers/client) and informers only; it uses the clock of its
// goroutines (virtual in a testing/synctest bubble).
package ttlafterfinished
