package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
)

// Unstructured is an object of a kind the program has no Go type for: a
// custom resource whose kind a CustomResourceDefinition defines. Its
// apiVersion, kind and metadata are typed, so that every metadata rule
// (names, labels, finalizers, owner references, deletion) applies to it
// as to any kind; every other top-level field (spec, status, data, …) is
// in Content, as JSON decodes it: nil, bool, string, int64 (a JSON
// integer that fits), float64 (any other number), []any and
// map[string]any, the values of kube's unstructured objects.
//
// A controller of a kind it owns should use a Go type (Register) and
// never touch Unstructured; this type is for code generic over kinds met
// at run time: the API server, kubectl-like tools, the garbage collector.
type Unstructured struct {
	TypeMeta
	ObjectMeta
	// Content holds the object's top-level fields other than apiVersion,
	// kind and metadata.
	Content map[string]any
}

// GroupVersionKind returns the group, version and kind the object's
// apiVersion and kind say: an unstructured object has no other.
func (u *Unstructured) GroupVersionKind() GroupVersionKind { return u.TypeMeta.GroupVersionKind() }

// DeepCopyObject returns a deep copy of u.
func (u *Unstructured) DeepCopyObject() Object { return u.DeepCopy() }

// DeepCopy returns a deep copy of u.
func (u *Unstructured) DeepCopy() *Unstructured {
	if u == nil {
		return nil
	}
	out := &Unstructured{TypeMeta: u.TypeMeta}
	u.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if u.Content != nil {
		out.Content = DeepCopyJSONValue(u.Content).(map[string]any)
	}
	return out
}

// Field returns the value at the path of field names in Content
// (Field("spec", "replicas")), and false when a step is missing or not
// an object.
func (u *Unstructured) Field(path ...string) (any, bool) {
	var cur any = u.Content
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// Map returns the whole object as a JSON map: Content's fields (shared,
// not copied) with apiVersion, kind and metadata (encoded afresh), the
// form schema validation reads.
func (u *Unstructured) Map() map[string]any {
	m := make(map[string]any, len(u.Content)+3)
	maps.Copy(m, u.Content)
	if u.APIVersion != "" {
		m["apiVersion"] = u.APIVersion
	}
	if u.Kind != "" {
		m["kind"] = u.Kind
	}
	if meta, err := json.Marshal(&u.ObjectMeta); err == nil {
		var mm map[string]any
		if DecodeJSONValue(meta, &mm) == nil && len(mm) > 0 {
			m["metadata"] = mm
		}
	}
	return m
}

// SetMap sets u from m, a whole object as Map returns it: apiVersion,
// kind and metadata into their typed fields, the rest into Content (m's
// maps are kept, not copied).
func (u *Unstructured) SetMap(m map[string]any) error {
	content := make(map[string]any, len(m))
	var tm TypeMeta
	var meta ObjectMeta
	for k, v := range m {
		switch k {
		case "apiVersion":
			s, ok := v.(string)
			if !ok && v != nil {
				return fmt.Errorf("apiVersion: must be a string, not %s", jsonTypeName(v))
			}
			tm.APIVersion = s
		case "kind":
			s, ok := v.(string)
			if !ok && v != nil {
				return fmt.Errorf("kind: must be a string, not %s", jsonTypeName(v))
			}
			tm.Kind = s
		case "metadata":
			if v == nil {
				continue
			}
			if _, ok := v.(map[string]any); !ok {
				return fmt.Errorf("metadata: must be an object, not %s", jsonTypeName(v))
			}
			b, err := json.Marshal(v)
			if err != nil {
				return fmt.Errorf("metadata: %w", err)
			}
			if err := json.Unmarshal(b, &meta); err != nil {
				return fmt.Errorf("metadata: %w", err)
			}
		default:
			content[k] = v
		}
	}
	u.TypeMeta, u.ObjectMeta, u.Content = tm, meta, content
	return nil
}

// MarshalJSON encodes u as one JSON object: apiVersion, kind, metadata,
// then Content's fields in key order.
func (u Unstructured) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	put := func(k string, v any) error {
		if !first {
			b.WriteByte(',')
		}
		first = false
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
		b.Write(vb)
		return nil
	}
	if u.APIVersion != "" {
		_ = put("apiVersion", u.APIVersion)
	}
	if u.Kind != "" {
		_ = put("kind", u.Kind)
	}
	if err := put("metadata", &u.ObjectMeta); err != nil {
		return nil, err
	}
	for _, k := range slices.Sorted(maps.Keys(u.Content)) {
		if k == "apiVersion" || k == "kind" || k == "metadata" {
			continue
		}
		if err := put(k, u.Content[k]); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON decodes one JSON object into u, replacing what it held.
// Numbers decode as int64 when they are integers that fit, else float64.
func (u *Unstructured) UnmarshalJSON(data []byte) error {
	var m map[string]any
	if err := DecodeJSONValue(data, &m); err != nil {
		return err
	}
	if m == nil {
		return errors.New("api: an object must be a JSON object, not null")
	}
	return u.SetMap(m)
}

// DecodeJSONValue decodes data into *dst (a *any or *map[string]any)
// with the number rule of unstructured objects: integers that fit in an
// int64 are int64, other numbers float64.
func DecodeJSONValue[T any](data []byte, dst *T) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("api: unexpected data after the JSON value")
	}
	v = convertNumbers(v)
	if v == nil {
		var zero T
		*dst = zero
		return nil
	}
	t, ok := v.(T)
	if !ok {
		return fmt.Errorf("api: expected a JSON %s, got %s", typeWord[T](), jsonTypeName(v))
	}
	*dst = t
	return nil
}

func typeWord[T any]() string {
	if reflect.TypeFor[T]() == reflect.TypeFor[map[string]any]() {
		return "object"
	}
	return "value"
}

// convertNumbers replaces the json.Numbers in v by int64 or float64.
func convertNumbers(v any) any {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, err := t.Float64()
		if err != nil || math.IsInf(f, 0) {
			return t.String() // out of range: kept as written
		}
		return f
	case map[string]any:
		for k, e := range t {
			t[k] = convertNumbers(e)
		}
	case []any:
		for i, e := range t {
			t[i] = convertNumbers(e)
		}
	}
	return v
}

// DeepCopyJSONValue returns a deep copy of v, a JSON value of an
// unstructured object (maps and slices are copied, scalars shared).
func DeepCopyJSONValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = DeepCopyJSONValue(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = DeepCopyJSONValue(e)
		}
		return out
	default:
		return v
	}
}

// jsonTypeName names the JSON type of v as kube's messages do.
func jsonTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case int64, float64, json.Number:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", v), "*")
}
