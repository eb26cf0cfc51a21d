// Package jsonequal compares two Go values by their JSON encoding
// without encoding them: Equal(a, b) reports what
// bytes.Equal(json.Marshal(a), json.Marshal(b)) would, as kube-apiserver
// decides that an update changes nothing by comparing encoded bytes.
//
// The contract: Equal(a, b) is true if a and b are deeply equal
// (reflect.DeepEqual), and otherwise exactly when both encode without an
// error to the same bytes. It walks both values together, field by
// field, following encoding/json's rules for what is written: fields
// without a JSON name (unexported, `json:"-"`), omitempty and omitzero
// (with the field type's IsZero method when it has one), embedded
// structs flattened into their parent, nil against empty slices and
// maps, base64 []byte, sorted map keys. Where a difference might still
// encode the same — a value whose type has its own MarshalJSON or
// MarshalText, interfaces holding different types, strings or map keys
// that are not valid UTF-8 (encoded as U+FFFD), nil against non-nil
// pointers and interfaces — it encodes just those two sub-values and
// compares the bytes; a struct whose embedded fields encoding/json
// would resolve by its conflict rules is encoded whole. Two values of
// different types are encoded whole.
//
// It allocates nothing for values that contain no such sub-values, and
// stops at the first difference.
package jsonequal
