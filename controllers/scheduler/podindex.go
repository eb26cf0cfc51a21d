package scheduler

import (
	"slices"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// maxPodCounters bounds the counters a cache keeps; past it the least
// recently read one is dropped (and rebuilt, O(nodes + pods), when read
// again).
const maxPodCounters = 64

// podIndex is what the cache keeps up to date so that the PreFilters of
// PodTopologySpread and InterPodAffinity, and InterPodAffinity's
// PreScore, read counts instead of walking every node and pod per
// attempt: pod counters per topology domain, and the distinct pod
// (anti-)affinity terms of the placed pods with their domains.
type podIndex struct {
	counters map[string]*podCounter
	tick     uint64 // read clock, for dropping the least recently read counter
	// antiTerms are the distinct required anti-affinity terms of the
	// placed pods, by termID.
	antiTerms map[string]*antiTerm
	// scoreTerms are the distinct terms of the placed pods that score
	// an incoming pod they match (required affinity, preferred
	// affinity and anti-affinity), by kind, weight and termID.
	scoreTerms map[string]*antiTerm
}

func newPodIndex() *podIndex {
	return &podIndex{counters: map[string]*podCounter{}, antiTerms: map[string]*antiTerm{}, scoreTerms: map[string]*antiTerm{}}
}

// domainCount is one topology domain of a counter: the candidate nodes
// in it (carrying every required key) and the matching pods on them.
type domainCount struct{ nodes, pods int64 }

// counterSpec says what a podCounter counts: the pods in one of
// namespaces matching every selector of sels (not terminating, when
// live), per value of key, over the candidate nodes carrying every key of
// require (key among them) and, when include is set, admitted by it.
type counterSpec struct {
	namespaces []string
	sels       []api.Selector
	live       bool
	key        string
	require    []string
	// include, when set, admits the nodes counted (the node inclusion
	// policies of a spread constraint), and inclusion identifies it
	// among the counters: two specs with the same inclusion must
	// admit the same nodes.
	include   func(*NodeInfo) bool
	inclusion string
}

// id identifies the spec among the cache's counters.
func (cs *counterSpec) id() string {
	var b strings.Builder
	for _, ns := range cs.namespaces {
		b.WriteString(ns)
		b.WriteByte(0)
	}
	for _, sel := range cs.sels {
		b.WriteByte(1)
		b.WriteString(sel.String())
	}
	if cs.live {
		b.WriteByte(2)
	}
	for _, k := range cs.require {
		b.WriteByte(0)
		b.WriteString(k)
	}
	b.WriteByte(3)
	b.WriteString(cs.key)
	if cs.include != nil {
		b.WriteByte(4)
		b.WriteString(cs.inclusion)
	}
	return b.String()
}

// podCounter counts, per value of a topology key, the pods its spec
// selects on the nodes it admits (see counterSpec), kept up to date as
// pods and nodes change.
type podCounter struct {
	counterSpec
	nsSet   map[string]struct{} // namespaces as a set, when they are many
	perNode map[*NodeInfo]int64
	domains map[string]*domainCount
	// total is the matching pods over every domain, and hist how many
	// domains hold each count of them, so that the smallest count is
	// read in O(distinct counts), not O(domains).
	total int64
	hist  map[int64]int64
	used  uint64
}

// manyNamespaces is how many namespaces a counter looks up in a set
// rather than a slice.
const manyNamespaces = 8

// matches reports whether pi counts.
func (pc *podCounter) matches(pi *PodInfo) bool {
	if pc.live && pi.Pod.DeletionTimestamp != nil {
		return false
	}
	if pc.nsSet != nil {
		if _, ok := pc.nsSet[pi.Pod.Namespace]; !ok {
			return false
		}
	} else if !slices.Contains(pc.namespaces, pi.Pod.Namespace) {
		return false
	}
	for i := range pc.sels {
		if !pc.sels[i].Matches(pi.Pod.Labels) {
			return false
		}
	}
	return true
}

// domain returns the node's domain in the counter: its key's value, and
// false when it is not a candidate, lacks a required key or is not
// admitted.
func (pc *podCounter) domain(n *NodeInfo) (string, bool) {
	if n.Node == nil {
		return "", false
	}
	for _, k := range pc.require {
		if _, ok := n.labels[k]; !ok {
			return "", false
		}
	}
	if pc.include != nil && !pc.include(n) {
		return "", false
	}
	return n.labels[pc.key], true
}

// histMove moves one domain's count in hist from old (when had) to new
// (when has).
func (pc *podCounter) histMove(old int64, had bool, new int64, has bool) {
	if had {
		if pc.hist[old]--; pc.hist[old] == 0 {
			delete(pc.hist, old)
		}
	}
	if has {
		pc.hist[new]++
	}
}

// addNode adds (sign 1) or removes (−1) the node and its matching pods
// from the counter's domains.
func (pc *podCounter) addNode(n *NodeInfo, sign int64) {
	v, ok := pc.domain(n)
	if !ok {
		return
	}
	d := pc.domains[v]
	had := d != nil
	if d == nil {
		d = &domainCount{}
		pc.domains[v] = d
	}
	old, k := d.pods, sign*pc.perNode[n]
	d.nodes += sign
	d.pods += k
	pc.total += k
	if d.nodes == 0 {
		delete(pc.domains, v)
	}
	pc.histMove(old, had, d.pods, d.nodes != 0)
}

// addPod counts (sign 1) or uncounts (−1) pi on n when it matches.
func (pc *podCounter) addPod(n *NodeInfo, pi *PodInfo, sign int64) {
	if !pc.matches(pi) {
		return
	}
	if k := pc.perNode[n] + sign; k != 0 {
		pc.perNode[n] = k
	} else {
		delete(pc.perNode, n)
	}
	if v, ok := pc.domain(n); ok {
		d := pc.domains[v]
		d.pods += sign
		pc.total += sign
		pc.histMove(d.pods-sign, true, d.pods, true)
	}
}

// count returns the matching pods in the domain v.
func (pc *podCounter) count(v string) int64 {
	if d := pc.domains[v]; d != nil {
		return d.pods
	}
	return 0
}

// minPods returns the smallest count of matching pods of a domain (0
// with no domain), in O(distinct counts).
func (pc *podCounter) minPods() int64 {
	m, first := int64(0), true
	for k := range pc.hist {
		if first || k < m {
			m, first = k, false
		}
	}
	return m
}

// counter returns the counter for spec, building it over the nodes on
// first use.
func (c *Cache) counter(spec counterSpec) *podCounter {
	ix := c.index
	id := spec.id()
	ix.tick++
	if pc, ok := ix.counters[id]; ok {
		pc.used = ix.tick
		return pc
	}
	if len(ix.counters) >= maxPodCounters {
		oldest := ""
		for k, pc := range ix.counters {
			if oldest == "" || pc.used < ix.counters[oldest].used {
				oldest = k
			}
		}
		delete(ix.counters, oldest)
	}
	spec.namespaces, spec.sels, spec.require = slices.Clone(spec.namespaces), slices.Clone(spec.sels), slices.Clone(spec.require)
	pc := &podCounter{counterSpec: spec, perNode: map[*NodeInfo]int64{}, domains: map[string]*domainCount{}, hist: map[int64]int64{}, used: ix.tick}
	if len(spec.namespaces) > manyNamespaces {
		pc.nsSet = make(map[string]struct{}, len(spec.namespaces))
		for _, ns := range spec.namespaces {
			pc.nsSet[ns] = struct{}{}
		}
	}
	for _, n := range c.nodes {
		for _, pi := range n.Pods {
			if pc.matches(pi) {
				pc.perNode[n]++
			}
		}
		pc.addNode(n, 1)
	}
	ix.counters[id] = pc
	return pc
}

// indexNode adds (sign 1) or removes (−1) n's domains from every counter.
func (ix *podIndex) indexNode(n *NodeInfo, sign int64) {
	for _, pc := range ix.counters {
		pc.addNode(n, sign)
	}
	ix.indexNodeAntiTerms(n, sign)
}

// indexPod counts (sign 1) or uncounts (−1) pi on n in every counter
// and its terms (after n's pods changed).
func (ix *podIndex) indexPod(n *NodeInfo, pi *PodInfo, sign int64) {
	for _, pc := range ix.counters {
		pc.addPod(n, pi, sign)
	}
	ix.indexAntiTerms(n, pi, sign)
}

// antiTerm is one distinct pod (anti-)affinity term of placed pods
// (same kind, namespaces, namespaceSelector, selector and topology key,
// and for a scoring term the same weight): the pods holding it, in all
// and per value of its key over the candidate nodes carrying that key,
// so that InterPodAffinity checks each distinct term against the pod
// once instead of every placed pod's terms.
type antiTerm struct {
	term affinityTerm
	// weight is what each holder adds to its domain's score when the
	// term matches the incoming pod (0 for required anti-affinity).
	weight  int64
	holders int64 // placed pods holding the term
	domains map[string]int64
}

// termID identifies t among the distinct terms of its kind.
func termID(t *affinityTerm) string {
	var b strings.Builder
	for _, ns := range t.namespaces {
		b.WriteString(ns)
		b.WriteByte(0)
	}
	b.WriteByte(1)
	if t.nsSel != nil {
		b.WriteString(t.nsSel.String())
	}
	b.WriteByte(2)
	b.WriteString(t.sel.String())
	b.WriteByte(3)
	b.WriteString(t.key)
	return b.String()
}

// addDomain adds k to the term's count in n's domain, when n is a
// candidate carrying the term's key.
func (at *antiTerm) addDomain(n *NodeInfo, k int64) {
	if n.Node == nil || k == 0 {
		return
	}
	v, ok := n.labels[at.term.key]
	if !ok {
		return
	}
	if c := at.domains[v] + k; c != 0 {
		at.domains[v] = c
	} else {
		delete(at.domains, v)
	}
}

// eachTerm calls fn with every term of pa, the index's map of its kind
// and the weight it scores with.
func (ix *podIndex) eachTerm(pa *podAffinity, fn func(m map[string]*antiTerm, t *affinityTerm, w int64)) {
	for i := range pa.reqAnti {
		fn(ix.antiTerms, &pa.reqAnti[i], 0)
	}
	for i := range pa.reqAff {
		fn(ix.scoreTerms, &pa.reqAff[i], hardPodAffinityWeight)
	}
	for i := range pa.prefAff {
		fn(ix.scoreTerms, &pa.prefAff[i], pa.prefAff[i].weight)
	}
	for i := range pa.prefAnti {
		fn(ix.scoreTerms, &pa.prefAnti[i], -pa.prefAnti[i].weight)
	}
}

// indexAntiTerms counts (sign 1) or uncounts (−1) pi's pod
// (anti-)affinity terms on n.
func (ix *podIndex) indexAntiTerms(n *NodeInfo, pi *PodInfo, sign int64) {
	if pi.affinity == nil {
		return
	}
	ix.eachTerm(pi.affinity, func(m map[string]*antiTerm, t *affinityTerm, w int64) {
		at := m[t.id]
		if at == nil {
			at = &antiTerm{term: *t, weight: w, domains: map[string]int64{}}
			m[t.id] = at
		}
		at.holders += sign
		at.addDomain(n, sign)
		if at.holders == 0 {
			delete(m, t.id)
		}
	})
}

// indexNodeAntiTerms adds (sign 1) or removes (−1) n's domains from the
// terms its pods hold.
func (ix *podIndex) indexNodeAntiTerms(n *NodeInfo, sign int64) {
	for _, ep := range n.withAffinity {
		ix.eachTerm(ep.affinity, func(m map[string]*antiTerm, t *affinityTerm, _ int64) {
			if at := m[t.id]; at != nil {
				at.addDomain(n, sign) // once per holder on n
			}
		})
	}
}
