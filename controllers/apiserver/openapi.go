package apiserver

import (
	"hash/fnv"
	"net/http"
	"strconv"
	"strings"
)

// The OpenAPI v3 documents served are minimal: one PATCH operation per
// kind, tagged with the kind's x-kubernetes-group-version-kind and
// declaring the fieldValidation query parameter, and no schemas. That is
// what kubectl (1.27 and later) looks for to decide that the server
// validates fields itself: it then sends fieldValidation=Strict instead of
// validating against the schemas, which this server does not publish.
// Strict decoding (api.Decode) rejects unknown fields. Without schemas,
// kubectl apply computes its strategic merge patches from its compiled-in
// types, as it does for built-in kinds anyway.

// openAPIPaths returns "api/v1", "apis/apps/v1", ... in serving order.
func (s *Server) openAPIPaths() []string {
	var out []string
	for _, h := range s.served() {
		p := "apis/" + h.info().groupVersion()
		if h.info().group == "" {
			p = "api/" + h.info().version
		}
		if len(out) == 0 || !contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

type openAPIDiscoveryPath struct {
	URL string `json:"serverRelativeURL"`
}

// serveOpenAPI serves /openapi/v3 and /openapi/v3/<path>; false when p is
// neither.
func (s *Server) serveOpenAPI(w http.ResponseWriter, r *http.Request, p string) bool {
	if p == "/openapi/v3" {
		paths := map[string]openAPIDiscoveryPath{}
		for _, gp := range s.openAPIPaths() {
			h := fnv.New64a()
			h.Write([]byte(s.opts.Version + gp))
			paths[gp] = openAPIDiscoveryPath{URL: "/openapi/v3/" + gp + "?hash=" + strconv.FormatUint(h.Sum64(), 16)}
		}
		writeJSON(w, http.StatusOK, map[string]any{"paths": paths})
		return true
	}
	gp, ok := strings.CutPrefix(p, "/openapi/v3/")
	if !ok || !contains(s.openAPIPaths(), gp) {
		return false
	}
	paths := map[string]any{}
	for _, h := range s.served() {
		info := h.info()
		if ("apis/"+info.groupVersion() != gp) && ("api/"+info.version != gp || info.group != "") {
			continue
		}
		path := "/" + gp + "/" + info.name + "/{name}"
		if info.namespaced {
			path = "/" + gp + "/namespaces/{namespace}/" + info.name + "/{name}"
		}
		paths[path] = map[string]any{"patch": map[string]any{
			"operationId": "patch" + info.kind,
			"x-kubernetes-group-version-kind": map[string]string{
				"group": info.group, "version": info.version, "kind": info.kind},
			"parameters": []map[string]any{
				{"name": "fieldValidation", "in": "query", "schema": map[string]string{"type": "string"}},
			},
			"responses": map[string]any{"200": map[string]any{"description": "OK"}},
		}}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"openapi":    "3.0.0",
		"info":       map[string]string{"title": "ctrlkit", "version": s.opts.Version},
		"paths":      paths,
		"components": map[string]any{"schemas": map[string]any{}},
	})
	return true
}
