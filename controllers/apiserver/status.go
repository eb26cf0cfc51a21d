package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/admission"
	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver/patch"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/source"
)

// Status is metav1.Status, the body of every error response and of some
// successful deletes.
type Status struct {
	api.TypeMeta `json:",inline"`
	// Metadata is the list metadata (always empty here).
	Metadata ListMeta `json:"metadata"`
	// Status is "Success" or "Failure".
	Status string `json:"status,omitempty"`
	// Message is a human-readable description.
	Message string `json:"message,omitempty"`
	// Reason is the machine-readable reason (metav1.StatusReason).
	Reason string `json:"reason,omitempty"`
	// Details identify the object and the field causes.
	Details *StatusDetails `json:"details,omitempty"`
	// Code is the HTTP status code.
	Code int `json:"code,omitempty"`
}

// StatusDetails is metav1.StatusDetails.
type StatusDetails struct {
	// Name of the object.
	Name string `json:"name,omitempty"`
	// Group of the resource.
	Group string `json:"group,omitempty"`
	// Kind is the resource name ("pods"), as kube-apiserver fills it.
	Kind string `json:"kind,omitempty"`
	// UID of a deleted object.
	UID api.UID `json:"uid,omitempty"`
	// Causes are the field errors of an Invalid status.
	Causes []StatusCause `json:"causes,omitempty"`
	// RetryAfterSeconds suggests when to retry.
	RetryAfterSeconds int32 `json:"retryAfterSeconds,omitempty"`
}

// StatusCause is metav1.StatusCause.
type StatusCause struct {
	// Reason is the cause's type ("FieldValueRequired").
	Reason string `json:"reason,omitempty"`
	// Message describes the cause.
	Message string `json:"message,omitempty"`
	// Field is the field path.
	Field string `json:"field,omitempty"`
}

// ListMeta is metav1.ListMeta.
type ListMeta struct {
	// ResourceVersion the list is consistent at.
	ResourceVersion string `json:"resourceVersion,omitempty"`
	// Continue is the token of the next page.
	Continue string `json:"continue,omitempty"`
}

var statusTypeMeta = api.TypeMeta{APIVersion: "v1", Kind: "Status"}

// apiError is an error response on its way out.
type apiError struct {
	status Status
}

func (e *apiError) Error() string { return e.status.Message }

func newError(code int, reason, msg string) *apiError {
	e := &apiError{Status{TypeMeta: statusTypeMeta, Status: "Failure", Code: code, Reason: reason, Message: msg}}
	if code == http.StatusNotFound {
		// kube-apiserver's NotFound always has details; kubectl debug
		// reads them.
		e.status.Details = &StatusDetails{}
	}
	return e
}

// timeoutMessage is kube-apiserver's message for a request that ran out
// of time.
const timeoutMessage = "Timeout: request did not complete within the allotted timeout"

func timeoutError(err error) *apiError {
	e := newError(http.StatusGatewayTimeout, "Timeout", timeoutMessage)
	e.status.Details = &StatusDetails{RetryAfterSeconds: 1}
	if err != nil {
		e.status.Message += ": " + err.Error()
	}
	return e
}

func badRequest(format string, args ...any) *apiError {
	return newError(http.StatusBadRequest, "BadRequest", fmt.Sprintf(format, args...))
}

// causeReasons maps the store's field error types to metav1.CauseType.
var causeReasons = map[cluster.FieldErrorType]string{
	cluster.FieldRequired:    "FieldValueRequired",
	cluster.FieldInvalid:     "FieldValueInvalid",
	cluster.FieldUnsupported: "FieldValueNotSupported",
	cluster.FieldForbidden:   "FieldValueForbidden",
	cluster.FieldDuplicate:   "FieldValueDuplicate",
	cluster.FieldTooLong:     "FieldValueTooLong",
	cluster.FieldTooMany:     "FieldValueTooMany",
	cluster.FieldNotFound:    "FieldValueNotFound",
}

// toStatus maps an error of the cluster, a source or this package to the
// Status kube-apiserver would answer for the object (res, name).
func toStatus(err error, res *resourceInfo, name string) Status {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae.status
	}
	var exact interface {
		APIStatus() (code int32, reason, message string)
	}
	if errors.As(err, &exact) {
		// An error that knows kube-apiserver's whole answer (a webhook's
		// refusal): its code, reason and message, nothing prefixed.
		code, reason, message := exact.APIStatus()
		return Status{TypeMeta: statusTypeMeta, Status: "Failure", Code: int(code), Reason: reason, Message: message}
	}
	qualified, group, kind := "", "", ""
	if res != nil {
		qualified, group, kind = res.qualified(), res.group, res.name
	}
	details := &StatusDetails{Name: name, Group: group, Kind: kind}
	s := Status{TypeMeta: statusTypeMeta, Status: "Failure", Details: details}
	var inv *cluster.InvalidError
	switch {
	case errors.As(err, &inv):
		s.Code, s.Reason = http.StatusUnprocessableEntity, "Invalid"
		parts := make([]string, len(inv.Errors))
		for i, fe := range inv.Errors {
			msg := fe.Error()
			parts[i] = msg
			details.Causes = append(details.Causes, StatusCause{Reason: causeReasons[fe.Type], Field: fe.Field,
				Message: strings.TrimPrefix(msg, fe.Field+": ")})
		}
		kindName := qualified
		if res != nil {
			// kube-apiserver's NewInvalid names the kind, not the
			// resource, in the details: kubectl prints `The Pod "x" is
			// invalid: …` from it.
			kindName, details.Kind = res.qualifiedKind(), res.kind
		}
		s.Message = fmt.Sprintf("%s %q is invalid: %s", kindName, name, strings.Join(parts, ", "))
		if len(parts) > 1 {
			s.Message = fmt.Sprintf("%s %q is invalid: [%s]", kindName, name, strings.Join(parts, ", "))
		}
	case errors.Is(err, source.ErrNotFound):
		s.Code, s.Reason = http.StatusNotFound, "NotFound"
		s.Message = fmt.Sprintf("%s %q not found", qualified, name)
		if name == "" {
			s.Message = fmt.Sprintf("%s not found: %v", qualified, err)
		}
	case errors.Is(err, source.ErrAlreadyExists):
		s.Code, s.Reason = http.StatusConflict, "AlreadyExists"
		s.Message = fmt.Sprintf("%s %q already exists", qualified, name)
	case errors.Is(err, source.ErrConflict):
		s.Code, s.Reason = http.StatusConflict, "Conflict"
		s.Message = fmt.Sprintf("Operation cannot be fulfilled on %s %q: the object has been modified; please apply your changes to the latest version and try again", qualified, name)
	case errors.Is(err, cluster.ErrForbidden):
		s.Code, s.Reason = http.StatusForbidden, "Forbidden"
		s.Message = fmt.Sprintf("%s %q is forbidden: %v", qualified, name, err)
		if msg, ok := admission.ForbiddenMessage(err); ok {
			// An admission plugin's refusal, in kube's words.
			s.Message = fmt.Sprintf("%s %q is forbidden: %s", qualified, name, msg)
		}
	case errors.Is(err, cluster.ErrMethodNotAllowed):
		s.Code, s.Reason = http.StatusMethodNotAllowed, "MethodNotAllowed"
		s.Message = clusterMessage(err)
	case errors.Is(err, source.ErrFutureVersion):
		s.Code, s.Reason = http.StatusGatewayTimeout, "Timeout"
		s.Message = "Too large resource version: " + err.Error()
		details.Causes = []StatusCause{{Reason: "ResourceVersionTooLarge", Message: "Too large resource version"}}
		details.RetryAfterSeconds = 1
	case errors.Is(err, source.ErrExpired):
		s.Code, s.Reason = http.StatusGone, "Expired"
		s.Message = "The resourceVersion for the provided list is too old: " + err.Error()
	case errors.Is(err, cluster.ErrTooLarge):
		// The object is over the store's limit (cluster.Options.MaxObjectBytes,
		// etcd's --max-request-bytes): the client's to fix, so 413 where
		// kube-apiserver answers etcd's "request is too large" with a 500.
		s.Code, s.Reason = http.StatusRequestEntityTooLarge, "RequestEntityTooLarge"
		s.Message = "Request entity too large: " + err.Error()
	case errors.Is(err, cluster.ErrBadRequest), errors.Is(err, source.ErrUnsupported):
		s.Code, s.Reason = http.StatusBadRequest, "BadRequest"
		s.Message = err.Error()
	case errors.Is(err, patch.ErrUnsupportedType):
		s.Code, s.Reason = http.StatusUnsupportedMediaType, "UnsupportedMediaType"
		s.Message = err.Error()
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled), errors.Is(err, os.ErrDeadlineExceeded):
		// The request's time ran out (Options.RequestTimeout, the body's
		// read deadline) or its client went away.
		return timeoutError(err).status
	case errors.Is(err, source.ErrTransient):
		s.Code, s.Reason = http.StatusServiceUnavailable, "ServiceUnavailable"
		s.Message = err.Error()
		details.RetryAfterSeconds = 1
	default:
		s.Code, s.Reason = http.StatusInternalServerError, "InternalError"
		s.Message = "Internal error occurred: " + err.Error()
	}
	return s
}

// writeJSON writes v with the status code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		code = http.StatusInternalServerError
		b, _ = json.Marshal(newError(code, "InternalError", "encode: "+err.Error()).status)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(b)
	w.Write([]byte("\n"))
}

// writeError writes err as a Status.
func writeError(w http.ResponseWriter, err error, res *resourceInfo, name string) {
	s := toStatus(err, res, name)
	if s.Details != nil && s.Details.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", fmt.Sprint(s.Details.RetryAfterSeconds))
	}
	writeJSON(w, s.Code, s)
}

// clusterMessage returns err's message without the cluster's context
// prefixes and the sentinel's suffix: the words kube-apiserver would say.
func clusterMessage(err error) string {
	msg := err.Error()
	for {
		rest, ok := strings.CutPrefix(msg, "cluster: ")
		if !ok {
			break
		}
		if i := strings.Index(rest, ": "); i >= 0 && strings.Count(rest[:i], " ") <= 2 {
			msg = rest[i+2:]
			continue
		}
		msg = rest
	}
	return strings.TrimSuffix(msg, ": "+cluster.ErrMethodNotAllowed.Error())
}
