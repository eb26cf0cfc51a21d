package apiserver

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver/patch"
	"github.com/ctrlkit/ctrlkit/source"
)

// Scale is autoscaling/v1 Scale, the scale subresource of deployments,
// replica sets, stateful sets and replication controllers.
type Scale struct {
	api.TypeMeta `json:",inline"`
	// Metadata is the scaled object's.
	Metadata api.ObjectMeta `json:"metadata"`
	// Spec holds the desired replicas.
	Spec ScaleSpec `json:"spec"`
	// Status holds the observed replicas and the pod selector.
	Status ScaleStatus `json:"status"`
}

// ScaleSpec is autoscaling/v1 ScaleSpec.
type ScaleSpec struct {
	// Replicas is the desired number of replicas.
	Replicas int32 `json:"replicas"`
}

// ScaleStatus is autoscaling/v1 ScaleStatus.
type ScaleStatus struct {
	// Replicas is the observed number of replicas.
	Replicas int32 `json:"replicas"`
	// Selector is the label selector of the pods, in string form.
	Selector string `json:"selector,omitempty"`
}

// scaler reaches the replicas of one object.
type scaler struct {
	spec     **int32
	status   int32
	selector string
}

func labelSelectorString(ls *api.LabelSelector) string {
	if ls == nil {
		return ""
	}
	sel, err := ls.AsSelector()
	if err != nil {
		return ""
	}
	return sel.String()
}

// scaleOf returns the scaler of obj, nil for kinds without a scale
// subresource.
func scaleOf(obj api.Object) *scaler {
	switch o := obj.(type) {
	case *api.Deployment:
		return &scaler{&o.Spec.Replicas, o.Status.Replicas, labelSelectorString(o.Spec.Selector)}
	case *api.ReplicaSet:
		return &scaler{&o.Spec.Replicas, o.Status.Replicas, labelSelectorString(o.Spec.Selector)}
	case *api.StatefulSet:
		return &scaler{&o.Spec.Replicas, o.Status.Replicas, labelSelectorString(o.Spec.Selector)}
	case *api.ReplicationController:
		return &scaler{&o.Spec.Replicas, o.Status.Replicas, api.SelectorFromSet(o.Spec.Selector).String()}
	}
	return nil
}

func scaleFor(obj api.Object) Scale {
	sc := scaleOf(obj)
	m := obj.GetObjectMeta()
	s := Scale{TypeMeta: api.TypeMeta{APIVersion: "autoscaling/v1", Kind: "Scale"},
		Metadata: api.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID, ResourceVersion: m.ResourceVersion,
			CreationTimestamp: m.CreationTimestamp}}
	if *sc.spec != nil {
		s.Spec.Replicas = **sc.spec
	}
	s.Status = ScaleStatus{Replicas: sc.status, Selector: sc.selector}
	return s
}

func (h *typed[T]) serveScale(req *request) {
	ctx := req.r.Context()
	for attempt := 0; ; attempt++ {
		obj, rv, err := h.store.Get(ctx, h.key(req))
		if err != nil {
			h.fail(req, err)
			return
		}
		cur := scaleFor(obj)
		var want Scale
		switch req.r.Method {
		case http.MethodGet:
			writeJSON(req.w, http.StatusOK, cur)
			return
		case http.MethodPut, http.MethodPatch:
		default:
			h.fail(req, methodNotAllowed(req))
			return
		}
		if attempt == 0 {
			b, err := readBody(req)
			if err != nil {
				h.fail(req, err)
				return
			}
			req.body = b
		}
		body := req.body
		if req.r.Method == http.MethodPatch {
			orig, _ := json.Marshal(cur)
			mt, _, _ := strings.Cut(req.r.Header.Get("Content-Type"), ";")
			pt := patch.Type(strings.TrimSpace(mt))
			if pt == patch.StrategicMerge {
				pt = patch.Merge // a Scale has no lists to merge
			}
			out, err := patch.Apply(pt, "Scale", orig, body)
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
			body = out
		}
		if err := json.Unmarshal(body, &want); err != nil {
			h.fail(req, badRequest("Scale: %v", err))
			return
		}
		if want.Spec.Replicas < 0 {
			h.fail(req, invalidQuery("spec.replicas: Invalid value: must be greater than or equal to 0"))
			return
		}
		pinned := want.Metadata.ResourceVersion != "" && (req.r.Method == http.MethodPut || want.Metadata.ResourceVersion != rv)
		if pinned && want.Metadata.ResourceVersion != rv {
			h.fail(req, source.ErrConflict)
			return
		}
		n := want.Spec.Replicas
		*scaleOf(obj).spec = &n
		_, err = h.store.Update(ctx, obj, rv)
		if errors.Is(err, source.ErrConflict) && !pinned && attempt < maxPatchRetries {
			continue
		}
		if err != nil {
			h.fail(req, err)
			return
		}
		writeJSON(req.w, http.StatusOK, scaleFor(obj))
		return
	}
}
