package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/source"
)

// FieldManager keeps metadata.managedFields and serves server-side apply
// (Options.FieldManager). It works on JSON so that this package needs no
// structured-merge-diff types: the nested module ssa implements it.
//
// Update returns newJSON with the managedFields of a create, update or
// patch by manager recorded (liveJSON is nil on create). Apply merges
// the applied configuration (YAML or JSON) into liveJSON (nil when the
// object does not exist: apply creates it) and returns the result with
// the managedFields set; force takes over the fields of other managers
// instead of failing with a conflict. An error that is a
// *FieldManagerError is answered with its Status (a conflict is kube's
// 409 Conflict with FieldManagerConflict causes); any other error is a
// 500.
type FieldManager interface {
	Update(ctx context.Context, gvk api.GroupVersionKind, liveJSON, newJSON []byte, manager, subresource string) ([]byte, error)
	Apply(ctx context.Context, gvk api.GroupVersionKind, liveJSON, applied []byte, manager, subresource string, force bool) ([]byte, error)
}

// FieldManagerError is an error of a FieldManager the server answers
// with Status as it is (its code, reason, message and causes).
type FieldManagerError struct {
	// Status is the answer.
	Status Status
}

// Error returns the status message.
func (e *FieldManagerError) Error() string { return e.Status.Message }

// applyPatchType is the media type of a server-side apply patch.
const applyPatchType = "application/apply-patch+yaml"

// patchTypesOf returns the media types a PATCH body of req may have:
// apply too when its server has a field manager.
func patchTypesOf(req *request) []string {
	if a, ok := req.h.(interface{ servesApply() bool }); ok && a.servesApply() {
		return append(patchTypes[:len(patchTypes):len(patchTypes)], applyPatchType)
	}
	return patchTypes
}

// servesApply reports whether the server has a field manager.
func (h *typed[T]) servesApply() bool { return h.srv.opts.FieldManager != nil }

// fullBuild is how to run the build of ctrlkit that serves server-side
// apply (the crdcel module's, whose FieldManager is the ssa module's).
const fullBuild = "cd crdcel && go run ./cmd/ctrlkit up"

// checkPatchContentType refuses a PATCH body whose media type the
// handler does not take with kube-apiserver's 415; a server-side apply
// to a server without a field manager says which build serves it.
func checkPatchContentType(req *request) error {
	err := checkContentType(req.r, patchTypesOf(req))
	if mt, _, _ := mime.ParseMediaType(req.r.Header.Get("Content-Type")); err != nil && mt == applyPatchType {
		var ae *apiError
		if errors.As(err, &ae) {
			ae.status.Message += "; server-side apply is not served by this build of ctrlkit (its core module's), " +
				"it is by the full build: " + fullBuild
		}
	}
	return err
}

// fieldManagerName returns the request's field manager: the fieldManager
// parameter, else the User-Agent up to its first "/" (kube-apiserver's
// default, printable characters only, at most 128 bytes).
func fieldManagerName(r *http.Request) string {
	if m := r.URL.Query().Get("fieldManager"); m != "" {
		return m
	}
	ua, _, _ := strings.Cut(r.UserAgent(), "/")
	var b strings.Builder
	for _, c := range ua {
		if !unicode.IsPrint(c) {
			continue
		}
		if b.Len()+utf8.RuneLen(c) > maxFieldManagerLen {
			break
		}
		b.WriteRune(c)
	}
	return b.String()
}

// maxFieldManagerLen is kube's bound on a fieldManager.
const maxFieldManagerLen = 128

// optionsInvalid is kube-apiserver's 422 for a bad write option.
func optionsInvalid(method, field, reason, detail string) *apiError {
	e := newError(http.StatusUnprocessableEntity, "Invalid",
		fmt.Sprintf("%s.meta.k8s.io %q is invalid: %s: %s", optionsKind(method), "", field, detail))
	e.status.Details = &StatusDetails{Group: "meta.k8s.io", Kind: optionsKind(method),
		Causes: []StatusCause{{Reason: reason, Field: field, Message: detail}}}
	return e
}

// checkFieldManagerOptions validates the fieldManager and force
// parameters of a write as kube-apiserver does (ValidateFieldManager,
// ValidatePatchOptions).
func checkFieldManagerOptions(req *request, apply bool) error {
	q := req.r.URL.Query()
	m := q.Get("fieldManager")
	method := req.r.Method
	switch {
	case apply && m == "":
		return optionsInvalid(method, "fieldManager", "FieldValueRequired", "Required value: is required for apply patch")
	case len(m) > maxFieldManagerLen:
		return optionsInvalid(method, "fieldManager", "FieldValueTooLong",
			fmt.Sprintf("Too long: may not be more than %d bytes", maxFieldManagerLen))
	case !apply && q.Has("force"):
		if method == http.MethodPatch {
			return optionsInvalid(method, "force", "FieldValueForbidden", "Forbidden: may not be specified for non-apply patch")
		}
	}
	for i, c := range m {
		if !unicode.IsPrint(c) {
			return optionsInvalid(method, "fieldManager", "FieldValueInvalid",
				fmt.Sprintf("Invalid value: %q: invalid character %#U (at position %d)", m, c, i))
		}
	}
	return nil
}

// fieldManagerErr turns a *FieldManagerError into the answer it holds.
func fieldManagerErr(err error) error {
	var fe *FieldManagerError
	if errors.As(err, &fe) {
		s := fe.Status
		s.TypeMeta, s.Status = statusTypeMeta, "Failure"
		return &apiError{s}
	}
	return err
}

// manage records the request's field manager in obj's managedFields
// (liveJSON is the stored object, nil on create) when the server has a
// field manager, and returns the object to write.
func (h *typed[T]) manage(req *request, liveJSON []byte, obj T) (T, error) {
	fm := h.srv.opts.FieldManager
	if fm == nil {
		return obj, nil
	}
	if err := checkFieldManagerOptions(req, false); err != nil {
		return obj, err
	}
	newJSON, err := json.Marshal(obj)
	if err != nil {
		return obj, err
	}
	out, err := fm.Update(req.r.Context(), h.storedGVK(), liveJSON, newJSON, fieldManagerName(req.r), req.sub)
	if err != nil {
		return obj, fieldManagerErr(err)
	}
	return h.fromJSON(out)
}

// fromJSON decodes an object a field manager returned.
func (h *typed[T]) fromJSON(b []byte) (T, error) {
	if h.res.unstructured {
		return h.decodeUnstructured(b, false)
	}
	var zero T
	objs, err := api.Decode(b, api.DecodeOptions{Lenient: true, Source: "field manager"})
	if err != nil {
		return zero, err
	}
	obj, ok := objs[0].(T)
	if len(objs) != 1 || !ok {
		return zero, fmt.Errorf("field manager returned a %s, want a %s", objs[0].GroupVersionKind().Kind, h.res.kind)
	}
	return obj, nil
}

// appliedObject decodes the result of an apply, in the served version's
// form, to the stored form.
func (h *typed[T]) appliedObject(b []byte) (T, error) {
	if h.conv != nil {
		return h.conv.fromServed(b, false)
	}
	obj, err := h.fromJSON(b)
	if err != nil {
		return obj, badRequest("%v", err)
	}
	return obj, nil
}

// apply serves a server-side apply PATCH: the field manager merges the
// applied configuration into the stored object (or an empty one: apply
// creates a missing object), and the result is written as any update,
// admission and validation included.
func (h *typed[T]) apply(req *request, body []byte) {
	fm := h.srv.opts.FieldManager
	if err := checkFieldManagerOptions(req, true); err != nil {
		h.fail(req, err)
		return
	}
	q := req.r.URL.Query()
	force := false
	if q.Has("force") {
		var err error
		if force, err = strconv.ParseBool(q.Get("force")); err != nil {
			h.fail(req, badRequest("force: invalid value %q: %v", q.Get("force"), err))
			return
		}
	}
	manager := q.Get("fieldManager")
	for attempt := 0; ; attempt++ {
		var liveJSON []byte
		cur, rv, err := h.store.Get(req.r.Context(), h.key(req))
		exists := err == nil
		switch {
		case errors.Is(err, source.ErrNotFound):
			if req.sub != "" {
				h.fail(req, err)
				return
			}
		case err != nil:
			h.fail(req, err)
			return
		default:
			// The served version's form: a version served converted
			// (converted.go) is applied in its own form and its
			// managedFields entry names it, as kube-apiserver's field
			// manager converts the object to the applied version,
			// applies, and converts the result back.
			if liveJSON, err = h.marshal(cur); err != nil {
				h.fail(req, err)
				return
			}
		}
		out, err := fm.Apply(req.r.Context(), h.res.gvk(), liveJSON, body, manager, req.sub, force)
		if err != nil {
			h.fail(req, fieldManagerErr(err))
			return
		}
		obj, err := h.appliedObject(out)
		if err != nil {
			h.fail(req, err)
			return
		}
		m := obj.GetObjectMeta()
		if m.Name != req.name || (h.res.namespaced && m.Namespace != "" && m.Namespace != req.namespace) {
			h.fail(req, badRequest("the name of the object (%s) does not match the name on the URL (%s)", m.Name, req.name))
			return
		}
		if h.res.namespaced {
			m.Namespace = req.namespace
		}
		if !exists {
			if _, err = h.store.Create(req.r.Context(), obj); err == nil {
				h.writeObject(req, http.StatusCreated, obj)
				return
			}
			if errors.Is(err, source.ErrAlreadyExists) && attempt < maxPatchRetries {
				continue
			}
			h.fail(req, err)
			return
		}
		if m.UID != cur.GetObjectMeta().UID {
			h.fail(req, badRequest("metadata.uid: field is immutable"))
			return
		}
		pinned := m.ResourceVersion != "" && m.ResourceVersion != rv
		if m.ResourceVersion == "" {
			m.ResourceVersion = rv
		}
		err = h.write(req, obj)
		if errors.Is(err, source.ErrConflict) && !pinned && attempt < maxPatchRetries {
			continue
		}
		if err != nil {
			h.fail(req, err)
			return
		}
		h.writeObject(req, http.StatusOK, obj)
		return
	}
}
