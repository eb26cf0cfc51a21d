package daemonset

import (
	"maps"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/ctrlutil"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
)

// register wires the informers' events to the queue, as kcm's handlers
// do: a set's events enqueue it (its delete drops its expectations); a
// pod's events lower the expectations of the set its controller
// reference resolves to and enqueue it — or, for an orphan, every set
// whose selector picks it; a node's add enqueues the sets that should
// run on it, its update those for which ShouldRun changed, its delete
// every set; a revision's events enqueue its set, or the sets that could
// adopt it.
func (m *manager) register() error {
	opts := reconcile.WatchOptions{Handler: informer.HandlerOptions{Name: m.ctl.Name()}}
	if _, err := reconcile.WatchEvents(m.ctl, m.sets, reconcile.Events[*api.DaemonSet, string]{
		Map: reconcile.ByKey(api.Key[*api.DaemonSet]),
		Delete: func(ds *api.DaemonSet) []string {
			m.exp.Delete(api.Key(ds))
			return []string{api.Key(ds)}
		},
	}, opts); err != nil {
		return err
	}
	podExp := ctrlutil.NewPodExpectations(m.exp, m.podOwner, ctrlutil.PodExpectationsOptions{})
	if _, err := reconcile.WatchEvents(m.ctl, reconcile.Observe(m.pods, informer.Handler[*api.Pod](podExp)), ownedEvents[*api.Pod](m), opts); err != nil {
		return err
	}
	if _, err := reconcile.WatchEvents(m.ctl, m.nodes, reconcile.Events[*api.Node, string]{
		Create: func(n *api.Node) []string {
			var keys []string
			for _, ds := range m.sets.Lister().List(nil) {
				if run, _ := ShouldRun(ds, n); run {
					keys = append(keys, api.Key(ds))
				}
			}
			return keys
		},
		Update: func(old, cur *api.Node) []string {
			if old.ResourceVersion == cur.ResourceVersion {
				return nil
			}
			var keys []string
			for _, ds := range m.sets.Lister().List(nil) {
				r0, c0 := ShouldRun(ds, old)
				r1, c1 := ShouldRun(ds, cur)
				if r0 != r1 || c0 != c1 {
					keys = append(keys, api.Key(ds))
				}
			}
			return keys
		},
		Delete: func(*api.Node) []string {
			var keys []string
			for _, ds := range m.sets.Lister().List(nil) {
				keys = append(keys, api.Key(ds))
			}
			return keys
		},
	}, opts); err != nil {
		return err
	}
	_, err := reconcile.WatchEvents(m.ctl, m.revisions, ownedEvents[*api.ControllerRevision](m), opts)
	return err
}

// ownedEvents maps the events of a pod or a revision (kcm's addPod,
// updatePod, deletePod and their history twins): an add enqueues the set
// its controller reference resolves to — or, for an orphan not being
// deleted, the sets that could adopt it; an update is updated's; a
// delete enqueues its set.
func ownedEvents[T api.MetaObject](m *manager) reconcile.Events[T, string] {
	return reconcile.Events[T, string]{
		Create: func(o T) []string {
			meta := o.GetObjectMeta()
			if meta.DeletionTimestamp != nil || meta.ControllerRef() != nil {
				return m.owner(*meta)
			}
			return m.matching(meta.Namespace, meta.Labels)
		},
		Update: func(old, cur T) []string {
			o, c := old.GetObjectMeta(), cur.GetObjectMeta()
			if o.ResourceVersion == c.ResourceVersion {
				return nil
			}
			return m.updated(*o, *c)
		},
		Delete: func(o T) []string { return m.owner(*o.GetObjectMeta()) },
	}
}

// updated maps a pod's or revision's update (kcm's updatePod and
// updateHistory): a changed controller reference wakes the old owner;
// the current owner is woken; an orphan whose labels or reference
// changed wakes the sets that could adopt it.
func (m *manager) updated(old, cur api.ObjectMeta) []string {
	var keys []string
	oldRef, curRef := old.ControllerRef(), cur.ControllerRef()
	refChanged := (oldRef == nil) != (curRef == nil) || (oldRef != nil && oldRef.UID != curRef.UID)
	if refChanged && oldRef != nil {
		keys = m.owner(old)
	}
	if curRef != nil {
		return append(keys, m.owner(cur)...)
	}
	if refChanged || !maps.Equal(old.Labels, cur.Labels) {
		keys = append(keys, m.matching(cur.Namespace, cur.Labels)...)
	}
	return keys
}

// owner maps meta to the set its controller reference resolves to.
func (m *manager) owner(meta api.ObjectMeta) []string {
	if key, ok := m.ownerKey(meta); ok {
		return []string{key}
	}
	return nil
}

func (m *manager) podOwner(p *api.Pod) (string, bool) { return m.ownerKey(p.ObjectMeta) }

// ownerKey resolves a controller reference to a DaemonSet in the cache
// with the same UID (resolveControllerRef).
func (m *manager) ownerKey(meta api.ObjectMeta) (string, bool) {
	ref := meta.ControllerRef()
	if ref == nil || ref.Kind != "DaemonSet" {
		return "", false
	}
	key := api.NamespacedKey(meta.Namespace, ref.Name)
	ds, ok := m.sets.Lister().Get(key)
	if !ok || ds.UID != ref.UID {
		return "", false
	}
	return key, true
}

// matching returns the sets of namespace whose selector picks labels
// (getDaemonSetsForPod, getDaemonSetsForHistory).
func (m *manager) matching(namespace string, labels map[string]string) []string {
	var keys []string
	for _, ds := range m.sets.Lister().Namespace(namespace).List(nil) {
		sel, err := ds.Spec.Selector.AsSelector()
		if err != nil || sel.Empty() || !sel.Matches(labels) {
			continue
		}
		keys = append(keys, api.Key(ds))
	}
	return keys
}
