package api

import (
	"encoding/json"
	"fmt"
	"strings"
)

// FieldErrorType says what is wrong with a field, in Kubernetes' words.
type FieldErrorType string

// The field error types.
const (
	// FieldRequired: a required field is missing.
	FieldRequired FieldErrorType = "Required value"
	// FieldInvalid: the value is malformed or out of range.
	FieldInvalid FieldErrorType = "Invalid value"
	// FieldUnsupported: the value is not one of the allowed ones.
	FieldUnsupported FieldErrorType = "Unsupported value"
	// FieldForbidden: the field may not be set or changed here.
	FieldForbidden FieldErrorType = "Forbidden"
	// FieldDuplicate: the value repeats one that must be unique.
	FieldDuplicate FieldErrorType = "Duplicate value"
	// FieldTooLong: the value (or the sum of several) is longer than
	// allowed.
	FieldTooLong FieldErrorType = "Too long"
	// FieldTooMany: a list has more items than allowed.
	FieldTooMany FieldErrorType = "Too many"
	// FieldNotFound: the value refers to something that does not exist
	// (a volume mount naming no volume of the pod).
	FieldNotFound FieldErrorType = "Not found"
)

// FieldError is one validation failure, at a field path written as
// Kubernetes writes it ("spec.template.spec.containers[0].image").
type FieldError struct {
	// Type says what is wrong.
	Type FieldErrorType
	// Field is the path of the field.
	Field string
	// Value is the offending value as text ("" when irrelevant).
	Value string
	// BadValue, if set, is the offending value itself; a number or a
	// boolean is then printed bare, as kube-apiserver prints it
	// (`Invalid value: 70000`), where Value alone is printed quoted; so
	// is a json.RawMessage (a list or an object: `Invalid value: [19,11]`).
	// A BadValue of "" prints an empty Value as `Invalid value: ""`.
	BadValue any
	// Detail explains the rule.
	Detail string
}

// Error formats the field error as kube-apiserver does.
func (e FieldError) Error() string {
	var b strings.Builder
	b.WriteString(e.Field)
	b.WriteString(": ")
	b.WriteString(string(e.Type))
	if (e.Value != "" || e.BadValue != nil) && e.Type != FieldRequired && e.Type != FieldForbidden {
		switch e.BadValue.(type) {
		case int, int32, int64, uint32, uint64, float32, float64, bool, json.RawMessage:
			fmt.Fprintf(&b, ": %s", e.Value)
		default:
			fmt.Fprintf(&b, ": %q", e.Value)
		}
	}
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	return b.String()
}
