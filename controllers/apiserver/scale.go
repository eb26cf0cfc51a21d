package apiserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver/patch"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/source"
)

// Scale is autoscaling/v1 Scale, the scale subresource of deployments,
// replica sets, stateful sets and replication controllers: api.Scale,
// whose metadata is the scaled object's.
type Scale = api.Scale

// ScaleSpec is autoscaling/v1 ScaleSpec.
type ScaleSpec = api.ScaleSpec

// ScaleStatus is autoscaling/v1 ScaleStatus.
type ScaleStatus = api.ScaleStatus

// ScaleFieldManager is a FieldManager that also keeps managedFields
// through the scale subresource, as kube-apiserver does (apimachinery's
// managedfields.ScaleHandler): a write to the scale is managed on an
// autoscaling/v1 Scale whose managedFields are the parent's entries
// owning its replicas field, and its result is merged back into the
// parent's, so that a manager of the scale owns the parent's replicas
// (and applying it conflicts with the parent's owners). The replicas
// field is at replicasPath, a JSON path: ".spec.replicas" for the
// built-in kinds, a CustomResourceDefinition's specReplicasPath for a
// custom resource.
type ScaleFieldManager interface {
	FieldManager
	// ScaleManagedFields returns the managedFields of the scale of an
	// object of kind parent with managedFields entries: those owning
	// replicasPath, as owning the Scale's spec.replicas.
	ScaleManagedFields(parent api.GroupVersionKind, replicasPath string, entries []api.ManagedFieldsEntry) ([]api.ManagedFieldsEntry, error)
	// ParentManagedFields returns the object's managedFields after a
	// write of its scale left the Scale with scaleEntries.
	ParentManagedFields(parent api.GroupVersionKind, replicasPath string, entries, scaleEntries []api.ManagedFieldsEntry) ([]api.ManagedFieldsEntry, error)
}

// scaleGVK is the kind of the scale subresource.
var scaleGVK = api.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}

// builtinReplicasPath is where the built-in kinds with a scale
// subresource keep their replicas.
const builtinReplicasPath = ".spec.replicas"

// scaleFieldManager returns the server's ScaleFieldManager when it has
// one, and the JSON path of the kind's replicas: a custom resource's is
// the specReplicasPath of its definition's served version (kube's
// apiextensions-apiserver maps its scale's managedFields there).
func (h *typed[T]) scaleFieldManager() (ScaleFieldManager, string, bool) {
	sfm, ok := h.srv.opts.FieldManager.(ScaleFieldManager)
	if !ok {
		return nil, "", false
	}
	if !h.res.unstructured {
		return sfm, builtinReplicasPath, api.IsBuiltin(h.res.gvk())
	}
	crd, ok := h.srv.c.ServedDefinition(h.res.group, h.res.kind)
	if !ok {
		return nil, "", false
	}
	for _, v := range crd.Spec.Versions {
		if v.Name == h.res.version && v.Subresources != nil && v.Subresources.Scale != nil {
			return sfm, v.Subresources.Scale.SpecReplicasPath, true
		}
	}
	return nil, "", false
}

// serveScale serves the scale subresource through the store's GetScale
// and UpdateScale (client.Resource), which hold its logic: GET reads the
// scale; PUT writes the replicas, conditional on the body's
// resourceVersion; PATCH applies the patch to the current scale and
// writes the result, conditional on the resourceVersion the patch sets,
// retrying a lost race otherwise. With a ScaleFieldManager the writes
// are managed (serveManagedScale), server-side apply included.
func (h *typed[T]) serveScale(req *request) {
	ctx := req.r.Context()
	var res client.Resource[T] = h.store
	key := h.key(req)
	switch req.r.Method {
	case http.MethodGet, http.MethodPut, http.MethodPatch:
	default:
		h.fail(req, methodNotAllowed(req))
		return
	}
	if req.r.Method == http.MethodGet {
		sc, err := res.GetScale(ctx, key)
		if err != nil {
			h.fail(req, err)
			return
		}
		writeJSON(req.w, http.StatusOK, sc)
		return
	}
	body, err := readBody(req)
	if err != nil {
		h.fail(req, err)
		return
	}
	if sfm, path, ok := h.scaleFieldManager(); ok {
		h.serveManagedScale(req, sfm, path, body)
		return
	}
	for attempt := 0; ; attempt++ {
		var want Scale
		pinned := true // PUT: conditional on the body's resourceVersion, when it has one
		if req.r.Method == http.MethodPatch {
			cur, err := res.GetScale(ctx, key)
			if err != nil {
				h.fail(req, err)
				return
			}
			out, err := h.patchScale(req, cur, body)
			if err != nil {
				h.fail(req, err)
				return
			}
			if err := json.Unmarshal(out, &want); err != nil {
				h.fail(req, badRequest("Scale: %v", err))
				return
			}
			// The patch set a precondition only if it changed the version.
			pinned = want.ResourceVersion != "" && want.ResourceVersion != cur.ResourceVersion
			if want.ResourceVersion == "" {
				want.ResourceVersion = cur.ResourceVersion
			}
		} else if err := json.Unmarshal(body, &want); err != nil {
			h.fail(req, badRequest("Scale: %v", err))
			return
		}
		if want.Spec.Replicas < 0 {
			h.fail(req, invalidQuery("spec.replicas: Invalid value: must be greater than or equal to 0"))
			return
		}
		want.ManagedFields = nil // not the client's to write
		sc, err := res.UpdateScale(ctx, key, &want)
		if errors.Is(err, source.ErrConflict) && !pinned && attempt < maxPatchRetries {
			continue
		}
		if err != nil {
			h.fail(req, err)
			return
		}
		writeJSON(req.w, http.StatusOK, sc)
		return
	}
}

// patchScale applies the PATCH body to the scale cur.
func (h *typed[T]) patchScale(req *request, cur *Scale, body []byte) ([]byte, error) {
	orig, err := json.Marshal(cur)
	if err != nil {
		return nil, err
	}
	mt, _, _ := strings.Cut(req.r.Header.Get("Content-Type"), ";")
	pt := patch.Type(strings.TrimSpace(mt))
	if pt == patch.StrategicMerge {
		pt = patch.Merge // a Scale has no lists to merge
	}
	out, err := patch.Apply(pt, "Scale", orig, body)
	switch {
	case errors.Is(err, patch.ErrUnsupportedType):
		return nil, newError(http.StatusUnsupportedMediaType, "UnsupportedMediaType", err.Error())
	case errors.Is(err, patch.ErrTooLarge):
		return nil, newError(http.StatusRequestEntityTooLarge, "RequestEntityTooLarge", err.Error())
	case errors.Is(err, patch.ErrUnprocessable), errors.Is(err, patch.ErrTestFailed):
		return nil, newError(http.StatusUnprocessableEntity, "Invalid", err.Error())
	case err != nil:
		return nil, badRequest("%v", err)
	}
	return out, nil
}

// serveManagedScale serves a PUT or PATCH of the scale subresource with
// the field manager, the parent's replicas at replicasPath, as
// kube-apiserver's
// scaleUpdatedObjectInfo: the current scale gets the managedFields the
// parent's entries give it, the write (an update, or a server-side apply
// of an autoscaling/v1 Scale) is managed on it with subresource "scale",
// and the replicas are written to the parent with its managedFields
// merged back, conditional on the version read (a lost race is retried
// unless the client set the resourceVersion).
func (h *typed[T]) serveManagedScale(req *request, fm ScaleFieldManager, replicasPath string, body []byte) {
	ctx := req.r.Context()
	key := h.key(req)
	mt, _, _ := strings.Cut(req.r.Header.Get("Content-Type"), ";")
	apply := req.r.Method == http.MethodPatch && strings.TrimSpace(mt) == applyPatchType
	if err := checkFieldManagerOptions(req, apply); err != nil {
		h.fail(req, err)
		return
	}
	force := false
	if q := req.r.URL.Query(); apply && q.Has("force") {
		var err error
		if force, err = strconv.ParseBool(q.Get("force")); err != nil {
			h.fail(req, badRequest("force: invalid value %q: %v", q.Get("force"), err))
			return
		}
	}
	manager := fieldManagerName(req.r)
	for attempt := 0; ; attempt++ {
		cur, rv, err := h.store.Get(ctx, key)
		if err != nil {
			h.fail(req, err)
			return
		}
		sc, err := h.store.GetScale(ctx, key)
		if err != nil {
			h.fail(req, err)
			return
		}
		if sc.ResourceVersion != rv { // written in between: read again
			if attempt < maxPatchRetries {
				continue
			}
			h.fail(req, fmt.Errorf("scale of %s: %w", key, source.ErrConflict))
			return
		}
		entries := cur.GetObjectMeta().ManagedFields
		if sc.ManagedFields, err = fm.ScaleManagedFields(h.res.gvk(), replicasPath, entries); err != nil {
			h.fail(req, fieldManagerErr(err))
			return
		}
		live, err := json.Marshal(sc)
		if err != nil {
			h.fail(req, err)
			return
		}
		var out []byte
		pinned := false
		if apply {
			out, err = fm.Apply(ctx, scaleGVK, live, body, manager, "scale", force)
		} else {
			want := body
			if req.r.Method == http.MethodPatch {
				if want, err = h.patchScale(req, sc, body); err != nil {
					h.fail(req, err)
					return
				}
			}
			out, err = fm.Update(ctx, scaleGVK, live, want, manager, "scale")
		}
		if err != nil {
			h.fail(req, fieldManagerErr(err))
			return
		}
		var next Scale
		if err := json.Unmarshal(out, &next); err != nil {
			h.fail(req, badRequest("Scale: %v", err))
			return
		}
		if next.Spec.Replicas < 0 {
			h.fail(req, invalidQuery("spec.replicas: Invalid value: must be greater than or equal to 0"))
			return
		}
		pinned = next.ResourceVersion != "" && next.ResourceVersion != rv
		if !pinned {
			next.ResourceVersion = rv
		}
		if next.ManagedFields, err = fm.ParentManagedFields(h.res.gvk(), replicasPath, entries, next.ManagedFields); err != nil {
			h.fail(req, fieldManagerErr(err))
			return
		}
		if next.ManagedFields == nil {
			next.ManagedFields = []api.ManagedFieldsEntry{} // none left: written as none
		}
		written, err := h.store.UpdateScale(ctx, key, &next)
		if errors.Is(err, source.ErrConflict) && !pinned && attempt < maxPatchRetries {
			continue
		}
		if err != nil {
			h.fail(req, err)
			return
		}
		writeJSON(req.w, http.StatusOK, written)
		return
	}
}
