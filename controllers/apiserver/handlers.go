package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/ctrlkit/ctrlkit/controllers/admission"
	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver/patch"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver/protobuf"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/source"
)

// maxBody bounds a request body (kube-apiserver's limit is 3 MiB).
const maxBody = 3 << 20

// typed serves one kind's store.
type typed[T api.Object] struct {
	srv   *Server
	store *cluster.Store[T]
	res   *resourceInfo
	// conv, when set, serves the store in res.version, another version
	// than the stored one (converted.go).
	conv *converter[T]
}

func (h *typed[T]) info() *resourceInfo { return h.res }

// current implements handler: a built-in kind's store is the cluster's
// for good; a kind added with api.Register is current while the cluster
// serves it from this store.
func (h *typed[T]) current(c *cluster.Cluster) bool {
	if h.res.builtin {
		return true
	}
	st, ok := c.DynamicStore(h.res.gvk())
	return ok && any(st) == any(h.store)
}

func (h *typed[T]) key(req *request) string { return api.NamespacedKey(req.namespace, req.name) }

func (h *typed[T]) fail(req *request, err error) {
	s := toStatus(err, h.res, req.name)
	if s.Code >= 500 && s.Code != http.StatusGatewayTimeout {
		h.srv.opts.Logger.Error("apiserver: request failed", "method", req.r.Method, "path", req.r.URL.Path, "err", err)
	}
	writeError(req.w, err, h.res, req.name)
}

func methodNotAllowed(req *request) *apiError {
	return newError(http.StatusMethodNotAllowed, "MethodNotAllowed",
		fmt.Sprintf("the server does not allow this method on the requested resource (%s %s)", req.r.Method, req.r.URL.Path))
}

func (h *typed[T]) serve(req *request) {
	if h.res.unstructured {
		if w, ok := versionWarning(h.srv.c, h.res); ok {
			admission.Warn(req.r.Context(), w)
		}
	}
	m := req.r.Method
	if isStreamSub(req.sub) && req.name != "" { // podlog.go, exec.go
		h.serveStream(req)
		return
	}
	if req.watch {
		if m != http.MethodGet {
			h.fail(req, methodNotAllowed(req))
			return
		}
		h.watch(req)
		return
	}
	switch m {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
		// The body's type first, as kube-apiserver: 415 before anything
		// is looked up.
		var err error
		if m == http.MethodPatch {
			err = checkPatchContentType(req) // apply.go
		} else {
			err = checkContentType(req.r, bodyTypesFor(req))
		}
		if err != nil {
			h.fail(req, err)
			return
		}
	}
	if err := applyDryRun(req, req.r.URL.Query()["dryRun"]); err != nil {
		h.fail(req, err)
		return
	}
	if req.name == "" {
		if h.res.namespaced && req.namespace == "" && m != http.MethodGet {
			h.fail(req, methodNotAllowed(req))
			return
		}
		switch m {
		case http.MethodGet:
			h.list(req)
		case http.MethodPost:
			h.create(req)
		case http.MethodDelete:
			h.deleteCollection(req)
		default:
			h.fail(req, methodNotAllowed(req))
		}
		return
	}
	if h.res.namespaced && req.namespace == "" {
		h.fail(req, notFound())
		return
	}
	switch req.sub {
	case "scale":
		h.serveScale(req)
		return
	case "binding":
		h.serveBinding(req)
		return
	case "eviction":
		h.serveEviction(req)
		return
	case "token":
		h.serveToken(req)
		return
	case "status", "ephemeralcontainers":
		switch m {
		case http.MethodGet, http.MethodPut, http.MethodPatch:
		default:
			h.fail(req, methodNotAllowed(req))
			return
		}
	}
	switch m {
	case http.MethodGet:
		if err := h.checkVersion(req.r.URL.Query().Get("resourceVersion")); err != nil {
			h.fail(req, err)
			return
		}
		obj, _, err := h.store.Get(req.r.Context(), h.key(req))
		if err != nil {
			h.fail(req, err)
			return
		}
		h.writeObject(req, http.StatusOK, obj)
	case http.MethodPut:
		h.update(req)
	case http.MethodPatch:
		h.patch(req)
	case http.MethodDelete:
		h.delete(req)
	default:
		h.fail(req, methodNotAllowed(req))
	}
}

// writeObject writes obj as JSON, as a Table or as metadata, as the
// request's Accept header asks.
func (h *typed[T]) writeObject(req *request, code int, obj T) {
	if crd, ok := any(obj).(*api.CustomResourceDefinition); ok && req.r.Method != http.MethodGet && !h.srv.c.EvaluatesValidationRules() {
		for _, w := range celWarnings(crd) {
			admission.Warn(req.r.Context(), w)
		}
	}
	switch acceptedAs(req.r) {
	case asTable:
		writeJSON(req.w, code, h.table(req, []T{obj}, "", ""))
	case asMetadata:
		writeJSON(req.w, code, partialMetadata(obj))
	default:
		v, err := h.served(obj)
		if err != nil {
			h.fail(req, err)
			return
		}
		writeJSON(req.w, code, v)
	}
}

// bodyTypes are the media types of an object in a request body (POST,
// PUT, a DeleteOptions) of any kind; CBOR is not served.
var bodyTypes = []string{"application/json", "application/yaml"}

// protobufBodyTypes are the media types of a request body of a kind with
// a protobuf form (a built-in kind Kubernetes serves in protobuf).
var protobufBodyTypes = []string{"application/json", "application/yaml", protobuf.MediaType}

// bodyTypesFor returns the media types a request body may have on req's
// resource: protobuf too when its kind has a protobuf form.
func bodyTypesFor(req *request) []string {
	if req.h != nil && hasProtobuf(req.h.info()) {
		return protobufBodyTypes
	}
	return bodyTypes
}

// isProtobuf reports whether r's body is Kubernetes protobuf.
func isProtobuf(r *http.Request) bool {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return mt == protobuf.MediaType
}

// patchTypes are the media types of a PATCH body; server-side apply is
// served only with Options.FieldManager (apply.go).
var patchTypes = []string{string(patch.JSON), string(patch.Merge), string(patch.StrategicMerge)}

// checkContentType refuses, with kube-apiserver's 415
// UnsupportedMediaType, a body whose Content-Type is missing or not one of
// accepted. So a cross-site "no-cors" POST, which can only send
// text/plain, form types or none, is refused before its body is read.
func checkContentType(r *http.Request, accepted []string) error {
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil && slices.Contains(accepted, mt) {
		return nil
	}
	return newError(http.StatusUnsupportedMediaType, "UnsupportedMediaType",
		fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: %s (got %q)",
			strings.Join(accepted, ", "), ct))
}

// readBody reads the request body as JSON (or YAML, which sigs.k8s.io/yaml
// turns into JSON in api.Decode), or a PATCH body, after checking its
// Content-Type.
func readBody(req *request) ([]byte, error) {
	accepted := bodyTypesFor(req)
	if req.r.Method == http.MethodPatch {
		accepted = patchTypesOf(req)
	}
	if err := checkContentType(req.r, accepted); err != nil {
		return nil, err
	}
	b, err := readLimited(req)
	if err != nil || req.r.Method == http.MethodPatch || !isProtobuf(req.r) {
		return b, err
	}
	// A protobuf body is read as the JSON it converts to; one without
	// a kind is taken to hold the resource's.
	info := req.h.info()
	return decodeProtobufBody(b, api.GroupVersionKind{Group: info.group, Version: info.version}.APIVersion(), info.kind)
}

// readLimited reads the body, up to maxBody bytes (413
// RequestEntityTooLarge beyond).
func readLimited(req *request) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(req.r.Body, maxBody+1))
	if err != nil {
		if isTimeout(err) {
			// The read deadline ServeHTTP sets: a client that holds a
			// half-sent body.
			return nil, timeoutError(err)
		}
		return nil, badRequest("read body: %v", err)
	}
	if len(b) > maxBody {
		return nil, newError(http.StatusRequestEntityTooLarge, "RequestEntityTooLarge",
			fmt.Sprintf("the request body is too large: limit is %d bytes", maxBody))
	}
	return b, nil
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) ||
		errors.Is(err, context.DeadlineExceeded)
}

// decode decodes one object of the kind from a body, strictly when the
// request asks for fieldValidation=Strict.
func (h *typed[T]) decode(req *request, b []byte) (T, error) {
	var zero T
	strict := req.r.URL.Query().Get("fieldValidation") == "Strict"
	if h.res.unstructured {
		return h.decodeUnstructured(b, strict)
	}
	if h.conv != nil {
		return h.decodeConverted(b, strict)
	}
	objs, err := api.Decode(b, api.DecodeOptions{Lenient: !strict, Source: "request body"})
	if err != nil {
		return zero, badRequest("%v", err)
	}
	if len(objs) != 1 {
		return zero, badRequest("the request body holds %d objects, want one %s", len(objs), h.res.kind)
	}
	obj, ok := objs[0].(T)
	if !ok || obj.GroupVersionKind() != h.res.gvk() {
		return zero, badRequest("the body is a %s, the resource %s holds %s", objs[0].GroupVersionKind().Kind, h.res.name, h.res.kind)
	}
	return obj, nil
}

// decodeUnstructured decodes one object of a kind served as
// api.Unstructured (a CustomResourceDefinition's): any JSON or YAML
// object of the kind, whose fields the kind's schema does not know are
// an error when strict (kube-apiserver's fieldValidation=Strict) and
// pruned by the store otherwise.
func (h *typed[T]) decodeUnstructured(b []byte, strict bool) (T, error) {
	var zero T
	j, err := yaml.YAMLToJSON(b)
	if err != nil {
		return zero, badRequest("the request body is not JSON or YAML: %v", err)
	}
	u := &api.Unstructured{}
	if err := json.Unmarshal(j, u); err != nil {
		return zero, badRequest("the request body is not a JSON object: %v", err)
	}
	if u.Kind == "" {
		return zero, badRequest("Object 'Kind' is missing in '%s'", truncate(j, 200))
	}
	if u.APIVersion != h.res.groupVersion() || u.Kind != h.res.kind {
		return zero, badRequest("the API version in the data (%s) does not match the expected API version (%s)", u.APIVersion, h.res.groupVersion())
	}
	obj, ok := any(u).(T)
	if !ok {
		return zero, badRequest("the resource %s holds %s", h.res.name, h.res.kind)
	}
	if strict {
		if unknown := h.store.UnknownFields(obj); len(unknown) > 0 {
			parts := make([]string, len(unknown))
			for i, f := range unknown {
				parts[i] = fmt.Sprintf("unknown field %q", f)
			}
			return zero, badRequest("strict decoding error: %s", strings.Join(parts, ", "))
		}
	}
	return obj, nil
}

// truncate returns b as a string of at most n bytes.
func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}

func (h *typed[T]) checkNamespace(req *request, obj T) error {
	m := obj.GetObjectMeta()
	if !h.res.namespaced {
		return nil
	}
	if m.Namespace == "" {
		m.Namespace = req.namespace
	}
	if m.Namespace != req.namespace {
		return badRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return nil
}

func (h *typed[T]) create(req *request) {
	b, err := readBody(req)
	if err == nil {
		var obj T
		if obj, err = h.decode(req, b); err == nil {
			req.name = obj.GetObjectMeta().Name
			if err = h.checkNamespace(req, obj); err == nil {
				if obj, err = h.manage(req, nil, obj); err != nil {
					h.fail(req, err)
					return
				}
				if _, err = h.store.Create(req.r.Context(), obj); err == nil {
					h.writeObject(req, http.StatusCreated, obj)
					return
				}
			}
		}
	}
	h.fail(req, err)
}

func (h *typed[T]) update(req *request) {
	b, err := readBody(req)
	if err != nil {
		h.fail(req, err)
		return
	}
	obj, err := h.decode(req, b)
	if err != nil {
		h.fail(req, err)
		return
	}
	if obj.GetObjectMeta().Name != req.name {
		h.fail(req, badRequest("the name of the object (%s) does not match the name on the URL (%s)", obj.GetObjectMeta().Name, req.name))
		return
	}
	if err := h.checkNamespace(req, obj); err != nil {
		h.fail(req, err)
		return
	}
	if h.srv.opts.FieldManager != nil {
		var live []byte
		if cur, _, gerr := h.store.Get(req.r.Context(), h.key(req)); gerr == nil {
			live, _ = json.Marshal(cur)
		}
		if obj, err = h.manage(req, live, obj); err != nil {
			h.fail(req, err)
			return
		}
	}
	if err := h.write(req, obj); err != nil {
		h.fail(req, err)
		return
	}
	h.writeObject(req, http.StatusOK, obj)
}

// write stores obj by Update or, for the status subresource, UpdateStatus.
func (h *typed[T]) write(req *request, obj T) error {
	var err error
	if req.sub == "status" {
		if rv := obj.GetResourceVersion(); rv != "" {
			if _, cur, gerr := h.store.Get(req.r.Context(), h.key(req)); gerr != nil {
				return gerr
			} else if cur != rv {
				return fmt.Errorf("status of %s: %w", h.key(req), source.ErrConflict)
			}
		}
		_, err = h.store.UpdateStatus(req.r.Context(), obj)
	} else if pod, ok := any(obj).(*api.Pod); ok && req.sub == "ephemeralcontainers" {
		_, err = h.srv.c.UpdateEphemeralContainers(req.r.Context(), pod) // ephemeral.go
	} else {
		_, err = h.store.Update(req.r.Context(), obj, "")
	}
	return err
}

// maxPatchRetries bounds the retries of a patch that lost a race with
// another write; a patch that names a resourceVersion is not retried.
const maxPatchRetries = 5

func (h *typed[T]) patch(req *request) {
	b, err := readBody(req)
	if err != nil {
		h.fail(req, err)
		return
	}
	mt, _, _ := strings.Cut(req.r.Header.Get("Content-Type"), ";")
	pt := patch.Type(strings.TrimSpace(mt))
	if pt == applyPatchType && h.servesApply() {
		h.apply(req, b)
		return
	}
	if pt == patch.StrategicMerge && !h.res.builtin {
		// A kind added with api.Register has no patch strategies: a
		// strategic merge patch is refused, as kube-apiserver refuses it
		// for custom resources.
		h.fail(req, newError(http.StatusUnsupportedMediaType, "UnsupportedMediaType",
			fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: %s, %s",
				patch.JSON, patch.Merge)))
		return
	}
	for attempt := 0; ; attempt++ {
		cur, rv, err := h.store.Get(req.r.Context(), h.key(req))
		if err != nil {
			h.fail(req, err)
			return
		}
		// The patch applies to the object in the served version's form,
		// as kube-apiserver patches the versioned object of the request.
		orig, err := h.marshal(cur)
		if err != nil {
			h.fail(req, err)
			return
		}
		live := orig
		if h.conv != nil {
			if live, err = json.Marshal(cur); err != nil {
				h.fail(req, err)
				return
			}
		}
		out, err := patch.Apply(pt, h.res.kind, orig, b)
		switch {
		case errors.Is(err, patch.ErrUnsupportedType):
			h.fail(req, newError(http.StatusUnsupportedMediaType, "UnsupportedMediaType", err.Error()))
			return
		case errors.Is(err, patch.ErrTooLarge):
			h.fail(req, newError(http.StatusRequestEntityTooLarge, "RequestEntityTooLarge", err.Error()))
			return
		case errors.Is(err, patch.ErrUnprocessable), errors.Is(err, patch.ErrTestFailed):
			h.fail(req, newError(http.StatusUnprocessableEntity, "Invalid", err.Error()))
			return
		case err != nil:
			h.fail(req, badRequest("%v", err))
			return
		}
		obj, err := h.decode(req, out)
		if err != nil {
			h.fail(req, err)
			return
		}
		m := obj.GetObjectMeta()
		if m.Name != req.name || (h.res.namespaced && m.Namespace != req.namespace) {
			h.fail(req, badRequest("a patch may not change the object's name or namespace"))
			return
		}
		if m.UID != cur.GetObjectMeta().UID {
			// The uid is immutable: kube-apiserver's metadata validation
			// refuses the patched object (a patch carries no uid
			// precondition, unlike a PUT).
			h.fail(req, &cluster.InvalidError{Resource: h.res.name, Name: req.name, Errors: []cluster.FieldError{{
				Type: cluster.FieldInvalid, Field: "metadata.uid", Value: string(m.UID), Detail: "field is immutable"}}})
			return
		}
		pinned := m.ResourceVersion != rv // the patch set a precondition
		if m.ResourceVersion == "" {
			m.ResourceVersion = rv
		}
		if obj, err = h.manage(req, live, obj); err != nil {
			h.fail(req, err)
			return
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

// deleteOptions is metav1.DeleteOptions.
type deleteOptions struct {
	GracePeriodSeconds *int64 `json:"gracePeriodSeconds,omitempty"`
	Preconditions      *struct {
		UID             *api.UID `json:"uid,omitempty"`
		ResourceVersion *string  `json:"resourceVersion,omitempty"`
	} `json:"preconditions,omitempty"`
	OrphanDependents  *bool    `json:"orphanDependents,omitempty"`
	PropagationPolicy *string  `json:"propagationPolicy,omitempty"`
	DryRun            []string `json:"dryRun,omitempty"`
}

// parseDeleteOptions reads DeleteOptions from the body, else the query.
func parseDeleteOptions(req *request) (cluster.DeleteOptions, error) {
	var out cluster.DeleteOptions
	var do deleteOptions
	b, err := readLimited(req)
	if err != nil {
		return out, err
	}
	if len(bytes.TrimSpace(b)) > 0 {
		if err := checkContentType(req.r, bodyTypesFor(req)); err != nil {
			return out, err
		}
		if isProtobuf(req.r) {
			if b, err = decodeProtobufBody(b, "v1", "DeleteOptions"); err != nil {
				return out, err
			}
		}
		if err := yaml.Unmarshal(b, &do); err != nil {
			return out, badRequest("DeleteOptions: %v", err)
		}
	}
	q := req.r.URL.Query()
	if v := q.Get("gracePeriodSeconds"); v != "" && do.GracePeriodSeconds == nil {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return out, badRequest("gracePeriodSeconds: %v", err)
		}
		do.GracePeriodSeconds = &n
	}
	if v := q.Get("propagationPolicy"); v != "" && do.PropagationPolicy == nil {
		do.PropagationPolicy = &v
	}
	if v := q.Get("orphanDependents"); v != "" && do.OrphanDependents == nil {
		o := v == "true"
		do.OrphanDependents = &o
	}
	if err := applyDryRun(req, do.DryRun); err != nil {
		return out, err
	}
	out.GracePeriodSeconds = do.GracePeriodSeconds
	if do.PropagationPolicy != nil {
		out.PropagationPolicy = cluster.PropagationPolicy(*do.PropagationPolicy)
		if do.OrphanDependents != nil {
			return out, newError(http.StatusUnprocessableEntity, "Invalid", "orphanDependents and propagationPolicy may not both be set")
		}
	} else if do.OrphanDependents != nil {
		out.PropagationPolicy = cluster.DeletePropagationBackground
		if *do.OrphanDependents {
			out.PropagationPolicy = cluster.DeletePropagationOrphan
		}
	}
	if p := do.Preconditions; p != nil {
		if p.UID != nil {
			out.Preconditions.UID = *p.UID
		}
		if p.ResourceVersion != nil {
			out.Preconditions.ResourceVersion = *p.ResourceVersion
		}
	}
	return out, nil
}

func (h *typed[T]) delete(req *request) {
	opts, err := parseDeleteOptions(req)
	if err != nil {
		h.fail(req, err)
		return
	}
	obj, gone, _, err := h.store.DeleteReturning(req.r.Context(), h.key(req), opts)
	if err != nil {
		h.fail(req, err)
		return
	}
	if !gone || h.res.name == "pods" {
		// Graceful deletion or finalizers keep it: the object, as
		// kube-apiserver answers (and a removed pod's last state). A
		// dry run answers the same, from what the delete would do.
		h.writeObject(req, http.StatusOK, obj)
		return
	}
	last := obj
	writeJSON(req.w, http.StatusOK, Status{TypeMeta: statusTypeMeta, Status: "Success",
		Details: &StatusDetails{Name: req.name, Group: h.res.group, Kind: h.res.name, UID: last.GetObjectMeta().UID}})
}

func (h *typed[T]) deleteCollection(req *request) {
	opts, err := parseDeleteOptions(req)
	if err != nil {
		h.fail(req, err)
		return
	}
	lw, err := h.selected(req)
	if err != nil {
		h.fail(req, err)
		return
	}
	ctx := req.r.Context()
	l, release, err := h.listStore(req, lw, source.ListOptions{})
	if err != nil {
		h.fail(req, err)
		return
	}
	defer release()
	var deleted []T
	for _, obj := range l.Items {
		key := api.Key(obj)
		if _, err := h.store.DeleteWith(ctx, key, opts); err != nil && !errors.Is(err, source.ErrNotFound) {
			req.name = obj.GetObjectMeta().Name
			h.fail(req, err)
			return
		}
		deleted = append(deleted, obj)
	}
	h.writeList(req, source.List[T]{Items: deleted, ResourceVersion: l.ResourceVersion})
}

// binding is core/v1 Binding, the body of a pod's binding subresource.
type binding struct {
	APIVersion string         `json:"apiVersion,omitempty"`
	Kind       string         `json:"kind,omitempty"`
	Metadata   api.ObjectMeta `json:"metadata"`
	Target     struct {
		Kind string `json:"kind,omitempty"`
		Name string `json:"name"`
	} `json:"target"`
}

// serveBinding serves POST pods/{name}/binding, what a scheduler writes:
// it assigns the pod to the target node (cluster.Bind) and answers 201
// with a Success Status, as kube-apiserver does.
func (h *typed[T]) serveBinding(req *request) {
	if req.r.Method != http.MethodPost {
		h.fail(req, methodNotAllowed(req))
		return
	}
	b, err := readBody(req)
	if err != nil {
		h.fail(req, err)
		return
	}
	var bd binding
	if err := yaml.Unmarshal(b, &bd); err != nil {
		h.fail(req, badRequest("Binding: %v", err))
		return
	}
	if bd.Metadata.Name != "" && bd.Metadata.Name != req.name {
		h.fail(req, badRequest("the name of the binding (%q) does not match the name of the pod (%q)", bd.Metadata.Name, req.name))
		return
	}
	if bd.Target.Kind != "" && bd.Target.Kind != "Node" {
		h.fail(req, &cluster.InvalidError{Resource: "bindings", Name: req.name, Errors: []cluster.FieldError{{
			Type: cluster.FieldInvalid, Field: "target.kind", Value: bd.Target.Kind, Detail: "must be empty or Node"}}})
		return
	}
	if bd.Target.Name == "" {
		h.fail(req, &cluster.InvalidError{Resource: "bindings", Name: req.name, Errors: []cluster.FieldError{{
			Type: cluster.FieldRequired, Field: "target.name"}}})
		return
	}
	if _, err := h.srv.c.Bind(req.r.Context(), req.namespace, req.name, bd.Target.Name); err != nil {
		h.fail(req, err)
		return
	}
	writeJSON(req.w, http.StatusCreated, Status{TypeMeta: statusTypeMeta, Status: "Success", Code: http.StatusCreated})
}

// celWarnings returns the warnings of a write of crd: one per version
// whose schema has x-kubernetes-validations rules, which this server
// does not evaluate (kubectl prints them as "Warning: ...").
func celWarnings(crd *api.CustomResourceDefinition) []string {
	var out []string
	for i, v := range crd.Spec.Versions {
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		if n := countValidationRules(v.Schema.OpenAPIV3Schema); n > 0 {
			out = append(out, fmt.Sprintf("spec.versions[%d].schema.openAPIV3Schema: %d x-kubernetes-validations rules (CEL) are not evaluated by this server: objects of version %s are not checked against them", i, n, v.Name))
		}
	}
	return out
}

// countValidationRules counts the x-kubernetes-validations rules of s and
// the schemas under it.
func countValidationRules(s *api.JSONSchemaProps) int {
	if s == nil {
		return 0
	}
	n := len(s.XValidations)
	for _, p := range s.Properties {
		n += countValidationRules(&p)
	}
	if s.Items != nil {
		n += countValidationRules(s.Items.Schema)
		for i := range s.Items.JSONSchemas {
			n += countValidationRules(&s.Items.JSONSchemas[i])
		}
	}
	if s.AdditionalProperties != nil {
		n += countValidationRules(s.AdditionalProperties.Schema)
	}
	for _, list := range [][]api.JSONSchemaProps{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range list {
			n += countValidationRules(&list[i])
		}
	}
	return n
}
