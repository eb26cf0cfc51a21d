package scheduler

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// PodTopologySpread, as kube-scheduler's plugin of that name
// (pkg/scheduler/framework/plugins/podtopologyspread): DoNotSchedule
// constraints filter, ScheduleAnyway constraints (or, for a pod with no
// constraint, the system default ones) score.
const (
	FilterPodTopologySpread = "PodTopologySpread"
	ScorePodTopologySpread  = "PodTopologySpread"
)

// The PodTopologySpread filter's reasons, worded as kube-scheduler's.
// ReasonTopologySpreadLabel (the node lacks a constraint's topology key)
// is UnschedulableAndUnresolvable; ReasonTopologySpread (the skew would
// exceed maxSkew) is Unschedulable.
const (
	ReasonTopologySpread      = "node(s) didn't match pod topology spread constraints"
	ReasonTopologySpreadLabel = "node(s) didn't match pod topology spread constraints (missing required label)"
)

var (
	reasonsTopologySpread      = []string{ReasonTopologySpread}
	reasonsTopologySpreadLabel = []string{ReasonTopologySpreadLabel}
)

// The values of TopologySpreadConstraint.WhenUnsatisfiable and of its
// node inclusion policies.
const (
	DoNotSchedule  api.UnsatisfiableConstraintAction = "DoNotSchedule"
	ScheduleAnyway api.UnsatisfiableConstraintAction = "ScheduleAnyway"
	policyHonor                                      = "Honor"
)

// spreadConstraint is a TopologySpreadConstraint made ready: its selector
// with matchLabelKeys merged in, or, for a system default constraint, the
// pod's spread group (owner).
type spreadConstraint struct {
	maxSkew       int64
	key           string
	minDomains    int
	sel           api.Selector
	owner         string // system default: count the pods of this SpreadGroup
	honorAffinity bool   // nodeAffinityPolicy Honor (the default)
	honorTaints   bool   // nodeTaintsPolicy Honor (default Ignore)
}

// The system default constraints of kube-scheduler's PodTopologySpread
// (defaultConstraints in its args, v1): hostname maxSkew 3 and zone
// maxSkew 5, both ScheduleAnyway.
var systemDefaultConstraints = []struct {
	key     string
	maxSkew int64
}{{api.LabelHostname, 3}, {api.LabelTopologyZone, 5}}

// systemDefaulted reports whether the system default constraints apply to
// a pod without constraints: kube-scheduler builds them from the
// selectors of the pod's Services, ReplicationController, ReplicaSet and
// StatefulSet; here the pod's controller (one of those three kinds)
// stands for them — the pods counted are those of its spread group.
func systemDefaulted(pod *api.Pod) bool {
	ref := pod.ControllerRef()
	return ref != nil && (ref.Kind == "ReplicaSet" || ref.Kind == "ReplicationController" || ref.Kind == "StatefulSet")
}

// spreadConstraints returns the pod's constraints with action, or, when
// the pod has none at all and action is ScheduleAnyway, the system
// default ones.
func spreadConstraints(pi *PodInfo, action api.UnsatisfiableConstraintAction) []spreadConstraint {
	pod := pi.Pod
	if len(pod.Spec.TopologySpreadConstraints) == 0 {
		if action != ScheduleAnyway || !systemDefaulted(pod) {
			return nil
		}
		out := make([]spreadConstraint, len(systemDefaultConstraints))
		for i, d := range systemDefaultConstraints {
			out[i] = spreadConstraint{maxSkew: d.maxSkew, key: d.key, minDomains: 1, owner: pi.Owner, honorAffinity: true}
		}
		return out
	}
	var out []spreadConstraint
	for i := range pod.Spec.TopologySpreadConstraints {
		c := &pod.Spec.TopologySpreadConstraints[i]
		if c.WhenUnsatisfiable != action {
			continue
		}
		sel, err := c.LabelSelector.AsSelector()
		if err != nil {
			sel = api.Nothing()
		}
		var reqs []api.Requirement
		for _, k := range c.MatchLabelKeys {
			if v, ok := pod.Labels[k]; ok {
				if r, err := api.NewRequirement(k, api.SelectionIn, v); err == nil {
					reqs = append(reqs, r)
				}
			}
		}
		if len(reqs) > 0 {
			sel = sel.Add(reqs...)
		}
		sc := spreadConstraint{maxSkew: int64(c.MaxSkew), key: c.TopologyKey, minDomains: 1, sel: sel,
			honorAffinity: c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == policyHonor,
			honorTaints:   c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == policyHonor}
		if c.MinDomains != nil {
			sc.minDomains = int(*c.MinDomains)
		}
		out = append(out, sc)
	}
	return out
}

// countOn counts the pods on n the constraint matches: in the pod's
// namespace, not terminating.
func (c *spreadConstraint) countOn(pc *podCtx, n *NodeInfo) int64 {
	if c.owner != "" {
		return int64(n.GroupCount(c.owner))
	}
	var k int64
	for _, p := range n.Pods {
		if p.Pod.Namespace == pc.pod.Namespace && p.Pod.DeletionTimestamp == nil && c.sel.Matches(p.Pod.Labels) {
			k++
		}
	}
	return k
}

// includes applies the node inclusion policies: with nodeAffinityPolicy
// Honor only nodes the pod's nodeSelector and required node affinity
// admit count, with nodeTaintsPolicy Honor only nodes whose NoSchedule
// and NoExecute taints the pod tolerates.
func (c *spreadConstraint) includes(pc *podCtx, n *NodeInfo) bool {
	if c.honorAffinity && filterNodeAffinity(pc, n) != nil {
		return false
	}
	return !c.honorTaints || filterTaintToleration(pc, n) == nil
}

// hasKeys reports whether n carries every constraint's topology key.
func hasKeys(n *NodeInfo, cs []spreadConstraint) bool {
	for i := range cs {
		if _, ok := n.labels[cs[i].key]; !ok {
			return false
		}
	}
	return true
}

// spreadState is PodTopologySpread's PreFilter state: per DoNotSchedule
// constraint, the matching pods per domain over the nodes that carry
// every constraint's key and pass its inclusion policies, and the global
// minimum (0 while there are fewer domains than minDomains).
type spreadState struct {
	cons   []spreadConstraint
	counts []map[string]int64 // walked over the nodes; nil when ctrs
	ctrs   []*podCounter      // the cache's counters (see podIndex)
	min    []int64
	self   []int64 // 1 when the pod matches the constraint's selector
	// delta, when set (see replaced), changes constraint i's count in
	// one domain.
	delta []domainDelta
}

// domainDelta is a change of a count in the domain v (none when !ok).
type domainDelta struct {
	v  string
	d  int64
	ok bool
}

// at returns dd's change of the count in domain v.
func (dd *domainDelta) at(v string) int64 {
	if dd.ok && dd.v == v {
		return dd.d
	}
	return 0
}

// count returns constraint i's matching pods in domain v.
func (s *spreadState) count(i int, v string) int64 {
	var c int64
	if s.ctrs != nil {
		c = s.ctrs[i].count(v)
	} else {
		c = s.counts[i][v]
	}
	if s.delta != nil {
		c += s.delta[i].at(v)
	}
	return c
}

// replaced returns the state read from the cache's counters (s.ctrs) for
// the cluster with node orig replaced by n, the same node with other
// pods (preemption's dry run), as kube's PreFilter extensions
// RemovePod/AddPod update it: each constraint's count changes in n's
// domain only, and its minimum follows, in O(distinct counts) — no node
// is walked.
func (s *spreadState) replaced(pc *podCtx, orig, n *NodeInfo) *spreadState {
	cp := *s
	cp.min = slices.Clone(s.min)
	cp.delta = make([]domainDelta, len(s.cons))
	if !hasKeys(n, s.cons) {
		return &cp // n is in no constraint's domains
	}
	for i := range s.cons {
		c := &s.cons[i]
		if !c.includes(pc, n) {
			continue
		}
		d := c.countOn(pc, n) - c.countOn(pc, orig)
		if d == 0 {
			continue
		}
		v := n.labels[c.key]
		cp.delta[i] = domainDelta{v: v, d: d, ok: true}
		ctr := s.ctrs[i]
		if len(ctr.domains) < c.minDomains {
			continue // the global minimum stays 0
		}
		old := ctr.count(v)
		m := old + d
		for k, domains := range ctr.hist {
			if k != old || domains > 1 {
				m = min(m, k)
			}
		}
		cp.min[i] = m
	}
	return &cp
}

// newSpreadState is PodTopologySpread's PreFilter; nil (Skip) when the
// pod has no DoNotSchedule constraint. With the cache's podIndex and
// inclusion policies that admit every node, it reads a counter per
// constraint, O(domains); otherwise it walks, O(placed pods + nodes).
func newSpreadState(pc *podCtx) *spreadState {
	cs := spreadConstraints(pc.info, DoNotSchedule)
	if len(cs) == 0 {
		return nil
	}
	s := &spreadState{cons: cs, min: make([]int64, len(cs)), self: make([]int64, len(cs))}
	for i := range cs {
		if cs[i].sel.Matches(pc.pod.Labels) {
			s.self[i] = 1
		}
	}
	if pc.cache != nil {
		keys := make([]string, 0, len(cs))
		for i := range cs {
			keys = append(keys, cs[i].key)
		}
		slices.Sort(keys)
		keys = slices.Compact(keys)
		ns := []string{pc.pod.Namespace}
		s.ctrs = make([]*podCounter, len(cs))
		for i := range cs {
			spec := counterSpec{namespaces: ns, sels: []api.Selector{cs[i].sel}, live: true, key: cs[i].key, require: keys}
			if !admitsEveryNode(pc, &cs[i]) {
				spec.include, spec.inclusion = inclusionOf(pc, &cs[i])
			}
			s.ctrs[i] = pc.cache.counter(spec)
		}
		for i, ctr := range s.ctrs {
			if len(ctr.domains) < cs[i].minDomains {
				continue // the global minimum is 0
			}
			s.min[i] = ctr.minPods()
		}
		return s
	}
	s.counts = make([]map[string]int64, len(cs))
	for i := range cs {
		s.counts[i] = map[string]int64{}
	}
	for _, n := range pc.nodes {
		if !hasKeys(n, cs) {
			continue
		}
		for i := range cs {
			if cs[i].includes(pc, n) {
				s.counts[i][n.labels[cs[i].key]] += cs[i].countOn(pc, n)
			}
		}
	}
	for i := range cs {
		if len(s.counts[i]) < cs[i].minDomains {
			continue // the global minimum is 0
		}
		m := int64(math.MaxInt64)
		for _, k := range s.counts[i] {
			m = min(m, k)
		}
		s.min[i] = m
	}
	return s
}

// filterPodTopologySpread is PodTopologySpread's Filter: for every
// DoNotSchedule constraint, in order, the node must carry the topology
// key, and the matching pods of its domain, plus the pod itself if it
// matches, minus the global minimum must not exceed maxSkew.
func filterPodTopologySpread(pc *podCtx, n *NodeInfo) []string {
	s := pc.spread
	if s == nil {
		return nil
	}
	for i := range s.cons {
		v, ok := n.labels[s.cons[i].key]
		if !ok {
			return reasonsTopologySpreadLabel
		}
		if s.count(i, v)+s.self[i]-s.min[i] > s.cons[i].maxSkew {
			return reasonsTopologySpread
		}
	}
	return nil
}

// skipPodTopologySpread is PodTopologySpread's PreScore Skip: the pod
// has no ScheduleAnyway constraint and no system default ones apply
// (normalizePodTopologySpread would score every node 0).
func skipPodTopologySpread(pc *podCtx) bool {
	pod := pc.pod
	if len(pod.Spec.TopologySpreadConstraints) == 0 {
		return !systemDefaulted(pod)
	}
	for i := range pod.Spec.TopologySpreadConstraints {
		if pod.Spec.TopologySpreadConstraints[i].WhenUnsatisfiable == ScheduleAnyway {
			return false
		}
	}
	return true
}

// scorePodTopologySpread gives no raw score: PodTopologySpread's PreScore
// needs the feasible nodes, so normalizePodTopologySpread scores.
func scorePodTopologySpread(*podCtx, *NodeInfo) int64 { return 0 }

// normalizePodTopologySpread is PodTopologySpread's PreScore, Score and
// NormalizeScore over the feasible nodes, as kube-scheduler's: the
// ScheduleAnyway constraints (or the system defaults; then a node
// without a zone still scores by hostname, otherwise a node lacking any
// key is ignored and scores 0); a constraint's weight is ln(domains + 2),
// its domains those of the feasible nodes (for hostname, the feasible
// nodes), their counts over every node passing the inclusion policies; a
// node's raw score is the sum over its keys of count × weight + maxSkew
// − 1, rounded; then MaxNodeScore × (max + min − score) / max (all
// MaxNodeScore when max is 0). No constraint: every node scores 0.
//
// Each feasible node's domain per constraint is resolved once (see
// spreadDomains), and the domains are counted in slices indexed by
// domain id.
func normalizePodTopologySpread(pc *podCtx, fs feasibleNodes, scores []int64) {
	cs := spreadConstraints(pc.info, ScheduleAnyway)
	if len(cs) == 0 {
		clear(scores)
		return
	}
	sc := pc.sc
	if sc == nil {
		sc = &scratch{}
	}
	requireAll := len(pc.pod.Spec.TopologySpreadConstraints) > 0
	ignored := slices.Grow(sc.ignored[:0], len(scores))[:len(scores)]
	clear(ignored)
	sc.ignored = ignored
	nIgnored := 0
	sd := &sc.spread
	sd.reset(pc, cs)
	C := len(cs)
	ids := slices.Grow(sd.ids[:0], len(scores)*C)[:len(scores)*C]
	sd.ids = ids
	for j := range scores {
		n := fs.node(j)
		row := ids[j*C : (j+1)*C : (j+1)*C]
		missing := false
		for i := range cs {
			row[i], _ = sd.resolve(i, n, true)
			missing = missing || row[i] < 0
		}
		if requireAll && missing {
			ignored[j] = true
			nIgnored++
		}
	}
	// The domains of the feasible nodes not ignored: count 0, the others
	// −1 (not a domain).
	for i := range cs {
		if sd.kind[i] == domainHost {
			continue
		}
		size := sd.size(pc, i)
		sd.counts[i] = slices.Grow(sd.counts[i][:0], size)[:size]
		for d := range sd.counts[i] {
			sd.counts[i][d] = -1
		}
	}
	weights := slices.Grow(sc.weights[:0], C)[:C]
	sc.weights = weights
	for i := range cs {
		size := len(scores) - nIgnored
		if sd.kind[i] != domainHost {
			counts := sd.counts[i]
			size = 0
			for j := range scores {
				if ignored[j] {
					continue
				}
				if d := domainOf(ids[j*C+i]); counts[d] < 0 {
					counts[d] = 0
					size++
				}
			}
		}
		weights[i] = math.Log(float64(size + 2))
	}
	countDomains(pc, fs, cs, sd, requireAll)
	lo, hi := int64(math.MaxInt64), int64(0)
	for j := range scores {
		if ignored[j] {
			continue
		}
		row := ids[j*C : (j+1)*C : (j+1)*C]
		var f float64
		for i := range cs {
			id := row[i]
			if id < 0 {
				continue // the node lacks the key
			}
			var cnt int64
			if sd.kind[i] == domainHost {
				cnt = cs[i].countOn(pc, fs.node(j))
			} else {
				cnt = sd.counts[i][id]
			}
			f += float64(cnt)*weights[i] + float64(cs[i].maxSkew-1)
		}
		scores[j] = int64(math.Round(f))
		lo, hi = min(lo, scores[j]), max(hi, scores[j])
	}
	for j := range scores {
		switch {
		case ignored[j]:
			scores[j] = 0
		case hi == 0:
			scores[j] = MaxNodeScore
		default:
			scores[j] = MaxNodeScore * (hi + lo - scores[j]) / hi
		}
	}
}

// The kinds of domain of a ScheduleAnyway constraint (spreadDomains.kind).
const (
	// domainLabel: the value of the key's label, interned per attempt.
	domainLabel = iota
	// domainHost: the hostname key, whose domain is the node itself
	// (only whether the node carries the label is resolved).
	domainHost
	// domainZone: the zone key over the nodes of pc.cache (as every
	// attempt with a cache has them), the cache's id of the value
	// (NodeInfo.zoneLabel).
	domainZone
)

// spreadDomains is PodTopologySpread's score state of one attempt, in
// the decider's scratch (reused, so that an attempt allocates nothing
// per node once the buffers have grown). A node's domain for constraint
// i is an id: the domain's index when the node carries the key, ^ the
// index of the "" domain when it lacks it (kube counts such a node's
// pods in the domain of the empty value but scores it without the key).
type spreadDomains struct {
	kind []uint8
	keys []string
	// intern and names are, per domainLabel constraint, the values seen
	// by id.
	intern []map[string]int32
	names  [][]string
	// counts are per constraint (not domainHost) the matching pods per
	// domain id; −1 for a value that is no feasible node's domain.
	counts [][]int64
	// ids are the feasible nodes' domain ids, one row of a constraint
	// each per node.
	ids []int32
}

// reset prepares sd for the constraints cs of pc's attempt.
func (sd *spreadDomains) reset(pc *podCtx, cs []spreadConstraint) {
	C := len(cs)
	sd.kind = slices.Grow(sd.kind[:0], C)[:C]
	sd.keys = slices.Grow(sd.keys[:0], C)[:C]
	for len(sd.intern) < C {
		sd.intern = append(sd.intern, map[string]int32{})
		sd.names = append(sd.names, nil)
		sd.counts = append(sd.counts, nil)
	}
	for i := range cs {
		sd.keys[i] = cs[i].key
		switch {
		case cs[i].key == api.LabelHostname:
			sd.kind[i] = domainHost
		case cs[i].key == api.LabelTopologyZone && pc.cache != nil:
			sd.kind[i] = domainZone
		default:
			sd.kind[i] = domainLabel
			clear(sd.intern[i])
			sd.names[i] = sd.names[i][:0]
		}
	}
}

// size returns how many domain ids constraint i has.
func (sd *spreadDomains) size(pc *podCtx, i int) int {
	if sd.kind[i] == domainZone {
		return len(pc.cache.zoneLabelNames)
	}
	return len(sd.names[i])
}

// name returns the value of constraint i's domain d.
func (sd *spreadDomains) name(pc *podCtx, i int, d int32) string {
	if sd.kind[i] == domainZone {
		return pc.cache.zoneLabelNames[d]
	}
	return sd.names[i][d]
}

// resolve returns node n's domain id for constraint i (see
// spreadDomains); for a domainLabel constraint a value not seen yet is
// interned when add is set, else reported by false.
func (sd *spreadDomains) resolve(i int, n *NodeInfo, add bool) (int32, bool) {
	switch sd.kind[i] {
	case domainHost:
		if n.hostLabel {
			return 0, true
		}
		return -1, true
	case domainZone:
		return n.zoneLabel, true
	}
	v, has := n.labels[sd.keys[i]]
	id, ok := sd.intern[i][v]
	if !ok {
		if !add {
			return 0, false
		}
		id = int32(len(sd.names[i]))
		sd.intern[i][v] = id
		sd.names[i] = append(sd.names[i], v)
	}
	if !has {
		return ^id, true
	}
	return id, true
}

// domainOf returns the domain of a domain id (see spreadDomains).
func domainOf(id int32) int32 {
	if id < 0 {
		return ^id
	}
	return id
}

// countDomains fills sd.counts (the feasible nodes' domains per
// constraint, none for hostname) with the matching pods over every node
// passing the inclusion policies. The system default zone constraint of
// a pod that every node admits reads the cache's per-group zone counts
// (pc.groupZones), O(domains); any other walks every node.
func countDomains(pc *podCtx, fs feasibleNodes, cs []spreadConstraint, sd *spreadDomains, requireAll bool) {
	walk := false
	for i := range cs {
		if sd.kind[i] == domainHost {
			continue
		}
		if fromGroupZones(pc, &cs[i], requireAll) {
			for d, k := range sd.counts[i] {
				if k >= 0 {
					sd.counts[i][d] = pc.groupZones[groupZone{cs[i].owner, sd.name(pc, i, int32(d))}]
				}
			}
			continue
		}
		walk = true
	}
	if !walk {
		return
	}
	for _, n := range fs.all {
		if requireAll && !sd.hasKeys(n, cs) {
			continue
		}
		for i := range cs {
			if sd.kind[i] == domainHost || fromGroupZones(pc, &cs[i], requireAll) || !cs[i].includes(pc, n) {
				continue
			}
			id, ok := sd.resolve(i, n, false)
			if !ok {
				continue // a value no feasible node has
			}
			if d := domainOf(id); sd.counts[i][d] >= 0 {
				sd.counts[i][d] += cs[i].countOn(pc, n)
			}
		}
	}
}

// hasKeys reports whether n carries every constraint's topology key.
func (sd *spreadDomains) hasKeys(n *NodeInfo, cs []spreadConstraint) bool {
	for i := range cs {
		switch sd.kind[i] {
		case domainHost:
			if !n.hostLabel {
				return false
			}
		case domainZone:
			if n.zoneLabel < 0 {
				return false
			}
		default:
			if _, ok := n.labels[cs[i].key]; !ok {
				return false
			}
		}
	}
	return true
}

// fromGroupZones reports whether constraint c's counts are the cache's
// per-group zone counts: a system default zone constraint (requireAll
// false) whose inclusion policies admit every node.
func fromGroupZones(pc *podCtx, c *spreadConstraint, requireAll bool) bool {
	return pc.groupZones != nil && c.owner != "" && c.key == api.LabelTopologyZone && !requireAll && admitsEveryNode(pc, c)
}

// inclusionOf returns constraint c's node inclusion policies for pc's pod
// as a counter's include, and its identity: the profile's added
// affinity, the pod's node selector and required node affinity when
// nodeAffinityPolicy is Honor, its tolerations when nodeTaintsPolicy is
// Honor.
func inclusionOf(pc *podCtx, c *spreadConstraint) (func(*NodeInfo) bool, string) {
	q := &podCtx{pod: pc.pod, info: pc.info}
	var id struct {
		Added       string            `json:"a,omitempty"`
		Selector    map[string]string `json:"s,omitempty"`
		Required    *api.NodeSelector `json:"r,omitempty"`
		Tolerations []api.Toleration  `json:"t,omitempty"`
		Affinity    bool              `json:"h,omitempty"`
		Taints      bool              `json:"x,omitempty"`
		_           struct{}          `json:"-"`
	}
	id.Affinity, id.Taints = c.honorAffinity, c.honorTaints
	if c.honorAffinity {
		q.added, q.required = pc.added, pc.required
		id.Selector, id.Required = pc.pod.Spec.NodeSelector, pc.required
		if pc.added != nil {
			id.Added = fmt.Sprintf("%p", pc.added)
		}
	}
	if c.honorTaints {
		q.tolerations = pc.tolerations
		id.Tolerations = pc.tolerations
	}
	b, err := json.Marshal(id)
	if err != nil { // not reached: the fields all marshal
		b = []byte(fmt.Sprintf("%p", pc.pod))
	}
	sc := *c
	return func(n *NodeInfo) bool { return sc.includes(q, n) }, string(b)
}

// admitsEveryNode reports whether c's inclusion policies admit every
// node for pc's pod: taints not honoured, and node affinity not honoured
// or the pod (and the profile) requiring none.
func admitsEveryNode(pc *podCtx, c *spreadConstraint) bool {
	if c.honorTaints {
		return false
	}
	if !c.honorAffinity {
		return true
	}
	return len(pc.pod.Spec.NodeSelector) == 0 && pc.required == nil && (pc.added == nil || pc.added.required == nil)
}
