package scheduler

import (
	"fmt"
	"slices"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/informer"
)

// InterPodAffinity, as kube-scheduler's plugin of that name
// (pkg/scheduler/framework/plugins/interpodaffinity): the required pod
// affinity and anti-affinity of the pod, the required anti-affinity of
// the pods already placed, and the preferred terms as a score.
const (
	FilterInterPodAffinity = "InterPodAffinity"
	ScoreInterPodAffinity  = "InterPodAffinity"
)

// The InterPodAffinity filter's reasons, worded as kube-scheduler's.
// ReasonPodAffinity is UnschedulableAndUnresolvable (preemption cannot
// bring a matching pod); the two anti-affinity reasons are Unschedulable
// (evicting the matching pods could help).
const (
	ReasonPodAffinity          = "node(s) didn't match pod affinity rules"
	ReasonPodAntiAffinity      = "node(s) didn't match pod anti-affinity rules"
	ReasonExistingAntiAffinity = "node(s) didn't satisfy existing pods anti-affinity rules"
)

var (
	reasonsPodAffinity          = []string{ReasonPodAffinity}
	reasonsPodAntiAffinity      = []string{ReasonPodAntiAffinity}
	reasonsExistingAntiAffinity = []string{ReasonExistingAntiAffinity}
)

// hardPodAffinityWeight is kube-scheduler's InterPodAffinityArgs
// hardPodAffinityWeight default: what an existing pod's required
// affinity term matching the incoming pod adds to the score.
const hardPodAffinityWeight = 1

// NamespaceLookup returns the labels of the namespace called name, as a
// lister does; it must not block.
type NamespaceLookup func(name string) (map[string]string, bool)

// NamespacesFrom returns a NamespaceLookup over an informer's lister of
// Namespaces (keys name), for Options.Namespaces.
func NamespacesFrom(l informer.Lister[*api.Namespace]) NamespaceLookup {
	return func(name string) (map[string]string, bool) {
		ns, ok := l.Get(name)
		if !ok {
			return nil, false
		}
		return ns.Labels, true
	}
}

// affinityTerm is a PodAffinityTerm made ready to match pods: its label
// selector with matchLabelKeys and mismatchLabelKeys merged in (with the
// owning pod's values, as the API server merges them), and the
// namespaces it looks in.
type affinityTerm struct {
	sel        api.Selector
	namespaces []string      // the listed ones, or the owner's namespace when neither is set
	nsSel      *api.Selector // namespaceSelector; nil when unset
	key        string        // topologyKey
	weight     int64         // of a preferred term
	id         string        // its identity in the cache's podIndex (termID and kind)
}

// podAffinity is a pod's pod (anti-)affinity, precomputed once.
type podAffinity struct {
	reqAff, reqAnti, prefAff, prefAnti []affinityTerm
}

func newAffinityTerm(pod *api.Pod, t *api.PodAffinityTerm, weight int32) affinityTerm {
	sel, err := t.LabelSelector.AsSelector()
	if err != nil {
		sel = api.Nothing()
	}
	var reqs []api.Requirement
	for _, k := range t.MatchLabelKeys {
		if v, ok := pod.Labels[k]; ok {
			if r, err := api.NewRequirement(k, api.SelectionIn, v); err == nil {
				reqs = append(reqs, r)
			}
		}
	}
	for _, k := range t.MismatchLabelKeys {
		if v, ok := pod.Labels[k]; ok {
			if r, err := api.NewRequirement(k, api.SelectionNotIn, v); err == nil {
				reqs = append(reqs, r)
			}
		}
	}
	if len(reqs) > 0 {
		sel = sel.Add(reqs...)
	}
	at := affinityTerm{sel: sel, namespaces: t.Namespaces, key: t.TopologyKey, weight: int64(weight)}
	if t.NamespaceSelector != nil {
		ns, err := t.NamespaceSelector.AsSelector()
		if err != nil {
			ns = api.Nothing()
		}
		at.nsSel = &ns
	} else if len(t.Namespaces) == 0 {
		at.namespaces = []string{pod.Namespace}
	}
	return at
}

// newPodAffinity precomputes pod's pod (anti-)affinity; nil when it has
// no term at all.
func newPodAffinity(pod *api.Pod) *podAffinity {
	a := pod.Spec.Affinity
	if a == nil || (a.PodAffinity == nil && a.PodAntiAffinity == nil) {
		return nil
	}
	pa := &podAffinity{}
	req := func(ts []api.PodAffinityTerm) []affinityTerm {
		var out []affinityTerm
		for i := range ts {
			out = append(out, newAffinityTerm(pod, &ts[i], 0))
		}
		return out
	}
	pref := func(ts []api.WeightedPodAffinityTerm) []affinityTerm {
		var out []affinityTerm
		for i := range ts {
			out = append(out, newAffinityTerm(pod, &ts[i].PodAffinityTerm, ts[i].Weight))
		}
		return out
	}
	if a.PodAffinity != nil {
		pa.reqAff = req(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
		pa.prefAff = pref(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution)
	}
	if a.PodAntiAffinity != nil {
		pa.reqAnti = req(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
		pa.prefAnti = pref(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution)
	}
	// The terms' identities among the distinct terms of their kind in
	// the cache's podIndex (a scoring term's weight included).
	for i := range pa.reqAnti {
		pa.reqAnti[i].id = termID(&pa.reqAnti[i])
	}
	for i := range pa.reqAff {
		pa.reqAff[i].id = "A" + termID(&pa.reqAff[i])
	}
	for i := range pa.prefAff {
		pa.prefAff[i].id = fmt.Sprintf("P%d:%s", pa.prefAff[i].weight, termID(&pa.prefAff[i]))
	}
	for i := range pa.prefAnti {
		pa.prefAnti[i].id = fmt.Sprintf("N%d:%s", pa.prefAnti[i].weight, termID(&pa.prefAnti[i]))
	}
	if len(pa.reqAff)+len(pa.reqAnti)+len(pa.prefAff)+len(pa.prefAnti) == 0 {
		return nil
	}
	return pa
}

// matches reports whether pod is in one of t's namespaces and matches
// its selector.
func (t *affinityTerm) matches(pc *podCtx, pod *api.Pod) bool {
	if !slices.Contains(t.namespaces, pod.Namespace) {
		if t.nsSel == nil || !(t.nsSel.Empty() || t.nsSel.Matches(pc.namespaceLabels(pod.Namespace))) {
			return false
		}
	}
	return t.sel.Matches(pod.Labels)
}

// matchesAll reports whether pod matches every term (false for none).
func matchesAll(pc *podCtx, pod *api.Pod, ts []affinityTerm) bool {
	if len(ts) == 0 {
		return false
	}
	for i := range ts {
		if !ts[i].matches(pc, pod) {
			return false
		}
	}
	return true
}

// topologyPair is a node label key and value: a topology domain.
type topologyPair struct{ key, value string }

// affinityState is InterPodAffinity's PreFilter state: per domain, how
// many existing pods' required anti-affinity terms match the pod, how
// many existing pods match all of the pod's required affinity terms, and
// how many match each of its required anti-affinity terms (from the
// cache's counter of the term when antiCtrs has one).
type affinityState struct {
	existingAnti, aff, anti map[topologyPair]int64
	// antiKeys are the distinct topology keys of existingAnti, so that
	// the filter looks a node's domains up instead of walking the map.
	antiKeys []string
	// antiTerms, read from the cache's podIndex instead of
	// existingAnti, are the distinct required anti-affinity terms of
	// placed pods that match the pod.
	antiTerms []*antiTerm
	// antiCtrs, when set, has per required anti-affinity term of the
	// pod the cache's counter of the pods it matches, and affCtrs per
	// required affinity term the counter of the pods matching them all
	// over its topology key (instead of anti and aff).
	antiCtrs, affCtrs []*podCounter
	// affExist: some pod matches all of the pod's required affinity
	// terms on a node carrying a term's key.
	affExist bool
	// antiDelta, affDelta and termDelta, when set (see replaced),
	// change the counts of the pod's required anti-affinity and
	// affinity terms in one domain each, and the holders of placed
	// pods' anti-affinity terms (by term ID) in the replaced node's
	// domain.
	antiDelta, affDelta []domainDelta
	termDelta           map[string]int64
}

// antiCount returns how many pods the pod's i-th required anti-affinity
// term matches in domain (key, v).
func (s *affinityState) antiCount(i int, key, v string) int64 {
	var c int64
	if s.antiCtrs != nil && s.antiCtrs[i] != nil {
		c = s.antiCtrs[i].count(v)
	} else {
		c = s.anti[topologyPair{key, v}]
	}
	if s.antiDelta != nil {
		c += s.antiDelta[i].at(v)
	}
	return c
}

// replaced returns the state read from the cache's podIndex (s.antiCtrs,
// s.affCtrs, s.antiTerms) for the cluster with node orig replaced by n,
// the same node with other pods (preemption's dry run), as kube's
// PreFilter extensions RemovePod/AddPod update it: the counts change in
// n's domains only, from the pods of orig and n — no node is walked.
func (s *affinityState) replaced(pc *podCtx, orig, n *NodeInfo) *affinityState {
	cp := *s
	if pa := pc.info.affinity; pa != nil {
		// on counts the pods of a node that match, or with all set
		// match every term of ts.
		on := func(node *NodeInfo, ts []affinityTerm, i int, all bool) int64 {
			var k int64
			for _, ep := range node.Pods {
				if all && matchesAll(pc, ep.Pod, ts) || !all && ts[i].matches(pc, ep.Pod) {
					k++
				}
			}
			return k
		}
		delta := func(ts []affinityTerm, i int, all bool) domainDelta {
			v, ok := n.labels[ts[i].key]
			if !ok {
				return domainDelta{}
			}
			return domainDelta{v: v, d: on(n, ts, i, all) - on(orig, ts, i, all), ok: true}
		}
		cp.antiDelta = make([]domainDelta, len(pa.reqAnti))
		for i := range pa.reqAnti {
			cp.antiDelta[i] = delta(pa.reqAnti, i, false)
		}
		if len(pa.reqAff) > 0 {
			cp.affDelta = make([]domainDelta, len(pa.reqAff))
			cp.affExist = false
			for i := range pa.reqAff {
				cp.affDelta[i] = delta(pa.reqAff, i, true)
				cp.affExist = cp.affExist || s.affCtrs[i].total+cp.affDelta[i].d > 0
			}
		}
	}
	cp.termDelta = map[string]int64{}
	holders := func(node *NodeInfo, sign int64) {
		for _, ep := range node.withAffinity {
			for i := range ep.affinity.reqAnti {
				if t := &ep.affinity.reqAnti[i]; t.matches(pc, pc.pod) {
					if _, ok := n.labels[t.key]; ok {
						cp.termDelta[t.id] += sign
					}
				}
			}
		}
	}
	holders(n, 1)
	holders(orig, -1)
	return &cp
}

// newAffinityState is InterPodAffinity's PreFilter; nil is its Skip:
// the pod has no required term and no placed pod has any pod
// (anti-)affinity. With pc.cache it reads the cache's podIndex: the
// distinct anti-affinity terms of the placed pods, and a counter per
// required term of the pod (a namespaceSelector resolved to the
// namespaces holding pods, see resolveNamespaces) — O(distinct terms +
// namespaces), walking no node (but to build a counter on its first
// use). Without it
// (Decide, preemption's dry runs) it walks every node's pods.
func newAffinityState(pc *podCtx) *affinityState {
	pa := pc.info.affinity
	hasReq := pa != nil && len(pa.reqAff)+len(pa.reqAnti) > 0
	if !hasReq && !pc.anyAffinity {
		return nil
	}
	s := &affinityState{existingAnti: map[topologyPair]int64{}, aff: map[topologyPair]int64{}, anti: map[topologyPair]int64{}}
	existing := func(n *NodeInfo) {
		for _, ep := range n.withAffinity {
			for i := range ep.affinity.reqAnti {
				t := &ep.affinity.reqAnti[i]
				if v, ok := n.labels[t.key]; ok && t.matches(pc, pc.pod) {
					s.existingAnti[topologyPair{t.key, v}]++
					if !slices.Contains(s.antiKeys, t.key) {
						s.antiKeys = append(s.antiKeys, t.key)
					}
				}
			}
		}
	}
	if pc.cache != nil {
		for _, at := range pc.cache.index.antiTerms {
			if len(at.domains) > 0 && at.term.matches(pc, pc.pod) {
				s.antiTerms = append(s.antiTerms, at)
			}
		}
	} else {
		for _, n := range pc.nodes {
			existing(n)
		}
	}
	walk := hasReq
	if hasReq && pc.cache != nil {
		walk = false
		s.antiCtrs = make([]*podCounter, len(pa.reqAnti))
		for i := range pa.reqAnti {
			t := &pa.reqAnti[i]
			s.antiCtrs[i] = pc.cache.counter(counterSpec{namespaces: resolveNamespaces(pc, t), sels: []api.Selector{t.sel}, key: t.key, require: []string{t.key}})
		}
		if len(pa.reqAff) > 0 {
			// The pods matching every term: in the namespaces of all
			// of them, matching every selector.
			ns := resolveNamespaces(pc, &pa.reqAff[0])
			sels := []api.Selector{pa.reqAff[0].sel}
			for j := 1; j < len(pa.reqAff); j++ {
				other := resolveNamespaces(pc, &pa.reqAff[j])
				ns = slices.DeleteFunc(slices.Clone(ns), func(n string) bool { return !slices.Contains(other, n) })
				sels = append(sels, pa.reqAff[j].sel)
			}
			s.affCtrs = make([]*podCounter, len(pa.reqAff))
			for i := range pa.reqAff {
				t := &pa.reqAff[i]
				s.affCtrs[i] = pc.cache.counter(counterSpec{namespaces: ns, sels: sels, key: t.key, require: []string{t.key}})
				s.affExist = s.affExist || s.affCtrs[i].total > 0
			}
		}
	}
	if walk {
		for _, n := range pc.nodes {
			for _, ep := range n.Pods {
				if matchesAll(pc, ep.Pod, pa.reqAff) {
					for i := range pa.reqAff {
						if v, ok := n.labels[pa.reqAff[i].key]; ok {
							s.aff[topologyPair{pa.reqAff[i].key, v}]++
						}
					}
				}
				for i := range pa.reqAnti {
					if s.antiCtrs != nil && s.antiCtrs[i] != nil {
						continue
					}
					t := &pa.reqAnti[i]
					if v, ok := n.labels[t.key]; ok && t.matches(pc, ep.Pod) {
						s.anti[topologyPair{t.key, v}]++
					}
				}
			}
		}
	}
	if s.affCtrs == nil {
		s.affExist = len(s.aff) > 0
	}
	if !hasReq && len(s.existingAnti) == 0 && len(s.antiTerms) == 0 {
		return nil
	}
	return s
}

// affCount returns how many pods matching all of the pod's required
// affinity terms are in the domain (key, v) of its i-th term.
func (s *affinityState) affCount(i int, key, v string) int64 {
	if s.affCtrs != nil {
		c := s.affCtrs[i].count(v)
		if s.affDelta != nil {
			c += s.affDelta[i].at(v)
		}
		return c
	}
	return s.aff[topologyPair{key, v}]
}

// resolveNamespaces returns the namespaces term t looks in as a sorted
// list: those it lists and, with a namespaceSelector, every namespace
// holding placed pods whose labels the selector matches (all of them for
// an empty selector), looked up for this attempt — the pods t can match
// are in those, so a counter over them counts what t.matches would.
func resolveNamespaces(pc *podCtx, t *affinityTerm) []string {
	out := slices.Clone(t.namespaces)
	if t.nsSel != nil {
		for ns := range pc.cache.namespaces {
			if !slices.Contains(t.namespaces, ns) && (t.nsSel.Empty() || t.nsSel.Matches(pc.namespaceLabels(ns))) {
				out = append(out, ns)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// filterInterPodAffinity is InterPodAffinity's Filter: the node must
// carry every topology key of the pod's required affinity terms and lie
// in a domain holding pods that match them all (unless no pod anywhere
// matches them and the pod matches its own terms: the first pod of a
// group that attracts itself), lie in no domain holding a pod that one
// of its required anti-affinity terms matches, and in no domain of an
// existing pod whose required anti-affinity term matches the pod.
func filterInterPodAffinity(pc *podCtx, n *NodeInfo) []string {
	s := pc.affinity
	if s == nil {
		return nil
	}
	if pa := pc.info.affinity; pa != nil {
		exist := true
		for i := range pa.reqAff {
			v, ok := n.labels[pa.reqAff[i].key]
			if !ok {
				return reasonsPodAffinity
			}
			if s.affCount(i, pa.reqAff[i].key, v) <= 0 {
				exist = false
			}
		}
		if !exist && (s.affExist || !matchesAll(pc, pc.pod, pa.reqAff)) {
			return reasonsPodAffinity
		}
		for i := range pa.reqAnti {
			if v, ok := n.labels[pa.reqAnti[i].key]; ok && s.antiCount(i, pa.reqAnti[i].key, v) > 0 {
				return reasonsPodAntiAffinity
			}
		}
	}
	for _, k := range s.antiKeys {
		if v, ok := n.labels[k]; ok && s.existingAnti[topologyPair{k, v}] > 0 {
			return reasonsExistingAntiAffinity
		}
	}
	for _, at := range s.antiTerms {
		if v, ok := n.labels[at.term.key]; ok && at.domains[v]+s.termDelta[at.term.id] > 0 {
			return reasonsExistingAntiAffinity
		}
	}
	return nil
}

// affinityScores is InterPodAffinity's PreScore state: the score of
// each domain.
type affinityScores struct {
	done   bool
	byPair map[topologyPair]int64
	keys   []string // the distinct topology keys of byPair
}

// computeAffinityScores is InterPodAffinity's PreScore: every placed pod
// (or, when the pod has no preferred term, only the pods with affinity
// terms) adds to its node's domains the weights of the pod's preferred
// terms it matches (affinity +, anti-affinity −), and its own required
// affinity terms matching the pod (hardPodAffinityWeight) and preferred
// terms matching the pod (±weight). Skipped (no score) when the pod has
// no preferred term and no placed pod has any term. With the cache and
// no preferred term of the pod's own, it reads the placed pods' distinct
// scoring terms with their domains (podIndex), O(distinct terms +
// their domains), instead of visiting the pods.
func computeAffinityScores(pc *podCtx) {
	as := &pc.affinityScores
	as.done = true
	pa := pc.info.affinity
	hasPref := pa != nil && len(pa.prefAff)+len(pa.prefAnti) > 0
	if !hasPref && !pc.anyAffinity {
		return
	}
	add := func(n *NodeInfo, key string, w int64) {
		if v, ok := n.labels[key]; ok && w != 0 {
			if as.byPair == nil {
				as.byPair = map[topologyPair]int64{}
			}
			tp := topologyPair{key, v}
			as.byPair[tp] += w
			if !slices.Contains(as.keys, key) {
				as.keys = append(as.keys, key)
			}
		}
	}
	visit := func(n *NodeInfo, ep *PodInfo) {
		if hasPref {
			for i := range pa.prefAff {
				if pa.prefAff[i].matches(pc, ep.Pod) {
					add(n, pa.prefAff[i].key, pa.prefAff[i].weight)
				}
			}
			for i := range pa.prefAnti {
				if pa.prefAnti[i].matches(pc, ep.Pod) {
					add(n, pa.prefAnti[i].key, -pa.prefAnti[i].weight)
				}
			}
		}
		if ea := ep.affinity; ea != nil {
			for i := range ea.reqAff {
				if ea.reqAff[i].matches(pc, pc.pod) {
					add(n, ea.reqAff[i].key, hardPodAffinityWeight)
				}
			}
			for i := range ea.prefAff {
				if ea.prefAff[i].matches(pc, pc.pod) {
					add(n, ea.prefAff[i].key, ea.prefAff[i].weight)
				}
			}
			for i := range ea.prefAnti {
				if ea.prefAnti[i].matches(pc, pc.pod) {
					add(n, ea.prefAnti[i].key, -ea.prefAnti[i].weight)
				}
			}
		}
	}
	if !hasPref && pc.cache != nil {
		// The placed pods' distinct scoring terms: each that matches
		// the pod adds its weight once per holder in a domain.
		for _, at := range pc.cache.index.scoreTerms {
			if at.weight == 0 || !at.term.matches(pc, pc.pod) {
				continue
			}
			for v, k := range at.domains {
				if as.byPair == nil {
					as.byPair = map[topologyPair]int64{}
				}
				as.byPair[topologyPair{at.term.key, v}] += at.weight * k
				if !slices.Contains(as.keys, at.term.key) {
					as.keys = append(as.keys, at.term.key)
				}
			}
		}
		return
	}
	for _, n := range pc.nodes {
		if hasPref {
			for _, ep := range n.Pods {
				visit(n, ep)
			}
			continue
		}
		for _, ep := range n.withAffinity {
			visit(n, ep)
		}
	}
}

// skipInterPodAffinity is InterPodAffinity's PreScore Skip: the pod has
// no preferred term and no placed pod has any term (computeAffinityScores
// would score every node 0).
func skipInterPodAffinity(pc *podCtx) bool {
	pa := pc.info.affinity
	return !pc.anyAffinity && (pa == nil || len(pa.prefAff)+len(pa.prefAnti) == 0)
}

// scoreInterPodAffinity sums the scores of the node's domains.
func scoreInterPodAffinity(pc *podCtx, n *NodeInfo) int64 {
	if !pc.affinityScores.done {
		computeAffinityScores(pc)
	}
	as := &pc.affinityScores
	var s int64
	for _, k := range as.keys {
		if v, ok := n.labels[k]; ok {
			s += as.byPair[topologyPair{k, v}]
		}
	}
	return s
}

// normalizeInterPodAffinity maps the sums linearly onto 0..MaxNodeScore,
// the lowest to 0 and the highest to MaxNodeScore (all 0 when they are
// equal), as kube-scheduler's NormalizeScore.
func normalizeInterPodAffinity(pc *podCtx, _ feasibleNodes, scores []int64) {
	if len(pc.affinityScores.byPair) == 0 {
		clear(scores)
		return
	}
	lo, hi := scores[0], scores[0]
	for _, s := range scores {
		lo, hi = min(lo, s), max(hi, s)
	}
	for i, s := range scores {
		f := 0.0
		if hi > lo {
			f = float64(MaxNodeScore) * float64(s-lo) / float64(hi-lo)
		}
		scores[i] = int64(f)
	}
}
