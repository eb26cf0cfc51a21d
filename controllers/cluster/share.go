package cluster

import "reflect"

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
