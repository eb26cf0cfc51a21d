package daemonset

import (
	"maps"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/ctrlutil"
	"github.com/ctrlkit/ctrlkit/informer"
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
	name := informer.HandlerOptions{Name: m.ctl.Name()}
	reg, err := m.sets.AddEventHandler(informer.HandlerFuncs[*api.DaemonSet]{
		AddFunc:    func(ds *api.DaemonSet, _ bool) { m.ctl.Enqueue(api.Key(ds)) },
		UpdateFunc: func(_, ds *api.DaemonSet) { m.ctl.Enqueue(api.Key(ds)) },
		DeleteFunc: func(ds *api.DaemonSet, _ bool) {
			m.exp.Delete(api.Key(ds))
			m.ctl.Enqueue(api.Key(ds))
		},
	}, name)
	if err != nil {
		return err
	}
	if err := m.ctl.AddSyncCheck(reg.HasSynced); err != nil {
		return err
	}

	podExp := ctrlutil.NewPodExpectations(m.exp, m.podOwner, ctrlutil.PodExpectationsOptions{})
	reg, err = m.pods.AddEventHandler(podExp.Wrap(informer.HandlerFuncs[*api.Pod]{
		AddFunc: func(p *api.Pod, _ bool) {
			if p.DeletionTimestamp != nil || p.ControllerRef() != nil {
				m.enqueueOwner(p.ObjectMeta)
				return
			}
			m.enqueueMatching(p.Namespace, p.Labels)
		},
		UpdateFunc: func(old, cur *api.Pod) {
			if old.ResourceVersion == cur.ResourceVersion {
				return
			}
			m.updated(old.ObjectMeta, cur.ObjectMeta)
		},
		DeleteFunc: func(p *api.Pod, _ bool) { m.enqueueOwner(p.ObjectMeta) },
	}), name)
	if err != nil {
		return err
	}
	if err := m.ctl.AddSyncCheck(reg.HasSynced); err != nil {
		return err
	}

	reg, err = m.nodes.AddEventHandler(informer.HandlerFuncs[*api.Node]{
		AddFunc: func(n *api.Node, _ bool) {
			for _, ds := range m.sets.Lister().List(nil) {
				if run, _ := ShouldRun(ds, n); run {
					m.ctl.Enqueue(api.Key(ds))
				}
			}
		},
		UpdateFunc: func(old, cur *api.Node) {
			if old.ResourceVersion == cur.ResourceVersion {
				return
			}
			for _, ds := range m.sets.Lister().List(nil) {
				r0, c0 := ShouldRun(ds, old)
				r1, c1 := ShouldRun(ds, cur)
				if r0 != r1 || c0 != c1 {
					m.ctl.Enqueue(api.Key(ds))
				}
			}
		},
		DeleteFunc: func(*api.Node, bool) {
			for _, ds := range m.sets.Lister().List(nil) {
				m.ctl.Enqueue(api.Key(ds))
			}
		},
	}, name)
	if err != nil {
		return err
	}
	if err := m.ctl.AddSyncCheck(reg.HasSynced); err != nil {
		return err
	}

	reg, err = m.revisions.AddEventHandler(informer.HandlerFuncs[*api.ControllerRevision]{
		AddFunc: func(r *api.ControllerRevision, _ bool) {
			if r.DeletionTimestamp != nil || r.ControllerRef() != nil {
				m.enqueueOwner(r.ObjectMeta)
				return
			}
			m.enqueueMatching(r.Namespace, r.Labels)
		},
		UpdateFunc: func(old, cur *api.ControllerRevision) {
			if old.ResourceVersion == cur.ResourceVersion {
				return
			}
			m.updated(old.ObjectMeta, cur.ObjectMeta)
		},
		DeleteFunc: func(r *api.ControllerRevision, _ bool) { m.enqueueOwner(r.ObjectMeta) },
	}, name)
	if err != nil {
		return err
	}
	return m.ctl.AddSyncCheck(reg.HasSynced)
}

// updated handles a pod's or revision's update (kcm's updatePod and
// updateHistory): a changed controller reference wakes the old owner;
// the current owner is woken; an orphan whose labels or reference
// changed wakes the sets that could adopt it.
func (m *manager) updated(old, cur api.ObjectMeta) {
	oldRef, curRef := old.ControllerRef(), cur.ControllerRef()
	refChanged := (oldRef == nil) != (curRef == nil) || (oldRef != nil && oldRef.UID != curRef.UID)
	if refChanged && oldRef != nil {
		m.enqueueOwner(old)
	}
	if curRef != nil {
		m.enqueueOwner(cur)
		return
	}
	if refChanged || !maps.Equal(old.Labels, cur.Labels) {
		m.enqueueMatching(cur.Namespace, cur.Labels)
	}
}

// enqueueOwner enqueues the set meta's controller reference resolves to.
func (m *manager) enqueueOwner(meta api.ObjectMeta) {
	if key, ok := m.ownerKey(meta); ok {
		m.ctl.Enqueue(key)
	}
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

// enqueueMatching enqueues the sets of namespace whose selector picks
// labels (getDaemonSetsForPod, getDaemonSetsForHistory).
func (m *manager) enqueueMatching(namespace string, labels map[string]string) {
	for _, ds := range m.sets.Lister().Namespace(namespace).List(nil) {
		sel, err := ds.Spec.Selector.AsSelector()
		if err != nil || sel.Empty() || !sel.Matches(labels) {
			continue
		}
		m.ctl.Enqueue(api.Key(ds))
	}
}
