package statefulset

import (
	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/informer"
)

// register wires the informers to the queue: a set's events enqueue it;
// a pod's events enqueue the set its controller reference resolves to
// or, for an orphan, every set whose selector picks it (kcm's addPod,
// updatePod, deletePod); a claim's or revision's events enqueue the sets
// of its namespace whose selector picks its labels — a deleted stale
// claim unblocks a pod, a revision event lets the consistency gate open.
func (m *manager) register() error {
	enqueue := func(s *api.StatefulSet) { m.ctl.Enqueue(api.Key(s)) }
	reg, err := m.sets.AddEventHandler(informer.HandlerFuncs[*api.StatefulSet]{
		AddFunc:    func(s *api.StatefulSet, _ bool) { enqueue(s) },
		UpdateFunc: func(_, s *api.StatefulSet) { enqueue(s) },
		DeleteFunc: func(s *api.StatefulSet, _ bool) { enqueue(s) },
	}, informer.HandlerOptions{Name: component})
	if err != nil {
		return err
	}
	if err := m.ctl.AddSyncCheck(reg.HasSynced); err != nil {
		return err
	}
	reg, err = m.pods.AddEventHandler(informer.HandlerFuncs[*api.Pod]{
		AddFunc: func(p *api.Pod, _ bool) { m.podChanged(p) },
		UpdateFunc: func(old, cur *api.Pod) {
			if old.ResourceVersion == cur.ResourceVersion {
				return
			}
			if o, c := old.ControllerRef(), cur.ControllerRef(); o != nil && (c == nil || c.UID != o.UID) {
				m.podChanged(old)
			}
			m.podChanged(cur)
		},
		DeleteFunc: func(p *api.Pod, _ bool) { m.podChanged(p) },
	}, informer.HandlerOptions{Name: component})
	if err != nil {
		return err
	}
	if err := m.ctl.AddSyncCheck(reg.HasSynced); err != nil {
		return err
	}
	reg, err = m.claims.AddEventHandler(informer.HandlerFuncs[*api.PersistentVolumeClaim]{
		AddFunc:    func(c *api.PersistentVolumeClaim, _ bool) { m.enqueueMatching(c.Namespace, c.Labels) },
		UpdateFunc: func(_, c *api.PersistentVolumeClaim) { m.enqueueMatching(c.Namespace, c.Labels) },
		DeleteFunc: func(c *api.PersistentVolumeClaim, _ bool) { m.enqueueMatching(c.Namespace, c.Labels) },
	}, informer.HandlerOptions{Name: component})
	if err != nil {
		return err
	}
	if err := m.ctl.AddSyncCheck(reg.HasSynced); err != nil {
		return err
	}
	reg, err = m.revs.AddEventHandler(informer.HandlerFuncs[*api.ControllerRevision]{
		AddFunc:    func(r *api.ControllerRevision, _ bool) { m.enqueueMatching(r.Namespace, r.Labels) },
		DeleteFunc: func(r *api.ControllerRevision, _ bool) { m.enqueueMatching(r.Namespace, r.Labels) },
	}, informer.HandlerOptions{Name: component})
	if err != nil {
		return err
	}
	return m.ctl.AddSyncCheck(reg.HasSynced)
}

// podChanged enqueues the set that controls p (same UID), or for an
// orphan the sets that could adopt it.
func (m *manager) podChanged(p *api.Pod) {
	if ref := p.ControllerRef(); ref != nil {
		if ref.Kind != "StatefulSet" {
			return
		}
		key := api.NamespacedKey(p.Namespace, ref.Name)
		if s, ok := m.sets.Lister().Get(key); ok && s.UID == ref.UID {
			m.ctl.Enqueue(key)
		}
		return
	}
	m.enqueueMatching(p.Namespace, p.Labels)
}

func (m *manager) enqueueMatching(ns string, labels map[string]string) {
	for _, s := range m.sets.Lister().Namespace(ns).List(nil) {
		sel, err := s.Spec.Selector.AsSelector()
		if err != nil || sel.Empty() || !sel.Matches(labels) {
			continue
		}
		m.ctl.Enqueue(api.Key(s))
	}
}
