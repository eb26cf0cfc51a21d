package kubelet

import (
	"slices"
	"strings"
)

// podStates are the states of the pods a kubelet runs, ordered by their
// pods' namespace, then name. A sorted slice rather than a map by key: a
// node runs few pods (110 by default), and a map's table and a key
// string per pod would cost a good part of what the states themselves
// do. The loop owns it.
type podStates []*podState

// search returns the index of the state of pod namespace/name in ps, or
// where it would be, and whether it is there.
func (ps podStates) search(namespace, name string) (int, bool) {
	return slices.BinarySearchFunc(ps, name, func(s *podState, name string) int {
		if c := strings.Compare(s.namespace, namespace); c != 0 {
			return c
		}
		return strings.Compare(s.podName, name)
	})
}

// splitKey splits a pod's key (api.Key) into namespace and name.
func splitKey(key string) (namespace, name string) {
	if ns, n, ok := strings.Cut(key, "/"); ok {
		return ns, n
	}
	return "", key
}

// get returns the state of the pod at key, nil if there is none.
func (ps podStates) get(key string) *podState {
	if i, ok := ps.search(splitKey(key)); ok {
		return ps[i]
	}
	return nil
}

// add adds s, replacing the state of a pod of the same key.
func (ps *podStates) add(s *podState) {
	i, ok := ps.search(s.namespace, s.podName)
	if ok {
		(*ps)[i] = s
		return
	}
	*ps = slices.Insert(*ps, i, s)
}

// remove removes the state of s's pod, if there is one.
func (ps *podStates) remove(s *podState) {
	if i, ok := ps.search(s.namespace, s.podName); ok {
		*ps = slices.Delete(*ps, i, i+1)
	}
}
