package patch

import (
	"errors"
	"fmt"
	"slices"
)

// elemKind is the JSON type of a list's elements.
type elemKind int

const (
	kindNone   elemKind = iota // no elements
	kindObject                 // objects, merged by key
	kindScalar                 // strings, numbers or booleans, merged as a set
)

// listKind returns the kind shared by the elements of the lists; mixed
// kinds and lists of lists are errors, as in apimachinery's
// sliceElementType (which also tells strings, numbers and booleans apart).
func listKind(lists ...[]value) (elemKind, error) {
	var first string
	for _, l := range lists {
		for _, v := range l {
			var t string
			switch v.(type) {
			case object:
				t = "object"
			case []value:
				return kindNone, fmt.Errorf("%w: lists of lists cannot be merged", ErrUnprocessable)
			case string:
				t = "string"
			case bool:
				t = "boolean"
			case nil:
				t = "null"
			default:
				t = "number"
			}
			if first == "" {
				first = t
			} else if first != t {
				return kindNone, fmt.Errorf("patch: cannot merge a list whose elements mix %ss and %ss", first, t)
			}
		}
	}
	switch first {
	case "":
		return kindNone, nil
	case "object":
		return kindObject, nil
	default:
		return kindScalar, nil
	}
}

// mergeList merges a patch list into the original list of a field with
// patchStrategy "merge" (apimachinery's mergeSlice): scalars as an ordered
// set (or, for a $deleteFromPrimitiveList list, removed); objects by
// mergeKey, each patch element merged into the original element with the
// same key or appended, with the "$patch: delete" and "$patch: replace"
// elements. The result lists the patch's elements in the patch's order,
// the original's other elements kept in their places among them.
func (w *meter) mergeList(original, patch []value, s schema, mergeKey string, deleteList bool) ([]value, error) {
	if len(original) == 0 && len(patch) == 0 {
		return original, nil
	}
	kind, err := listKind(original, patch)
	if err != nil {
		return nil, err
	}
	var merged []value
	if kind == kindScalar {
		if deleteList {
			drop := make(map[string]bool, len(patch))
			for _, v := range patch {
				k, _ := scalarKey(v)
				drop[k] = true
			}
			return slices.DeleteFunc(slices.Clone(original), func(v value) bool {
				k, _ := scalarKey(v)
				return drop[k]
			}), nil
		}
		merged = w.dedupe(append(slices.Clone(original), patch...))
		mergeKey = ""
	} else {
		if mergeKey == "" {
			return nil, errors.New("patch: cannot merge a list of objects that has no merge key")
		}
		if original, patch, err = w.applyListDirectives(original, patch, s, mergeKey); err != nil {
			return nil, err
		}
		if merged, err = w.mergeByKey(original, patch, s, mergeKey); err != nil {
			return nil, err
		}
	}
	patchItems, serverOnly := w.partition(merged, patch, mergeKey)
	return w.normalizeOrder(patchItems, serverOnly, patch, original, mergeKey)
}

// applyListDirectives applies the "$patch" elements of a patch list of
// objects: "delete" removes the original elements with that key,
// "replace" makes the rest of the patch the whole list. It returns the
// original and the patch without its directive elements.
//
// Like apimachinery, it deletes and (in mergeByKey) appends in place, in
// the original list's array: applySetElementOrder then orders the result
// against that array as these edits left it, which decides where an
// added element lands among the server's when the same patch also
// deletes one. Doing the same edits keeps the result equal to
// kube-apiserver's.
func (w *meter) applyListDirectives(original, patch []value, s schema, mergeKey string) ([]value, []value, error) {
	rest := make([]value, 0, len(patch))
	replace := false
	for _, v := range patch {
		m := v.(object)
		d, ok := m[directiveMarker]
		if !ok {
			rest = append(rest, v)
			continue
		}
		switch d {
		case deleteDirective:
			if _, ok := m[mergeKey]; !ok {
				return nil, nil, fmt.Errorf("patch: a list element with \"$patch: delete\" has no merge key %q", mergeKey)
			}
			for {
				i := w.indexOf(original, m, mergeKey)
				if i < 0 {
					break
				}
				original = append(original[:i], original[i+1:]...)
			}
		case replaceDirective:
			replace = true
		case mergeDirective:
			return nil, nil, errors.New(`patch: "$patch: merge" is not supported in a list`)
		default:
			return nil, nil, fmt.Errorf("patch: unknown %s directive %v in a list element", directiveMarker, d)
		}
	}
	if replace {
		l, err := w.cleanList(rest, s)
		return l, nil, err
	}
	return original, rest, nil
}

// mergeByKey merges each patch element into the original element with the
// same merge key, or appends it (in place, see applyListDirectives).
func (w *meter) mergeByKey(original, patch []value, s schema, mergeKey string) ([]value, error) {
	idx := w.index(original, mergeKey)
	for _, v := range patch {
		pm := v.(object)
		key, ok := pm[mergeKey]
		if !ok {
			return nil, fmt.Errorf("patch: a list element has no merge key %q", mergeKey)
		}
		i := idx.find(w, pm)
		if i < 0 {
			nv, err := w.clean(pm, s)
			if err != nil {
				return nil, err
			}
			original = append(original, nv)
			idx.appended(original)
			continue
		}
		om, ok := original[i].(object)
		if !ok {
			return nil, fmt.Errorf("patch: the list element with %s %v is not an object", mergeKey, key)
		}
		m, err := w.mergeMap(om, pm, s)
		if err != nil {
			return nil, err
		}
		original[i] = m
	}
	return original, nil
}

// indexOf returns the index of the element of l equal to v (scalars, when
// mergeKey is empty) or with the same merge key value, or -1. Each element
// it looks at costs a unit of w; when w is spent it returns -1.
func (w *meter) indexOf(l []value, v value, mergeKey string) int {
	match := func(e value) bool { return equal(e, v) }
	if mergeKey != "" {
		vm, ok := v.(object)
		if !ok {
			return -1
		}
		key, ok := vm[mergeKey]
		if !ok {
			return -1
		}
		match = func(e value) bool {
			em, ok := e.(object)
			return ok && equal(em[mergeKey], key)
		}
	}
	for i, e := range l {
		if !w.compare(1) {
			return -1
		}
		if match(e) {
			return i
		}
	}
	return -1
}

// dedupe drops repeated scalars, keeping the first of each, in linear
// time.
func (w *meter) dedupe(l []value) []value {
	out := make([]value, 0, len(l))
	seen := make(map[string]bool, len(l))
	for _, v := range l {
		k, ok := scalarKey(v)
		if !ok {
			if w.indexOf(out, v, "") < 0 {
				out = append(out, v)
			}
			continue
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, v)
		}
	}
	return out
}

// partition splits merged into the elements present in by (by merge key
// for objects) and the others, keeping their order.
func (w *meter) partition(merged, by []value, mergeKey string) (in, out []value) {
	idx := w.index(by, mergeKey)
	for _, v := range merged {
		if idx.find(w, v) >= 0 {
			in = append(in, v)
		} else {
			out = append(out, v)
		}
	}
	return in, out
}

// normalizeOrder orders a merged list as apimachinery's
// normalizeElementOrder does: the patch's elements sorted by patchOrder
// (the patch list or its $setElementOrder), the server-only elements by
// serverOrder (the original list), and the two interleaved so that a
// server-only element goes before the first patch element that follows it
// in the original. Objects marked "$patch: delete" go last (they occur
// only in patches of patches).
func (w *meter) normalizeOrder(patchItems, serverOnly, patchOrder, serverOrder []value, mergeKey string) ([]value, error) {
	if mergeKey != "" {
		for _, l := range [][]value{patchItems, serverOnly, patchOrder, serverOrder} {
			for _, v := range l {
				if m, ok := v.(object); !ok || m[mergeKey] == nil {
					return nil, fmt.Errorf("patch: a list element has no merge key %q", mergeKey)
				}
			}
		}
	}
	patchItems = w.sortByOrder(patchItems, patchOrder, mergeKey)
	serverOnly = w.sortByOrder(serverOnly, serverOrder, mergeKey)

	idx := w.index(serverOrder, mergeKey)
	out := make([]value, 0, len(patchItems)+len(serverOnly))
	i, j := 0, 0
	for i < len(serverOnly) || j < len(patchItems) {
		switch {
		case j >= len(patchItems):
			out = append(out, serverOnly[i])
			i++
		case i >= len(serverOnly):
			out = append(out, patchItems[j])
			j++
		default:
			li := idx.find(w, serverOnly[i])
			ri := idx.find(w, patchItems[j])
			if li >= 0 && ri >= 0 && li < ri {
				out = append(out, serverOnly[i])
				i++
			} else {
				out = append(out, patchItems[j])
				j++
			}
		}
	}
	return out, nil
}

// sortByOrder stably sorts l by the position of each element in order;
// elements not in order keep their relative order after those that are.
func (w *meter) sortByOrder(l, order []value, mergeKey string) []value {
	type item struct {
		v   value
		pos int
	}
	idx := w.index(order, mergeKey)
	items := make([]item, len(l))
	for i, v := range l {
		pos := idx.find(w, v)
		if pos < 0 {
			pos = len(order)
		}
		if m, ok := v.(object); ok && m[directiveMarker] == deleteDirective {
			pos = len(order) + 1
		}
		items[i] = item{v, pos}
	}
	slices.SortStableFunc(items, func(a, b item) int { return a.pos - b.pos })
	out := make([]value, len(items))
	for i, it := range items {
		out[i] = it.v
	}
	return out
}

// listIndex finds the first element of a list equal to a value (or with
// its merge key) through a map of the elements' scalarKey, in constant
// time where indexOf scans the list. Values whose key is not a scalar are
// looked for by indexOf.
type listIndex struct {
	l        []value
	mergeKey string
	first    map[string]int
}

// index builds the listIndex of l, charging w for each element.
func (w *meter) index(l []value, mergeKey string) *listIndex {
	x := &listIndex{mergeKey: mergeKey, first: make(map[string]int, len(l))}
	w.compare(len(l))
	x.appended(l)
	return x
}

// elemKey returns the key under which v is found: its scalarKey, or, with
// a merge key, that of its merge key's value (nil when it has none, as
// indexOf compares it).
func (x *listIndex) elemKey(v value) (string, bool) {
	if x.mergeKey == "" {
		return scalarKey(v)
	}
	m, ok := v.(object)
	if !ok {
		return "", false
	}
	return scalarKey(m[x.mergeKey])
}

// appended indexes the elements l has past those already indexed; l is
// the indexed list with elements appended.
func (x *listIndex) appended(l []value) {
	for i := len(x.l); i < len(l); i++ {
		if k, ok := x.elemKey(l[i]); ok {
			if _, seen := x.first[k]; !seen {
				x.first[k] = i
			}
		}
	}
	x.l = l
}

// find returns what w.indexOf(l, v, mergeKey) returns. An element found
// is checked again, for it may have been replaced in place since it was
// indexed (mergeByKey merges into its elements); a replacement that no
// longer matches sends find back to scanning.
func (x *listIndex) find(w *meter, v value) int {
	if x.mergeKey != "" {
		m, ok := v.(object)
		if !ok {
			return -1
		}
		if _, ok := m[x.mergeKey]; !ok {
			return -1
		}
	}
	k, ok := x.elemKey(v)
	if !ok {
		return w.indexOf(x.l, v, x.mergeKey)
	}
	i, ok := x.first[k]
	if !ok {
		return -1
	}
	if w.indexOf(x.l[i:i+1], v, x.mergeKey) == 0 {
		return i
	}
	return w.indexOf(x.l, v, x.mergeKey)
}
