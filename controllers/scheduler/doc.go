// Package scheduler is a kube-scheduler for ctrlkit's control plane that
// explains itself: for any recently attempted pod, Scheduler.Explain
// returns every node's filter verdict and score breakdown of its last
// attempt, and an unschedulable pod carries kube-scheduler's own message
// in its PodScheduled=False condition.
//
// # Usage
//
//	s, err := scheduler.New(scheduler.Options{
//		Pods:   podsLW,  // all (non-terminated) pods
//		Nodes:  nodesLW,
//		Binder: scheduler.PodWriter{Pods: podStore},
//		Status: scheduler.PodWriter{Pods: podStore},
//		// Optional: VolumeRestrictions and VolumeBinding.
//		Claims:  scheduler.ClaimsFrom(pvcInformer.Lister()),
//		Volumes: scheduler.VolumesFrom(pvInformer.Lister()),
//		// Optional: WaitForFirstConsumer binding (VolumeBinding).
//		StorageClasses: scheduler.StorageClassesFrom(scInformer.Lister()),
//		VolumeList:     scheduler.VolumeListFrom(pvInformer.Lister()),
//		VolumeWriter:   scheduler.ClusterWriter{Cluster: c},
//		// Optional: NodeVolumeLimits' CSI limits.
//		CSINodes: scheduler.CSINodesFrom(csiNodeInformer.Lister()),
//		// Optional: namespace labels for namespaceSelector.
//		Namespaces: scheduler.NamespacesFrom(nsInformer.Lister()),
//	})
//	go s.Run(ctx)
//	e, ok := s.Explain("default/web-0")
//	fmt.Print(e.String())
//
// # Pure core, thin shell
//
// Decisions are made by plain functions over a Cache, which knows nothing
// of goroutines or clocks (STYLE.md, "Controllers"):
//
//   - Cache is the per-node snapshot: allocatable, and the sum of the
//     requests of the pods bound to the node and of those assumed on it.
//     An assumed pod is placed but its bind not yet observed; it counts
//     from the moment it is chosen, so two pods never take the last slot.
//     The assumption ends when the informer shows the pod bound
//     (confirmed, on whichever node), when the bind fails (forgotten, the
//     pod retried after its backoff), or Options.AssumeTTL (30 s) after a
//     bind returned without the pod being observed (expired). That TTL
//     after the end of binding is kube-scheduler's assumed-pod expiry as
//     it long stood; recent kube-scheduler releases set it to 0 (never
//     expire) and rely on the watch — a negative AssumeTTL does that.
//   - PodRequests computes a pod's requests as kube-scheduler does: the
//     sum over containers, then per resource the maximum with each init
//     container (restartable "sidecar" init containers add to the sum and
//     to every later init container), plus spec.overhead. The resource
//     scores count a missing cpu/memory request as 100m / 200Mi.
//   - Decide runs the filters over the nodes, scores the feasible ones
//     and picks the best weighted total, ties broken by a seeded
//     math/rand/v2 source (reservoir sampling, as kube-scheduler's
//     selectHost); it returns the Explanation.
//
// The Scheduler is the shell: informers feed the cache and the queue (see
// Wiring), one goroutine takes pods off the queue and decides (under the cache's
// mutex, so no event slips between the snapshot and parking a pod), binds
// run concurrently through the Binder, and one timer expires assumptions.
//
// # Sources
//
// Options.Pods is one informer over all pods (kube-scheduler asks its API
// server for the non-terminated ones, status.phase!=Succeeded,
// status.phase!=Failed; serving everything is fine too, terminated pods
// are ignored). Bound pods fill the cache. Unbound ones for this
// scheduler (spec.schedulerName "" or Options.SchedulerName) are queued,
// except pods with spec.schedulingGates (until the gates are removed),
// being deleted or terminated.
//
// A scheduler is often described as watching only the unscheduled pods,
// through the server-side field selector spec.nodeName=""; that stream is
// the queue's half of this informer. One informer for both halves, as
// kube-scheduler itself has, keeps the two views consistent: a pod leaves
// the queue in the same event that puts it in the cache, where two
// informers could show it in neither or in both. Options.Pods must
// therefore include the bound pods: a source filtered by spec.nodeName=""
// alone would leave the snapshot empty and over-commit every node.
//
// Binder and StatusWriter are the two writes the scheduler makes; their
// contracts are in their docs. PodWriter implements both over any
// source.Writer[*api.Pod] (fake.Source, the cluster store): Get, change,
// Update with the pod's own resourceVersion as the precondition, retry on
// conflict; Bind fails with ErrAlreadyBound (a source.ErrConflict) when
// the pod is bound already, and sets PodScheduled=True as the API
// server's binding does.
//
// ClusterWriter implements both over the client contract (package
// controllers/client: the in-process cluster or a real API server): the
// pods/binding subresource from client.BinderFor and UpdateStatus of the
// pods resource. The package itself depends on sources, writers and
// that contract only, never on the concrete cluster.
//
// # The queue
//
// A workqueue.Queue with strict priorities (no aging): pods are taken by
// spec.priority, highest first, then in the order they became ready (the
// timestamp order of kube-scheduler's PrioritySort). A pod that does not
// fit gets PodScheduled=False, reason Unschedulable, and is parked until a
// node is added or changes (labels, taints, allocatable, unschedulable),
// a bound pod is deleted, terminates or changes, a bind fails or an
// assumption expires; it is then retried, but not before its backoff —
// 1 s doubling per failed attempt to 10 s (kube-scheduler's
// podInitialBackoffSeconds and podMaxBackoffSeconds) — or after
// Options.UnschedulableTimeout (5 min, kube-scheduler's
// podMaxInUnschedulablePodsDuration) without any such event. A change to
// the pending pod's own spec or labels retries it too; status-only
// updates (including the condition the scheduler writes) do not. A pod
// held by VolumeBinding (an unbound or missing claim) is retried when its
// backoff ends, without waiting for an event (see Filters).
//
// # Wiring
//
// The scheduler is wired as every controller under controllers/ is,
// with package reconcile, but keeps a queue of its own. Its informers
// are watched with reconcile.Watch through reconcile.Observe: the
// observers (the intake) take each pod and node event into the cache
// and put the pods it concerns into the scheduling queue, with their
// priority and backoff, under the scheduler's mutex; the map function
// adds nothing. The loop is a reconcile.Controller with one worker over
// that queue (reconcile.Options.Queue), whose Reconcile is one
// scheduling attempt: Run waits for the caches (without a timeout, as
// kube-scheduler), and drains as every controller does.
//
// Why a queue of its own and not the controller's: kube-scheduler's
// scheduling queue is not a controller's work queue. It orders pods by
// their spec.priority, strictly (a controller's queue ages requests, so
// a low-priority pod would overtake a higher one after waiting), and a
// pod's retries follow the scheduler's own backoff and its parking as
// unschedulable, which depend on what the attempt found and on the
// events since, not on a rate limiter fed by Reconcile's errors (an
// attempt never returns one). What kube-scheduler calls the activeQ is
// the queue's ready items, its backoffQ the delayed ones, and its
// unschedulable pods the parked ones (see The queue).
//
// # Filters
//
// In kube-scheduler's default order; a node's verdict is the first that
// rejects it, with the reasons worded as kube-scheduler words them:
//
//   - NodeUnschedulable: spec.unschedulable, unless the pod tolerates
//     node.kubernetes.io/unschedulable:NoSchedule — "node(s) were
//     unschedulable".
//   - NodeName (kube-scheduler's old PodFitsHost predicate):
//     spec.nodeName, when set — "node(s) didn't match the requested
//     node name".
//   - TaintToleration: an untolerated NoSchedule or NoExecute taint —
//     "node(s) had untolerated taint {key: value}". Tolerations with the
//     numeric operators Gt and Lt tolerate nothing unless
//     Options.TaintTolerationComparisonOperators (kube's alpha feature
//     gate, off by default in v1.37) is on.
//   - NodeAffinity (PodSelectorMatches): the profile's
//     Options.NodeAffinityArgs.AddedAffinity, required part, first —
//     "node(s) didn't match scheduler-enforced node affinity" — then
//     spec.nodeSelector and the required node affinity — "node(s) didn't
//     match Pod's node affinity/selector". Its PreFilter narrows the
//     nodes (see PreFilter results below).
//   - NodePorts (PodFitsPorts): host ports by protocol and IP, 0.0.0.0
//     conflicting with every IP — "node(s) didn't have free ports for the
//     requested pod ports".
//   - NodeResourcesFit (PodFitsResources): the pods count, cpu, memory,
//     ephemeral-storage and the scalar resources (extended resources such
//     as nvidia.com/gpu, hugepages-…; PodInfo.Scalars) against
//     allocatable minus bound and assumed requests; every reason that
//     applies — "Too many pods", "Insufficient cpu", "Insufficient
//     memory", "Insufficient ephemeral-storage", then "Insufficient
//     nvidia.com/gpu" per scalar resource by name. A node without the
//     resource has none of it. As kube's default scoring strategy
//     (LeastAllocated over cpu and memory), scalar resources are not
//     scored.
//   - VolumeRestrictions, ReadWriteOncePod only, when Options.Claims is
//     set: a pod mounting a ReadWriteOncePod claim another pod uses fits
//     nowhere — "node has pod using PersistentVolumeClaim with the same
//     name and ReadWriteOncePod access mode" on every node (kube-scheduler
//     counts the users in its PreFilter and rejects in its Filter, so the
//     message counts the nodes).
//   - NodeVolumeLimits (nodevolumelimits.go), its CSI part, when
//     Options.Claims, Options.Volumes and Options.CSINodes are set and the
//     pod has CSI volumes (claims bound to volumes with spec.csi, counted
//     once per driver and volumeHandle; inline CSI volumes): a node whose
//     CSINode gives a driver an allocatable.count is rejected when the
//     CSI volumes of its bound and assumed pods plus the pod's new ones
//     exceed it — "node(s) exceed max volume count". A node without a
//     CSINode, or a driver without a count, is not limited; unbound
//     claims (which VolumeBinding holds anyway) and non-CSI volumes are
//     not counted.
//   - VolumeBinding, when Options.Claims is set. Its PreFilter looks up every claim the pod
//     mounts (spec.volumes[].persistentVolumeClaim.claimName, and
//     <pod>-<volume> for a generic ephemeral volume, in the pod's
//     namespace): in volume order the first one that is missing, Lost or
//     being deleted rejects the pod — `persistentvolumeclaim
//     "data-web-0" not found` (for an ephemeral volume `waiting for
//     ephemeral volume controller to create the persistentvolumeclaim
//     "web-0-scratch"`, and one the pod does not control is kube's `PVC
//     ns/name was not created for pod ns/pod (pod is not owner)`),
//     `persistentvolumeclaim "data-web-0" bound
//     to non-existent persistentvolume "pv-1"`, `persistentvolumeclaim
//     "data-web-0" is being deleted` — and otherwise any claim not bound
//     does: "pod has unbound immediate PersistentVolumeClaims" — unless,
//     with Options.StorageClasses, its class (the
//     volume.beta.kubernetes.io/storage-class annotation, else
//     spec.storageClassName) exists with volumeBindingMode
//     WaitForFirstConsumer and it names no volume: such a claim is bound
//     per node (see Delayed binding). A claim is
//     bound when spec.volumeName is set and either it carries
//     pv.kubernetes.io/bind-completed (what kube-scheduler's
//     isPVCFullyBound asks for, and what the volume controller writes) or
//     its status.phase is Bound (so that a claim bound by hand counts
//     too; see ClaimBound). Its Filter, when Options.Volumes is set too,
//     checks the bound claims' volumes: a node that a volume's
//     spec.nodeAffinity.required does not admit (labels only, as
//     kube-scheduler's CheckNodeAffinity) is rejected — "node(s) didn't
//     match PersistentVolume's node affinity" — and a volume that does not
//     exist rejects every node — "node(s) unavailable due to one or more
//     pvc(s) bound to non-existent pv(s)"; a node where a delayed claim
//     finds no volume is rejected — "node(s) didn't find available
//     persistent volumes to bind". Every reason that applies is given,
//     in kube's order.
//   - VolumeZone (volumezone.go), when Options.Claims and Options.Volumes
//     are set. Its PreFilter, after VolumeBinding's, looks up the volume
//     of each of the pod's claims in volume order: a missing one rejects
//     the pod — `persistentvolume "pv-1" not found` — and otherwise it
//     collects the volumes' failure-domain.beta.kubernetes.io/zone and
//     /region and topology.kubernetes.io/zone and /region labels (values
//     "__"-separated zone lists; one that does not parse is ignored).
//     Its Filter passes a node carrying none of those four labels;
//     otherwise each volume label needs the node's value of that label
//     (for a deprecated one the node lacks, of its topology.kubernetes.io
//     successor) among the volume's values — "node(s) had no available
//     volume zone", unresolvable.
//   - PodTopologySpread (topologyspread.go), the DoNotSchedule
//     constraints. Its PreFilter counts, per constraint and domain (the
//     node's value of topologyKey), the pods in the pod's namespace, not
//     terminating, that the labelSelector (with matchLabelKeys merged in,
//     the pod's own values) selects, over the nodes that carry every
//     constraint's key and pass its node inclusion policies
//     (nodeAffinityPolicy Honor by default: the pod's nodeSelector and
//     required node affinity; nodeTaintsPolicy Ignore by default, Honor:
//     the NoSchedule/NoExecute taints it tolerates); the global minimum
//     is 0 while there are fewer domains than minDomains. A node lacking a
//     key is rejected — "node(s) didn't match pod topology spread
//     constraints (missing required label)", unresolvable — and so is one
//     where its domain's count plus the pod (if it matches) minus the
//     minimum exceeds maxSkew — "node(s) didn't match pod topology spread
//     constraints".
//   - InterPodAffinity (interpodaffinity.go), required terms. The pod's
//     affinity terms need a node carrying every term's topologyKey in a
//     domain with a pod matching all of them — unless no pod anywhere
//     matches them and the pod matches its own terms (the first pod of a
//     self-affine group) — "node(s) didn't match pod affinity rules",
//     unresolvable; its anti-affinity terms reject a domain holding a
//     matching pod — "node(s) didn't match pod anti-affinity rules"; and
//     the placed pods' required anti-affinity terms matching the pod
//     reject their domains — "node(s) didn't satisfy existing pods
//     anti-affinity rules". A term looks in its namespaces, else in those
//     its namespaceSelector selects ({} every namespace; labels from
//     Options.Namespaces), else in its pod's; matchLabelKeys and
//     mismatchLabelKeys are merged into its selector with its pod's
//     values, as the API server merges them.
//
// Both are skipped, as kube-scheduler's PreFilter Skip, when the pod has
// no such constraint and (for InterPodAffinity) no placed pod has pod
// (anti-)affinity terms: the cache counts those pods, so a cluster
// without any costs nothing per attempt. Otherwise the Scheduler's
// attempts read counts the cache keeps as pods are placed and removed
// and nodes relabelled (its pod index), instead of walking every node
// and pod as kube-scheduler's PreFilters do. PodTopologySpread's
// DoNotSchedule counts per domain and their minimum: one counter per
// namespace, selector, topology key, set of required keys and, when a
// constraint's inclusion policies exclude nodes (a pod's nodeSelector or
// required node affinity under nodeAffinityPolicy Honor, its tolerations
// under nodeTaintsPolicy Honor), those policies; at most 64 kept, the
// least recently read dropped; O(distinct counts) per attempt for the
// minimum, so a hostname constraint does not visit every node.
// InterPodAffinity reads the distinct required anti-affinity terms of
// placed pods with their domains (O(distinct terms)), and a counter per
// required term of the pod: an anti-affinity term's matching pods, an
// affinity term's pods matching every affinity term of the pod. A
// namespaceSelector is resolved per attempt against the namespaces
// holding placed pods (O(namespaces)), so namespace labels are read
// fresh. Preemption's dry runs change those states in the changed
// node's domains only, from its pods before and after (as kube's
// AddPod/RemovePod PreFilter extensions). Building a counter on first
// use is O(placed pods + nodes), and so is every PreFilter of Decide,
// which has no cache. A pod they rejected is retried when a pod is
// placed or relabelled, as well as on the events below.
//
// A PreFilter rejection skips the filters: every node gets the
// VolumeBinding (or VolumeZone) verdict, and the message names the reason once instead
// of counting nodes, as kube-scheduler's FitError with a PreFilterMsg:
// "0/3 nodes are available: pod has unbound immediate
// PersistentVolumeClaims." Then comes what the preemption PostFilter
// found — " preemption: 0/3 nodes are available: 3 Preemption is not
// helpful for scheduling." (the PreFilter rejections of VolumeBinding and
// VolumeZone are all unresolvable).
//
// There is no claim watch (kube-scheduler requeues a pod on PVC and PV
// add/update events): a pod that VolumeBinding rejected, in its PreFilter
// or on any node, is not parked for the 5 minutes of
// UnschedulableTimeout but retried when its backoff ends (1 s doubling to
// 10 s), so a claim bound later is picked up at the next retry, within
// 10 s. Without Options.StorageClasses every claim counts as Immediate:
// a claim of a WaitForFirstConsumer StorageClass is held as unbound too.
//
// # Delayed binding
//
// With Options.StorageClasses (and VolumeList, VolumeWriter), a claim of
// a WaitForFirstConsumer class is bound for the node chosen, as
// kube-scheduler's volumebinding binder.go. The Filter (FindPodVolumes),
// claims taken smallest request first, gives each claim on the node an
// available volume — the volume pre-bound to it (spec.claimRef) if any,
// which decides alone, else the smallest Available volume of its class
// that the claim's selector, access modes and volume mode accept, with
// the capacity asked for, not given to another of the pod's claims nor
// pre-bound by a PreBind in flight — whose node affinity admits the node
// (labels only); a claim without one must be provisionable there: its
// class has a provisioner other than kubernetes.io/no-provisioner and its
// allowedTopologies admit the node's labels. A claim already annotated
// volume.kubernetes.io/selected-node (AnnSelectedNode) fits that node
// only, and is provisioned. Storage capacity (CSIStorageCapacity) is not
// modelled, so "node(s) did not have enough free storage" never arises.
//
// Once a node is chosen, its volumes are reserved (no other pod's claim
// takes them), and PreBind, in the bind goroutine before the Binding is
// written, sets each matched volume's spec.claimRef to its claim (with
// pv.kubernetes.io/bound-by-controller) and annotates each claim to
// provision with AnnSelectedNode = the node, both through
// Options.VolumeWriter conditioned on the resourceVersions seen, and
// then checks every second (checkBindings, over Options.Claims and
// Volumes) until every claim is bound — its volumeName set and
// pv.kubernetes.io/bind-completed, as the PersistentVolume controller
// writes — for up to Options.BindTimeout (600 s, kube's
// bindTimeoutSeconds). It fails early when a volume's claimRef was reset,
// the claim's selected node removed or changed (a provisioner that
// failed), a bound volume's node affinity does not admit the node, or
// the pod was deleted. A failure forgets the assumption and retries the
// pod after its backoff, with the event FailedScheduling "running
// PreBind plugin "VolumeBinding": binding volumes: <error>" (on timeout
// "... context deadline exceeded"); the Binding is written only after
// the claims are bound.
//
// # PreFilter results and PreScore Skip
//
// NodeAffinity's PreFilter, when every term of the pod's required node
// affinity has matchFields metadata.name In [...], narrows the candidates
// to those names (per term the intersection of its lists, the union over
// terms): only they are filtered, and every other node is
// UnschedulableAndUnresolvable with "node(s) didn't satisfy plugin(s)
// [NodeAffinity]", counted in the message as kube's FitError counts the
// nodes absent from its diagnosis ("0/4 nodes are available: 1
// Insufficient cpu, 3 node(s) didn't satisfy plugin(s) [NodeAffinity].");
// a name that is no node is dropped. Terms that name no node at all
// reject the pod in PreFilter — "0/N nodes are available: pod affinity
// terms conflict." — before VolumeBinding's PreFilter runs. A nominated
// node that fits is taken before the narrowing, as kube's
// evaluateNominatedNode.
//
// A score plugin whose PreScore returns Skip in kube-scheduler is not
// run on any node and scores 0: NodeAffinity without preferred terms (the
// pod's or the added ones), BalancedAllocation for a pod requesting no
// cpu and no memory. PodTopologySpread without constraints scores 0
// without work per node, and InterPodAffinity, with no preferred terms
// and no placed pod with affinity terms, has no domain to look up
// (kube computes 0s there too). TaintToleration and ImageLocality have
// no Skip in kube (a node's PreferNoSchedule taints count without any
// toleration); their per-node work is the node's taints and the pod's
// images.
//
// When no node passes, the message is kube-scheduler's FitError text:
// "0/N nodes are available: " then "count reason" per distinct reason (a
// node with two reasons counts in both), sorted as strings — sort.Strings
// over the formatted "count reason", not by count, so "10 …" sorts before
// "2 …" — joined by ", " and ended with ".". For example
// "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match
// Pod's node affinity/selector." With no nodes it is "no nodes available
// to schedule pods". Then, after a space, comes what kube-scheduler's
// DefaultPreemption PostFilter adds when it finds no node to preempt on
// (see Preemption): "preemption: " and, over all the nodes, "Preemption
// is not helpful for scheduling" counted for those whose rejection is
// UnschedulableAndUnresolvable — NodeUnschedulable, NodeName,
// TaintToleration, NodeAffinity, VolumeBinding, VolumeZone, PodTopologySpread's
// missing label, InterPodAffinity's affinity rules, and NodeResourcesFit
// when the pod asks for more than the node's allocatable in all — and for
// the others (NodePorts, VolumeRestrictions, NodeVolumeLimits, a node
// short of room or of
// pod slots, a topology spread skew, the pod's or placed pods'
// anti-affinity) "No preemption victims found for incoming pod" when no
// pod on the node has a lower priority, else the filters' reasons with
// every lower-priority pod removed, in the same format; or "preemption:
// not eligible due to preemptionPolicy=Never." for a pod that never
// preempts, or "preemption: not eligible due to a terminating pod on the
// nominated node." while a victim of its last preemption terminates.
// So: "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't
// match Pod's node affinity/selector. preemption: 0/3 nodes are
// available: 1 No preemption victims found for incoming pod, 2 Preemption
// is not helpful for scheduling." When preemption found a node, the
// message is the filters' part alone, as kube-scheduler's (the PostFilter
// succeeded). Without Options.Preempt the scheduler does not preempt, and
// every node where preemption might help is reported as having no
// victims (PreemptionMessage).
//
// # Preemption
//
// With Options.Preempt set, a pod that fits nowhere preempts as
// kube-scheduler's DefaultPreemption (preemption.go), unless its
// preemptionPolicy is Never. On each node whose rejection is resolvable
// (in node order, until 10% of the nodes, at least 100, are candidates
// with one of them violating no budget), every pod of lower
// spec.priority is removed; if the pod then passes every filter
// (resources, ports, spread and affinity, whose PreFilter states are
// recomputed over the changed node), those pods are reprieved one by one
// — first those whose eviction would violate a PodDisruptionBudget
// (Options.PDBs; a budget selecting the pod, not listing it in
// disruptedPods, whose disruptionsAllowed runs below zero), then the
// others, each group most important first (higher priority, then the
// earlier status.startTime) — and the ones without which it no longer
// fits are its victims. Of the candidate nodes it takes, as
// pickOneNodeForPreemption, the fewest budget violations, then the lowest
// highest victim priority, the lowest sum of victim priorities, the
// fewest victims, the latest start of the highest-priority victims, the
// first node. It then nominates the pod to that node — in memory at once,
// status.nominatedNodeName through PreemptWriter.Nominate — clears the
// nomination of lower-priority pods nominated there, and gives each
// victim the DisruptionTarget condition (reason PreemptionByScheduler,
// "default-scheduler: preempting to accommodate a higher priority pod")
// and deletes it, recording Preempted "Preempted by pod <uid> on node
// <node>" about it. The pod waits, parked, for the victims' deletion.
//
// A nominated pod tries its nominated node first and takes it if it fits
// (kube's evaluateNominatedNode). Pods nominated to a node with at least
// the priority of the pod being scheduled count on that node — their
// requests and host ports — for every filter (the filters must pass with
// them and without them, as RunFilterPluginsWithNominatedPods); so a
// lower- or equal-priority pod does not take the room preemption made.
//
// # Events
//
// With Options.Recorder set, the scheduler records kube-scheduler's
// events about the pod (its reporting component is the scheduler name,
// default-scheduler, when the recorder is a Broadcaster built with that
// Component): Scheduled (Normal) "Successfully assigned <ns>/<pod> to
// <node>" once the bind succeeded; FailedScheduling (Warning) with the
// Unschedulable message above at every attempt that finds no node (a
// Broadcaster counts the repeats) and "binding rejected: <error>" when a
// bind fails.
//
// Large clusters: as kube-scheduler, an attempt stops filtering once it
// has found NumFeasibleNodesToFind feasible nodes (Options.
// PercentageOfNodesToScore, default adaptive: every node under 100 nodes,
// 10% of 5,000), starting where the previous attempt stopped. Nodes it did
// not reach are Skipped in the explanation. An unschedulable verdict
// always comes from evaluating every node.
//
// # Scores
//
// Each plugin scores a feasible node 0..MaxNodeScore (100, the scale of
// kube-scheduler's scheduling framework; its old priorities used 0..10,
// MaxPriority); the total is the sum of score × weight
// (Weights; defaults as kube-scheduler's default profile):
//
//   - LeastAllocated (weight 1; kube-scheduler's old
//     LeastRequestedPriority, now
//     NodeResourcesFit's LeastAllocated strategy): per resource
//     (capacity − requested) × 100 / capacity with the pod included and
//     missing requests defaulted, cpu and memory averaged. Kubernetes'
//     documentation of the time gave the formula on the old 0..10 scale:
//     (cpu((capacity − sum(requested)) × 10 / capacity) +
//     memory((capacity − sum(requested)) × 10 / capacity)) / 2 — the same
//     shape with 10 for 100, integer division per resource.
//   - BalancedAllocation (weight 1; BalancedResourceAllocation): the cpu
//     and memory fractions requested/allocatable (capped at 1) close
//     together score higher: (1 − |cpu − memory| / 2) × 100. (The old
//     priority used 10 − |cpu − memory| × 10.) A pod requesting no cpu
//     and no memory skips it (0 everywhere).
//   - PodTopologySpread (weight 2): the ScheduleAnyway constraints, or,
//     for a pod without any constraint, kube-scheduler's system default
//     ones — kubernetes.io/hostname maxSkew 3 and
//     topology.kubernetes.io/zone maxSkew 5 — for a pod whose controller is
//     a ReplicaSet, ReplicationController or StatefulSet. kube-scheduler
//     builds the default selector from the pod's Services and that
//     controller; here the pods counted are those of the same controller
//     (SpreadGroup), which is what those selectors select in practice, but
//     a Service's other pods and pods of other kinds are not counted. As
//     kube's: each constraint weighs ln(domains among the feasible nodes +
//     2), counts come from every node passing the inclusion policies (for
//     the default zone constraint of a pod every node admits, from the
//     cache's per-group zone counts instead of a walk), a
//     node scores Σ count × weight + maxSkew − 1 rounded, normalized to
//     100 × (max + min − score) / max; with user constraints a node lacking
//     a key scores 0, with the defaults a node without a zone still scores
//     by hostname. A pod with neither scores 0 everywhere (Skip).
//   - InterPodAffinity (weight 2): per domain, the weights of the pod's
//     preferred terms that placed pods match (anti-affinity subtracts),
//     plus the placed pods' required affinity terms matching the pod
//     (hardPodAffinityWeight 1) and preferred terms (±weight); a node
//     scores the sum over its domains, normalized linearly so the lowest
//     is 0 and the highest 100 (all 0 when equal or skipped).
//   - SelectorSpread (off by default; a positive Weights.SelectorSpread
//     turns it on — PodTopologySpread's system defaults replaced it in
//     kube-scheduler's default profile): fewer pods of the same spread
//     group on the node score higher, 100 × (max − count) / max; when
//     nodes carry topology.kubernetes.io/zone (and /region), blended one
//     third node, two thirds zone with the same formula over zone counts.
//   - NodeAffinity (weight 2): the sum of the weights of the matching
//     preferred terms, the profile's added ones and the pod's, scaled so
//     the best node has 100.
//   - TaintToleration (weight 3): fewer untolerated PreferNoSchedule taints
//     score higher, 100 − 100 × count / max.
//   - ImageLocality (weight 1; imagelocality.go): the nodes' status.images
//     the pod's init containers and containers run (names normalized with
//     ":latest" when untagged, as kube's normalizedImageName), each counted
//     as size × (nodes holding the name / all nodes), the sum clamped to
//     23 MiB .. 1000 MiB × containers and scaled linearly to 0..100. The
//     cache keeps each name's spread as nodes report, change and drop
//     images (a name's size is the first reporter's, as kube's cache).
//
// # Left out
//
// Of preemption: asynchronous preemption's bookkeeping, the random offset
// of the dry run (it starts at the first node), nominated pods in
// PodTopologySpread's and InterPodAffinity's counts, and
// VolumeRestrictions' claim users freed by victims; Service selectors in PodTopologySpread's
// system default constraints (the pod's controller stands for them);
// InterPodAffinityArgs' ignorePreferredTermsOfExistingPods; of the volume plugins all but VolumeRestrictions'
// ReadWriteOncePod check, NodeVolumeLimits' CSI limits, VolumeZone and
// VolumeBinding (NoDiskConflict proper restricts GCE PD, EBS, RBD and iSCSI disks, which
// the object model does not have; NodeVolumeLimits' counting of unbound
// claims by their class's provisioner and of in-tree volumes migrated to
// CSI; VolumeBinding's storage capacity checks and volume-capacity score,
// and its PVC/PV event handlers are left out);
// pod-level resources; scoring strategies other than the default
// (RequestedToCapacityRatio, resources weighted beyond cpu and memory);
// multiple profiles; Service selectors
// in SelectorSpread; parallel filtering (one goroutine decides, which on
// two cores costs little).
//
// # Explanations
//
// Unschedulable lists the pods whose last attempt found no node, and
// ServeHTTP renders both as plain text for a debug server; Explain
// returns the last attempt of a pod among the
// Options.ExplainHistory (1,024) most recently attempted pods whose
// attempts fit in Options.ExplainBytes (1 MiB; the latest attempt is
// always kept). An attempt
// is kept compact — a 4-byte verdict per node it evaluated (an attempt
// that found a node keeps the window of nodes it evaluated, the rest
// being Skipped; an unschedulable one every node) and a byte per score
// of a feasible node, node names shared with the cache — at most about
// 45 KB at 5,000 nodes, about 6 KB for a scheduled pod under the
// adaptive percentage, and is expanded into an Explanation only when
// asked for. The byte bound keeps the history from growing with the
// cluster: 1,024 attempts at 5,000 nodes would hold 6 MB or more.
// The condition is written by a goroutine of its own per attempt, so that
// a slow store does not hold up scheduling.
//
// # Concurrency
//
// New starts nothing; Run starts the informers, the scheduling goroutine
// (the controller's worker), the binds and the expiry timer, and returns
// after all of them have exited, with the controller's drain error:
// ctx.Err() after a clean drain, else an error that also wraps
// reconcile.ErrShutdownTimeout (an attempt in flight outlasted
// reconcile.DefaultShutdownTimeout after ctx ended). Explain is safe to call from any goroutine. The pure types
// (Cache, NodeInfo, PodInfo) are not safe for concurrent use.
package scheduler
