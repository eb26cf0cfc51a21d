package patch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Type is a PATCH request's Content-Type.
type Type string

// The patch types Apply accepts.
const (
	// JSON is a JSON patch (RFC 6902): a list of operations.
	JSON Type = "application/json-patch+json"
	// Merge is a JSON merge patch (RFC 7386): a partial object, null deletes.
	Merge Type = "application/merge-patch+json"
	// StrategicMerge is Kubernetes' strategic merge patch: a merge patch
	// whose lists merge by key where the API says so, with directives.
	StrategicMerge Type = "application/strategic-merge-patch+json"
)

// ErrUnsupportedType is returned by Apply for a patch type it does not
// implement: server-side apply ("application/apply-patch+yaml") and any
// unknown content type. A server answers it with 415 Unsupported Media Type.
var ErrUnsupportedType = errors.New("patch: unsupported patch type")

// ErrUnprocessable is wrapped by the errors of patches that are well-formed
// but cannot be applied to this object, for which kube-apiserver answers
// 422 Unprocessable Entity instead of 400: every failed JSON patch
// operation (a missing path, an index out of range, a failed test, an
// unknown op — upstream checks operations only as it applies them), and a
// strategic merge patch with a list of lists or members outside its
// $retainKeys.
var ErrUnprocessable = errors.New("patch: cannot apply the patch")

// Apply returns original with the patch p of type t applied. original is a
// JSON document of an object of the given kind of controllers/api (the kind
// matters only to StrategicMerge, which takes each list's merge strategy
// from it); the result is a JSON object too. original is not modified.
//
// It returns ErrUnsupportedType (wrapped) for a type it does not implement
// (a server answers 415), ErrTooLarge for a patch past the limits of the
// package doc's "Limits" (413), ErrUnprocessable for a patch that is
// well-formed but cannot be applied or costs too much (422); any other
// error means the patch is bad for this object (400 Bad Request). An
// original that is not a JSON object is an error too.
func Apply(t Type, kind string, original, p []byte) ([]byte, error) {
	switch t {
	case JSON, Merge, StrategicMerge:
	default:
		return nil, fmt.Errorf("%w %q", ErrUnsupportedType, t)
	}
	doc, err := decodeObject(original, "original object")
	if err != nil {
		return nil, err
	}
	w := newMeter(len(original) + len(p))
	var out value
	switch t {
	case Merge:
		pv, err := decode(p, "merge patch")
		if err != nil {
			return nil, err
		}
		pm, ok := pv.(object)
		if !ok {
			return nil, errors.New("patch: a merge patch must be a JSON object")
		}
		out = mergePatch(doc, pm)
	case JSON:
		out, err = jsonPatch(doc, p, w)
	case StrategicMerge:
		out, err = strategicMerge(kind, doc, p, w)
	}
	if err != nil {
		return nil, err
	}
	if _, ok := out.(object); !ok {
		return nil, errors.New("patch: the patched document is not a JSON object")
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	if len(b) > MaxObjectBytes {
		return nil, fmt.Errorf("%w: the patched object is %d bytes, more than the limit of %d", ErrTooLarge, len(b), MaxObjectBytes)
	}
	return b, nil
}

// value is a decoded JSON value: object, []value, json.Number, string,
// bool or nil.
type value = any

// object is a decoded JSON object.
type object = map[string]any

// decode parses one JSON value, keeping numbers exact.
func decode(b []byte, what string) (value, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v value
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("patch: %s is not valid JSON: %w", what, err)
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("patch: %s has data after its JSON value", what)
	}
	return v, nil
}

func decodeObject(b []byte, what string) (object, error) {
	v, err := decode(b, what)
	if err != nil {
		return nil, err
	}
	m, ok := v.(object)
	if !ok {
		return nil, fmt.Errorf("patch: %s is not a JSON object", what)
	}
	return m, nil
}

// mergePatch applies an RFC 7386 merge patch to target; target may be
// changed in place and is returned.
func mergePatch(target value, patch object) value {
	t, ok := target.(object)
	if !ok {
		t = object{}
	}
	for k, v := range patch {
		switch v := v.(type) {
		case nil:
			delete(t, k)
		case object:
			t[k] = mergePatch(t[k], v)
		default:
			t[k] = v
		}
	}
	return t
}

// equal reports whether two decoded JSON values are equal, numbers by
// numeric value (1 equals 1.0), objects regardless of key order.
func equal(a, b value) bool {
	switch a := a.(type) {
	case object:
		b, ok := b.(object)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, av := range a {
			bv, ok := b[k]
			if !ok || !equal(av, bv) {
				return false
			}
		}
		return true
	case []value:
		b, ok := b.([]value)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !equal(a[i], b[i]) {
				return false
			}
		}
		return true
	case json.Number:
		b, ok := b.(json.Number)
		if !ok {
			return false
		}
		return a == b || canonicalNumber(string(a)) == canonicalNumber(string(b))
	default:
		return a == b
	}
}
