// Package nodelifecycle is kube-controller-manager's node lifecycle
// controller: it notices nodes whose kubelet went silent, says so in
// their status, marks their pods not ready, and taints them so that the
// scheduler keeps new pods away and the taint eviction controller
// (package tainteviction) moves the running ones elsewhere — at a rate
// that protects the cluster when the problem is more likely the control
// plane's network than the nodes.
//
// # Usage
//
//	f := informer.NewFactory(informer.FactoryOptions{})
//	nc, err := nodelifecycle.New(c, f, nodelifecycle.Options{})
//	te, err := tainteviction.New(c, f, tainteviction.Options{})
//	f.Start(ctx)
//	go nc.Run(ctx)
//	go te.Run(ctx)
//
// It reads nodes, pods and the kubelets' Leases (kube-node-lease/<node>)
// from shared informers and writes node status, node taints and pod
// status through the client contract (package controllers/client: the
// in-process cluster or a real API server); it depends on those two
// only.
//
// # Health
//
// Every Options.MonitorPeriod (5 s, --node-monitor-period) a pass looks
// at every node (kcm's monitorNodeHealth). What it remembers per node
// (Health, kcm's nodeHealthData) is when, by the controller's own clock,
// it last saw a sign of life: a new lastHeartbeatTime on the Ready
// condition or a newer renewTime on the node's Lease — whichever came
// last. Comparing the kubelet's timestamps with the controller's clock
// would make clock skew look like death; kcm avoids that the same way.
// A node silent for longer than Options.MonitorGracePeriod (50 s,
// --node-monitor-grace-period; 40 s before Kubernetes 1.32), or a node
// that never posted a Ready condition for Options.StartupGracePeriod (60
// s) after its creation, gets Ready, MemoryPressure, DiskPressure and
// PIDPressure set to Unknown, reason NodeStatusUnknown, message "Kubelet
// stopped posting node status." (NodeStatusNeverUpdated, "Kubelet never
// posted node status." for a condition it never posted;
// NetworkUnavailable is the network plugin's and is left alone). In the
// pass that turns a Ready node not ready, the pods bound to it get their
// Ready condition set to False (MarkPodsNotReady) and the node a
// NodeNotReady event; a pod bound later to such a node is marked at once.
// ObserveHealth is the whole decision, a pure function of the node, its
// lease, what was remembered and the time.
//
// # Taints
//
// NoSchedule taints mirror the conditions and spec.unschedulable
// (NoScheduleTaints, kcm's doNoScheduleTaintingPass, run on every node
// event): node.kubernetes.io/not-ready (Ready False), unreachable (Ready
// Unknown), memory-pressure, disk-pressure, pid-pressure,
// network-unavailable (those conditions True) and unschedulable. They
// keep the scheduler away at once.
//
// NoExecute taints drive eviction (NoExecuteDecision, kcm's
// processTaintBaseEviction), decided from the Ready condition the pass
// observed — so a node turned Unknown by this pass is tainted from the
// next, 5 s later, as in kcm. A Ready node loses both NoExecute taints; a
// node already tainted with the opposite one has it swapped at once; any
// other not-ready node is queued for node.kubernetes.io/not-ready:NoExecute
// (Ready False) or unreachable:NoExecute (Unknown). Every taint change is
// one Update of the node's spec, so the unreachable and not-ready taints
// are swapped atomically, and NoExecute taints carry timeAdded.
//
// # Zones and rate limiting
//
// Nodes are grouped into zones by their topology.kubernetes.io/region
// and zone labels (ZoneKey). Each zone has a queue that taints its nodes
// at a limited rate (a token bucket of burst 1, tried every 100 ms): the
// first at once, then one every 1/rate. After each pass every zone's
// state is computed from its nodes' Ready conditions (ComputeZoneState;
// nodes labelled node.kubernetes.io/exclude-disruption do not count):
//
//   - Normal: Options.EvictionRate, 0.1 nodes/s (--node-eviction-rate).
//   - PartialDisruption (more than two and at least 55% of its nodes not
//     ready, --unhealthy-zone-threshold): 0.01 nodes/s
//     (--secondary-node-eviction-rate) if the zone has more than 50 nodes
//     (--large-cluster-size-threshold), else 0 — a small zone losing most
//     of its nodes stops tainting.
//   - FullDisruption (no node ready): the normal rate — unless every zone
//     is fully disrupted. Then the controller assumes it, not the nodes,
//     is cut off: it removes every NoExecute taint and stops tainting;
//     when a node is heard from again, every node's probe time is reset
//     to now so none is judged on the silence.
//
// Disruption is that decision as a pure function.
//
// # Events
//
// RegisteredNode and RemovingNode when a node first appears and goes,
// NodeNotReady on the node (Normal, "Node <name> status is now:
// NodeNotReady") and on each pod it marks (Warning, "Node is not ready").
// kube-controller-manager records them as node-controller, and so does the
// manager (package manager) for this controller.
//
// # Wiring
//
// The controller is a reconcile.Controller, wired as every controller
// under controllers/ is, with reconcile.WatchEvents; no handler of its
// own. It is not a keyed reconciler, and cannot honestly be one: its
// health pass looks at every node at once (the zones' states and rates
// are computed from all of them), the zones' tainting queues are timed
// queues with token buckets, and which of the passes runs depends on the
// time. So its queue holds one request, an iteration of the control
// loop, reconciled by one worker that owns the health, zone and queue
// state: the NoSchedule pass over the nodes that changed and the pods
// newly bound to a node, then the health pass if it is due, then the
// tainting queues if they hold nodes and are due; the request comes back
// (Result.RequeueAfter) when the next pass is due. The event intake is
// reconcile's: a node's add or update, and a pod's binding to a node,
// record the object for the next iteration and map to the request (the
// informers' initial lists at the queue's low priority, as for every
// controller). The first iteration runs as soon as the caches have
// synced.
//
// Run is the loop's Run: when ctx ends, the iteration in flight finishes
// with a live context for up to reconcile.DefaultShutdownTimeout, then
// its context is cancelled; Run returns ctx.Err() after a clean drain,
// else the drain's error (reconcile.ErrShutdownTimeout,
// workqueue.ErrDrainAborted).
//
// # Differences from kube-controller-manager
//
// Deliberately not done, or done differently: the swap of the NoExecute
// taints is one update (kcm adds, then removes, in two); timeAdded is set
// only on NoExecute taints, as the API documents it; one worker does
// the monitor pass, the tainting passes and the event handling (kcm runs
// eight node workers, four pod workers and parallel health updates), so
// a pass's marking and the zones' new rates are applied together, before
// any tainting; a failed NoSchedule update waits for the next event about
// the node (kcm does the same, and notes it as unfinished); the beta os/arch label reconciliation,
// the deprecated failure-domain zone labels and the metrics are left out;
// taint eviction itself is package tainteviction, as kcm's separate
// taint-eviction-controller (the SeparateTaintEvictionController default).
package nodelifecycle
