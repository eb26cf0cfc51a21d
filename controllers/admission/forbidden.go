package admission

import (
	"errors"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/client"
)

// ForbiddenError is the error of a write an admission plugin of this
// package refuses, as kube-apiserver's admission.NewForbidden: the API
// server answers 403 Forbidden with `<resource> "<name>" is forbidden:
// <Message>`. errors.Is(err, client.ErrForbidden) holds.
type ForbiddenError struct {
	// Message is the plugin's reason, kube's words.
	Message string
}

// Error returns the message.
func (e *ForbiddenError) Error() string { return e.Message }

// Is reports whether target is client.ErrForbidden.
func (e *ForbiddenError) Is(target error) bool { return target == client.ErrForbidden }

// forbidden returns a ForbiddenError for errs, joined as kube's
// utilerrors.NewAggregate prints them: one message alone, several in
// brackets.
func forbidden(errs []error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return &ForbiddenError{Message: errs[0].Error()}
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	return &ForbiddenError{Message: "[" + strings.Join(msgs, ", ") + "]"}
}

// ForbiddenMessage returns the message of the ForbiddenError err wraps,
// and whether it wraps one.
func ForbiddenMessage(err error) (string, bool) {
	var fe *ForbiddenError
	if errors.As(err, &fe) {
		return fe.Message, true
	}
	return "", false
}
