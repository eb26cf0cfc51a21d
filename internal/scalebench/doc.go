// Package scalebench holds the scale scenarios of issue 20 — a control
// plane's start, N nodes until Ready, a Deployment of R replicas on N
// nodes until settled — as functions over any store, so that the same
// benchmark runs over the in-memory backend (controllers/controlplane)
// and over etcd (the etcd module's clusterstore), with the same metrics.
//
// The scenarios run in real time: synctest.Test takes a *testing.T only,
// and in a bubble CPU work takes no time at all, which is what they
// measure. Run inside a bubble (as controlplane's TestScaleSmoke does),
// they check that the bodies still work, at no cost in wall time.
//
// # Sizes
//
// Sizes reads CTRLKIT_SCALE_NODES and CTRLKIT_SCALE_PODS (default 10
// nodes and 100 pods). Each pod of the Deployment requests nothing, so a
// node takes up to 110 (its pods capacity): the pods must be at most 110
// × the nodes. CTRLKIT_SCALE_DEPLOYMENTS (default 1) splits the pods
// among that many Deployments (issue 33's 100,000 pods on 5,000 nodes
// are 20 Deployments of 5,000: CTRLKIT_SCALE_DEPLOYMENTS=20).
//
// # Metrics
//
// One iteration's, averaged over b.N:
//
//   - *-s: wall seconds from the scenario's start (Start called, or the
//     Deployments created) until the condition: ready-s every Node
//     Ready, running-s every pod Running, available-s the Deployments'
//     availableReplicas adding up to the pods, settled-s the last change before
//     Settle found the cluster quiet (Settle's return minus its quiet
//     period, Quiet).
//   - cpu-s: CPU seconds (user+system) of the process over the span, up
//     to Settle's return (so including its quiet period, when the
//     kubelets' heartbeats still run). An embedded etcd runs in the
//     process, so its CPU counts.
//   - heapB/node, heapB/pod: the heap the second of two forced
//     collections found live (LiveHeap),
//     settled, minus the same before (before Start for nodes, before the
//     Deployment for pods), per node or pod.
//   - writes/node, writes/pod: ControlPlane.Writes over the span (every
//     change Settle counts: creates, deletes, updates other than
//     heartbeats).
//   - expiries, relists (Deployment): over the span, the
//     source.ErrExpired (410 Gone) the process's reflectors were told and
//     the relists they made (reflector.ProcessTotals). Both should be 0.
//   - maxRSS-MB (Deployment): the process's peak resident set size at
//     the end (getrusage), the nodes' start and the test binary included.
//
// CTRLKIT_SCALE_HEAPPROFILE names a file to write a heap profile of the
// settled cluster to, before it stops (go test's -memprofile is written
// after the cluster has stopped); Deployment also writes one to that name
// plus ".base" when its nodes have settled, before its pods, so that
// `go tool pprof -diff_base NAME.base BINARY NAME` shows what the pods
// added.
//
// # Stores
//
// A Store makes the store options of one run; nil is the in-memory
// backend. Each run starts a control plane of its own (Options.Nodes
// nodes over three zones) and stops it; Store's release function runs
// after that. Making the store (starting an etcd) is not timed.
package scalebench
