package apiserver

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// dryRunAll is the one value of the dryRun parameter kube-apiserver
// accepts.
const dryRunAll = "All"

// optionsKind names the options a write method takes (CreateOptions,
// ...), as kube-apiserver's error about a bad dryRun names them.
func optionsKind(method string) string {
	switch method {
	case http.MethodPost:
		return "CreateOptions"
	case http.MethodPut:
		return "UpdateOptions"
	case http.MethodPatch:
		return "PatchOptions"
	default:
		return "DeleteOptions"
	}
}

// applyDryRun validates the dryRun values of a write (the query's, and a
// DeleteOptions' body) as kube-apiserver does — each must be "All", else
// 422 Invalid with an Unsupported value cause on field dryRun — and, when
// there is one, makes req's context a dry-run one (cluster.WithDryRun):
// the write then runs admission and validation and answers the object
// it would store, and stores nothing. A GET ignores dryRun, as
// kube-apiserver's reads do.
func applyDryRun(req *request, values []string) error {
	if req.r.Method == http.MethodGet || len(values) == 0 {
		return nil
	}
	for _, v := range values {
		if v != dryRunAll {
			quoted := make([]string, len(values))
			for i, v := range values {
				quoted[i] = fmt.Sprintf("%q", v)
			}
			detail := fmt.Sprintf("Unsupported value: []string{%s}: supported values: %q", strings.Join(quoted, ", "), dryRunAll)
			e := newError(http.StatusUnprocessableEntity, "Invalid",
				fmt.Sprintf("%s.meta.k8s.io %q is invalid: dryRun: %s", optionsKind(req.r.Method), "", detail))
			e.status.Details = &StatusDetails{Group: "meta.k8s.io", Kind: optionsKind(req.r.Method),
				Causes: []StatusCause{{Reason: "FieldValueNotSupported", Field: "dryRun", Message: detail}}}
			return e
		}
	}
	if !cluster.IsDryRun(req.r.Context()) {
		req.r = req.r.WithContext(cluster.WithDryRun(req.r.Context()))
	}
	return nil
}
