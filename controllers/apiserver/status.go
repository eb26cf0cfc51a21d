package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/admission"
	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver/patch"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver/protobuf"
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

// acceptProtobuf reads r's Accept header: whether it prefers Kubernetes
// protobuf to JSON (its most preferred type of the two, by q and then
// order, is protobuf without parameters other than stream), and whether
// it accepts JSON at all (application/json, application/* or */*; an
// absent header accepts anything). Entries asking for a Table or
// metadata (as=…) are acceptedAs's.
func acceptProtobuf(r *http.Request) (prefer, jsonOK bool) {
	accept := r.Header.Get("Accept")
	if strings.TrimSpace(accept) == "" {
		return false, true
	}
	bestQ := -1.0
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil || params["as"] != "" {
			continue
		}
		q := 1.0
		if s, ok := params["q"]; ok {
			if q, err = strconv.ParseFloat(s, 64); err != nil {
				continue
			}
		}
		if q <= 0 {
			continue
		}
		isJSON := mt == "application/json" || mt == "application/*" || mt == "*/*"
		jsonOK = jsonOK || isJSON
		if (isJSON || mt == protobuf.MediaType) && q > bestQ {
			bestQ, prefer = q, mt == protobuf.MediaType
		}
	}
	return prefer, jsonOK
}

// protoWriter buffers a response written as JSON and, when it is done,
// writes it as Kubernetes protobuf if its kind has a protobuf form (a
// built-in kind, its list, a Scale, a Status): the response of a client
// that prefers protobuf. Anything else is written as JSON when the client
// accepts JSON, else refused with 406 NotAcceptable; an error Status is
// JSON unless the client accepts only protobuf.
type protoWriter struct {
	http.ResponseWriter
	jsonOK bool
	code   int
	buf    bytes.Buffer
}

// WriteHeader records the status code.
func (p *protoWriter) WriteHeader(code int) {
	if p.code == 0 {
		p.code = code
	}
}

// Write buffers b.
func (p *protoWriter) Write(b []byte) (int, error) {
	p.WriteHeader(http.StatusOK)
	return p.buf.Write(b)
}

// Flush does nothing: the response is written when it is complete.
func (p *protoWriter) Flush() {}

// Unwrap returns the underlying writer (http.ResponseController).
func (p *protoWriter) Unwrap() http.ResponseWriter { return p.ResponseWriter }

func (p *protoWriter) finish() {
	if p.code == 0 {
		p.code = http.StatusOK
	}
	h := p.Header()
	body := p.buf.Bytes()
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	if mt == "application/json" && !(p.code >= 400 && p.jsonOK) {
		pb, err := protobuf.Marshal(body)
		switch {
		case err == nil:
			h.Set("Content-Type", protobuf.MediaType)
			h.Del("Content-Length")
			p.ResponseWriter.WriteHeader(p.code)
			p.ResponseWriter.Write(pb)
			return
		case !p.jsonOK:
			h.Del("Content-Length")
			writeJSON(p.ResponseWriter, http.StatusNotAcceptable, newError(http.StatusNotAcceptable, "NotAcceptable",
				"only the following media types are accepted: application/json, application/yaml (this kind has no protobuf form)").status)
			return
		}
	}
	p.ResponseWriter.WriteHeader(p.code)
	p.ResponseWriter.Write(body)
}

// protoWatchWriter turns the JSON watch stream written to it, one event
// a line, into a protobuf watch stream: each line becomes a frame
// (protobuf.MarshalWatchEvent).
type protoWatchWriter struct {
	http.ResponseWriter
	line []byte
	err  error
}

// WriteHeader sets the stream's media type and writes the header.
func (p *protoWatchWriter) WriteHeader(code int) {
	p.Header().Set("Content-Type", protobuf.MediaType+";stream=watch")
	p.ResponseWriter.WriteHeader(code)
}

// Write converts each complete line of b to a frame.
func (p *protoWatchWriter) Write(b []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			p.line = append(p.line, b...)
			break
		}
		p.line = append(p.line, b[:i]...)
		b = b[i+1:]
		var ev struct {
			Type   string          `json:"type"`
			Object json.RawMessage `json:"object"`
		}
		var obj []byte
		err := json.Unmarshal(p.line, &ev)
		if err == nil {
			obj, err = protobuf.Marshal(ev.Object)
		}
		p.line = p.line[:0]
		if err != nil {
			p.err = fmt.Errorf("apiserver: protobuf watch event: %w", err)
			return 0, p.err
		}
		if _, err := p.ResponseWriter.Write(protobuf.MarshalWatchEvent(ev.Type, obj)); err != nil {
			p.err = err
			return 0, err
		}
	}
	return n, nil
}

// Flush flushes the underlying writer.
func (p *protoWatchWriter) Flush() {
	if f, ok := p.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap returns the underlying writer (http.ResponseController).
func (p *protoWatchWriter) Unwrap() http.ResponseWriter { return p.ResponseWriter }

// hasProtobuf reports whether the kind of res has a protobuf form: a
// built-in kind Kubernetes serves in protobuf.
func hasProtobuf(res *resourceInfo) bool {
	if res == nil || !res.builtin {
		return false
	}
	return protobuf.Has(api.GroupVersionKind{Group: res.group, Version: res.version, Kind: res.kind}.APIVersion(), res.kind)
}

// decodeProtobufBody turns b, a protobuf request body, into JSON; an
// envelope without a kind holds defAPIVersion, defKind. Malformed input
// is a 400.
func decodeProtobufBody(b []byte, defAPIVersion, defKind string) ([]byte, error) {
	j, err := protobuf.Unmarshal(b, defAPIVersion, defKind)
	if err != nil {
		if errors.Is(err, protobuf.ErrMalformed) {
			return nil, badRequest("the protobuf body is malformed: %v", err)
		}
		return nil, newError(http.StatusUnsupportedMediaType, "UnsupportedMediaType", err.Error())
	}
	return j, nil
}
