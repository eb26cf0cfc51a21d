package statefulset

import (
	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
)

// register wires the informers to the queue: a set's events enqueue it;
// a pod's events enqueue the set its controller reference resolves to
// or, for an orphan, every set whose selector picks it (kcm's addPod,
// updatePod, deletePod); a claim's or revision's events enqueue the sets
// of its namespace whose selector picks its labels — a deleted stale
// claim unblocks a pod, a revision event lets the consistency gate open.
func (m *manager) register() error {
	opts := reconcile.WatchOptions{Handler: informer.HandlerOptions{Name: component}}
	if _, err := reconcile.Watch(m.ctl, m.sets, reconcile.ByKey(api.Key[*api.StatefulSet]), opts); err != nil {
		return err
	}
	if _, err := reconcile.WatchEvents(m.ctl, m.pods, reconcile.Events[*api.Pod, string]{
		Map: m.setsOfPod,
		Update: func(old, cur *api.Pod) []string {
			if old.ResourceVersion == cur.ResourceVersion {
				return nil // a resync
			}
			var keys []string
			if o, c := old.ControllerRef(), cur.ControllerRef(); o != nil && (c == nil || c.UID != o.UID) {
				keys = m.setsOfPod(old)
			}
			return append(keys, m.setsOfPod(cur)...)
		},
	}, opts); err != nil {
		return err
	}
	if _, err := reconcile.Watch(m.ctl, m.claims, func(c *api.PersistentVolumeClaim) []string {
		return m.matching(c.Namespace, c.Labels)
	}, opts); err != nil {
		return err
	}
	revs := func(r *api.ControllerRevision) []string { return m.matching(r.Namespace, r.Labels) }
	_, err := reconcile.WatchEvents(m.ctl, m.revs, reconcile.Events[*api.ControllerRevision, string]{Create: revs, Delete: revs}, opts)
	return err
}

// setsOfPod maps p to the set that controls it (same UID), or for an
// orphan to the sets that could adopt it.
func (m *manager) setsOfPod(p *api.Pod) []string {
	if ref := p.ControllerRef(); ref != nil {
		if ref.Kind != "StatefulSet" {
			return nil
		}
		key := api.NamespacedKey(p.Namespace, ref.Name)
		if s, ok := m.sets.Lister().Get(key); ok && s.UID == ref.UID {
			return []string{key}
		}
		return nil
	}
	return m.matching(p.Namespace, p.Labels)
}

// matching returns the keys of the sets of ns whose selector picks labels.
func (m *manager) matching(ns string, labels map[string]string) []string {
	var keys []string
	for _, s := range m.sets.Lister().Namespace(ns).List(nil) {
		sel, err := s.Spec.Selector.AsSelector()
		if err != nil || sel.Empty() || !sel.Matches(labels) {
			continue
		}
		keys = append(keys, api.Key(s))
	}
	return keys
}
