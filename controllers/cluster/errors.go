package cluster

import (
	"errors"
	"fmt"
	"strings"
)

// Errors that the stores return and callers branch on, with errors.Is,
// besides the source sentinels (source.ErrNotFound, source.ErrAlreadyExists,
// source.ErrConflict), which they wrap where those apply.
var (
	// ErrInvalid means the object failed validation (Kubernetes' 422
	// Invalid); the error is an *InvalidError listing every field error.
	ErrInvalid = errors.New("cluster: invalid")
	// ErrForbidden means the write is refused whatever the object holds
	// (Kubernetes' 403 Forbidden): a create in a terminating namespace,
	// the deletion of an immortal namespace.
	ErrForbidden = errors.New("cluster: forbidden")
	// ErrBadRequest means the request itself is malformed: an unparsable
	// selector, a field selector on a field the kind does not support, an
	// UpdateStatus on a kind without status (Kubernetes' 400 Bad Request).
	ErrBadRequest = errors.New("cluster: bad request")
)

// FieldErrorType says what is wrong with a field, with Kubernetes' wording.
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
	// Detail explains the rule.
	Detail string
}

// Error formats the field error as kube-apiserver does.
func (e FieldError) Error() string {
	var b strings.Builder
	b.WriteString(e.Field)
	b.WriteString(": ")
	b.WriteString(string(e.Type))
	if e.Value != "" && e.Type != FieldRequired && e.Type != FieldForbidden {
		fmt.Fprintf(&b, ": %q", e.Value)
	}
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	return b.String()
}

// InvalidError is the error of a write whose object failed validation. It
// carries every field error found, not only the first;
// errors.Is(err, ErrInvalid) is true.
type InvalidError struct {
	// Resource is the kind's resource name ("pods", "deployments").
	Resource string
	// Name is the object's name ("" when it had none).
	Name string
	// Errors are the field errors, in the order the rules ran.
	Errors []FieldError
}

// Error lists the field errors.
func (e *InvalidError) Error() string {
	parts := make([]string, len(e.Errors))
	for i, fe := range e.Errors {
		parts[i] = fe.Error()
	}
	return fmt.Sprintf("cluster: %s %q is invalid: [%s]", e.Resource, e.Name, strings.Join(parts, ", "))
}

// Unwrap returns ErrInvalid.
func (e *InvalidError) Unwrap() error { return ErrInvalid }

// Field returns the first error at path, and whether there is one.
func (e *InvalidError) Field(path string) (FieldError, bool) {
	for _, fe := range e.Errors {
		if fe.Field == path {
			return fe, true
		}
	}
	return FieldError{}, false
}

// fieldErrors accumulates the errors of one validation.
type fieldErrors []FieldError

func (fs *fieldErrors) add(t FieldErrorType, field, value, detail string) {
	*fs = append(*fs, FieldError{Type: t, Field: field, Value: value, Detail: detail})
}

func (fs *fieldErrors) required(field, detail string) { fs.add(FieldRequired, field, "", detail) }
func (fs *fieldErrors) invalid(field, value, detail string) {
	fs.add(FieldInvalid, field, value, detail)
}
func (fs *fieldErrors) forbidden(field, detail string) { fs.add(FieldForbidden, field, "", detail) }

func (fs fieldErrors) err(resource, name string) error {
	if len(fs) == 0 {
		return nil
	}
	return &InvalidError{Resource: resource, Name: name, Errors: fs}
}
