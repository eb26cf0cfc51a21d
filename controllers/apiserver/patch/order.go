package patch

import (
	"fmt"
	"slices"
	"strings"
)

// applySetElementOrder handles the "$setElementOrder/<field>" directives
// of one patch object (apimachinery's mergePatchIntoOriginal): the field's
// list is merged as usual, then ordered so that the elements the directive
// names come in its order, and the original's other elements keep their
// places among them. kubectl apply sends the directive for every merging
// list it patches, listing the merge keys (or scalars) of the list in the
// order of the user's manifest. The directive and the list are removed
// from patch.
func (w *meter) applySetElementOrder(original, patch object, s schema) error {
	var keys []string
	for k := range patch {
		if strings.HasPrefix(k, setOrderPrefix) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		field := k[len(setOrderPrefix):]
		order, ok := patch[k].([]value)
		if !ok {
			return fmt.Errorf("patch: %s must be a list", k)
		}
		if field == "" {
			return fmt.Errorf("patch: %q names no list", setOrderPrefix)
		}
		delete(patch, k)
		ov, foundOriginal := original[field]
		pv, foundPatch := patch[field]
		var ol, pl []value
		if foundOriginal {
			if ol, ok = ov.([]value); !ok {
				return fmt.Errorf("patch: %s is not a list in the object", field)
			}
		}
		if foundPatch {
			if pl, ok = pv.([]value); !ok {
				return fmt.Errorf("patch: %s is not a list in the patch", field)
			}
		}
		sub, st, err := lookup(s, field)
		if err != nil {
			return err
		}
		if err := checkOrder(pl, order, st.mergeKey); err != nil {
			return fmt.Errorf("patch: %s: %w", k, err)
		}
		var merged []value
		switch {
		case !foundOriginal && !foundPatch:
			continue
		case !foundPatch:
			merged = ol
		case !foundOriginal:
			if merged, err = w.cleanList(pl, elem(sub)); err != nil {
				return err
			}
		case st.merges():
			if merged, err = w.mergeList(ol, pl, elem(sub), st.mergeKey, false); err != nil {
				return err
			}
		default:
			if merged, err = w.cleanList(pl, elem(sub)); err != nil {
				return err
			}
		}
		kind, err := listKind(ol, pl)
		if err != nil {
			return err
		}
		mergeKey := st.mergeKey
		if kind != kindObject {
			mergeKey = ""
		}
		if kind != kindNone {
			patchItems, serverOnly := w.partition(merged, order, mergeKey)
			if merged, err = w.normalizeOrder(patchItems, serverOnly, order, ol, mergeKey); err != nil {
				return err
			}
		}
		original[field] = merged
		delete(patch, field)
	}
	return nil
}

// checkOrder verifies that the patch list's elements (but its "$patch"
// directives) appear in the $setElementOrder list, in the same relative
// order (apimachinery's validatePatchWithSetOrderList).
func checkOrder(patchList, order []value, mergeKey string) error {
	j := 0
	for _, v := range patchList {
		if m, ok := v.(object); ok {
			if _, directive := m[directiveMarker]; directive {
				continue
			}
			if mergeKey != "" && m[mergeKey] == nil {
				return fmt.Errorf("a list element has no merge key %q", mergeKey)
			}
		}
		for j < len(order) && !sameElement(v, order[j], mergeKey) {
			j++
		}
		if j == len(order) {
			return fmt.Errorf("the patch list's elements are not all in the order list, or not in its order")
		}
		j++
	}
	return nil
}

// sameElement reports whether a patch element and an order list entry
// name the same element: the order entry of an object is an object with
// just its merge key.
func sameElement(v, o value, mergeKey string) bool {
	vm, vok := v.(object)
	om, ook := o.(object)
	if mergeKey == "" || !vok || !ook {
		return equal(v, o)
	}
	return equal(vm[mergeKey], om[mergeKey])
}
