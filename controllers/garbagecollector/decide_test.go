package garbagecollector

import (
	"slices"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

func ref(uid string, blocking bool) api.OwnerReference {
	return api.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs-" + uid, UID: api.UID(uid), BlockOwnerDeletion: &blocking}
}

func own(uid string, s ownerState) owner { return owner{ref: ref(uid, true), state: s} }

// The cases follow the branches of kube-controller-manager's
// attemptToDeleteItem and processDeletingDependentsItem
// (pkg/controller/garbagecollector/garbagecollector.go) and the
// scenarios of its garbagecollector_test.go (TestAttemptToDeleteItem,
// TestDependentsRace, the "[blocking] dependents" cases).
func TestDecide(t *testing.T) {
	const (
		fg     = cluster.FinalizerDeleteDependents
		orphan = cluster.FinalizerOrphanDependents
	)
	tests := []struct {
		name       string
		item       item
		owners     []owner
		dependents []dependent
		want       decision
	}{
		{
			name: "no owner references: nothing",
			want: decision{action: actNone},
		},
		{
			name:   "the only owner is solid: nothing",
			owners: []owner{own("a", ownerSolid)},
			want:   decision{action: actNone},
		},
		{
			name:   "the only owner is absent: delete in the background",
			owners: []owner{own("a", ownerAbsent)},
			want:   decision{action: actDelete, policy: cluster.DeletePropagationBackground},
		},
		{
			name:   "every owner is absent: delete",
			owners: []owner{own("a", ownerAbsent), own("b", ownerAbsent)},
			want:   decision{action: actDelete, policy: cluster.DeletePropagationBackground},
		},
		{
			name:   "one owner of two is absent: remove only its reference",
			owners: []owner{own("a", ownerSolid), own("b", ownerAbsent)},
			want:   decision{action: actRemoveRefs, refs: []api.UID{"b"}},
		},
		{
			name:   "a solid owner and one in foreground deletion: remove the waiting one's reference",
			owners: []owner{own("a", ownerWaiting), own("b", ownerSolid), own("c", ownerAbsent)},
			want:   decision{action: actRemoveRefs, refs: []api.UID{"a", "c"}},
		},
		{
			name:   "owner in foreground deletion, no dependents: delete in the background",
			owners: []owner{own("a", ownerWaiting)},
			want:   decision{action: actDelete, policy: cluster.DeletePropagationBackground},
		},
		{
			name:       "owner in foreground deletion, dependents of its own: delete in the foreground",
			owners:     []owner{own("a", ownerWaiting)},
			dependents: []dependent{{uid: "p1", blocking: true}},
			want:       decision{action: actDelete, policy: cluster.DeletePropagationForeground},
		},
		{
			name:       "foreground cycle: a dependent is deleting its dependents: unblock, then delete in the foreground",
			owners:     []owner{own("a", ownerWaiting)},
			dependents: []dependent{{uid: "a", blocking: true, deletingDependents: true}},
			want:       decision{action: actUnblockAndDelete, policy: cluster.DeletePropagationForeground},
		},
		{
			name:   "owners gone, the item asks to orphan its own dependents: delete with Orphan",
			item:   item{finalizers: []string{orphan}},
			owners: []owner{own("a", ownerAbsent)},
			want:   decision{action: actDelete, policy: cluster.DeletePropagationOrphan},
		},
		{
			name:   "owners gone, the item carries foregroundDeletion: delete in the foreground",
			item:   item{finalizers: []string{"x", fg}},
			owners: []owner{own("a", ownerAbsent)},
			want:   decision{action: actDelete, policy: cluster.DeletePropagationForeground},
		},
		{
			name:   "a reference to an unknown kind: nothing, whatever the others",
			owners: []owner{own("a", ownerAbsent), own("b", ownerUnknownKind)},
			want:   decision{action: actNone, unresolvable: []owner{own("b", ownerUnknownKind)}},
		},
		{
			name:   "a cluster-scoped item names a namespaced owner: nothing",
			owners: []owner{own("a", ownerInvalidScope)},
			want:   decision{action: actNone, unresolvable: []owner{own("a", ownerInvalidScope)}},
		},
		{
			name:   "being deleted in the background: nothing",
			item:   item{deleting: true},
			owners: []owner{own("a", ownerAbsent)},
			want:   decision{action: actNone},
		},
		{
			name:   "being deleted with orphan: nothing here (the orphan queue's job)",
			item:   item{deleting: true, finalizers: []string{orphan}},
			owners: []owner{own("a", ownerAbsent)},
			want:   decision{action: actNone},
		},
		{
			name: "foreground deletion, no dependents: remove the finalizer",
			item: item{deleting: true, finalizers: []string{fg}},
			want: decision{action: actRemoveFinalizer},
		},
		{
			name:       "foreground deletion, only non-blocking dependents: remove the finalizer",
			item:       item{deleting: true, finalizers: []string{fg}},
			dependents: []dependent{{uid: "p1"}, {uid: "p2"}},
			want:       decision{action: actRemoveFinalizer},
		},
		{
			name: "foreground deletion, blocking dependents: wait, attempting those not deleting their own",
			item: item{deleting: true, finalizers: []string{fg}},
			dependents: []dependent{
				{uid: "p1", blocking: true},
				{uid: "p2"},
				{uid: "rs", blocking: true, deletingDependents: true},
			},
			want: decision{action: actWait, enqueue: []api.UID{"p1"}},
		},
		{
			name:   "foreground deletion ignores the item's own owners",
			item:   item{deleting: true, finalizers: []string{fg}},
			owners: []owner{own("a", ownerAbsent)},
			want:   decision{action: actRemoveFinalizer},
		},
		{
			name:   "not deleting, foregroundDeletion set in advance, owner solid: nothing",
			item:   item{finalizers: []string{fg}},
			owners: []owner{own("a", ownerSolid)},
			want:   decision{action: actNone},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := decide(tt.item, tt.owners, tt.dependents)
			if got.action != tt.want.action || got.policy != tt.want.policy ||
				!slices.Equal(got.refs, tt.want.refs) || !slices.Equal(got.enqueue, tt.want.enqueue) ||
				len(got.unresolvable) != len(tt.want.unresolvable) {
				t.Errorf("decide = %+v, want %+v", got, tt.want)
			}
			for i := range got.unresolvable {
				if got.unresolvable[i].ref.UID != tt.want.unresolvable[i].ref.UID || got.unresolvable[i].state != tt.want.unresolvable[i].state {
					t.Errorf("unresolvable[%d] = %v, want %v", i, got.unresolvable[i], tt.want.unresolvable[i])
				}
			}
		})
	}
}

func TestReferencesDiffs(t *testing.T) {
	a, b, c := ref("a", true), ref("b", false), ref("c", true)
	cUnblocked := ref("c", false)
	added, removed, changed := referencesDiffs([]api.OwnerReference{a, c}, []api.OwnerReference{b, cUnblocked})
	if len(added) != 1 || added[0].UID != "b" {
		t.Errorf("added = %v", added)
	}
	if len(removed) != 1 || removed[0].UID != "a" {
		t.Errorf("removed = %v", removed)
	}
	if len(changed) != 1 || changed[0][0].UID != "c" || isBlocking(changed[0][1]) {
		t.Errorf("changed = %v", changed)
	}
}
