package patch

import (
	"fmt"
	"slices"
	"strings"
)

// The directives of a strategic merge patch.
const (
	directiveMarker    = "$patch"
	retainKeys         = "$retainKeys"
	deleteFromPrefix   = "$deleteFromPrimitiveList/"
	setOrderPrefix     = "$setElementOrder/"
	replaceDirective   = "replace"
	deleteDirective    = "delete"
	mergeDirective     = "merge"
	directiveKeyPrefix = "$"
)

// strategicMerge applies a strategic merge patch to doc, an object of kind.
// Every search of a list is charged to w, element by element; once w is
// spent, searches find nothing (so the rest of the merge is linear) and
// the patch fails.
func strategicMerge(kind string, doc object, p []byte, w *meter) (value, error) {
	s, ok := schemaFor(kind)
	if !ok {
		return nil, fmt.Errorf("patch: a strategic merge patch needs a built-in kind, and %q is not one", kind)
	}
	pm, err := decodeObject(p, "strategic merge patch")
	if err != nil {
		return nil, err
	}
	out, err := w.mergeMap(doc, pm, s)
	if err == nil {
		err = w.exhausted()
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// mergeMap merges the patch object into original (changed in place) as
// apimachinery's mergeMap does with the options kube-apiserver uses
// (parallel deletion lists applied, nulls without a counterpart dropped).
func (w *meter) mergeMap(original, patch object, s schema) (object, error) {
	if d, ok := patch[directiveMarker]; ok {
		switch d {
		case replaceDirective:
			delete(patch, directiveMarker)
			return w.clean(patch, s)
		case deleteDirective:
			return object{}, nil
		default:
			return nil, fmt.Errorf("patch: unknown %s directive %v in an object (only %q and %q are allowed there)", directiveMarker, d, replaceDirective, deleteDirective)
		}
	}
	if original == nil {
		original = object{}
	}
	if err := applyRetainKeys(original, patch); err != nil {
		return nil, err
	}
	if err := w.applySetElementOrder(original, patch, s); err != nil {
		return nil, err
	}
	// Sorted keys make the result deterministic; "$deleteFromPrimitiveList/x"
	// sorts before "x", so deletions apply before additions.
	keys := make([]string, 0, len(patch))
	for k := range patch {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		pv := patch[k]
		deleteList := false
		if strings.HasPrefix(k, deleteFromPrefix) {
			k, deleteList = k[len(deleteFromPrefix):], true
			if k == "" {
				return nil, fmt.Errorf("patch: %q names no list", deleteFromPrefix)
			}
		} else if strings.HasPrefix(k, directiveKeyPrefix) {
			return nil, fmt.Errorf("patch: unknown directive %q", k)
		}
		if pv == nil {
			delete(original, k)
			continue
		}
		ov, found := original[k]
		om, oIsMap := ov.(object)
		pm, pIsMap := pv.(object)
		ol, oIsList := ov.([]value)
		pl, pIsList := pv.([]value)
		switch {
		case deleteList && !(found && oIsList && pIsList):
			// Nothing to delete from; apimachinery ignores it likewise.
		case oIsMap && pIsMap:
			sub, st, err := lookup(s, k)
			if err != nil {
				return nil, err
			}
			var merged object
			if st.replaces() {
				merged, err = w.clean(pm, sub)
			} else {
				merged, err = w.mergeMap(om, pm, sub)
			}
			if err != nil {
				return nil, err
			}
			original[k] = merged
		case oIsList && pIsList:
			sub, st, err := lookup(s, k)
			if err != nil {
				return nil, err
			}
			var merged []value
			if st.merges() || deleteList {
				merged, err = w.mergeList(ol, pl, elem(sub), st.mergeKey, deleteList)
			} else {
				merged, err = w.cleanList(pl, elem(sub))
			}
			if err != nil {
				return nil, err
			}
			original[k] = merged
		default:
			// New member, or a different JSON type: the patch value wins.
			// (An unknown field is left for the decoder to reject.)
			sub, _, _ := lookup(s, k)
			v, keep, err := w.cleanValue(pv, sub)
			if err != nil {
				return nil, err
			}
			if keep {
				original[k] = v
			} else {
				delete(original, k)
			}
		}
	}
	return original, nil
}

// cleanValue returns a patch value that has no counterpart in the original,
// with its nulls dropped and its directives applied against nothing. keep
// is false for an object carrying "$patch: delete", whose member is
// dropped (apimachinery's removeDirectives).
func (w *meter) cleanValue(v value, s schema) (value, bool, error) {
	switch v := v.(type) {
	case object:
		if d, ok := v[directiveMarker]; ok && d == deleteDirective {
			return nil, false, nil
		}
		m, err := w.clean(v, s)
		return m, true, err
	case []value:
		l, err := w.cleanList(v, elem(s))
		return l, true, err
	default:
		return v, true, nil
	}
}

// clean merges an object into an empty one.
func (w *meter) clean(m object, s schema) (object, error) {
	return w.mergeMap(object{}, m, s)
}

// cleanList cleans each element of a list that replaces the original's
// (or has none to merge with); elements that are "$patch" directives are
// dropped.
func (w *meter) cleanList(l []value, s schema) ([]value, error) {
	out := make([]value, 0, len(l))
	for _, e := range l {
		if m, ok := e.(object); ok {
			if _, directive := m[directiveMarker]; directive {
				continue
			}
		}
		v, keep, err := w.cleanValue(e, s)
		if err != nil {
			return nil, err
		}
		if keep {
			out = append(out, v)
		}
	}
	return out, nil
}

// applyRetainKeys handles "$retainKeys": members of original not listed
// are cleared, and the patch may set only listed members.
func applyRetainKeys(original, patch object) error {
	rk, ok := patch[retainKeys]
	if !ok {
		return nil
	}
	delete(patch, retainKeys)
	list, ok := rk.([]value)
	if !ok {
		return fmt.Errorf("patch: %s must be a list of field names", retainKeys)
	}
	keep := map[string]bool{}
	for _, v := range list {
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("patch: %s must be a list of field names", retainKeys)
		}
		keep[s] = true
	}
	for k, v := range patch {
		if v == nil || strings.HasPrefix(k, deleteFromPrefix) || strings.HasPrefix(k, setOrderPrefix) {
			continue
		}
		if !keep[k] {
			return fmt.Errorf("%w: %q is set by the patch but not listed in %s", ErrUnprocessable, k, retainKeys)
		}
	}
	for k := range original {
		if !keep[k] {
			delete(original, k)
		}
	}
	return nil
}
