package cluster

import (
	"github.com/ctrlkit/ctrlkit/controllers/client"
)

// Errors that the stores return and callers branch on, with errors.Is
// or the predicates of package client, besides the source sentinels
// (source.ErrNotFound, source.ErrAlreadyExists, source.ErrConflict),
// which they wrap where those apply. They are the client contract's.
var (
	// ErrInvalid means the object failed validation (Kubernetes' 422
	// Invalid); the error is an *InvalidError listing every field error.
	ErrInvalid = client.ErrInvalid
	// ErrForbidden means the write is refused whatever the object holds
	// (Kubernetes' 403 Forbidden): a create in a terminating namespace,
	// the deletion of an immortal namespace.
	ErrForbidden = client.ErrForbidden
	// ErrBadRequest means the request itself is malformed: an unparsable
	// selector, a field selector on a field the kind does not support, an
	// UpdateStatus on a kind without status (Kubernetes' 400 Bad Request).
	ErrBadRequest = client.ErrBadRequest
)

// FieldErrorType says what is wrong with a field (client.FieldErrorType).
type FieldErrorType = client.FieldErrorType

// The field error types.
const (
	FieldRequired    = client.FieldRequired
	FieldInvalid     = client.FieldInvalid
	FieldUnsupported = client.FieldUnsupported
	FieldForbidden   = client.FieldForbidden
	FieldDuplicate   = client.FieldDuplicate
	FieldTooLong     = client.FieldTooLong
	FieldTooMany     = client.FieldTooMany
	FieldNotFound    = client.FieldNotFound
)

// FieldError is one validation failure (client.FieldError).
type FieldError = client.FieldError

// InvalidError is the error of a write whose object failed validation
// (client.InvalidError).
type InvalidError = client.InvalidError

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
