package client

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/source"
)

// The errors of the contract, besides the source sentinels every
// implementation wraps where they apply (source.ErrNotFound,
// source.ErrAlreadyExists, source.ErrConflict, source.ErrExpired,
// source.ErrUnsupported). Branch on them with the predicates below, or
// with errors.Is.
var (
	// ErrInvalid means the object failed validation (Kubernetes' 422
	// Invalid); the error is an *InvalidError listing every field error.
	ErrInvalid = errors.New("invalid")
	// ErrForbidden means the write is refused whatever the object holds
	// (403 Forbidden): a create in a terminating namespace, the deletion
	// of an immortal namespace, an admission plugin's refusal.
	ErrForbidden = errors.New("forbidden")
	// ErrBadRequest means the request itself is malformed: an unparsable
	// selector, a field selector on a field the kind does not support, an
	// UpdateStatus on a kind without status (400 Bad Request).
	ErrBadRequest = errors.New("bad request")
	// ErrTooLarge means the object, or the request, is larger than the
	// server takes (413 Request Entity Too Large).
	ErrTooLarge = errors.New("request entity too large")
	// ErrTooManyRequests means the server throttled the request (429);
	// the error is a *RetryAfterError when the server said when to come
	// back.
	ErrTooManyRequests = errors.New("too many requests")
	// ErrServerTimeout means the server could not finish the request in
	// time (504 Gateway Timeout, or a 500 with reason ServerTimeout);
	// whether a write happened is unknown.
	ErrServerTimeout = errors.New("server timeout")
	// ErrUnknownKind means the client does not serve the kind asked for.
	ErrUnknownKind = errors.New("unknown kind")
)

// IsNotFound reports whether err means the object (or its namespace) does
// not exist (404).
func IsNotFound(err error) bool { return errors.Is(err, source.ErrNotFound) }

// IsAlreadyExists reports whether err means a create found the name taken
// (409 AlreadyExists).
func IsAlreadyExists(err error) bool { return errors.Is(err, source.ErrAlreadyExists) }

// IsConflict reports whether err means a precondition failed: the object
// was modified since it was read, or has another uid (409 Conflict).
func IsConflict(err error) bool { return errors.Is(err, source.ErrConflict) }

// IsInvalid reports whether err means the object failed validation (422);
// errors.As(err, &invalid) with an *InvalidError gives the field causes.
func IsInvalid(err error) bool { return errors.Is(err, ErrInvalid) }

// IsForbidden reports whether err means the server refused the write
// (403).
func IsForbidden(err error) bool { return errors.Is(err, ErrForbidden) }

// IsBadRequest reports whether err means the request was malformed (400).
func IsBadRequest(err error) bool { return errors.Is(err, ErrBadRequest) }

// IgnoreNotFound returns nil when err IsNotFound, and err otherwise: for
// a deletion or a finalizer's last update racing the object's removal.
func IgnoreNotFound(err error) error {
	if IsNotFound(err) {
		return nil
	}
	return err
}

// IsGone reports whether err means a resourceVersion or continue token
// is older than the server keeps (410 Gone, source.ErrExpired): list
// again.
func IsGone(err error) bool { return errors.Is(err, source.ErrExpired) }

// IsTooLarge reports whether err means the object or request was too
// large (413).
func IsTooLarge(err error) bool { return errors.Is(err, ErrTooLarge) }

// IsTooManyRequests reports whether err means the server throttled the
// request (429); RetryAfter says when to retry.
func IsTooManyRequests(err error) bool { return errors.Is(err, ErrTooManyRequests) }

// IsServerTimeout reports whether err means the server timed out; a
// write may or may not have happened.
func IsServerTimeout(err error) bool { return errors.Is(err, ErrServerTimeout) }

// RetryAfter returns how long the server asked the client to wait before
// retrying (a 429's or 503's Retry-After), and whether it said.
func RetryAfter(err error) (time.Duration, bool) {
	var ra *RetryAfterError
	if errors.As(err, &ra) && ra.After > 0 {
		return ra.After, true
	}
	return 0, false
}

// RetryAfterError is an error for which the server said when to retry.
type RetryAfterError struct {
	// Err is the error: it wraps ErrTooManyRequests or ErrServerTimeout.
	Err error
	// After is how long to wait.
	After time.Duration
}

// Error returns Err's message and the delay.
func (e *RetryAfterError) Error() string {
	return fmt.Sprintf("%v (retry after %s)", e.Err, e.After)
}

// Unwrap returns Err.
func (e *RetryAfterError) Unwrap() error { return e.Err }

// FieldErrorType says what is wrong with a field (api.FieldErrorType).
type FieldErrorType = api.FieldErrorType

// The field error types (api's).
const (
	FieldRequired    = api.FieldRequired
	FieldInvalid     = api.FieldInvalid
	FieldUnsupported = api.FieldUnsupported
	FieldForbidden   = api.FieldForbidden
	FieldDuplicate   = api.FieldDuplicate
	FieldTooLong     = api.FieldTooLong
	FieldTooMany     = api.FieldTooMany
	FieldNotFound    = api.FieldNotFound
)

// FieldError is one validation failure (api.FieldError).
type FieldError = api.FieldError

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
	return fmt.Sprintf("%s %q is invalid: [%s]", e.Resource, e.Name, strings.Join(parts, ", "))
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
