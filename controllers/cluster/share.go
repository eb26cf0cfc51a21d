package cluster

import (
	"reflect"
	"sync"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// shareUnchanged is the in-memory backend's fake.Options.Share: next, the
// copy an update is about to store, takes instead of its own the maps,
// slices and pointers of prev, the stored version it replaces, that are
// equal to its own — in the object's top-level fields and in the fields
// of its structs (metadata, spec, status), two levels down. A pod's
// status update then holds one copy of its spec, labels and owner
// references for both versions, and the history of past versions costs
// what changed in them. Stored objects are read-only (Get returns a
// copy), so sharing is safe.
func shareUnchanged[T any](prev, next T) {
	p, n := reflect.ValueOf(prev), reflect.ValueOf(next)
	if p.Kind() != reflect.Pointer || p.IsNil() || n.IsNil() || p.Type() != n.Type() || p.Elem().Kind() != reflect.Struct {
		return
	}
	shareFields(p.Elem(), n.Elem(), 2)
}

// shareFields points the map, slice and pointer fields of the struct n
// at p's equal ones, descending depth levels into struct fields.
func shareFields(p, n reflect.Value, depth int) {
	for i := range n.NumField() {
		nf := n.Field(i)
		if !nf.CanSet() {
			continue // unexported
		}
		pf := p.Field(i)
		switch nf.Kind() {
		case reflect.Struct:
			if depth > 0 {
				shareFields(pf, nf, depth-1)
			}
		case reflect.Map, reflect.Slice, reflect.Pointer:
			if nf.IsNil() || pf.IsNil() || nf.UnsafePointer() == pf.UnsafePointer() {
				continue
			}
			if nf.Kind() == reflect.Slice && nf.Len() != pf.Len() || nf.Kind() == reflect.Map && nf.Len() != pf.Len() {
				continue
			}
			if reflect.DeepEqual(pf.Interface(), nf.Interface()) {
				nf.Set(pf)
			}
		}
	}
}

// siblingsMax bounds the families a kind's siblings remembers: past it,
// it forgets them all and starts over. Each entry keeps one object alive
// (deleted or not), so a kind holds at most this many objects the store
// no longer does; a burst of creates spans far fewer families (a
// controller creates its objects one owner after another).
const siblingsMax = 64

// siblings is the in-memory backend's fake.Options.ShareCreated: an
// object created into a family — the objects of one controller (its
// controller owner reference) or, without one, of one generateName in a
// namespace — takes, as shareUnchanged does for an update, the maps,
// slices and pointers equal to its own of the family's last created
// object. The pods of a ReplicaSet then hold one copy of their template's
// containers, tolerations, labels and owner references between them
// (about a kilobyte per pod), as the versions of one pod hold one between
// them. Objects outside any family are left as they are.
type siblings[T api.Object] struct {
	mu   sync.Mutex
	last map[siblingKey]T
}

// siblingKey names a family: a controller's UID, or a namespace and a
// generateName.
type siblingKey struct {
	owner                   api.UID
	namespace, generateName string
}

// share lets next take its family's last object's equal parts, and makes
// next the family's last object.
func (s *siblings[T]) share(next T) {
	m := next.GetObjectMeta()
	var k siblingKey
	if r := m.ControllerRef(); r != nil {
		k.owner = r.UID
	}
	if k.owner == "" {
		if m.GenerateName == "" {
			return
		}
		k.namespace, k.generateName = m.Namespace, m.GenerateName
	}
	s.mu.Lock()
	prev, ok := s.last[k]
	s.mu.Unlock()
	if ok {
		shareUnchanged(prev, next)
	}
	// next is published only now that it is complete: a concurrent
	// create of the family reads it as its prev (the mutex orders the
	// writes above before that read).
	s.mu.Lock()
	if _, ok := s.last[k]; !ok && len(s.last) >= siblingsMax {
		clear(s.last)
	}
	if s.last == nil {
		s.last = make(map[siblingKey]T)
	}
	s.last[k] = next
	s.mu.Unlock()
}
