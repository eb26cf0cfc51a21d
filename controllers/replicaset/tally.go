package replicaset

import (
	"maps"
	"reflect"
	"sync"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// A tally keeps, for each owner a sync has walked, what the walk would
// count among the pods the owner controls — its claimed (active,
// selected) pods, the fully labeled and ready ones among them, its
// terminating pods and the active pods it must release — kept current by
// the pod events, so that a sync whose pods need no adoption, release,
// creation or deletion computes the status without walking them: the
// sync of a ReplicaSet of n pods costs O(1) instead of O(n), while a
// burst of pod updates runs it back to back.
//
// The counts lag the informer's cache by the events not yet handled:
// the handler that changes them enqueues the owner afterwards, so a
// later sync sees them. A sync uses them only when the number of pods
// the tally holds for the owner equals the size of the owner's bucket
// in the cache's controller index — a pod added, adopted, released or
// deleted but not yet handled makes the sync walk its pods, as it did
// before — and when the owner's selector, template labels, namespace
// and name are those the tally classified its pods with. A lagging
// update can then only delay a status or a create, never count a pod
// the cache does not hold as missing (a pod's activeness and
// ownership change only one way between walks).
//
// Each pod's mark is stored (not its difference), so that the events a
// walk already saw apply again without harm: the tally converges to the
// cache's state once every event is handled.
type tally struct {
	kind string // the owners' kind ("ReplicaSet")

	mu     sync.Mutex
	owners map[api.UID]*ownerTally
}

// ownerTally is one owner's counts, with what its pods were classified
// by.
type ownerTally struct {
	namespace, name string
	selector        api.Selector
	tmplLabels      map[string]string
	allLabeled      bool

	marks map[api.UID]podMark // every pod of the owner's index bucket
	counts

	lagging  int              // syncs in a row that found the bucket larger or smaller
	building bool             // between begin and finish
	removed  map[api.UID]bool // pods deleted or moved away while building
}

// counts are an owner's totals over its marks.
type counts struct {
	claimed, labeled, ready, terminating, release int32
}

// podMark is what a sync's walk would do with one pod the owner
// controls.
type podMark uint8

const (
	markClaimed     podMark = 1 << iota // active and selected: one of the replicas
	markLabeled                         // claimed, with every template label
	markReady                           // claimed and Ready
	markTerminating                     // being deleted, not terminal, selected
	markRelease                         // active, not selected: the walk releases it
)

// maxLagging is how many syncs in a row may find an owner's tally
// lagging before it is rebuilt.
const maxLagging = 16

func newTally(kind string) *tally {
	return &tally{kind: kind, owners: map[api.UID]*ownerTally{}}
}

// classify returns p's mark for t, whose owner p's controller reference
// names by UID (as the walk in manager.claim treats it).
func (t *ownerTally) classify(kind string, p *api.Pod) podMark {
	ref := p.ControllerRef()
	if ref == nil || p.Namespace != t.namespace || ref.Kind != kind || ref.Name != t.name {
		return 0 // not the owner's: the walk skips it
	}
	selected := t.selector.Matches(p.Labels)
	switch {
	case isTerminating(p):
		if selected {
			return markTerminating
		}
		return 0
	case !isActive(p):
		return 0
	case !selected:
		return markRelease
	}
	m := markClaimed
	if t.allLabeled || hasLabels(p.Labels, t.tmplLabels) {
		m |= markLabeled
	}
	if api.IsPodReady(p) {
		m |= markReady
	}
	return m
}

// add adds (n = 1) or removes (n = -1) mark m to the totals.
func (c *counts) add(m podMark, n int32) {
	if m&markClaimed != 0 {
		c.claimed += n
	}
	if m&markLabeled != 0 {
		c.labeled += n
	}
	if m&markReady != 0 {
		c.ready += n
	}
	if m&markTerminating != 0 {
		c.terminating += n
	}
	if m&markRelease != 0 {
		c.release += n
	}
}

// set records p's mark, replacing the one recorded for it.
func (t *ownerTally) set(kind string, p *api.Pod) {
	m := t.classify(kind, p)
	if old, ok := t.marks[p.UID]; ok {
		t.counts.add(old, -1)
	}
	t.marks[p.UID] = m
	t.counts.add(m, 1)
}

// remove forgets the pod whose UID is uid.
func (t *ownerTally) remove(uid api.UID) {
	if t.building {
		t.removed[uid] = true
	}
	if old, ok := t.marks[uid]; ok {
		t.counts.add(old, -1)
		delete(t.marks, uid)
	}
}

// observe applies one pod event: old is nil for an add, cur nil for a
// delete. A pod whose controller changed leaves its old owner's tally.
func (t *tally) observe(old, cur *api.Pod) {
	var oldUID, curUID api.UID
	if old != nil {
		if ref := old.ControllerRef(); ref != nil {
			oldUID = ref.UID
		}
	}
	if cur != nil {
		if ref := cur.ControllerRef(); ref != nil {
			curUID = ref.UID
		}
	}
	if oldUID == "" && curUID == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if oldUID != "" && oldUID != curUID {
		if o := t.owners[oldUID]; o != nil {
			o.remove(old.UID)
		}
	}
	if curUID != "" {
		if o := t.owners[curUID]; o != nil {
			if old != nil && old.UID != cur.UID {
				o.remove(old.UID)
			}
			o.set(t.kind, cur)
		}
	}
}

// forget drops the tally of the owner whose UID is uid (deleted).
func (t *tally) forget(uid api.UID) {
	t.mu.Lock()
	delete(t.owners, uid)
	t.mu.Unlock()
}

// tallyState is what a tally knows of one owner's pods.
type tallyState int

const (
	tallyStale   tallyState = iota // none, or classified by another spec: rebuild
	tallyLagging                   // kept by the events, some not handled yet
	tallyCurrent                   // holds every pod of the owner's bucket
)

// current returns the counts of owner and whether the tally holds as
// many of its pods as owned (the size of its bucket in the controller
// index), classified with sp.
func (t *tally) current(owner api.Object, sp spec, owned int) (counts, tallyState) {
	meta := owner.GetObjectMeta()
	t.mu.Lock()
	defer t.mu.Unlock()
	o := t.owners[meta.UID]
	switch {
	case o == nil || !o.classifiedBy(meta, sp):
		return counts{}, tallyStale
	case o.building:
		return counts{}, tallyLagging
	case len(o.marks) != owned:
		// Events not yet handled — or, should an event ever be lost
		// (a pod's last state in a tombstone not the one handled
		// before), a tally that would never catch up: after
		// maxLagging syncs in a row it is rebuilt.
		if o.lagging++; o.lagging > maxLagging {
			return counts{}, tallyStale
		}
		return counts{}, tallyLagging
	}
	o.lagging = 0
	return o.counts, tallyCurrent
}

// classifiedBy reports whether t's pods were classified for the owner
// meta describes with spec sp.
func (t *ownerTally) classifiedBy(meta *api.ObjectMeta, sp spec) bool {
	var tmpl map[string]string
	if sp.template != nil {
		tmpl = sp.template.Labels
	}
	return t.namespace == meta.Namespace && t.name == meta.Name &&
		maps.Equal(t.tmplLabels, tmpl) && reflect.DeepEqual(t.selector, sp.selector)
}

// begin starts the tally of owner afresh, classified with sp: it is
// installed empty, so that the events handled from now on are kept in
// it, before the caller reads the owner's pods from the cache and hands
// them to finish. Between the two an event handled may be newer than
// what the cache read returned, or older (its newer successor is then
// handled later): finish keeps what the events recorded and adds only
// the pods they did not touch.
func (t *tally) begin(owner api.Object, sp spec) *ownerTally {
	meta := owner.GetObjectMeta()
	o := &ownerTally{
		namespace: meta.Namespace,
		name:      meta.Name,
		selector:  sp.selector,
		marks:     map[api.UID]podMark{},
		building:  true,
		removed:   map[api.UID]bool{},
	}
	if sp.template != nil {
		o.tmplLabels = maps.Clone(sp.template.Labels)
	}
	o.allLabeled = sp.selector.ImpliesLabels(o.tmplLabels)
	t.mu.Lock()
	t.owners[meta.UID] = o
	t.mu.Unlock()
	return o
}

// finish completes the tally begin started with owned, the owner's
// bucket in the controller index read after begin.
func (t *tally) finish(o *ownerTally, owned []*api.Pod) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, p := range owned {
		if _, seen := o.marks[p.UID]; seen || o.removed[p.UID] {
			continue
		}
		o.set(t.kind, p)
	}
	o.building, o.removed = false, nil
}
