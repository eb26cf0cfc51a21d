package scheduler

import (
	"fmt"
	"slices"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// The filters, in the order kube-scheduler's default profile runs them. A
// node's verdict names the first filter that rejected it.
const (
	FilterNodeUnschedulable  = "NodeUnschedulable"
	FilterNodeName           = "NodeName"
	FilterTaintToleration    = "TaintToleration"
	FilterNodeAffinity       = "NodeAffinity"
	FilterNodePorts          = "NodePorts"
	FilterNodeResourcesFit   = "NodeResourcesFit"
	FilterVolumeRestrictions = "VolumeRestrictions"
	// FilterVolumeBinding is declared with its reasons in volumebinding.go.
)

// The reasons the filters give, worded exactly as kube-scheduler's
// plugins word them; they make up the Unschedulable message. The
// TaintToleration reason is "node(s) had untolerated taint {key: value}".
const (
	ReasonNodeUnschedulable = "node(s) were unschedulable"
	ReasonNodeName          = "node(s) didn't match the requested node name"
	ReasonNodeAffinity      = "node(s) didn't match Pod's node affinity/selector"
	ReasonNodePorts         = "node(s) didn't have free ports for the requested pod ports"
	ReasonTooManyPods       = "Too many pods"
	ReasonInsufficientCPU   = "Insufficient cpu"
	ReasonInsufficientMem   = "Insufficient memory"
	ReasonInsufficientEph   = "Insufficient ephemeral-storage"
	ReasonReadWriteOncePod  = "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode"
)

// Shared, read-only reason lists, so that a rejection allocates nothing.
var (
	reasonsUnschedulable = []string{ReasonNodeUnschedulable}
	reasonsNodeName      = []string{ReasonNodeName}
	reasonsAffinity      = []string{ReasonNodeAffinity}
	reasonsPorts         = []string{ReasonNodePorts}
	reasonsRWOP          = []string{ReasonReadWriteOncePod}
	reasonsFit           [16][]string // indexed by a bit set: 1 pods, 2 cpu, 4 memory, 8 ephemeral-storage
)

func init() {
	names := []string{ReasonTooManyPods, ReasonInsufficientCPU, ReasonInsufficientMem, ReasonInsufficientEph}
	for bits := 1; bits < 16; bits++ {
		for i, n := range names {
			if bits&(1<<i) != 0 {
				reasonsFit[bits] = append(reasonsFit[bits], n)
			}
		}
	}
}

// podCtx is what the filters and scores read of the pod being scheduled,
// computed once per attempt.
type podCtx struct {
	info *PodInfo
	pod  *api.Pod
	// tolerations are the pod's tolerations the scheduler honours:
	// without the TaintTolerationComparisonOperators gate (alpha, off
	// by default in v1.37), those with operator Gt or Lt are dropped —
	// they tolerate no taint, as kube's ToleratesTaint with the gate off.
	tolerations []api.Toleration
	required    *api.NodeSelector
	// preferred are the preferred node affinity terms.
	preferred []api.PreferredSchedulingTerm
	// added is the profile's NodeAffinityArgs.AddedAffinity; nil for
	// none.
	added *addedAffinity
	// labelsNode is a node with a candidate node's labels only, as
	// VolumeBinding matches volumes' node affinity (reused per node),
	// and chosenPVs the volumes its Filter gave claims on that node.
	labelsNode *api.Node
	chosenPVs  []*api.PersistentVolume
	// tolUnschedulable: the pod tolerates the unschedulable taint.
	tolUnschedulable bool
	// preferTolerations are the tolerations TaintToleration's score
	// considers: effect "" or PreferNoSchedule.
	preferTolerations []api.Toleration
	// volumes is the volume plugins' PreFilter state (VolumeRestrictions'
	// ReadWriteOncePod conflict, VolumeBinding's bound volumes).
	volumes volumeState
	// nodes are all the candidate nodes (PodTopologySpread and
	// InterPodAffinity count the pods on every node).
	nodes []*NodeInfo
	// groupZones are the cache's zone counts per spread group, which
	// PodTopologySpread's score reads instead of counting over nodes
	// (nil: it counts).
	groupZones map[groupZone]int64
	// cache is the cache pc.nodes come from, whose podIndex the
	// PreFilters read (nil: they walk pc.nodes).
	cache *Cache
	// sc holds the decider's reusable buffers.
	sc *scratch
	// anyAffinity: some placed pod has pod (anti-)affinity terms.
	anyAffinity bool
	// namespaces looks up namespace labels (namespaceSelector); nil:
	// every namespace is taken to have no labels.
	namespaces NamespaceLookup
	nsCache    map[string]map[string]string
	// spread and affinity are the PreFilter states of PodTopologySpread
	// and InterPodAffinity; nil when the plugin is skipped.
	spread         *spreadState
	affinity       *affinityState
	affinityScores affinityScores
	// nominated is the node the pod is nominated to ("" for none);
	// nominatedPods are the pods nominated per node (see pluginEnv).
	nominated     string
	nominatedPods map[string][]*PodInfo
	// images is ImageLocality's view of the pod's images; nil when no
	// node reports images.
	images *imageLocalityState
	// fitReasons are NodeResourcesFit's reason lists naming scalar
	// resources, by their set.
	fitReasons map[string][]string
	// active are the indexes in filters of the filters runFilters runs
	// (nil: all), in activeBuf; see setActiveFilters.
	active    []uint8
	activeBuf [16]uint8
}

// withLabels returns pc's reusable node carrying only labels (allocated
// once per attempt, on first use).
func (pc *podCtx) withLabels(labels map[string]string) *api.Node {
	if pc.labelsNode == nil {
		pc.labelsNode = &api.Node{}
	}
	pc.labelsNode.Labels = labels
	return pc.labelsNode
}

// namespaceLabels returns the labels of namespace ns, looked up once
// per attempt.
func (pc *podCtx) namespaceLabels(ns string) map[string]string {
	if pc.namespaces == nil {
		return nil
	}
	if l, ok := pc.nsCache[ns]; ok {
		return l
	}
	l, _ := pc.namespaces(ns)
	if pc.nsCache == nil {
		pc.nsCache = map[string]map[string]string{}
	}
	pc.nsCache[ns] = l
	return l
}

// pluginEnv is what the PreFilters of PodTopologySpread and
// InterPodAffinity need beyond the nodes.
type pluginEnv struct {
	// anyAffinity: some placed pod has pod (anti-)affinity terms.
	anyAffinity bool
	// namespaces looks up namespace labels; may be nil.
	namespaces NamespaceLookup
	// nominated are the unbound pods nominated to each node by
	// preemption; those of at least the pod's priority count on their
	// node (kube's RunFilterPluginsWithNominatedPods). May be nil.
	nominated map[string][]*PodInfo
	// nominatedNode is the node the pod itself is nominated to: it is
	// evaluated first, alone if it fits (kube's evaluateNominatedNode).
	nominatedNode string
	// comparisonOperators is the TaintTolerationComparisonOperators
	// feature gate (Options.TaintTolerationComparisonOperators).
	comparisonOperators bool
	// preempt, when set, runs DefaultPreemption's PostFilter for a pod
	// that fits nowhere; nil reports every resolvable node as holding
	// no victims (PreemptionMessage).
	preempt *preemptEnv
	// images are the image names the nodes hold, with their spread
	// (ImageLocality); nil when no node reports images.
	images map[string]*imageState
	// added is the profile's NodeAffinityArgs.AddedAffinity; nil for
	// none.
	added *addedAffinity
	// groupZones are the cache's zone counts per spread group (see
	// Cache.groupZones); nil: PodTopologySpread counts over the nodes.
	groupZones map[groupZone]int64
	// cache, when set, is the cache nodes come from: PodTopologySpread's
	// and InterPodAffinity's PreFilters read its podIndex instead of
	// walking nodes (nil: they walk).
	cache *Cache
}

// envFor computes pluginEnv from the nodes themselves (Decide).
func envFor(nodes []*NodeInfo) pluginEnv {
	var env pluginEnv
	for _, n := range nodes {
		if len(n.withAffinity) > 0 {
			env.anyAffinity = true
		}
		if len(n.images) > 0 {
			if env.images == nil {
				env.images = make(map[string]*imageState)
			}
			addImages(env.images, n.images, 1)
		}
	}
	return env
}

func newPodCtx(pi *PodInfo) *podCtx { return newPodCtxGated(pi, false) }

// newPodCtxGated is newPodCtx with the TaintTolerationComparisonOperators
// feature gate: off, a Gt or Lt toleration tolerates nothing.
func newPodCtxGated(pi *PodInfo, comparisonOperators bool) *podCtx {
	pod := pi.Pod
	pc := &podCtx{info: pi, pod: pod, tolerations: pod.Spec.Tolerations}
	if !comparisonOperators && slices.ContainsFunc(pc.tolerations, isComparison) {
		pc.tolerations = slices.DeleteFunc(slices.Clone(pc.tolerations), isComparison)
	}
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		pc.required = a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
		pc.preferred = a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution
	}
	pc.tolUnschedulable = api.TolerationsTolerateTaint(pc.tolerations,
		&api.Taint{Key: api.TaintNodeUnschedulable, Effect: api.TaintEffectNoSchedule})
	for _, t := range pc.tolerations {
		if t.Effect == "" || t.Effect == api.TaintEffectPreferNoSchedule {
			pc.preferTolerations = append(pc.preferTolerations, t)
		}
	}
	return pc
}

// filter is one filter plugin: nil reasons pass the node.
type filter struct {
	name string
	fn   func(pc *podCtx, n *NodeInfo) []string
	// unresolvable: the plugin's rejection is kube's
	// UnschedulableAndUnresolvable status, which preemption cannot help
	// (its PostFilter skips such a node); otherwise it is Unschedulable.
	// fitUnresolvable decides for NodeResourcesFit.
	unresolvable bool
}

// filters is the default filter chain, in kube-scheduler's order, with
// the status code each plugin's Filter returns on a rejection.
var filters = []filter{
	{FilterNodeUnschedulable, filterNodeUnschedulable, true},
	{FilterNodeName, filterNodeName, true},
	{FilterTaintToleration, filterTaintToleration, true},
	{FilterNodeAffinity, filterNodeAffinity, true},
	{FilterNodePorts, filterNodePorts, false},
	{FilterNodeResourcesFit, filterNodeResourcesFit, false},
	{FilterVolumeRestrictions, filterVolumeRestrictions, false},
	{FilterNodeVolumeLimits, filterNodeVolumeLimits, false},
	{FilterVolumeBinding, filterVolumeBinding, true},
	{FilterVolumeZone, filterVolumeZone, true},
	{FilterPodTopologySpread, filterPodTopologySpread, false},
	{FilterInterPodAffinity, filterInterPodAffinity, false},
}

// The indexes in filters of the plugins whose rejections a placed pod
// can lift.
var (
	podTopologySpreadIndex = slices.IndexFunc(filters, func(f filter) bool { return f.name == FilterPodTopologySpread })
	interPodAffinityIndex  = slices.IndexFunc(filters, func(f filter) bool { return f.name == FilterInterPodAffinity })
)

// nodeAffinityIndex is NodeAffinity's index in filters.
var nodeAffinityIndex = slices.IndexFunc(filters, func(f filter) bool { return f.name == FilterNodeAffinity })

// nodeResourcesFitIndex is NodeResourcesFit's index in filters.
var nodeResourcesFitIndex = slices.IndexFunc(filters, func(f filter) bool { return f.name == FilterNodeResourcesFit })

// rejectionUnresolvable reports whether filter f's rejection of n is
// UnschedulableAndUnresolvable: by the plugin, or for NodeResourcesFit
// when the pod asks for more cpu, memory or ephemeral-storage than the
// node has allocatable in all (kube's InsufficientResource.Unresolvable:
// evicting every pod would not make room). Too many pods is resolvable.
//
// PodTopologySpread's missing-label rejection and InterPodAffinity's
// affinity rejection are unresolvable; their other rejections are not.
func rejectionUnresolvable(f int, pc *podCtx, n *NodeInfo, reasons []string) bool {
	if len(reasons) > 0 && (&reasons[0] == &reasonsTopologySpreadLabel[0] || &reasons[0] == &reasonsPodAffinity[0]) {
		return true
	}
	if f != nodeResourcesFitIndex {
		return filters[f].unresolvable
	}
	r := pc.info.Requests
	return r.MilliCPU > n.Allocatable.MilliCPU || r.Memory > n.Allocatable.Memory ||
		r.EphemeralStorage > n.Allocatable.EphemeralStorage || scalarUnresolvable(pc.info, n)
}

// filterVolumeRestrictions rejects every node when a ReadWriteOncePod
// claim the pod mounts is used by another pod anywhere in the cluster, as
// kube-scheduler's VolumeRestrictions (its PreFilter counts the users, its
// Filter rejects). Only that part is modelled: the disk sources whose
// sharing the plugin also restricts (GCE PD, EBS, RBD, iSCSI) are not in
// the object model.
func filterVolumeRestrictions(pc *podCtx, _ *NodeInfo) []string {
	if pc.volumes.rwopConflict {
		return reasonsRWOP
	}
	return nil
}

// ReadWriteOncePod is the access mode VolumeRestrictions enforces.
const ReadWriteOncePod api.PersistentVolumeAccessMode = "ReadWriteOncePod"

// ClaimLookup returns the PersistentVolumeClaim namespace/name, as a
// lister does; it must not block.
type ClaimLookup func(namespace, name string) (*api.PersistentVolumeClaim, bool)

// rwopConflict reports whether pi mounts a ReadWriteOncePod claim that
// some pod in c already uses.
func rwopConflict(pi *PodInfo, c *Cache, claims ClaimLookup) bool {
	if claims == nil {
		return false
	}
	for _, key := range pi.Claims {
		if c.ClaimUsers(key) == 0 {
			continue
		}
		ns, name, err := api.SplitKey(key)
		if err != nil {
			continue
		}
		if pvc, ok := claims(ns, name); ok && slices.Contains(pvc.Spec.AccessModes, ReadWriteOncePod) {
			return true
		}
	}
	return false
}

// runFilters returns the index in filters of the first filter that
// rejects n and its reasons, or nil reasons when n is feasible. It runs
// the filters of pc.active when set (see setActiveFilters), else all.
func runFilters(pc *podCtx, n *NodeInfo) (int, []string) {
	if pc.active != nil {
		for _, i := range pc.active {
			if r := filters[i].fn(pc, n); r != nil {
				return int(i), r
			}
		}
		return 0, nil
	}
	for i := range filters {
		if r := filters[i].fn(pc, n); r != nil {
			return i, r
		}
	}
	return 0, nil
}

// setActiveFilters sets pc.active to the filters that can reject a node
// for the attempt, after the PreFilter states are set: as kube's
// framework skips the Filter of a plugin whose PreFilter returned Skip,
// a filter is left out when it passes every node for this pod (no
// spec.nodeName, no node selector or required affinity, no host port,
// no volume state, PodTopologySpread's or InterPodAffinity's PreFilter
// skipped). The order, and so every verdict, is unchanged.
func setActiveFilters(pc *podCtx) {
	pc.active = pc.activeBuf[:0]
	for i := range filters {
		var skip bool
		switch filters[i].name {
		case FilterNodeName:
			skip = pc.pod.Spec.NodeName == ""
		case FilterNodeAffinity:
			skip = (pc.added == nil || pc.added.required == nil) && len(pc.pod.Spec.NodeSelector) == 0 && pc.required == nil
		case FilterNodePorts:
			skip = len(pc.info.Ports) == 0
		case FilterVolumeRestrictions:
			skip = !pc.volumes.rwopConflict
		case FilterNodeVolumeLimits:
			skip = pc.volumes.csi == nil
		case FilterVolumeBinding:
			skip = len(pc.volumes.bound) == 0 && len(pc.volumes.delayed) == 0
		case FilterVolumeZone:
			skip = len(pc.volumes.zones) == 0
		case FilterPodTopologySpread:
			skip = pc.spread == nil
		case FilterInterPodAffinity:
			skip = pc.affinity == nil
		}
		if !skip {
			pc.active = append(pc.active, uint8(i))
		}
	}
}

// isComparison reports whether t uses a numeric operator (Gt, Lt).
func isComparison(t api.Toleration) bool {
	return t.Operator == api.TolerationOpGt || t.Operator == api.TolerationOpLt
}

// runFiltersNominated is runFilters as kube's
// RunFilterPluginsWithNominatedPods: when pods of at least the pod's
// priority are nominated to n, the filters must pass with them counted
// on n, and without them.
func runFiltersNominated(pc *podCtx, n *NodeInfo) (int, []string) {
	if len(pc.nominatedPods) == 0 {
		return runFilters(pc, n)
	}
	if noms := pc.nominatedPods[n.Name]; len(noms) > 0 {
		var with *NodeInfo
		prio := podPriority(pc.pod)
		for _, p := range noms {
			if p.Key == pc.info.Key || podPriority(p.Pod) < prio {
				continue
			}
			if _, on := n.Pods[p.Key]; on {
				continue
			}
			if with == nil {
				with = n.clone()
			}
			with.addPod(p)
		}
		if with != nil {
			if f, r := runFilters(pc, with); r != nil {
				return f, r
			}
		}
	}
	return runFilters(pc, n)
}

// filterNodeUnschedulable rejects a cordoned node (spec.unschedulable)
// unless the pod tolerates the node.kubernetes.io/unschedulable taint.
func filterNodeUnschedulable(pc *podCtx, n *NodeInfo) []string {
	if n.unschedulable && !pc.tolUnschedulable {
		return reasonsUnschedulable
	}
	return nil
}

// filterNodeName rejects every node but spec.nodeName when it is set
// (kube-scheduler's NodeName; moot for pods that come from the
// spec.nodeName="" selector, kept for completeness and for Explain).
func filterNodeName(pc *podCtx, n *NodeInfo) []string {
	if pc.pod.Spec.NodeName != "" && pc.pod.Spec.NodeName != n.Name {
		return reasonsNodeName
	}
	return nil
}

// filterTaintToleration rejects a node with a NoSchedule or NoExecute
// taint the pod does not tolerate, naming the first such taint.
func filterTaintToleration(pc *podCtx, n *NodeInfo) []string {
	taints := n.taints
	for i := range taints {
		if e := taints[i].Effect; e != api.TaintEffectNoSchedule && e != api.TaintEffectNoExecute {
			continue
		}
		if !api.TolerationsTolerateTaint(pc.tolerations, &taints[i]) {
			return n.taintReasons[i]
		}
	}
	return nil
}

// filterNodeAffinity rejects a node that the profile's added required
// affinity (ReasonNodeAffinityEnforced), then spec.nodeSelector or the
// required node affinity (ReasonNodeAffinity) does not admit.
func filterNodeAffinity(pc *podCtx, n *NodeInfo) []string {
	if pc.added != nil && pc.added.required != nil && !pc.added.required.Matches(n.Node) {
		return reasonsAffinityEnforced
	}
	for k, v := range pc.pod.Spec.NodeSelector {
		if nv, ok := n.labels[k]; !ok || nv != v {
			return reasonsAffinity
		}
	}
	if pc.required != nil && !pc.required.Matches(n.Node) {
		return reasonsAffinity
	}
	return nil
}

// filterNodePorts rejects a node where a host port the pod asks for is
// taken (same protocol and port, same IP or either one 0.0.0.0).
func filterNodePorts(pc *podCtx, n *NodeInfo) []string {
	for _, p := range pc.info.Ports {
		for _, q := range n.ports {
			if p.conflicts(q) {
				return reasonsPorts
			}
		}
	}
	return nil
}

// filterNodeResourcesFit rejects a node whose allocatable minus what
// bound and assumed pods request cannot hold the pod's requests, giving
// every reason that applies, in kube-scheduler's order: pods, cpu,
// memory, ephemeral-storage. A pod that requests nothing is checked
// against the pods count only.
func filterNodeResourcesFit(pc *podCtx, n *NodeInfo) []string {
	var bits int
	if n.podCount+1 > n.AllowedPods {
		bits |= 1
	}
	r := pc.info.Requests
	free := n.Allocatable.Sub(n.Requested)
	if r.MilliCPU > 0 && r.MilliCPU > free.MilliCPU {
		bits |= 2
	}
	if r.Memory > 0 && r.Memory > free.Memory {
		bits |= 4
	}
	if r.EphemeralStorage > 0 && r.EphemeralStorage > free.EphemeralStorage {
		bits |= 8
	}
	if len(pc.info.Scalars) > 0 {
		if names := insufficientScalars(pc.info, n); len(names) > 0 {
			return pc.scalarReasons(bits, names)
		}
	}
	return reasonsFit[bits]
}

// scalarReasons returns NodeResourcesFit's reasons for the bits of
// reasonsFit followed by "Insufficient <name>" for each name, one shared
// list per distinct set in the attempt (so that the explanation keeps one
// copy).
func (pc *podCtx) scalarReasons(bits int, names []api.ResourceName) []string {
	key := fmt.Sprint(bits, names)
	if r, ok := pc.fitReasons[key]; ok {
		return r
	}
	r := slices.Clone(reasonsFit[bits])
	for _, n := range names {
		r = append(r, "Insufficient "+string(n))
	}
	if pc.fitReasons == nil {
		pc.fitReasons = map[string][]string{}
	}
	pc.fitReasons[key] = r
	return r
}
