package ctrlutil

import (
	"sync"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/expectations"
	"github.com/ctrlkit/ctrlkit/informer"
)

// PodExpectations is the expectations wiring of a pod informer's
// handlers, which kube-controller-manager's ReplicaSet, Job and DaemonSet
// controllers write by hand in their addPod, updatePod and deletePod:
//
//   - a creation is observed when a pod's add arrives — or, if the
//     handler lagged and the pod's add and delete coalesced, when its
//     delete arrives — once per pod;
//   - a deletion is observed when a pod's deletion timestamp appears (on
//     an add or an update: a pod being deleted counts as deleted, so the
//     controller can replace it at once) or, if that was never seen, when
//     its delete arrives — once per pod, by UID;
//   - a delete with finalStateUnknown (inferred from a relist: the
//     tombstone case) counts like any other.
//
// ownerOf maps a pod to the key of the controller its expectations belong
// to; a pod it maps to nothing (an orphan, or a controller reference that
// does not resolve to the cached owner with the same UID) is tracked but
// observes nothing. Creations are counted (CreationObserved), for a
// controller that creates with generateName and calls ExpectCreations, or
// with PodExpectationsOptions.ByName observed by name (CreationObservedOf)
// for one that names its pods and calls ExpectCreationsOf.
//
// To tell "add never came" from "add came", PodExpectations remembers the
// UID of every pod it has been told of until its delete: memory
// proportional to the pods the informer holds. Use one PodExpectations
// per handler registration (Wrap), and call its methods from that
// registration only. Its methods are safe for concurrent use.
type PodExpectations struct {
	exp     *expectations.UIDTracking
	ownerOf func(*api.Pod) (key string, ok bool)
	byName  bool

	mu   sync.Mutex
	pods map[api.UID]bool // guarded by mu; every pod told of until its delete → whether its deletion was observed
}

// PodExpectationsOptions configure NewPodExpectations. The zero value
// counts creations.
type PodExpectationsOptions struct {
	// ByName observes creations with CreationObservedOf(key, pod name)
	// instead of CreationObserved(key). Default false.
	ByName bool
}

// NewPodExpectations returns the wiring of exp for a pod informer's
// handlers; ownerOf resolves a pod to its controller's key.
func NewPodExpectations(exp *expectations.UIDTracking, ownerOf func(*api.Pod) (key string, ok bool), opts PodExpectationsOptions) *PodExpectations {
	return &PodExpectations{exp: exp, ownerOf: ownerOf, byName: opts.ByName, pods: make(map[api.UID]bool)}
}

// Expectations returns the expectations the handlers lower.
func (p *PodExpectations) Expectations() *expectations.UIDTracking { return p.exp }

// OnAdd observes pod's creation, and its deletion if it is already being
// deleted.
func (p *PodExpectations) OnAdd(pod *api.Pod, _ bool) {
	p.observe(pod, pod.DeletionTimestamp != nil, false)
}

// OnUpdate observes the deletion of a pod whose deletion timestamp
// appeared (and its creation, should its add never have come).
func (p *PodExpectations) OnUpdate(_, pod *api.Pod) {
	p.observe(pod, pod.DeletionTimestamp != nil, false)
}

// OnDelete observes pod's deletion unless its deletion timestamp was
// observed already, and its creation if its add never came.
func (p *PodExpectations) OnDelete(pod *api.Pod, _ bool) {
	p.observe(pod, true, true)
}

// observe records what is now known of pod and lowers its owner's
// expectations for what is new.
func (p *PodExpectations) observe(pod *api.Pod, deleting, gone bool) {
	p.mu.Lock()
	wasDeleting, known := p.pods[pod.UID]
	if gone {
		delete(p.pods, pod.UID)
	} else {
		p.pods[pod.UID] = wasDeleting || deleting
	}
	p.mu.Unlock()
	key, ok := p.ownerOf(pod)
	if !ok {
		return
	}
	if !known {
		if p.byName {
			p.exp.CreationObservedOf(key, pod.Name)
		} else {
			p.exp.CreationObserved(key)
		}
	}
	if deleting && !wasDeleting {
		p.exp.DeletionObserved(key, string(pod.UID))
	}
}

// Len returns the number of pods tracked: told of and not yet deleted.
func (p *PodExpectations) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.pods)
}

// Wrap returns a handler that calls p's method for each notification and
// then h's, so that a handler which enqueues the owner always does so
// after the expectations were lowered.
func (p *PodExpectations) Wrap(h informer.Handler[*api.Pod]) informer.Handler[*api.Pod] {
	return informer.HandlerFuncs[*api.Pod]{
		AddFunc: func(pod *api.Pod, initial bool) {
			p.OnAdd(pod, initial)
			h.OnAdd(pod, initial)
		},
		UpdateFunc: func(old, pod *api.Pod) {
			p.OnUpdate(old, pod)
			h.OnUpdate(old, pod)
		},
		DeleteFunc: func(pod *api.Pod, unknown bool) {
			p.OnDelete(pod, unknown)
			h.OnDelete(pod, unknown)
		},
	}
}
