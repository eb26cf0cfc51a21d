package replicaset

import (
	"maps"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/ctrlutil"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
)

// register wires the informers' events to the queue: an owner's events
// enqueue the owner (and its delete drops its expectations first); a
// pod's events lower the expectations of the owner its controller
// reference resolves to (ctrlutil.PodExpectations, through
// reconcile.Observe) and enqueue that owner — or, for an orphan, every
// owner whose selector picks it, which may adopt it.
func (m *manager[T]) register() error {
	opts := reconcile.WatchOptions{Handler: informer.HandlerOptions{Name: m.ctl.Name()}}
	if _, err := reconcile.WatchEvents(m.ctl, m.owners, reconcile.Events[T, string]{
		Map: reconcile.ByKey(api.Key[T]),
		Delete: func(o T) []string {
			m.exp.Delete(api.Key(o))
			m.tally.forget(o.GetObjectMeta().UID)
			return []string{api.Key(o)}
		},
	}, opts); err != nil {
		return err
	}
	podExp := ctrlutil.NewPodExpectations(m.exp, m.controllerKey, ctrlutil.PodExpectationsOptions{})
	_, err := reconcile.WatchEvents(m.ctl, reconcile.Observe(m.pods, informer.Handler[*api.Pod](podExp)), reconcile.Events[*api.Pod, string]{
		// The tally is kept before the owner is enqueued (tally).
		Create: func(p *api.Pod) []string {
			m.tally.observe(nil, p)
			return m.addPod(p)
		},
		Update: func(old, cur *api.Pod) []string {
			if old.ResourceVersion != cur.ResourceVersion {
				m.tally.observe(old, cur)
			}
			return m.updatePod(old, cur)
		},
		Delete: func(p *api.Pod) []string {
			m.tally.observe(p, nil)
			return m.controllerOf(p)
		},
	}, opts)
	return err
}

// addPod: a new pod wakes its controller, or the owners that could adopt
// it. A pod added while being deleted (a restart of the controller
// during a graceful deletion) counts as deleted.
func (m *manager[T]) addPod(p *api.Pod) []string {
	if p.DeletionTimestamp != nil || p.ControllerRef() != nil {
		return m.controllerOf(p)
	}
	return m.matching(p)
}

// updatePod: kube-controller-manager's updatePod. A pod that gains a
// deletion timestamp counts as deleted (both owners are told if its
// labels changed too); a pod whose controller reference changed wakes
// its old controller; an orphan whose labels or reference changed wakes
// the owners that could adopt it.
func (m *manager[T]) updatePod(old, cur *api.Pod) []string {
	if old.ResourceVersion == cur.ResourceVersion {
		return nil // a resync: both are the cached object
	}
	labelsChanged := !maps.Equal(old.Labels, cur.Labels)
	if cur.DeletionTimestamp != nil {
		keys := m.controllerOf(cur)
		if labelsChanged {
			keys = append(keys, m.controllerOf(old)...)
		}
		return keys
	}
	var keys []string
	oldRef, curRef := old.ControllerRef(), cur.ControllerRef()
	refChanged := (oldRef == nil) != (curRef == nil) || (oldRef != nil && oldRef.UID != curRef.UID)
	if refChanged && oldRef != nil {
		keys = m.controllerOf(old)
	}
	if curRef != nil {
		return append(keys, m.controllerOf(cur)...)
	}
	if labelsChanged || refChanged {
		keys = append(keys, m.matching(cur)...)
	}
	return keys
}

// controllerOf maps p to the owner its controller reference resolves to.
func (m *manager[T]) controllerOf(p *api.Pod) []string {
	if key, ok := m.controllerKey(p); ok {
		return []string{key}
	}
	return nil
}

// controllerKey resolves p's controller reference to an owner of this
// kind in the cache with the same UID (resolveControllerRef): a
// reference to a deleted owner, or to an older one of the same name,
// resolves to nothing.
func (m *manager[T]) controllerKey(p *api.Pod) (string, bool) {
	ref := p.ControllerRef()
	if ref == nil || ref.Kind != m.kind.name {
		return "", false
	}
	key := api.NamespacedKey(p.Namespace, ref.Name)
	o, ok := m.owners.Lister().Get(key)
	if !ok || o.GetObjectMeta().UID != ref.UID {
		return "", false
	}
	return key, true
}

// matching returns every owner in p's namespace whose selector picks p
// (getPodReplicaSets): candidates to adopt an orphan.
func (m *manager[T]) matching(p *api.Pod) []string {
	var keys []string
	for _, o := range m.owners.Lister().Namespace(p.Namespace).List(nil) {
		sp, err := m.kind.spec(o)
		if err != nil || sp.selector.Empty() || !sp.selector.Matches(p.Labels) {
			continue
		}
		keys = append(keys, api.Key(o))
	}
	return keys
}
