package replicaset

import (
	"maps"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/ctrlutil"
	"github.com/ctrlkit/ctrlkit/informer"
)

// register wires the informers' events to the queue: an owner's events
// enqueue the owner (and its delete drops its expectations); a pod's
// events lower the expectations of the owner its controller reference
// resolves to (ctrlutil.PodExpectations) and enqueue that owner — or,
// for an orphan, every owner whose selector picks it, which may adopt it.
func (m *manager[T]) register() error {
	reg, err := m.owners.AddEventHandler(informer.HandlerFuncs[T]{
		AddFunc:    func(o T, _ bool) { m.ctl.Enqueue(api.Key(o)) },
		UpdateFunc: func(_, o T) { m.ctl.Enqueue(api.Key(o)) },
		DeleteFunc: func(o T, _ bool) {
			m.exp.Delete(api.Key(o))
			m.ctl.Enqueue(api.Key(o))
		},
	}, informer.HandlerOptions{Name: m.ctl.Name()})
	if err != nil {
		return err
	}
	if err := m.ctl.AddSyncCheck(reg.HasSynced); err != nil {
		return err
	}
	podExp := ctrlutil.NewPodExpectations(m.exp, m.controllerKey, ctrlutil.PodExpectationsOptions{})
	reg, err = m.pods.AddEventHandler(podExp.Wrap(informer.HandlerFuncs[*api.Pod]{
		AddFunc:    func(p *api.Pod, _ bool) { m.addPod(p) },
		UpdateFunc: m.updatePod,
		DeleteFunc: func(p *api.Pod, _ bool) { m.enqueueController(p) },
	}), informer.HandlerOptions{Name: m.ctl.Name()})
	if err != nil {
		return err
	}
	return m.ctl.AddSyncCheck(reg.HasSynced)
}

// addPod: a new pod wakes its controller, or the owners that could adopt
// it. A pod added while being deleted (a restart of the controller
// during a graceful deletion) counts as deleted.
func (m *manager[T]) addPod(p *api.Pod) {
	if p.DeletionTimestamp != nil || p.ControllerRef() != nil {
		m.enqueueController(p)
		return
	}
	m.enqueueMatching(p)
}

// updatePod: kube-controller-manager's updatePod. A pod that gains a
// deletion timestamp counts as deleted (both owners are told if its
// labels changed too); a pod whose controller reference changed wakes
// its old controller; an orphan whose labels or reference changed wakes
// the owners that could adopt it.
func (m *manager[T]) updatePod(old, cur *api.Pod) {
	if old.ResourceVersion == cur.ResourceVersion {
		return // a resync: both are the cached object
	}
	labelsChanged := !maps.Equal(old.Labels, cur.Labels)
	if cur.DeletionTimestamp != nil {
		m.enqueueController(cur)
		if labelsChanged {
			m.enqueueController(old)
		}
		return
	}
	oldRef, curRef := old.ControllerRef(), cur.ControllerRef()
	refChanged := (oldRef == nil) != (curRef == nil) || (oldRef != nil && oldRef.UID != curRef.UID)
	if refChanged && oldRef != nil {
		m.enqueueController(old)
	}
	if curRef != nil {
		m.enqueueController(cur)
		return
	}
	if labelsChanged || refChanged {
		m.enqueueMatching(cur)
	}
}

// enqueueController enqueues the owner p's controller reference resolves to.
func (m *manager[T]) enqueueController(p *api.Pod) {
	if key, ok := m.controllerKey(p); ok {
		m.ctl.Enqueue(key)
	}
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

// enqueueMatching enqueues every owner in p's namespace whose selector
// picks p (getPodReplicaSets): candidates to adopt an orphan.
func (m *manager[T]) enqueueMatching(p *api.Pod) {
	for _, o := range m.owners.Lister().Namespace(p.Namespace).List(nil) {
		sp, err := m.kind.spec(o)
		if err != nil || sp.selector.Empty() || !sp.selector.Matches(p.Labels) {
			continue
		}
		m.ctl.Enqueue(api.Key(o))
	}
}
