package openapi

// The query parameters of kube-apiserver's operations, as its OpenAPI
// documents declare them.
var (
	writeParams = []string{"dryRun", "fieldManager", "fieldValidation", "pretty"}
	patchParams = []string{"dryRun", "fieldManager", "fieldValidation", "force", "pretty"}
	listParams  = []string{"allowWatchBookmarks", "continue", "fieldSelector", "labelSelector", "limit",
		"pretty", "resourceVersion", "resourceVersionMatch", "sendInitialEvents", "timeoutSeconds", "watch"}
	readParams   = []string{"pretty"}
	deleteParams = []string{"dryRun", "gracePeriodSeconds", "ignoreStoreReadErrorWithClusterBreakingPotential",
		"orphanDependents", "pretty", "propagationPolicy"}
)

// paramDescriptions describe the query parameters kubectl reads.
var paramDescriptions = map[string]string{
	"dryRun":          "When present, indicates that modifications should not be persisted. Valid values are: - All: all dry run stages will be processed",
	"fieldManager":    "fieldManager is a name associated with the actor or entity that is making these changes.",
	"fieldValidation": "fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore - Warn - Strict",
	"force":           "Force is going to \"force\" Apply requests. It means user will re-acquire conflicting fields owned by other people.",
	"pretty":          "If 'true', then the output is pretty printed.",
	"labelSelector":   "A selector to restrict the list of returned objects by their labels. Defaults to everything.",
	"fieldSelector":   "A selector to restrict the list of returned objects by their fields. Defaults to everything.",
	"watch":           "Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.",
}

// addPaths adds the operations on r, whose definition is named def, to
// paths: list, create and deletecollection on the collection (and a list
// across namespaces for a namespaced resource); read, replace, patch and
// delete on an object; read, replace and patch on its status and scale.
// Each operation carries kube-apiserver's operationId,
// x-kubernetes-action and x-kubernetes-group-version-kind; writes
// declare fieldValidation, which tells kubectl the server validates
// fields itself.
func addPaths(paths map[string]any, r *Resource, def string, v3 bool) {
	prefix := "/" + r.path()
	gc := groupCamel(r.Group, r.Version)
	ns := ""
	coll := prefix + "/" + r.Resource
	if r.Namespaced {
		ns = "Namespaced"
		coll = prefix + "/namespaces/{namespace}/" + r.Resource
		paths[prefix+"/"+r.Resource] = map[string]any{
			"get": op(r, v3, "list"+gc+r.Kind+"ForAllNamespaces", "list", "list or watch objects of kind "+r.Kind, listParams, "", def+"List"),
		}
	}
	pathParams := func(name bool) []any {
		var ps []any
		if name {
			ps = append(ps, param(v3, "name", "path", "name of the "+r.Kind))
		}
		if r.Namespaced {
			ps = append(ps, param(v3, "namespace", "path", "object name and auth scope, such as for teams and projects"))
		}
		return ps
	}
	c := map[string]any{
		"get":    op(r, v3, "list"+gc+ns+r.Kind, "list", "list or watch objects of kind "+r.Kind, listParams, "", def+"List"),
		"post":   op(r, v3, "create"+gc+ns+r.Kind, "post", "create a "+r.Kind, writeParams, def, def),
		"delete": op(r, v3, "deletecollection"+gc+ns+r.Kind, "deletecollection", "delete collection of "+r.Kind, append(listParams[:0:0], deleteParams...), "", metaPrefix+"Status"),
	}
	if ps := pathParams(false); ps != nil {
		c["parameters"] = ps
	}
	paths[coll] = c
	paths[coll+"/{name}"] = map[string]any{
		"get":        op(r, v3, "read"+gc+ns+r.Kind, "get", "read the specified "+r.Kind, readParams, "", def),
		"put":        op(r, v3, "replace"+gc+ns+r.Kind, "put", "replace the specified "+r.Kind, writeParams, def, def),
		"patch":      op(r, v3, "patch"+gc+ns+r.Kind, "patch", "partially update the specified "+r.Kind, patchParams, metaPrefix+"Patch", def),
		"delete":     op(r, v3, "delete"+gc+ns+r.Kind, "delete", "delete a "+r.Kind, deleteParams, "", metaPrefix+"Status"),
		"parameters": pathParams(true),
	}
	if r.Status {
		paths[coll+"/{name}/status"] = map[string]any{
			"get":        op(r, v3, "read"+gc+ns+r.Kind+"Status", "get", "read status of the specified "+r.Kind, readParams, "", def),
			"put":        op(r, v3, "replace"+gc+ns+r.Kind+"Status", "put", "replace status of the specified "+r.Kind, writeParams, def, def),
			"patch":      op(r, v3, "patch"+gc+ns+r.Kind+"Status", "patch", "partially update status of the specified "+r.Kind, patchParams, metaPrefix+"Patch", def),
			"parameters": pathParams(true),
		}
	}
}

// param is a path or query parameter of type string.
func param(v3 bool, name, in, desc string) map[string]any {
	p := map[string]any{"name": name, "in": in, "description": desc, "uniqueItems": true}
	if in == "path" {
		p["required"] = true
	}
	if v3 {
		p["schema"] = map[string]any{"type": "string"}
	} else {
		p["type"] = "string"
	}
	return p
}

// op is one operation: its query parameters, its request body's
// definition (none when body is ""), its response's.
func op(r *Resource, v3 bool, id, action, desc string, query []string, body, resp string) map[string]any {
	refPrefix := "#/definitions/"
	if v3 {
		refPrefix = "#/components/schemas/"
	}
	var params []any
	for _, q := range query {
		params = append(params, param(v3, q, "query", paramDescriptions[q]))
	}
	o := map[string]any{
		"operationId":                     id,
		"description":                     desc,
		"tags":                            []string{groupCamel(r.Group, r.Version)},
		"x-kubernetes-action":             action,
		"x-kubernetes-group-version-kind": map[string]string{"group": r.Group, "version": r.Version, "kind": r.Kind},
	}
	ref := func(n string) map[string]any { return map[string]any{"$ref": refPrefix + n} }
	types := []string{"application/json", "application/yaml"}
	if action == "patch" {
		types = []string{"application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json"}
		if r.GoType != nil && r.GoType.Elem().PkgPath() == apiPkg {
			types = append(types, "application/strategic-merge-patch+json")
		}
	}
	if v3 {
		if body != "" {
			content := map[string]any{}
			for _, t := range types {
				content[t] = map[string]any{"schema": ref(body)}
			}
			o["requestBody"] = map[string]any{"content": content, "required": true}
		}
		o["responses"] = map[string]any{
			"200": map[string]any{"description": "OK", "content": map[string]any{
				"application/json": map[string]any{"schema": ref(resp)},
				"application/yaml": map[string]any{"schema": ref(resp)},
			}},
			"401": map[string]any{"description": "Unauthorized"},
		}
	} else {
		if body != "" {
			params = append(params, map[string]any{"name": "body", "in": "body", "required": true, "schema": ref(body)})
			o["consumes"] = types
		}
		o["produces"] = []string{"application/json", "application/yaml"}
		o["schemes"] = []string{"https"}
		o["responses"] = map[string]any{
			"200": map[string]any{"description": "OK", "schema": ref(resp)},
			"401": map[string]any{"description": "Unauthorized"},
		}
	}
	if params != nil {
		o["parameters"] = params
	}
	return o
}
