package garbagecollector

import (
	"fmt"
	"slices"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
)

// objectRef identifies an object in the graph: its coordinates and UID.
type objectRef struct {
	APIVersion, Kind, Namespace, Name string
	UID                               api.UID
}

func (r objectRef) String() string {
	return fmt.Sprintf("[%s/%s, namespace: %s, name: %s, uid: %s]", r.APIVersion, r.Kind, r.Namespace, r.Name, r.UID)
}

// key is the object's store key.
func (r objectRef) key() string { return api.NamespacedKey(r.Namespace, r.Name) }

// node is one object of the ownership graph. All fields are guarded by
// Collector.mu.
type node struct {
	id objectRef
	// virtual is true for an owner named by a dependent's reference but
	// not (yet) observed by an informer.
	virtual bool
	// owners are the object's owner references, as last observed.
	owners []api.OwnerReference
	// dependents are the nodes whose owners name this one, by UID; nil
	// until the first (most objects own nothing).
	dependents map[api.UID]*node
	// beingDeleted: a deletionTimestamp was observed.
	beingDeleted bool
	// deletingDependents: deletionTimestamp and foregroundDeletion.
	deletingDependents bool
	// orphaning: deletionTimestamp and orphan.
	orphaning bool
}

// refTo returns n's owner reference to uid.
func (n *node) refTo(uid api.UID) (api.OwnerReference, bool) {
	for _, r := range n.owners {
		if r.UID == uid {
			return r, true
		}
	}
	return api.OwnerReference{}, false
}

func isBlocking(r api.OwnerReference) bool {
	return r.BlockOwnerDeletion != nil && *r.BlockOwnerDeletion
}

// eventType is the type of a graph event.
type eventType int

const (
	addEvent eventType = iota
	updateEvent
	deleteEvent
)

// graphEvent is what an informer of any kind tells the graph: the type
// of the change and the metadata the collector needs.
type graphEvent struct {
	typ        eventType
	id         objectRef
	owners     []api.OwnerReference
	deleting   bool
	finalizers []string
	// virtual marks a delete the collector inferred from a live read
	// (the object is gone or has another UID), not one an informer saw.
	virtual bool
}

// graphEffects are what processing one event asks of the collector:
// items to attempt to delete or orphan, and invalid references to report.
type graphEffects struct {
	attemptToDelete []api.UID
	attemptToOrphan []api.UID
	// invalidNamespace are dependents that name an observed namespaced
	// owner living in another namespace, with the reference.
	invalidNamespace []invalidRef
}

type invalidRef struct {
	dependent objectRef
	ref       api.OwnerReference
}

// graph is the ownership graph: kcm's GraphBuilder.uidToNode and its
// processGraphChanges, without goroutines (Collector.mu guards it).
type graph struct {
	nodes map[api.UID]*node
}

func newGraph() *graph { return &graph{nodes: map[api.UID]*node{}} }

// process applies ev to the graph and returns what the collector must do.
func (g *graph) process(ev graphEvent) graphEffects {
	var fx graphEffects
	existing, found := g.nodes[ev.id.UID]
	if found && !ev.virtual && ev.typ != deleteEvent && existing.virtual {
		// An owner we only knew from references is observed: take its
		// real coordinates; dependents in another namespace than a
		// namespaced owner's reference it wrongly.
		existing.virtual = false
		existing.id = ev.id
		for _, d := range sortedDependents(existing) {
			if ev.id.Namespace != "" && d.id.Namespace != ev.id.Namespace {
				if r, ok := d.refTo(ev.id.UID); ok {
					fx.invalidNamespace = append(fx.invalidNamespace, invalidRef{d.id, r})
				}
				fx.attemptToDelete = append(fx.attemptToDelete, d.id.UID)
			}
		}
	}
	switch {
	case ev.typ != deleteEvent && !found:
		n := &node{id: ev.id, owners: slices.Clone(ev.owners)}
		g.nodes[n.id.UID] = n
		g.addDependentToOwners(n, n.owners, &fx)
		g.processTransitions(n, ev, &fx)
	case ev.typ != deleteEvent && found:
		added, removed, changed := referencesDiffs(existing.owners, ev.owners)
		if len(added)+len(removed)+len(changed) > 0 {
			g.addUnblockedOwners(removed, changed, &fx)
			existing.owners = slices.Clone(ev.owners)
			g.addDependentToOwners(existing, added, &fx)
			g.removeDependentFromOwners(existing, removed)
		}
		g.processTransitions(existing, ev, &fx)
	case ev.typ == deleteEvent && found:
		g.removeNode(existing)
		for _, d := range sortedDependents(existing) {
			fx.attemptToDelete = append(fx.attemptToDelete, d.id.UID)
		}
		for _, r := range existing.owners {
			if o, ok := g.nodes[r.UID]; ok && o.deletingDependents {
				// The owner may now have no blocking dependents left.
				fx.attemptToDelete = append(fx.attemptToDelete, o.id.UID)
			}
		}
	}
	return fx
}

// processTransitions marks deletion states and queues the work they ask
// for: an orphaning owner is queued to orphan its dependents; an owner
// entering foreground deletion is queued along with all its dependents.
func (g *graph) processTransitions(n *node, ev graphEvent, fx *graphEffects) {
	if !ev.deleting {
		return
	}
	n.beingDeleted = true
	if slices.Contains(ev.finalizers, client.FinalizerOrphanDependents) && !n.orphaning {
		n.orphaning = true
		fx.attemptToOrphan = append(fx.attemptToOrphan, n.id.UID)
	}
	if slices.Contains(ev.finalizers, client.FinalizerDeleteDependents) && !n.deletingDependents {
		n.deletingDependents = true
		for _, d := range sortedDependents(n) {
			fx.attemptToDelete = append(fx.attemptToDelete, d.id.UID)
		}
		fx.attemptToDelete = append(fx.attemptToDelete, n.id.UID)
	}
}

// addDependentToOwners links n to the owners refs name, creating virtual
// nodes for owners not in the graph. n is queued for a live check when an
// owner is virtual (it may never have existed, or be gone already) or
// when an observed owner's coordinates disagree with n's reference —
// kcm's addDependentToOwners.
func (g *graph) addDependentToOwners(n *node, refs []api.OwnerReference, fx *graphEffects) {
	check := false
	for _, r := range refs {
		o, ok := g.nodes[r.UID]
		if !ok {
			ns := n.id.Namespace
			if clusterScoped(r.APIVersion, r.Kind) {
				ns = ""
			}
			o = &node{
				id:      objectRef{APIVersion: r.APIVersion, Kind: r.Kind, Namespace: ns, Name: r.Name, UID: r.UID},
				virtual: true,
			}
			g.nodes[r.UID] = o
			check = true
		} else if o.id.Namespace != "" && o.id.Namespace != n.id.Namespace {
			if !o.virtual {
				fx.invalidNamespace = append(fx.invalidNamespace, invalidRef{n.id, r})
			}
			check = true
		} else if o.id.Kind != r.Kind || o.id.Name != r.Name {
			check = true
		}
		if o.dependents == nil {
			o.dependents = map[api.UID]*node{}
		}
		o.dependents[n.id.UID] = n
	}
	if check {
		fx.attemptToDelete = append(fx.attemptToDelete, n.id.UID)
	}
}

// removeDependentFromOwners unlinks n from the owners refs name; a
// virtual owner left without dependents leaves the graph.
func (g *graph) removeDependentFromOwners(n *node, refs []api.OwnerReference) {
	for _, r := range refs {
		o, ok := g.nodes[r.UID]
		if !ok {
			continue
		}
		delete(o.dependents, n.id.UID)
		if o.virtual && len(o.dependents) == 0 {
			delete(g.nodes, o.id.UID)
		}
	}
}

// removeNode removes n from the graph and from its owners' dependents.
func (g *graph) removeNode(n *node) {
	delete(g.nodes, n.id.UID)
	g.removeDependentFromOwners(n, n.owners)
}

// addUnblockedOwners queues the owners in foreground deletion that a
// dependent stopped blocking: its reference was removed, or its
// blockOwnerDeletion turned false (kcm's addUnblockedOwnersToDeleteQueue).
func (g *graph) addUnblockedOwners(removed []api.OwnerReference, changed [][2]api.OwnerReference, fx *graphEffects) {
	queue := func(uid api.UID) {
		if o, ok := g.nodes[uid]; ok && o.deletingDependents {
			fx.attemptToDelete = append(fx.attemptToDelete, uid)
		}
	}
	for _, r := range removed {
		if isBlocking(r) {
			queue(r.UID)
		}
	}
	for _, c := range changed {
		if isBlocking(c[0]) && !isBlocking(c[1]) {
			queue(c[1].UID)
		}
	}
}

// referencesDiffs compares two lists of owner references by UID.
func referencesDiffs(old, new []api.OwnerReference) (added, removed []api.OwnerReference, changed [][2]api.OwnerReference) {
	oldByUID := map[api.UID]api.OwnerReference{}
	for _, r := range old {
		oldByUID[r.UID] = r
	}
	for _, r := range new {
		o, ok := oldByUID[r.UID]
		if !ok {
			added = append(added, r)
			continue
		}
		if isBlocking(o) != isBlocking(r) || o.Kind != r.Kind || o.Name != r.Name || o.APIVersion != r.APIVersion ||
			(o.Controller != nil && *o.Controller) != (r.Controller != nil && *r.Controller) {
			changed = append(changed, [2]api.OwnerReference{o, r})
		}
		delete(oldByUID, r.UID)
	}
	for _, r := range old {
		if _, ok := oldByUID[r.UID]; ok {
			removed = append(removed, r)
		}
	}
	return added, removed, changed
}

// sortedDependents returns n's dependents in UID order, so that the work
// queued is deterministic.
func sortedDependents(n *node) []*node {
	out := make([]*node, 0, len(n.dependents))
	for _, d := range n.dependents {
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b *node) int {
		switch {
		case a.id.UID < b.id.UID:
			return -1
		case a.id.UID > b.id.UID:
			return 1
		}
		return 0
	})
	return out
}

// dependentsOf returns the decision's view of n's dependents.
func dependentsOf(n *node) []dependent {
	var out []dependent
	for _, d := range sortedDependents(n) {
		r, _ := d.refTo(n.id.UID)
		out = append(out, dependent{uid: d.id.UID, blocking: isBlocking(r), deletingDependents: d.deletingDependents})
	}
	return out
}
