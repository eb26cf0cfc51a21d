package apiserver

import (
	"errors"
	"net/http"

	"sigs.k8s.io/yaml"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// eviction is policy/v1 (or v1beta1) Eviction, the body of a pod's
// eviction subresource.
type eviction struct {
	APIVersion    string         `json:"apiVersion,omitempty"`
	Kind          string         `json:"kind,omitempty"`
	Metadata      api.ObjectMeta `json:"metadata"`
	DeleteOptions *deleteOptions `json:"deleteOptions,omitempty"`
}

// serveEviction serves POST pods/{name}/eviction as kube-apiserver's
// EvictionREST: the body is an Eviction of policy/v1 or policy/v1beta1
// naming the pod; cluster.Evict checks the pod's disruption budget and
// deletes the pod with the eviction's deleteOptions. It answers 201 with
// a Success Status; a budget's refusal is 429 TooManyRequests with a
// DisruptionBudget cause; a pod under several budgets is 500 with kube's
// message; a malformed body is 400.
func (h *typed[T]) serveEviction(req *request) {
	if req.r.Method != http.MethodPost {
		h.fail(req, methodNotAllowed(req))
		return
	}
	b, err := readBody(req)
	if err != nil {
		h.fail(req, err)
		return
	}
	var ev eviction
	if err := yaml.Unmarshal(b, &ev); err != nil {
		h.fail(req, badRequest("Eviction: %v", err))
		return
	}
	switch {
	case ev.Kind == "":
		h.fail(req, badRequest("Object 'Kind' is missing in '%s'", b))
		return
	case ev.Kind != "Eviction" || (ev.APIVersion != "policy/v1" && ev.APIVersion != "policy/v1beta1"):
		h.fail(req, badRequest("not a Eviction object: %s, Kind=%s", ev.APIVersion, ev.Kind))
		return
	case ev.Metadata.Name != req.name:
		h.fail(req, badRequest("name in URL does not match name in Eviction object"))
		return
	case ev.Metadata.Namespace != "" && ev.Metadata.Namespace != req.namespace:
		h.fail(req, badRequest("the namespace of the provided object does not match the namespace sent on the request"))
		return
	}
	var opts cluster.DeleteOptions
	if do := ev.DeleteOptions; do != nil {
		if err := applyDryRun(req, do.DryRun); err != nil {
			h.fail(req, err)
			return
		}
		opts.GracePeriodSeconds = do.GracePeriodSeconds
		switch {
		case do.PropagationPolicy != nil && do.OrphanDependents != nil:
			h.fail(req, newError(http.StatusUnprocessableEntity, "Invalid", "orphanDependents and propagationPolicy may not both be set"))
			return
		case do.PropagationPolicy != nil:
			opts.PropagationPolicy = cluster.PropagationPolicy(*do.PropagationPolicy)
		case do.OrphanDependents != nil:
			opts.PropagationPolicy = cluster.DeletePropagationBackground
			if *do.OrphanDependents {
				opts.PropagationPolicy = cluster.DeletePropagationOrphan
			}
		}
		if p := do.Preconditions; p != nil {
			if p.UID != nil {
				opts.Preconditions.UID = *p.UID
			}
			if p.ResourceVersion != nil {
				opts.Preconditions.ResourceVersion = *p.ResourceVersion
			}
		}
	}
	if err := h.srv.c.Evict(req.r.Context(), req.namespace, req.name, opts); err != nil {
		h.fail(req, evictionError(err))
		return
	}
	writeJSON(req.w, http.StatusCreated, Status{TypeMeta: statusTypeMeta, Status: "Success", Code: http.StatusCreated})
}

// evictionError turns the eviction's own refusals into kube-apiserver's
// Status; other errors map as every request's do.
func evictionError(err error) error {
	var be *cluster.BudgetError
	switch {
	case errors.As(err, &be):
		e := newError(http.StatusTooManyRequests, "TooManyRequests", cluster.BudgetMessage)
		e.status.Details = &StatusDetails{Causes: []StatusCause{{Reason: "DisruptionBudget", Message: be.Cause}},
			RetryAfterSeconds: int32(be.RetryAfter.Seconds())}
		return e
	case errors.Is(err, cluster.ErrMultipleBudgets):
		// kube returns a Status object with code 500 and no reason.
		return &apiError{Status{TypeMeta: statusTypeMeta, Status: "Failure", Code: http.StatusInternalServerError,
			Message: cluster.MultipleBudgetsMessage}}
	}
	return err
}

// evictionResource is the discovery entry of the subresource: kubectl
// drain looks for it, and evicts with its group and version (policy/v1),
// else falls back to deleting pods.
var evictionResource = apiResource{Name: "pods/eviction", Namespaced: true, Group: "policy", Version: "v1", Kind: "Eviction", Verbs: []string{"create"}}
