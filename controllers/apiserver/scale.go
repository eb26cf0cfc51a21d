package apiserver

import (
	"encoding/json"
	"errors"
	"net/http"
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

// serveScale serves the scale subresource through the store's GetScale
// and UpdateScale (client.Resource), which hold its logic: GET reads the
// scale; PUT writes the replicas, conditional on the body's
// resourceVersion; PATCH applies the patch to the current scale and
// writes the result, conditional on the resourceVersion the patch sets,
// retrying a lost race otherwise.
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
