package scheduler

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// The words of kube-scheduler's DefaultPreemption on the objects it
// touches.
const (
	// ReasonPreempted is the reason of the event recorded about a
	// victim: "Preempted by pod <uid> on node <node>".
	ReasonPreempted = "Preempted"
	// ConditionDisruptionTarget is the condition type set on a victim
	// before it is deleted.
	ConditionDisruptionTarget api.PodConditionType = "DisruptionTarget"
	// ReasonPreemptionByScheduler is the DisruptionTarget condition's
	// reason on a victim.
	ReasonPreemptionByScheduler = "PreemptionByScheduler"
	// PreemptionTerminatingVictim is the PostFilter message of a pod
	// whose nominated node still has a lower-priority pod terminating
	// because of preemption.
	PreemptionTerminatingVictim = "not eligible due to a terminating pod on the nominated node."
)

// PreemptWriter is the writes DefaultPreemption makes (Options.Preempt).
type PreemptWriter interface {
	// Nominate sets the unbound pod's status.nominatedNodeName to node;
	// "" clears it. A pod bound or gone meanwhile is left alone.
	Nominate(ctx context.Context, pod *api.Pod, node string) error
	// Preempt sets cond (DisruptionTarget) on victim's status, then
	// deletes victim (with its default grace period), as kube-
	// scheduler's prepareCandidate does. A victim already gone is no
	// error.
	Preempt(ctx context.Context, victim *api.Pod, cond api.PodCondition) error
}

// PDBLookup returns the PodDisruptionBudgets of a namespace, as a lister
// does; it must not block.
type PDBLookup func(namespace string) []*api.PodDisruptionBudget

// candidate is a node where evicting victims lets the pod fit.
type candidate struct {
	node       int        // index in the attempt's nodes
	victims    []*PodInfo // most important first
	violations int        // victims whose eviction violates a PDB
}

// preemptEnv is what preemption reads beyond the attempt's podCtx.
type preemptEnv struct {
	pdbs PDBLookup
	now  time.Time
}

// podPriority is kube's corev1helpers.PodPriority.
func podPriority(p *api.Pod) int32 {
	if p.Spec.Priority != nil {
		return *p.Spec.Priority
	}
	return 0
}

// startTime is kube's GetPodStartTime: status.startTime, else now.
func startTime(p *api.Pod, now time.Time) time.Time {
	if p.Status.StartTime != nil {
		return p.Status.StartTime.Time
	}
	return now
}

// moreImportant is kube's MoreImportantPod: higher priority, then the
// earlier start.
func moreImportant(a, b *api.Pod, now time.Time) bool {
	pa, pb := podPriority(a), podPriority(b)
	if pa != pb {
		return pa > pb
	}
	return startTime(a, now).Before(startTime(b, now))
}

// terminatingByPreemption is kube's podTerminatingByPreemption.
func terminatingByPreemption(p *api.Pod) bool {
	if p.DeletionTimestamp == nil {
		return false
	}
	c, ok := p.Status.GetCondition(ConditionDisruptionTarget)
	return ok && c.Status == api.ConditionTrue && c.Reason == ReasonPreemptionByScheduler
}

// clone returns a copy of n whose pods can be added and removed without
// touching n.
func (n *NodeInfo) clone() *NodeInfo {
	c := *n
	c.Pods = maps.Clone(n.Pods)
	c.groups = maps.Clone(n.groups)
	c.ports = slices.Clone(n.ports)
	c.withAffinity = slices.Clone(n.withAffinity)
	c.scalarRequested = maps.Clone(n.scalarRequested)
	return &c
}

// reasonsWith runs every filter for pc's pod on nodes[i] replaced by n
// and returns the rejecting reasons (nil: the pod fits), with the
// PreFilter states of PodTopologySpread and InterPodAffinity changed by
// the changed node when the pod has them: from the cache's index, in the
// node's domains only (as kube's AddPod/RemovePod extensions update
// them), else recomputed over every node (Decide). Nominated pods of at least the pod's priority
// count on n, as kube's RunFilterPluginsWithNominatedPods.
func reasonsWith(pc *podCtx, i int, n *NodeInfo) []string {
	q := pc
	switch {
	case pc.cache != nil && (pc.spread != nil || pc.affinity != nil):
		// The states read the cache's index: changed in n's domains
		// only, walking no other node.
		cp := *pc
		if pc.spread != nil {
			cp.spread = pc.spread.replaced(pc, pc.nodes[i], n)
		}
		if pc.affinity != nil {
			cp.affinity = pc.affinity.replaced(pc, pc.nodes[i], n)
		}
		q = &cp
	case pc.spread != nil || pc.affinity != nil:
		cp := *pc
		cp.nodes = slices.Clone(pc.nodes)
		cp.nodes[i] = n
		cp.cache = nil // count over the changed nodes
		cp.spread = newSpreadState(&cp)
		cp.affinity = newAffinityState(&cp)
		q = &cp
	}
	_, r := runFiltersNominated(q, n)
	return r
}

// selectVictims is kube's selectVictimsOnNode: remove every pod of lower
// priority; if the pod then fits, reprieve them back one by one — those
// whose eviction would violate a PodDisruptionBudget first, each group
// most important first — keeping as victims those without which the pod
// no longer fits. It returns the victims (most important first) and how
// many violate a budget, or the node's reasons when preemption cannot
// help there.
func selectVictims(pc *podCtx, i int, env preemptEnv) (*candidate, []string) {
	n := pc.nodes[i].clone()
	prio := podPriority(pc.pod)
	var potential []*PodInfo
	for _, p := range n.Pods {
		if podPriority(p.Pod) < prio {
			potential = append(potential, p)
		}
	}
	if len(potential) == 0 {
		return nil, reasonsNoVictims
	}
	for _, p := range potential {
		n.removePod(p)
	}
	if r := reasonsWith(pc, i, n); r != nil {
		return nil, r
	}
	slices.SortFunc(potential, func(a, b *PodInfo) int {
		switch {
		case moreImportant(a.Pod, b.Pod, env.now):
			return -1
		case moreImportant(b.Pod, a.Pod, env.now):
			return 1
		}
		return 0
	})
	violating, nonViolating := splitByPDB(potential, env.pdbs)
	c := &candidate{node: i}
	reprieve := func(p *PodInfo) bool {
		n.addPod(p)
		if reasonsWith(pc, i, n) == nil {
			return true
		}
		n.removePod(p)
		c.victims = append(c.victims, p)
		return false
	}
	for _, p := range violating {
		if !reprieve(p) {
			c.violations++
		}
	}
	for _, p := range nonViolating {
		reprieve(p)
	}
	slices.SortStableFunc(c.victims, func(a, b *PodInfo) int {
		switch {
		case moreImportant(a.Pod, b.Pod, env.now):
			return -1
		case moreImportant(b.Pod, a.Pod, env.now):
			return 1
		}
		return 0
	})
	return c, nil
}

// reasonsNoVictims is a node's preemption reason when no pod on it has a
// lower priority.
var reasonsNoVictims = []string{PreemptionNoVictims}

// splitByPDB is kube's filterPodsWithPDBViolation: in order, a pod whose
// namespace has a budget selecting it (a non-empty selector; an empty
// one matches nothing here, as in kube-scheduler) and not listed in its
// status.disruptedPods takes one of the budget's disruptionsAllowed; a
// pod that takes one below zero violates it.
func splitByPDB(pods []*PodInfo, pdbs PDBLookup) (violating, nonViolating []*PodInfo) {
	if pdbs == nil {
		return nil, pods
	}
	type budget struct {
		sel     api.Selector
		pdb     *api.PodDisruptionBudget
		allowed int32
	}
	byNS := map[string][]*budget{}
	for _, p := range pods {
		ns := p.Pod.Namespace
		bs, ok := byNS[ns]
		if !ok {
			for _, pdb := range pdbs(ns) {
				if pdb.Spec.Selector == nil {
					continue
				}
				sel, err := pdb.Spec.Selector.AsSelector()
				if err != nil || sel.Empty() {
					continue
				}
				bs = append(bs, &budget{sel: sel, pdb: pdb, allowed: pdb.Status.DisruptionsAllowed})
			}
			byNS[ns] = bs
		}
		violated := false
		if len(p.Pod.Labels) > 0 {
			for _, b := range bs {
				if !b.sel.Matches(p.Pod.Labels) {
					continue
				}
				if _, ok := b.pdb.Status.DisruptedPods[p.Pod.Name]; ok {
					continue
				}
				b.allowed--
				if b.allowed < 0 {
					violated = true
				}
			}
		}
		if violated {
			violating = append(violating, p)
		} else {
			nonViolating = append(nonViolating, p)
		}
	}
	return violating, nonViolating
}

// The bounds of kube's DefaultPreemptionArgs: the dry run stops once it
// has this share of the nodes (at least the absolute number) as
// candidates.
const (
	minCandidateNodesPercentage = 10
	minCandidateNodesAbsolute   = 100
)

// numCandidates is kube's calculateNumCandidates.
func numCandidates(numNodes int) int {
	n := max(numNodes*minCandidateNodesPercentage/100, minCandidateNodesAbsolute)
	return min(n, numNodes)
}

// findCandidates is kube's DryRunPreemption over the nodes preemption
// might help (those whose rejection is resolvable), in node order: it
// stops once it has numCandidates candidates of which one violates no
// budget. It returns the candidates (those violating no budget first)
// and the reasons of the nodes that are not candidates, by node index.
func findCandidates(pc *podCtx, d *decision, env preemptEnv) ([]*candidate, map[int][]string) {
	want := numCandidates(len(pc.nodes))
	var ok, violating []*candidate
	reasons := map[int][]string{}
	for i, v := range d.verdict {
		if v == 0 || v&feasibleBit != 0 || v&unresolvableBit != 0 {
			continue
		}
		c, r := selectVictims(pc, i, env)
		if c == nil {
			reasons[i] = r
			continue
		}
		if c.violations == 0 {
			ok = append(ok, c)
		} else {
			violating = append(violating, c)
		}
		if len(ok) > 0 && len(ok)+len(violating) >= want {
			break
		}
	}
	return append(ok, violating...), reasons
}

// pickCandidate is kube's pickOneNodeForPreemption: the candidates with
// the fewest budget violations, then the lowest highest victim priority,
// then the lowest sum of victim priorities, then the fewest victims,
// then the latest start among the highest-priority victims; the first
// one left.
func pickCandidate(cs []*candidate, now time.Time) *candidate {
	if len(cs) == 0 {
		return nil
	}
	keep := func(score func(c *candidate) int64) {
		best := int64(math.MinInt64)
		var out []*candidate
		for _, c := range cs {
			switch s := score(c); {
			case s > best:
				best, out = s, []*candidate{c}
			case s == best:
				out = append(out, c)
			}
		}
		cs = out
	}
	keep(func(c *candidate) int64 { return -int64(c.violations) })
	keep(func(c *candidate) int64 {
		if len(c.victims) == 0 {
			return math.MaxInt64
		}
		return -int64(podPriority(c.victims[0].Pod))
	})
	keep(func(c *candidate) int64 {
		var sum int64
		for _, v := range c.victims {
			// Shifted so that negative priorities count as
			// positive amounts, as kube does.
			sum += int64(podPriority(v.Pod)) + math.MaxInt32 + 1
		}
		return -sum
	})
	keep(func(c *candidate) int64 { return -int64(len(c.victims)) })
	keep(func(c *candidate) int64 {
		if len(c.victims) == 0 {
			return math.MaxInt64
		}
		top := podPriority(c.victims[0].Pod)
		earliest := startTime(c.victims[0].Pod, now)
		for _, v := range c.victims[1:] {
			if podPriority(v.Pod) == top && startTime(v.Pod, now).Before(earliest) {
				earliest = startTime(v.Pod, now)
			}
		}
		return earliest.UnixNano()
	})
	return cs[0]
}

// postFilter is DefaultPreemption's PostFilter for a pod no node fits:
// it returns the chosen candidate, or the "preemption: …" message of a
// pod no preemption helps.
func postFilter(pc *podCtx, d *decision, env preemptEnv) (*candidate, string) {
	pod := pc.pod
	if p := pod.Spec.PreemptionPolicy; p != nil && *p == preemptNever {
		return nil, "preemption: " + PreemptionNever
	}
	if nom := pc.nominated; nom != "" {
		if i, found := slices.BinarySearch(d.names, nom); found && i < len(pc.nodes) && pc.nodes[i].Name == nom &&
			d.verdict[i]&unresolvableBit == 0 {
			prio := podPriority(pod)
			for _, p := range pc.nodes[i].Pods {
				if podPriority(p.Pod) < prio && terminatingByPreemption(p.Pod) {
					return nil, "preemption: " + PreemptionTerminatingVictim
				}
			}
		}
	}
	cs, reasons := findCandidates(pc, d, env)
	if c := pickCandidate(cs, env.now); c != nil {
		return c, ""
	}
	counts := map[string]int{}
	for i, v := range d.verdict {
		if r, ok := reasons[i]; ok {
			for _, x := range r {
				counts[x]++
			}
			continue
		}
		if v == 0 || v&unresolvableBit != 0 {
			counts[PreemptionNotHelpful]++
		}
	}
	return nil, "preemption: " + formatReasons(len(pc.nodes), counts)
}

// preemptCondition is the DisruptionTarget condition set on a victim of
// a pod of scheduler schedulerName.
func preemptCondition(schedulerName string) api.PodCondition {
	return api.PodCondition{Type: ConditionDisruptionTarget, Status: api.ConditionTrue, Reason: ReasonPreemptionByScheduler,
		Message: schedulerName + ": preempting to accommodate a higher priority pod"}
}

// Nominate sets status.nominatedNodeName of the unbound pod.
func (w PodWriter) Nominate(ctx context.Context, pod *api.Pod, node string) error {
	return w.update(ctx, pod, func(cur *api.Pod) (bool, error) {
		if cur.Spec.NodeName != "" || cur.Status.NominatedNodeName == node {
			return false, nil
		}
		cur.Status.NominatedNodeName = node
		return true, nil
	})
}

// Preempt sets cond on victim and deletes it.
func (w PodWriter) Preempt(ctx context.Context, victim *api.Pod, cond api.PodCondition) error {
	err := w.update(ctx, victim, func(cur *api.Pod) (bool, error) {
		return setCondition(&cur.Status, cond, time.Now()), nil
	})
	if errors.Is(err, source.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := w.Pods.Delete(ctx, api.Key(victim), ""); err != nil && !errors.Is(err, source.ErrNotFound) {
		return fmt.Errorf("scheduler: delete %s: %w", api.Key(victim), err)
	}
	return nil
}

// preemptLocked carries out what the PostFilter of the attempt e of the
// pod under key chose, as kube's prepareCandidate: the pod is nominated
// to e.nominate (in memory at once, so that its room is kept from lower
// priority pods), pods of lower priority nominated there lose their
// nomination, and — in the background — each victim gets the
// DisruptionTarget condition and is deleted, a Preempted event is
// recorded about it, and the nominations are written.
func (s *Scheduler) preemptLocked(ctx context.Context, wg *sync.WaitGroup, key string, pp *pending, e *decision) {
	pod, node := pp.pod, e.nominate
	prio := podPriority(pod)
	var cleared []*api.Pod
	for _, p := range slices.Clone(s.nominated[node]) {
		if p.Key == key || podPriority(p.Pod) >= prio {
			continue
		}
		if other, ok := s.pending[p.Key]; ok {
			s.nominateLocked(p.Key, other, "")
			cleared = append(cleared, other.pod)
			if other.unschedulable {
				other.unschedulable = false
				s.queue.AddWithOptions(p.Key, workqueue.AddOptions{Priority: priorityOf(other.pod), After: time.Until(other.backoffUntil)})
			}
		}
	}
	s.nominateLocked(key, pp, node)
	victims, w, cond := e.victims, s.opts.Preempt, preemptCondition(s.opts.SchedulerName)
	wg.Go(func() {
		for _, v := range victims {
			if err := w.Preempt(ctx, v, cond); err != nil {
				if ctx.Err() == nil {
					s.opts.Logger.Warn("scheduler: preempting a victim failed", "pod", key, "victim", api.Key(v), "err", err)
				}
				continue
			}
			s.event(v, events.Normal, ReasonPreempted, fmt.Sprintf("Preempted by pod %s on node %s", pod.UID, node))
		}
		for _, p := range cleared {
			if err := w.Nominate(ctx, p, ""); err != nil && ctx.Err() == nil {
				s.opts.Logger.Warn("scheduler: clearing a nomination failed", "pod", api.Key(p), "err", err)
			}
		}
		if err := w.Nominate(ctx, pod, node); err != nil && ctx.Err() == nil {
			s.opts.Logger.Warn("scheduler: writing the nominated node failed", "pod", key, "err", err)
		}
	})
}

// Nominate sets status.nominatedNodeName of the unbound pod through the
// pods' status subresource.
func (w ClusterWriter) Nominate(ctx context.Context, pod *api.Pod, node string) error {
	return w.updateStatus(ctx, pod, func(cur *api.Pod) bool {
		if cur.Spec.NodeName != "" || cur.Status.NominatedNodeName == node {
			return false
		}
		cur.Status.NominatedNodeName = node
		return true
	})
}

// Preempt sets cond on victim through the status subresource, then
// deletes it with its default grace period, the victim's UID as the
// precondition.
func (w ClusterWriter) Preempt(ctx context.Context, victim *api.Pod, cond api.PodCondition) error {
	err := w.updateStatus(ctx, victim, func(cur *api.Pod) bool {
		return setCondition(&cur.Status, cond, time.Now())
	})
	if errors.Is(err, source.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	pods, err := w.pods()
	if err != nil {
		return err
	}
	_, err = pods.DeleteWith(ctx, api.Key(victim), client.DeleteOptions{Preconditions: client.Preconditions{UID: victim.UID}})
	if err != nil && !errors.Is(err, source.ErrNotFound) {
		return fmt.Errorf("scheduler: delete %s: %w", api.Key(victim), err)
	}
	return nil
}

// updateStatus applies change to the current pod (of pod's UID) and
// writes its status, retrying on conflict.
func (w ClusterWriter) updateStatus(ctx context.Context, pod *api.Pod, change func(*api.Pod) bool) error {
	pods, err := w.pods()
	if err != nil {
		return err
	}
	key := api.Key(pod)
	for range bindRetries {
		var cur *api.Pod
		if cur, _, err = pods.Get(ctx, key); err != nil {
			return fmt.Errorf("scheduler: %s: %w", key, err)
		}
		if pod.UID != "" && cur.UID != pod.UID {
			return fmt.Errorf("scheduler: %s was replaced: %w", key, source.ErrNotFound)
		}
		cur = cur.DeepCopy()
		if !change(cur) {
			return nil
		}
		if _, err = pods.UpdateStatus(ctx, cur); !errors.Is(err, source.ErrConflict) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("scheduler: update status of %s: %w", key, err)
	}
	return nil
}

// PDBsFrom returns a PDBLookup over an informer's lister of
// PodDisruptionBudgets (keys namespace/name), for Options.PDBs.
func PDBsFrom(l informer.Lister[*api.PodDisruptionBudget]) PDBLookup {
	return func(namespace string) []*api.PodDisruptionBudget {
		var out []*api.PodDisruptionBudget
		for _, b := range l.Range(namespace + "/") {
			out = append(out, b)
		}
		return out
	}
}
