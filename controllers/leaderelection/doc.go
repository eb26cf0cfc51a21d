// Package leaderelection is a leader.Elector over a coordination.k8s.io
// Lease, read and written through the client contract
// (client.Resource[*api.Lease]): the leader election of
// kube-controller-manager and of client-go's tools/leaderelection, on any
// client.Client — the in-process cluster, etcd, or a real Kubernetes API
// server through the kube module.
//
// # Usage
//
//	leases, _ := client.For[*api.Lease](c)
//	e, _ := leaderelection.New(leases, leaderelection.Options{
//		Namespace: "kube-system", Name: "kube-controller-manager",
//	})
//	err := leader.Run(ctx, e, work)
//
// # The algorithm
//
// The Lease records the holder (spec.holderIdentity), when it acquired
// the Lease (acquireTime), when it last renewed it (renewTime), for how
// long a renewal holds (leaseDurationSeconds) and how often the holder
// changed (leaseTransitions). Every write is an Update conditional on the
// resourceVersion just read (or a Create when the Lease is missing), so of
// two candidates writing at once one fails with a conflict: a Lease never
// names two holders, and a candidate believes it holds the Lease only
// after its own write succeeded.
//
//   - Campaign reads the Lease every RetryPeriod and acquires it when it
//     is missing, has no holder (released), or its holder has not
//     changed it for leaseDurationSeconds as measured by this
//     candidate's clock from the moment it first saw the Lease's current
//     resourceVersion (so clocks need not agree across machines, only
//     tick at the same rate, as in client-go). Acquiring sets
//     acquireTime and bumps leaseTransitions.
//   - The leader renews (writes renewTime) every RetryPeriod. Its term
//     ends (Term.Done) when RenewDeadline has passed since the start of
//     its last successful write, or at once when it finds another holder
//     in the Lease. Since RenewDeadline < LeaseDuration, the term ends
//     before any other candidate may consider the Lease expired: the
//     difference is the time the leader's work has to stop.
//   - Resign stops renewing and releases the Lease, as client-go's
//     ReleaseOnCancel: holderIdentity cleared, leaseDurationSeconds 1,
//     conditional on the resourceVersion of its own last write, so a
//     Lease someone else already took over is left alone. The next
//     candidate acquires it at its next attempt (within RetryPeriod).
//
// The defaults are kube-controller-manager's --leader-elect-* flags:
// LeaseDuration 15 s, RenewDeadline 10 s, RetryPeriod 2 s.
//
// # What leadership guarantees
//
// As package leader says of every lease-based elector: a leader learns
// that it lost the Lease by its own clock, so a paused process (or a
// clock that runs slow) may still act after another candidate took
// over. Writes that must never come from two leaders need a store-side
// precondition.
//
// # Bad input
//
// New rejects a nil client, a missing Lease namespace or name, negative
// durations, and durations not ordered RetryPeriod < RenewDeadline <
// LeaseDuration. Campaign and Resign return an error for a nil context.
//
// # Concurrency
//
// New starts nothing. A Term runs one goroutine, which renews the Lease
// and has exited when Resign returns. An Elector is one candidate:
// campaign with it from one goroutine at a time (leader.Run does);
// several candidates need several Electors, each with its own Identity.
package leaderelection
