package patch

import (
	"encoding/json"
	"errors"
	"fmt"
)

// The limits Apply enforces, as kube-apiserver does.
const (
	// MaxOperations is the most operations a JSON patch may hold:
	// kube-apiserver's maxJSONPatchOperations. A longer patch fails with
	// ErrTooLarge before any operation is applied.
	MaxOperations = 10000

	// MaxObjectBytes bounds the JSON encoding of a patched object. It is
	// kube-apiserver's request body limit (3 MiB), so that a patch cannot
	// make an object that a PUT could not carry. A larger result fails with
	// ErrTooLarge. (The store may refuse smaller objects still.)
	MaxObjectBytes = 3 << 20

	// MaxCopyBytes bounds the accumulated size (in bytes of JSON) of the
	// values the "copy" operations of one JSON patch duplicate:
	// kube-apiserver sets evanphx/json-patch's AccumulatedCopySizeLimit to
	// its JSONPatchMaxCopyBytes, 3 MiB, the same as MaxObjectBytes. Past
	// it the patch fails with ErrUnprocessable, with upstream's message.
	MaxCopyBytes = MaxObjectBytes
)

// ErrTooLarge is wrapped by the errors of patches that are too large to
// apply: a JSON patch of more than MaxOperations operations, or a patched
// object larger than MaxObjectBytes. A server answers it with 413 Request
// Entity Too Large (reason RequestEntityTooLarge), as kube-apiserver does.
var ErrTooLarge = errors.New("patch: too large")

// The work budget of one Apply: a floor plus an amount per byte of the
// original object and the patch, so that applying a patch costs time
// linear in its input in the worst case, where a naive application is
// quadratic. Two kinds of work are counted:
//
//   - array elements a JSON patch shifts as it inserts or removes
//     (removing the first element of a 60,000-element array 10,000 times
//     would shift 600 million): moveFloor + movePerByte per byte, some
//     0.1 s of memmove at most;
//   - list elements a strategic merge patch compares one by one where no
//     map serves (the original elements a "$patch: delete" element is
//     looked for among, merge keys that are objects): compareFloor +
//     comparePerByte per byte.
//
// A patch past either fails with ErrUnprocessable. No patch kubectl or a
// controller sends comes near them.
const (
	moveFloor      = 1 << 26
	movePerByte    = 64
	compareFloor   = 1 << 20
	comparePerByte = 4
)

// meter counts the work of one Apply. The zero value has no budget left.
type meter struct {
	// moves and compares are the units of work left; below zero, the
	// budget is spent, every further search finds nothing and Apply fails.
	moves, compares int64
	// copied is the number of bytes the copy operations have duplicated.
	copied int64
}

func newMeter(inputBytes int) *meter {
	n := int64(inputBytes)
	return &meter{moves: moveFloor + movePerByte*n, compares: compareFloor + comparePerByte*n}
}

// move takes n element moves and reports whether the budget still holds.
func (w *meter) move(n int) bool {
	w.moves -= int64(n)
	return w.moves >= 0
}

// compare takes n comparisons and reports whether the budget still holds.
func (w *meter) compare(n int) bool {
	w.compares -= int64(n)
	return w.compares >= 0
}

// exhausted returns the error of a patch that spent the budget, or nil.
func (w *meter) exhausted() error {
	if w.moves >= 0 && w.compares >= 0 {
		return nil
	}
	return fmt.Errorf("%w: the patch is too costly to apply to this object (it moves or compares too many list elements)", ErrUnprocessable)
}

// copyValue deep-copies v for a JSON patch "copy", adding its size (its
// JSON encoding's, approximately) to the bytes copied so far; it fails,
// having copied no more than the limit allows, when the total passes
// MaxCopyBytes.
func (w *meter) copyValue(v value) (value, error) {
	c, ok := w.copyBounded(v)
	if !ok {
		return nil, fmt.Errorf("Unable to copy, the accumulated size increase of copy is %d, exceeding the limit %d", w.copied, MaxCopyBytes)
	}
	return c, nil
}

func (w *meter) copyBounded(v value) (value, bool) {
	add := func(n int) bool {
		w.copied += int64(n)
		return w.copied <= MaxCopyBytes
	}
	switch v := v.(type) {
	case object:
		if !add(2 + len(v)) { // {} and the commas
			return nil, false
		}
		m := make(object, len(v))
		for k, e := range v {
			if !add(len(k) + 3) { // "k":
				return nil, false
			}
			c, ok := w.copyBounded(e)
			if !ok {
				return nil, false
			}
			m[k] = c
		}
		return m, true
	case []value:
		if !add(2 + len(v)) {
			return nil, false
		}
		s := make([]value, len(v))
		for i, e := range v {
			c, ok := w.copyBounded(e)
			if !ok {
				return nil, false
			}
			s[i] = c
		}
		return s, true
	case string:
		return v, add(len(v) + 2)
	case json.Number:
		return v, add(len(v))
	case bool:
		return v, add(5)
	default:
		return v, add(4)
	}
}
