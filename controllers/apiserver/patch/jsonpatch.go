package patch

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ErrTestFailed is returned (wrapped) by Apply when a JSON patch "test"
// operation finds a value other than the one it names. Such an error is
// also ErrUnprocessable.
var ErrTestFailed = errors.New("test operation failed")

// operation is one RFC 6902 operation. Value is a pointer so that an
// absent "value" is told apart from "value": null (a RawMessage "null").
type operation struct {
	Op    string
	Path  *string
	From  *string
	Value *json.RawMessage
}

// UnmarshalJSON reads an operation object, ignoring unknown members as
// RFC 6902 section 4 asks.
func (o *operation) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	str := func(k string) (*string, error) {
		raw, ok := m[k]
		if !ok {
			return nil, nil
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("%q must be a string", k)
		}
		return &s, nil
	}
	op, err := str("op")
	if err != nil {
		return err
	}
	if op != nil {
		o.Op = *op
	}
	if o.Path, err = str("path"); err != nil {
		return err
	}
	if o.From, err = str("from"); err != nil {
		return err
	}
	if raw, ok := m["value"]; ok {
		o.Value = &raw
	}
	return nil
}

// jsonPatch applies the RFC 6902 patch p to doc. The operations apply in
// order; the first one that fails fails the whole patch.
//
// A patch of more than MaxOperations operations fails with ErrTooLarge;
// one whose copies duplicate more than MaxCopyBytes, or that moves more
// array elements than w allows, with ErrUnprocessable. Each operation
// costs the length of its path, the bytes it copies and the array
// elements it shifts: arrays are edited in place, never reallocated or
// copied whole.
func jsonPatch(doc value, p []byte, w *meter) (value, error) {
	var ops []operation
	if err := json.Unmarshal(p, &ops); err != nil {
		return nil, fmt.Errorf("patch: a JSON patch must be a JSON array of operations: %w", err)
	}
	if len(ops) > MaxOperations {
		return nil, fmt.Errorf("%w: The allowed maximum operations in a JSON patch is %d, got %d", ErrTooLarge, MaxOperations, len(ops))
	}
	for i, op := range ops {
		var err error
		doc, err = applyOp(doc, op, w)
		if err == nil && !w.move(1) {
			err = w.exhausted()
		}
		if err != nil {
			return nil, fmt.Errorf("%w: operation %d (%s): %w", ErrUnprocessable, i, op.Op, err)
		}
	}
	return doc, nil
}

func applyOp(doc value, op operation, w *meter) (value, error) {
	if op.Path == nil {
		return nil, errors.New(`missing "path"`)
	}
	path, err := parsePointer(*op.Path)
	if err != nil {
		return nil, err
	}
	if !w.move(len(path)) {
		return nil, w.exhausted()
	}
	opValue := func() (value, error) {
		if op.Value == nil {
			return nil, errors.New(`missing "value"`)
		}
		return decode(*op.Value, `"value"`)
	}
	from := func() ([]string, error) {
		if op.From == nil {
			return nil, errors.New(`missing "from"`)
		}
		return parsePointer(*op.From)
	}
	switch op.Op {
	case "add":
		v, err := opValue()
		if err != nil {
			return nil, err
		}
		return add(doc, path, v, w)
	case "remove":
		doc, _, err := remove(doc, path, w)
		return doc, err
	case "replace":
		v, err := opValue()
		if err != nil {
			return nil, err
		}
		if _, err := get(doc, path); err != nil {
			return nil, err
		}
		return set(doc, path, v), nil // in place: no array shifts
	case "move":
		src, err := from()
		if err != nil {
			return nil, err
		}
		if len(src) < len(path) && isPrefix(src, path) {
			return nil, fmt.Errorf("cannot move %q into its own child %q", *op.From, *op.Path)
		}
		doc, v, err := remove(doc, src, w)
		if err != nil {
			return nil, err
		}
		return add(doc, path, v, w)
	case "copy":
		src, err := from()
		if err != nil {
			return nil, err
		}
		v, err := get(doc, src)
		if err != nil {
			return nil, err
		}
		c, err := w.copyValue(v)
		if err != nil {
			return nil, err
		}
		return add(doc, path, c, w)
	case "test":
		v, err := opValue()
		if err != nil {
			return nil, err
		}
		got, err := get(doc, path)
		if err != nil {
			return nil, err
		}
		if !equal(got, v) {
			return nil, fmt.Errorf("%w: the value at %q is not %s", ErrTestFailed, *op.Path, *op.Value)
		}
		return doc, nil
	default:
		return nil, fmt.Errorf("unknown operation %q", op.Op)
	}
}

func isPrefix(prefix, path []string) bool {
	for i := range prefix {
		if prefix[i] != path[i] {
			return false
		}
	}
	return true
}

// parsePointer splits an RFC 6901 JSON pointer into its unescaped
// reference tokens; "" is the whole document.
func parsePointer(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if p[0] != '/' {
		return nil, fmt.Errorf("path %q is not a JSON pointer: it must be empty or start with /", p)
	}
	tokens := strings.Split(p[1:], "/")
	for i, t := range tokens {
		if !strings.Contains(t, "~") {
			continue
		}
		for j := 0; j < len(t); j++ {
			if t[j] == '~' && (j+1 == len(t) || (t[j+1] != '0' && t[j+1] != '1')) {
				return nil, fmt.Errorf("path %q: ~ must be followed by 0 or 1", p)
			}
		}
		tokens[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return tokens, nil
}

// pointerString renders tokens back as a JSON pointer, for errors.
func pointerString(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

// arrayIndex parses an array index token: a non-negative decimal number
// without leading zeros, below limit (len for existing elements, len+1
// where add may append).
func arrayIndex(tok string, limit int, path []string) (int, error) {
	n, err := strconv.Atoi(tok)
	if err != nil || n < 0 || (len(tok) > 1 && tok[0] == '0') || tok[0] == '+' {
		return 0, fmt.Errorf("path %q: %q is not an array index", pointerString(path), tok)
	}
	if n >= limit {
		return 0, fmt.Errorf("path %q: index %d is out of range", pointerString(path), n)
	}
	return n, nil
}

// get returns the value at path.
func get(doc value, path []string) (value, error) {
	cur := doc
	for i, tok := range path {
		switch c := cur.(type) {
		case object:
			v, ok := c[tok]
			if !ok {
				return nil, fmt.Errorf("path %q does not exist", pointerString(path[:i+1]))
			}
			cur = v
		case []value:
			n, err := arrayIndex(tok, len(c), path[:i+1])
			if err != nil {
				return nil, err
			}
			cur = c[n]
		default:
			return nil, fmt.Errorf("path %q does not exist: %q is not an object or array", pointerString(path[:i+1]), pointerString(path[:i]))
		}
	}
	return cur, nil
}

// add sets the value at path, inserting into arrays ("-" appends), and
// returns the new document. An array grows in place (amortised, as
// append does), and the parent is rewritten when its backing array moves;
// the elements after the index are shifted, and w is charged for them.
func add(doc value, path []string, v value, w *meter) (value, error) {
	if len(path) == 0 {
		return v, nil
	}
	parentPath, last := path[:len(path)-1], path[len(path)-1]
	parent, err := get(doc, parentPath)
	if err != nil {
		return nil, err
	}
	switch c := parent.(type) {
	case object:
		c[last] = v
		return doc, nil
	case []value:
		n := len(c)
		if last != "-" {
			if n, err = arrayIndex(last, len(c)+1, path); err != nil {
				return nil, err
			}
		}
		if !w.move(len(c) - n) {
			return nil, w.exhausted()
		}
		c = append(c, nil)
		copy(c[n+1:], c[n:])
		c[n] = v
		return set(doc, parentPath, c), nil
	default:
		return nil, fmt.Errorf("path %q: %q is not an object or array", pointerString(path), pointerString(parentPath))
	}
}

// remove deletes the value at path, returning the new document and the
// removed value. An array shrinks in place, its later elements shifted
// (and charged to w).
func remove(doc value, path []string, w *meter) (value, value, error) {
	if len(path) == 0 {
		return nil, nil, errors.New("cannot remove the whole document")
	}
	old, err := get(doc, path)
	if err != nil {
		return nil, nil, err
	}
	parentPath, last := path[:len(path)-1], path[len(path)-1]
	parent, _ := get(doc, parentPath)
	switch c := parent.(type) {
	case object:
		delete(c, last)
	case []value:
		n, _ := arrayIndex(last, len(c), path)
		if !w.move(len(c) - n) {
			return nil, nil, w.exhausted()
		}
		c = slices.Delete(c, n, n+1)
		doc = set(doc, parentPath, c)
	}
	return doc, old, nil
}

// set replaces the existing value at path (which get has resolved) and
// returns the new document.
func set(doc value, path []string, v value) value {
	if len(path) == 0 {
		return v
	}
	parent, _ := get(doc, path[:len(path)-1])
	last := path[len(path)-1]
	switch c := parent.(type) {
	case object:
		c[last] = v
	case []value:
		n, _ := arrayIndex(last, len(c), path)
		c[n] = v
	}
	return doc
}
