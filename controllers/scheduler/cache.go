package scheduler

import (
	"container/heap"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unique"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// PodInfo is a pod as the scheduler accounts for it, with what the
// filters and scores read precomputed once.
type PodInfo struct {
	// Pod is the object; shared, never modified.
	Pod *api.Pod
	// Key is api.Key(Pod).
	Key string
	// Requests is PodRequests(Pod, false): what NodeResourcesFit counts.
	Requests Resources
	// NonZero is PodRequests(Pod, true): what the resource scores count.
	NonZero Resources
	// Ports are the host ports the pod takes.
	Ports []HostPort
	// Scalars are the pod's requests of extended and other scalar
	// resources (nvidia.com/gpu, hugepages-…), sorted by name.
	Scalars []ScalarResource
	// Owner identifies the pod's spread group (see SpreadGroup); "" for none.
	Owner string
	// Claims are the keys (namespace/name) of the PersistentVolumeClaims
	// the pod mounts.
	Claims []string
	// Assumed is true while the pod is placed but its binding has not
	// been observed.
	Assumed bool

	affinity *podAffinity // pod (anti-)affinity terms; nil for none
}

// HostPort is a host port a container asks for: kube-scheduler's
// HostPortInfo entry. IP "" means 0.0.0.0, Protocol "" means TCP.
type HostPort struct {
	// IP is the host IP the port is bound on; "0.0.0.0" for all.
	IP string
	// Protocol is TCP, UDP or SCTP.
	Protocol api.Protocol
	// Port is the host port.
	Port int32
}

// conflicts reports whether p and o cannot both be bound on one node:
// same protocol and port, and the same IP or either one the wildcard.
func (p HostPort) conflicts(o HostPort) bool {
	return p.Port == o.Port && p.Protocol == o.Protocol &&
		(p.IP == o.IP || p.IP == "0.0.0.0" || o.IP == "0.0.0.0")
}

// SpreadGroup returns the group SelectorSpread spreads pod with: its
// namespace and the UID of its controller reference (a ReplicaSet,
// StatefulSet, ReplicationController or Job), or "" when it has none.
func SpreadGroup(pod *api.Pod) string {
	ref := pod.ControllerRef()
	if ref == nil {
		return ""
	}
	return pod.Namespace + "/" + ref.Kind + "/" + string(ref.UID)
}

// sharedGroup returns the one copy of spread group g the process keeps
// while it is in use (unique.Make), so that the thousands of pods of a
// ReplicaSet share their group's name rather than hold a copy each.
func sharedGroup(g string) string {
	if g == "" {
		return ""
	}
	return unique.Make(g).Value()
}

// NewPodInfo precomputes what the scheduler reads of pod.
func NewPodInfo(pod *api.Pod) *PodInfo {
	all := api.PodRequests(pod)
	pi := &PodInfo{
		Pod:      pod,
		Key:      api.Key(pod),
		Requests: ResourcesFromList(all),
		Owner:    sharedGroup(SpreadGroup(pod)),
		affinity: newPodAffinity(pod),
		Scalars:  scalarsFrom(all),
	}
	// NonZero differs from Requests only when a container misses a cpu
	// or memory request.
	pi.NonZero = pi.Requests
	if missesCPUOrMemory(pod) {
		pi.NonZero = PodRequests(pod, true)
	}
	for i := range pod.Spec.Volumes {
		if name, _, ok := podClaimName(pod, &pod.Spec.Volumes[i]); ok {
			pi.Claims = append(pi.Claims, api.NamespacedKey(pod.Namespace, name))
		}
	}
	for _, cs := range [][]api.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			for _, p := range cs[i].Ports {
				if p.HostPort <= 0 {
					continue
				}
				hp := HostPort{IP: p.HostIP, Protocol: p.Protocol, Port: p.HostPort}
				if hp.IP == "" {
					hp.IP = "0.0.0.0"
				}
				if hp.Protocol == "" {
					hp.Protocol = api.ProtocolTCP
				}
				pi.Ports = append(pi.Ports, hp)
			}
		}
	}
	return pi
}

// missesCPUOrMemory reports whether a container or init container of pod
// has no cpu or no memory request (PodRequests with nonZero defaults it).
func missesCPUOrMemory(pod *api.Pod) bool {
	for _, cs := range [][]api.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			r := cs[i].Resources.Requests
			if _, ok := r[api.ResourceCPU]; !ok {
				return true
			}
			if _, ok := r[api.ResourceMemory]; !ok {
				return true
			}
		}
	}
	return false
}

// NodeInfo is what the scheduler knows of one node: the node, and the
// bound and assumed pods on it with what they add up to. NodeInfos are
// owned by a Cache; callers read them and never change them.
type NodeInfo struct {
	// The fields every attempt reads come first, so that a pass over
	// thousands of nodes touches as few cache lines as possible.

	// Allocatable is read from Node.Status.Allocatable.
	Allocatable Resources
	// Requested sums the pods' Requests; NonZeroRequested their NonZero.
	Requested, NonZeroRequested Resources
	// AllowedPods is the allocatable "pods" count.
	AllowedPods int64
	// podCount is len(Pods), kept here so that NodeResourcesFit's pods
	// check reads no map.
	podCount int64
	// Name is the node's name.
	Name          string
	unschedulable bool
	zoneID        int32             // index of Zone in the cache's zones; -1 for none
	taints        []api.Taint       // Node.Spec.Taints
	labels        map[string]string // Node.Labels
	ports         []HostPort        // the pods' host ports, one entry per pod port
	taintReasons  [][]string        // per taints entry, the TaintToleration reason
	// zoneLabel is the cache's id (see Cache.zoneLabels) of the node's
	// topology.kubernetes.io/zone value; ^id of "" when it has none.
	// hostLabel: the node carries kubernetes.io/hostname. Both spare
	// PodTopologySpread's score a label lookup per node.
	zoneLabel int32
	hostLabel bool
	// scalarAlloc and scalarRequested are the node's allocatable and
	// its pods' requests of scalar resources; nil when none.
	scalarAlloc, scalarRequested map[api.ResourceName]int64
	// images are the image names of Node.Status.Images with their sizes
	// (ImageLocality); nil when none.
	images map[string]int64

	// Node is the node; nil while pods are bound to a node the cache has
	// not seen (or no longer has): such a NodeInfo is never a candidate.
	Node *api.Node
	// Zone is the zone key ("" without zone labels): region and zone
	// joined as kube-scheduler's utilnode.GetZoneKey does.
	Zone string
	// Pods are the pods on the node by key.
	Pods map[string]*PodInfo

	groups map[string]int // SpreadGroup → pods not terminating
	// withAffinity are the pods with pod (anti-)affinity terms
	// (kube-scheduler's PodsWithAffinity).
	withAffinity []*PodInfo
}

// setNode (re)reads node's fields (zoneID is the cache's to set). The
// TaintToleration reason lists come from intern, one shared list per
// reason (so that an attempt keeps one per distinct taint, not one per
// node), and are added to it; nil interns nothing.
func (n *NodeInfo) setNode(node *api.Node, intern map[string][]string) {
	n.Node = node
	n.Name = node.Name
	n.Allocatable = ResourcesFromList(node.Status.Allocatable)
	n.AllowedPods = 0
	if q, ok := node.Status.Allocatable[api.ResourcePods]; ok {
		n.AllowedPods = q.Value()
	}
	n.Zone = ""
	region, zone := node.Labels[api.LabelTopologyRegion], node.Labels[api.LabelTopologyZone]
	if region != "" || zone != "" {
		n.Zone = region + ":\x00:" + zone
	}
	n.unschedulable = node.Spec.Unschedulable
	n.scalarAlloc = scalarAdd(nil, scalarsFrom(node.Status.Allocatable), 1)
	n.taints = node.Spec.Taints
	n.labels = node.Labels
	_, n.hostLabel = node.Labels[api.LabelHostname]
	n.images = imageNames(node)
	n.taintReasons = make([][]string, len(node.Spec.Taints))
	for i, t := range node.Spec.Taints {
		reason := fmt.Sprintf("node(s) had untolerated taint {%s: %s}", t.Key, t.Value)
		if n.taintReasons[i] = intern[reason]; n.taintReasons[i] == nil {
			n.taintReasons[i] = []string{reason}
			if intern != nil && len(intern) < maxInternedReasons {
				intern[reason] = n.taintReasons[i]
			}
		}
	}
}

// maxInternedReasons bounds the TaintToleration reason lists a cache
// shares between nodes; past it a node's list is its own (an attempt
// then keeps one list per such node, which costs memory, not results).
const maxInternedReasons = 4096

func (n *NodeInfo) addPod(pi *PodInfo) {
	if n.Pods == nil {
		n.Pods = make(map[string]*PodInfo)
		n.groups = make(map[string]int)
	}
	n.Pods[pi.Key] = pi
	n.podCount = int64(len(n.Pods))
	n.Requested = n.Requested.Add(pi.Requests)
	n.NonZeroRequested = n.NonZeroRequested.Add(pi.NonZero)
	n.scalarRequested = scalarAdd(n.scalarRequested, pi.Scalars, 1)
	n.ports = append(n.ports, pi.Ports...)
	if pi.affinity != nil {
		n.withAffinity = append(n.withAffinity, pi)
	}
	if pi.Owner != "" && pi.Pod.DeletionTimestamp == nil {
		n.groups[pi.Owner]++
	}
}

func (n *NodeInfo) removePod(pi *PodInfo) {
	delete(n.Pods, pi.Key)
	n.podCount = int64(len(n.Pods))
	n.Requested = n.Requested.Sub(pi.Requests)
	n.NonZeroRequested = n.NonZeroRequested.Sub(pi.NonZero)
	n.scalarRequested = scalarAdd(n.scalarRequested, pi.Scalars, -1)
	for _, p := range pi.Ports {
		if i := slices.Index(n.ports, p); i >= 0 {
			n.ports = slices.Delete(n.ports, i, i+1)
		}
	}
	if i := slices.Index(n.withAffinity, pi); i >= 0 {
		n.withAffinity = slices.Delete(n.withAffinity, i, i+1)
	}
	if pi.Owner != "" && pi.Pod.DeletionTimestamp == nil {
		if n.groups[pi.Owner]--; n.groups[pi.Owner] <= 0 {
			delete(n.groups, pi.Owner)
		}
	}
}

// GroupCount returns how many pods of spread group g (not terminating)
// are on the node.
func (n *NodeInfo) GroupCount(g string) int { return n.groups[g] }

// ErrAssumed is returned by Cache.Assume for a pod the cache already holds.
var ErrAssumed = errors.New("scheduler: pod is already in the cache")

type podState struct {
	info     *PodInfo
	node     string
	deadline time.Time // zero while binding is in flight or when not assumed
}

// Cache is the scheduler's snapshot of the cluster: every node and every
// pod bound or assumed to one. It is a plain data structure: not safe for
// concurrent use (the Scheduler guards it with a mutex) and it never reads
// the clock — Expire and FinishBinding take now.
//
// An assumed pod counts against its node from Assume until the binding
// is observed (AddPod of the bound pod confirms it), the bind fails
// (Forget), or TTL after FinishBinding (Expire) — the last for a bind that
// succeeded but whose watch event never came, as kube-scheduler's cache
// does. A TTL of 0 never expires assumptions.
type Cache struct {
	ttl   time.Duration
	nodes map[string]*NodeInfo
	pods  map[string]*podState
	// assumed holds the entries of pods whose Assumed is true.
	assumed map[string]*podState
	// expiries orders the deadlines FinishBinding set, earliest first,
	// so that Expire and NextExpiry cost the assumptions that expire,
	// not all of them (the scheduler calls both after every bind). An
	// entry whose pod is no longer assumed, or whose deadline was set
	// again, is stale: dropped when it comes to the top, and all of them
	// when they outnumber the assumptions (compactExpiries).
	expiries expiryHeap
	list     []*NodeInfo // nodes with Node != nil sorted by name; nil when stale
	names    []string    // the names of list, shared by the attempts made on it
	zones    map[string]int32
	claims   map[string]int // claim key → bound and assumed pods using it
	// zoneLabels interns the values of the topology.kubernetes.io/zone
	// label the nodes have carried ("" standing for none), and
	// zoneLabelNames are those values by id (NodeInfo.zoneLabel).
	zoneLabels     map[string]int32
	zoneLabelNames []string
	// taintReasons are the nodes' TaintToleration reason lists by
	// reason, shared between nodes (see NodeInfo.setNode).
	taintReasons map[string][]string
	// namespaces counts the bound and assumed pods per namespace: the
	// namespaces a namespaceSelector can find pods in.
	namespaces map[string]int
	// withAffinity counts the bound and assumed pods with pod
	// (anti-)affinity terms: while it is 0, InterPodAffinity is skipped
	// for pods without terms of their own.
	withAffinity int
	// images are the image names the nodes report, with how many nodes
	// hold each (ImageLocality's spread).
	images map[string]*imageState
	// groupZones counts, per spread group and value of the
	// topology.kubernetes.io/zone label, the group's pods (not
	// terminating) on the candidate nodes carrying that value:
	// PodTopologySpread's zone counts for the system default
	// constraints, kept as pods and nodes change instead of recounted
	// over every node per attempt.
	groupZones map[groupZone]int64
	// index holds the pod counters and the nodes with affinity pods
	// (see podIndex).
	index *podIndex
}

// groupZone is a spread group (SpreadGroup) and a value of the zone
// label.
type groupZone struct{ group, zone string }

// addGroupZone adds d to the count of gz, dropping it at 0.
func (c *Cache) addGroupZone(gz groupZone, d int64) {
	if v := c.groupZones[gz] + d; v != 0 {
		c.groupZones[gz] = v
	} else {
		delete(c.groupZones, gz)
	}
}

// addNodeGroupZones adds sign × the node's group counts to groupZones
// under its zone label, when it is a candidate carrying one.
func (c *Cache) addNodeGroupZones(n *NodeInfo, sign int64) {
	if n.Node == nil || len(n.groups) == 0 {
		return
	}
	z, ok := n.labels[api.LabelTopologyZone]
	if !ok {
		return
	}
	for g, k := range n.groups {
		c.addGroupZone(groupZone{g, z}, sign*int64(k))
	}
}

// NewCache returns an empty cache whose assumptions expire ttl after
// their binding finished.
func NewCache(ttl time.Duration) *Cache {
	return &Cache{ttl: ttl, nodes: make(map[string]*NodeInfo), pods: make(map[string]*podState), assumed: make(map[string]*podState), zones: make(map[string]int32), zoneLabels: make(map[string]int32), claims: make(map[string]int), taintReasons: make(map[string][]string), namespaces: make(map[string]int), images: make(map[string]*imageState), groupZones: make(map[groupZone]int64), index: newPodIndex()}
}

// SetNode adds or updates node.
func (c *Cache) SetNode(node *api.Node) {
	n, ok := c.nodes[node.Name]
	if !ok {
		n = &NodeInfo{}
		c.nodes[node.Name] = n
	}
	oldZone, hadZone := n.labels[api.LabelTopologyZone]
	newZone, hasZone := node.Labels[api.LabelTopologyZone]
	moved := n.Node == nil || oldZone != newZone || hadZone != hasZone
	// The counters' domains depend on the labels, and through a spread
	// constraint's nodeTaintsPolicy on the taints.
	relabel := n.Node == nil || !maps.Equal(n.labels, node.Labels) ||
		!slices.EqualFunc(n.taints, node.Spec.Taints, func(a, b api.Taint) bool {
			return a.Key == b.Key && a.Value == b.Value && a.Effect == b.Effect
		})
	if relabel {
		c.index.indexNode(n, -1) // no-op for a node that was no candidate
	}
	if n.Node == nil {
		c.list = nil
	} else {
		addImages(c.images, n.images, -1)
	}
	if moved {
		c.addNodeGroupZones(n, -1)
	}
	n.setNode(node, c.taintReasons)
	addImages(c.images, n.images, 1)
	if moved {
		c.addNodeGroupZones(n, 1)
	}
	if relabel {
		c.index.indexNode(n, 1)
	}
	n.zoneLabel = c.zoneLabelID(node.Labels)
	n.zoneID = -1
	if n.Zone != "" {
		id, ok := c.zones[n.Zone]
		if !ok {
			id = int32(len(c.zones))
			c.zones[n.Zone] = id
		}
		n.zoneID = id
	}
}

// zoneLabelID returns the id of the zone label's value in labels,
// interning it ("" when absent, then as ^id).
func (c *Cache) zoneLabelID(labels map[string]string) int32 {
	v, ok := labels[api.LabelTopologyZone]
	id, known := c.zoneLabels[v]
	if !known {
		id = int32(len(c.zoneLabelNames))
		c.zoneLabels[v] = id
		c.zoneLabelNames = append(c.zoneLabelNames, v)
	}
	if !ok {
		return ^id
	}
	return id
}

// RemoveNode removes the node called name. Pods still bound to it keep
// being counted (a ghost NodeInfo that is never a candidate) until they
// are removed, as kube-scheduler's cache does.
func (c *Cache) RemoveNode(name string) {
	n, ok := c.nodes[name]
	if !ok {
		return
	}
	c.list = nil
	if n.Node != nil {
		addImages(c.images, n.images, -1)
		n.images = nil
		c.addNodeGroupZones(n, -1)
		c.index.indexNode(n, -1)
	}
	if len(n.Pods) == 0 {
		delete(c.nodes, name)
		return
	}
	n.Node = nil
}

// Node returns the NodeInfo of the node called name.
func (c *Cache) Node(name string) (*NodeInfo, bool) {
	n, ok := c.nodes[name]
	return n, ok && n.Node != nil
}

// Nodes returns the candidate nodes sorted by name. The slice is shared
// and valid until the next change of the node set.
func (c *Cache) Nodes() []*NodeInfo {
	if c.list == nil {
		c.list = make([]*NodeInfo, 0, len(c.nodes))
		for _, n := range c.nodes {
			if n.Node != nil {
				c.list = append(c.list, n)
			}
		}
		slices.SortFunc(c.list, func(a, b *NodeInfo) int { return strings.Compare(a.Name, b.Name) })
		c.names = make([]string, len(c.list))
		for i, n := range c.list {
			c.names[i] = n.Name
		}
	}
	return c.list
}

// ClaimUsers returns how many bound and assumed pods mount the claim
// under key (namespace/name).
func (c *Cache) ClaimUsers(key string) int { return c.claims[key] }

func (c *Cache) place(pi *PodInfo, node string) {
	for _, k := range pi.Claims {
		c.claims[k]++
	}
	if pi.affinity != nil {
		c.withAffinity++
	}
	c.namespaces[pi.Pod.Namespace]++
	n, ok := c.nodes[node]
	if !ok {
		n = &NodeInfo{Name: node}
		c.nodes[node] = n
	}
	n.addPod(pi)
	c.placeGroupZone(n, pi, 1)
	c.index.indexPod(n, pi, 1)
}

// placeGroupZone counts pi (sign 1) or stops counting it (−1) in
// groupZones, as NodeInfo.groups counts it on n.
func (c *Cache) placeGroupZone(n *NodeInfo, pi *PodInfo, sign int64) {
	if n.Node == nil || pi.Owner == "" || pi.Pod.DeletionTimestamp != nil {
		return
	}
	if z, ok := n.labels[api.LabelTopologyZone]; ok {
		c.addGroupZone(groupZone{pi.Owner, z}, sign)
	}
}

func (c *Cache) unplace(st *podState) {
	for _, k := range st.info.Claims {
		if c.claims[k]--; c.claims[k] <= 0 {
			delete(c.claims, k)
		}
	}
	if st.info.affinity != nil {
		c.withAffinity--
	}
	if c.namespaces[st.info.Pod.Namespace]--; c.namespaces[st.info.Pod.Namespace] <= 0 {
		delete(c.namespaces, st.info.Pod.Namespace)
	}
	n := c.nodes[st.node]
	c.placeGroupZone(n, st.info, -1)
	n.removePod(st.info)
	c.index.indexPod(n, st.info, -1)
	if n.Node == nil && len(n.Pods) == 0 {
		delete(c.nodes, st.node)
	}
}

// AddPod records pod as bound to pod.Spec.NodeName, confirming an
// assumption (on whichever node the pod turned out to be bound to) or
// replacing what the cache held for its key. Terminated pods (Succeeded,
// Failed) are removed instead: they take nothing. A pod without a node
// removes a bound entry but leaves an assumption alone (the bind may not
// have been observed yet).
func (c *Cache) AddPod(pod *api.Pod) {
	key := api.Key(pod)
	if pod.Spec.NodeName == "" {
		if st, ok := c.pods[key]; ok && !st.info.Assumed {
			c.RemovePod(key)
		}
		return
	}
	c.RemovePod(key)
	if pod.Status.Phase == api.PodSucceeded || pod.Status.Phase == api.PodFailed {
		return
	}
	pi := NewPodInfo(pod)
	c.pods[key] = &podState{info: pi, node: pod.Spec.NodeName}
	c.place(pi, pod.Spec.NodeName)
}

// RemovePod forgets the pod stored under key, assumed or bound.
func (c *Cache) RemovePod(key string) {
	if st, ok := c.pods[key]; ok {
		c.unplace(st)
		delete(c.pods, key)
		delete(c.assumed, key)
	}
}

// Assume counts pod against node before its binding is observed. It fails
// with ErrAssumed if the cache already holds the pod.
func (c *Cache) Assume(pod *api.Pod, node string) error {
	if _, ok := c.pods[api.Key(pod)]; ok {
		return fmt.Errorf("%w: %s", ErrAssumed, api.Key(pod))
	}
	return c.assume(NewPodInfo(pod), node)
}

// assume is Assume of the pod pi describes, taking pi (the scheduler's
// attempt made it already) as the cache's record of the pod.
func (c *Cache) assume(pi *PodInfo, node string) error {
	key := pi.Key
	if _, ok := c.pods[key]; ok {
		return fmt.Errorf("%w: %s", ErrAssumed, key)
	}
	pi.Assumed = true
	st := &podState{info: pi, node: node}
	c.pods[key] = st
	c.assumed[key] = st
	c.place(pi, node)
	return nil
}

// FinishBinding starts the expiry clock of an assumed pod: it expires at
// now + TTL unless its binding is observed first.
func (c *Cache) FinishBinding(key string, now time.Time) {
	if st, ok := c.assumed[key]; ok && c.ttl > 0 {
		st.deadline = now.Add(c.ttl)
		heap.Push(&c.expiries, expiry{deadline: st.deadline, key: key, st: st})
		c.compactExpiries()
	}
}

// expiry is one deadline FinishBinding set.
type expiry struct {
	deadline time.Time
	key      string
	st       *podState
}

// expiryHeap is a min-heap of expiries by deadline (container/heap).
type expiryHeap []expiry

func (h expiryHeap) Len() int           { return len(h) }
func (h expiryHeap) Less(i, j int) bool { return h[i].deadline.Before(h[j].deadline) }
func (h expiryHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *expiryHeap) Push(x any)        { *h = append(*h, x.(expiry)) }
func (h *expiryHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = expiry{}
	*h = old[:len(old)-1]
	return e
}

// live reports whether e is the current deadline of an assumed pod.
func (c *Cache) live(e expiry) bool {
	st, ok := c.assumed[e.key]
	return ok && st == e.st && st.deadline.Equal(e.deadline)
}

// compactExpiries drops the stale entries once they outnumber the
// assumptions, so that the heap stays within twice the assumed pods.
func (c *Cache) compactExpiries() {
	if len(c.expiries) <= 2*len(c.assumed)+64 {
		return
	}
	live := c.expiries[:0]
	for _, e := range c.expiries {
		if c.live(e) {
			live = append(live, e)
		}
	}
	clear(c.expiries[len(live):])
	c.expiries = live
	heap.Init(&c.expiries)
}

// Forget drops the assumption for key (the bind failed). A pod whose
// binding was already observed is left alone.
func (c *Cache) Forget(key string) {
	if _, ok := c.assumed[key]; ok {
		c.RemovePod(key)
	}
}

// IsAssumed reports whether key is assumed, and to which node.
func (c *Cache) IsAssumed(key string) (node string, ok bool) {
	st, found := c.assumed[key]
	if !found {
		return "", false
	}
	return st.node, true
}

// PodNode returns the node the cache counts the pod under key against.
func (c *Cache) PodNode(key string) (string, bool) {
	st, ok := c.pods[key]
	if !ok {
		return "", false
	}
	return st.node, true
}

// Expire drops the assumptions whose deadline is not after now and
// returns their keys.
func (c *Cache) Expire(now time.Time) []string {
	var keys []string
	for len(c.expiries) > 0 && !c.expiries[0].deadline.After(now) {
		if e := heap.Pop(&c.expiries).(expiry); c.live(e) {
			keys = append(keys, e.key)
		}
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	for _, key := range keys {
		c.Forget(key)
	}
	return keys
}

// NextExpiry returns the earliest deadline of an assumption, if any.
func (c *Cache) NextExpiry() (time.Time, bool) {
	for len(c.expiries) > 0 {
		if e := c.expiries[0]; c.live(e) {
			return e.deadline, true
		}
		heap.Pop(&c.expiries)
	}
	return time.Time{}, false
}
