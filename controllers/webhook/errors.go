package webhook

import (
	"fmt"
	"net/http"

	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/source"
)

// DeniedError is a webhook's refusal, worded as kube-apiserver words it:
// `admission webhook "NAME" denied the request: MESSAGE`. Code is the
// status code the webhook gave, or 400 when it gave none (or one below
// 400), as kube-apiserver answers.
type DeniedError struct {
	// Webhook is the webhook's name.
	Webhook string
	// Code is the HTTP status code of the refusal, at least 400.
	Code int32
	// Reason is the webhook's status reason ("Forbidden"), if any.
	Reason string
	// Message is the webhook's message ("" when it gave none).
	Message string
}

// Error returns kube-apiserver's message for the refusal.
func (e *DeniedError) Error() string {
	denied := fmt.Sprintf("admission webhook %q denied the request", e.Webhook)
	switch {
	case e.Message != "":
		return denied + ": " + e.Message
	case e.Reason != "":
		return denied + ": " + e.Reason
	default:
		return denied + " without explanation"
	}
}

// APIStatus returns the status the API server answers the refused
// request with, as kube-apiserver does: the webhook's own code (at least
// 400) and reason, and Error's message, with nothing prefixed.
func (e *DeniedError) APIStatus() (code int32, reason, message string) {
	code = e.Code
	if code < http.StatusBadRequest {
		code = http.StatusBadRequest
	}
	return code, e.Reason, e.Error()
}

// Unwrap returns the sentinel of the client contract for Code, so that
// the API server answers with that code: client.ErrForbidden (403),
// source.ErrNotFound (404), source.ErrConflict (409), nil for a 5xx
// (500), and client.ErrBadRequest (400) for any other code.
func (e *DeniedError) Unwrap() error {
	switch {
	case e.Code == http.StatusForbidden:
		return client.ErrForbidden
	case e.Code == http.StatusNotFound:
		return source.ErrNotFound
	case e.Code == http.StatusConflict:
		return source.ErrConflict
	case e.Code >= 500:
		return nil
	}
	return client.ErrBadRequest
}

// CallError is a failed call of a webhook whose failure policy is Fail:
// it could not be reached, timed out, failed TLS verification, or
// answered something that is not a valid AdmissionReview. Its message is
// kube-apiserver's: `failed calling webhook "NAME": REASON`. It wraps no
// sentinel: the API server answers 500 Internal Error, as kube-apiserver
// does.
type CallError struct {
	// Webhook is the webhook's name.
	Webhook string
	// Err is what went wrong.
	Err error
}

// Error returns kube-apiserver's message for the failure.
func (e *CallError) Error() string {
	return fmt.Sprintf("failed calling webhook %q: %v", e.Webhook, e.Err)
}

// dryRunError is kube-apiserver's refusal of a dry-run request to a
// webhook that may have side effects (400).
type dryRunError string

func (e dryRunError) Error() string {
	return fmt.Sprintf("admission webhook %q does not support dry run", string(e))
}

func (dryRunError) Unwrap() error { return client.ErrBadRequest }
