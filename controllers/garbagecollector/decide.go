package garbagecollector

import (
	"slices"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
)

// ownerState is what a live read says about one owner reference of an
// item (kcm's classifyReferences and isDangling).
type ownerState int

const (
	// ownerSolid: the owner exists with the referenced UID and is not
	// waiting for its dependents.
	ownerSolid ownerState = iota
	// ownerAbsent ("dangling"): no object of that kind and name in the
	// dependent's namespace (or cluster-wide for a cluster-scoped kind),
	// or one with another UID.
	ownerAbsent
	// ownerWaiting: the owner exists and is being deleted in the
	// foreground (deletionTimestamp and the foregroundDeletion finalizer).
	ownerWaiting
	// ownerUnknownKind: the reference names a kind the cluster does not
	// serve; it cannot be resolved.
	ownerUnknownKind
	// ownerInvalidScope: a cluster-scoped dependent names a namespaced
	// kind; no namespace to look in, an error that retries cannot fix.
	ownerInvalidScope
)

func (s ownerState) String() string {
	switch s {
	case ownerSolid:
		return "solid"
	case ownerAbsent:
		return "absent"
	case ownerWaiting:
		return "waiting"
	case ownerUnknownKind:
		return "unknown-kind"
	case ownerInvalidScope:
		return "invalid-scope"
	}
	return "?"
}

// owner is one owner reference of an item with its live state.
type owner struct {
	ref   api.OwnerReference
	state ownerState
}

// item is the live state of the object the collector attempts to delete.
type item struct {
	// deleting is true once the object has a deletionTimestamp.
	deleting bool
	// finalizers are the object's metadata.finalizers.
	finalizers []string
}

func (it item) has(finalizer string) bool { return slices.Contains(it.finalizers, finalizer) }

// deletingDependents is true for an object in foreground deletion.
func (it item) deletingDependents() bool {
	return it.deleting && it.has(client.FinalizerDeleteDependents)
}

// dependent is one node of the graph that names the item as an owner.
type dependent struct {
	uid api.UID
	// blocking is true when the dependent's reference to the item has
	// blockOwnerDeletion set.
	blocking bool
	// deletingDependents is true when the dependent is itself in
	// foreground deletion.
	deletingDependents bool
}

// action is what the collector does to an item.
type action int

const (
	// actNone: leave the item alone.
	actNone action = iota
	// actDelete: delete the item with decision.policy.
	actDelete
	// actRemoveRefs: remove the owner references decision.refs (the
	// absent and waiting owners of an item that keeps a solid one).
	actRemoveRefs
	// actUnblockAndDelete: set blockOwnerDeletion to false on every
	// blocking reference of the item, then delete it in the foreground
	// (breaks a cycle of foreground deletions).
	actUnblockAndDelete
	// actRemoveFinalizer: remove foregroundDeletion from the item; its
	// blocking dependents are gone.
	actRemoveFinalizer
	// actWait: the item waits for its blocking dependents; decision.enqueue
	// lists those to attempt to delete.
	actWait
)

func (a action) String() string {
	return [...]string{"none", "delete", "remove-refs", "unblock-and-delete", "remove-finalizer", "wait"}[a]
}

// decision is the outcome of decide.
type decision struct {
	action action
	// policy is the propagation policy of actDelete and actUnblockAndDelete.
	policy client.PropagationPolicy
	// refs are the owner UIDs whose references actRemoveRefs removes.
	refs []api.UID
	// enqueue are the dependents actWait asks to attempt to delete.
	enqueue []api.UID
	// unresolvable are the references that kept an actNone item from
	// being collected (unknown kind, invalid scope), for logs and events.
	unresolvable []owner
}

// decide is kube-controller-manager's attemptToDeleteItem as a pure
// function of the item's live state, the live states of its owners (in
// the order of its ownerReferences) and the graph's dependents of the
// item. owners is only read when the item is not being deleted.
//
//   - An item being deleted, not in the foreground, is left alone: its
//     deletion is a one-way trip, its dependents are handled when it goes.
//   - An item in foreground deletion waits until it has no blocking
//     dependent, then loses its foregroundDeletion finalizer
//     (processDeletingDependentsItem); while waiting it asks for each
//     blocking dependent not itself deleting its dependents to be
//     attempted.
//   - An item without owner references is left alone.
//   - A reference that cannot be resolved leaves the item alone.
//   - With a solid owner, the absent and waiting owners' references are
//     removed, and the item stays.
//   - With an owner waiting for it and dependents of its own, the item is
//     deleted in the foreground, after its blocking references are
//     unblocked when a dependent is itself deleting its dependents (a
//     cycle).
//   - Otherwise every owner is gone or going: the item is deleted with the
//     policy its own finalizers ask for (orphan, foreground, else
//     background).
func decide(it item, owners []owner, dependents []dependent) decision {
	if it.deleting && !it.deletingDependents() {
		return decision{action: actNone}
	}
	if it.deletingDependents() {
		var enqueue []api.UID
		blocking := 0
		for _, d := range dependents {
			if !d.blocking {
				continue
			}
			blocking++
			if !d.deletingDependents {
				enqueue = append(enqueue, d.uid)
			}
		}
		if blocking == 0 {
			return decision{action: actRemoveFinalizer}
		}
		return decision{action: actWait, enqueue: enqueue}
	}
	if len(owners) == 0 {
		return decision{action: actNone}
	}
	var solid, waiting int
	var dangling []api.UID
	var unresolvable []owner
	for _, o := range owners {
		switch o.state {
		case ownerSolid:
			solid++
		case ownerAbsent:
			dangling = append(dangling, o.ref.UID)
		case ownerWaiting:
			waiting++
			dangling = append(dangling, o.ref.UID)
		default:
			unresolvable = append(unresolvable, o)
		}
	}
	switch {
	case len(unresolvable) > 0:
		return decision{action: actNone, unresolvable: unresolvable}
	case solid > 0:
		if len(dangling) == 0 {
			return decision{action: actNone}
		}
		return decision{action: actRemoveRefs, refs: dangling}
	case waiting > 0 && len(dependents) > 0:
		for _, d := range dependents {
			if d.deletingDependents {
				return decision{action: actUnblockAndDelete, policy: client.DeletePropagationForeground}
			}
		}
		return decision{action: actDelete, policy: client.DeletePropagationForeground}
	}
	policy := client.DeletePropagationBackground
	switch {
	case it.has(client.FinalizerOrphanDependents):
		policy = client.DeletePropagationOrphan
	case it.has(client.FinalizerDeleteDependents):
		policy = client.DeletePropagationForeground
	}
	return decision{action: actDelete, policy: policy}
}
