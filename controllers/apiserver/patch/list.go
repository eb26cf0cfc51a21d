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
func mergeList(original, patch []value, s schema, mergeKey string, deleteList bool) ([]value, error) {
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
			return slices.DeleteFunc(slices.Clone(original), func(v value) bool { return indexOf(patch, v, "") >= 0 }), nil
		}
		merged = dedupe(append(slices.Clone(original), patch...))
		mergeKey = ""
	} else {
		if mergeKey == "" {
			return nil, errors.New("patch: cannot merge a list of objects that has no merge key")
		}
		if original, patch, err = applyListDirectives(original, patch, s, mergeKey); err != nil {
			return nil, err
		}
		if merged, err = mergeByKey(original, patch, s, mergeKey); err != nil {
			return nil, err
		}
	}
	patchItems, serverOnly := partition(merged, patch, mergeKey)
	return normalizeOrder(patchItems, serverOnly, patch, original, mergeKey)
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
func applyListDirectives(original, patch []value, s schema, mergeKey string) ([]value, []value, error) {
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
				i := indexOf(original, m, mergeKey)
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
		l, err := cleanList(rest, s)
		return l, nil, err
	}
	return original, rest, nil
}

// mergeByKey merges each patch element into the original element with the
// same merge key, or appends it (in place, see applyListDirectives).
func mergeByKey(original, patch []value, s schema, mergeKey string) ([]value, error) {
	for _, v := range patch {
		pm := v.(object)
		key, ok := pm[mergeKey]
		if !ok {
			return nil, fmt.Errorf("patch: a list element has no merge key %q", mergeKey)
		}
		i := indexOf(original, pm, mergeKey)
		if i < 0 {
			nv, err := clean(pm, s)
			if err != nil {
				return nil, err
			}
			original = append(original, nv)
			continue
		}
		om, ok := original[i].(object)
		if !ok {
			return nil, fmt.Errorf("patch: the list element with %s %v is not an object", mergeKey, key)
		}
		m, err := mergeMap(om, pm, s)
		if err != nil {
			return nil, err
		}
		original[i] = m
	}
	return original, nil
}

// indexOf returns the index of the element of l equal to v (scalars, when
// mergeKey is empty) or with the same merge key value, or -1.
func indexOf(l []value, v value, mergeKey string) int {
	if mergeKey == "" {
		return slices.IndexFunc(l, func(e value) bool { return equal(e, v) })
	}
	vm, ok := v.(object)
	if !ok {
		return -1
	}
	key, ok := vm[mergeKey]
	if !ok {
		return -1
	}
	return slices.IndexFunc(l, func(e value) bool {
		em, ok := e.(object)
		return ok && equal(em[mergeKey], key)
	})
}

// dedupe drops repeated scalars, keeping the first of each.
func dedupe(l []value) []value {
	out := make([]value, 0, len(l))
	for i, v := range l {
		if indexOf(l[:i], v, "") < 0 {
			out = append(out, v)
		}
	}
	return out
}

// partition splits merged into the elements present in by (by merge key
// for objects) and the others, keeping their order.
func partition(merged, by []value, mergeKey string) (in, out []value) {
	for _, v := range merged {
		if indexOf(by, v, mergeKey) >= 0 {
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
func normalizeOrder(patchItems, serverOnly, patchOrder, serverOrder []value, mergeKey string) ([]value, error) {
	if mergeKey != "" {
		for _, l := range [][]value{patchItems, serverOnly, patchOrder, serverOrder} {
			for _, v := range l {
				if m, ok := v.(object); !ok || m[mergeKey] == nil {
					return nil, fmt.Errorf("patch: a list element has no merge key %q", mergeKey)
				}
			}
		}
	}
	patchItems = sortByOrder(patchItems, patchOrder, mergeKey)
	serverOnly = sortByOrder(serverOnly, serverOrder, mergeKey)

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
			li := indexOf(serverOrder, serverOnly[i], mergeKey)
			ri := indexOf(serverOrder, patchItems[j], mergeKey)
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
func sortByOrder(l, order []value, mergeKey string) []value {
	type item struct {
		v   value
		pos int
	}
	items := make([]item, len(l))
	for i, v := range l {
		pos := indexOf(order, v, mergeKey)
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
