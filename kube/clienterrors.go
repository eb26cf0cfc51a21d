package kube

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlkit/ctrlkit/controllers/client"
)

// fail maps an error of the API server onto the client contract's
// errors, on top of convertError's source sentinels (which the reflector
// reads: source.ErrExpired, ErrTransient, …):
//
//   - 422 Invalid: a *client.InvalidError with a FieldError per cause of
//     the Status's details;
//   - 403: client.ErrForbidden; 400: client.ErrBadRequest; 413:
//     client.ErrTooLarge;
//   - 429: client.ErrTooManyRequests, as a *client.RetryAfterError when
//     the server said when to come back (Retry-After, or the Status's
//     retryAfterSeconds);
//   - 504, and 500 with reason ServerTimeout: client.ErrServerTimeout
//     (with its Retry-After likewise), except "Too large resource
//     version", which is source.ErrFutureVersion.
//
// The *apierrors.StatusError stays in the chain.
func (r *Resource[T]) fail(op string, err error) error {
	if err == nil {
		return nil
	}
	base := convertError(op, err)
	var extra error
	switch {
	case apierrors.IsInvalid(err):
		extra = r.invalid(err)
	case apierrors.IsForbidden(err):
		extra = client.ErrForbidden
	case apierrors.IsBadRequest(err):
		extra = client.ErrBadRequest
	case apierrors.IsRequestEntityTooLargeError(err):
		extra = client.ErrTooLarge
	case apierrors.IsTooManyRequests(err):
		extra = retryAfter(client.ErrTooManyRequests, err)
	case apierrors.IsTimeout(err) && apierrors.HasStatusCause(err, metav1.CauseTypeResourceVersionTooLarge):
	case apierrors.IsServerTimeout(err), apierrors.IsTimeout(err):
		extra = retryAfter(client.ErrServerTimeout, err)
	}
	if extra == nil {
		return base
	}
	return fmt.Errorf("%w: %w", extra, base)
}

func retryAfter(sentinel, err error) error {
	if s, ok := apierrors.SuggestsClientDelay(err); ok && s > 0 {
		return &client.RetryAfterError{Err: sentinel, After: time.Duration(s) * time.Second}
	}
	return sentinel
}

// causeTypes maps metav1.CauseType to the contract's field error types.
var causeTypes = map[metav1.CauseType]client.FieldErrorType{
	metav1.CauseTypeFieldValueRequired:      client.FieldRequired,
	metav1.CauseTypeFieldValueInvalid:       client.FieldInvalid,
	metav1.CauseTypeFieldValueNotSupported:  client.FieldUnsupported,
	metav1.CauseType("FieldValueForbidden"): client.FieldForbidden,
	metav1.CauseTypeFieldValueDuplicate:     client.FieldDuplicate,
	metav1.CauseType("FieldValueTooLong"):   client.FieldTooLong,
	metav1.CauseTypeFieldValueNotFound:      client.FieldNotFound,
}

// invalid returns the *client.InvalidError of a 422. A cause's message
// is kube-apiserver's field error without its path: `Invalid value:
// "x": detail`; the quoted value and the detail are split out of it. A
// cause type the contract has no name for is FieldInvalid, with the
// whole message as detail.
func (r *Resource[T]) invalid(err error) *client.InvalidError {
	inv := &client.InvalidError{Resource: r.resource}
	var se apierrors.APIStatus
	if !errors.As(err, &se) {
		return inv
	}
	st := se.Status()
	if st.Details == nil {
		inv.Errors = []client.FieldError{{Type: client.FieldInvalid, Detail: st.Message}}
		return inv
	}
	inv.Name = st.Details.Name
	for _, c := range st.Details.Causes {
		fe := client.FieldError{Field: c.Field}
		typ, known := causeTypes[c.Type]
		rest, trimmed := strings.CutPrefix(c.Message, string(typ))
		if !known || !trimmed {
			fe.Type, fe.Detail = client.FieldInvalid, c.Message
			if known {
				fe.Type = typ
			}
			inv.Errors = append(inv.Errors, fe)
			continue
		}
		fe.Type = typ
		rest = strings.TrimPrefix(rest, ": ")
		if strings.HasPrefix(rest, `"`) {
			if q, err := strconv.QuotedPrefix(rest); err == nil {
				fe.Value, _ = strconv.Unquote(q)
				rest = strings.TrimPrefix(rest[len(q):], ": ")
			}
		}
		fe.Detail = rest
		inv.Errors = append(inv.Errors, fe)
	}
	if len(inv.Errors) == 0 {
		inv.Errors = []client.FieldError{{Type: client.FieldInvalid, Detail: st.Message}}
	}
	return inv
}
