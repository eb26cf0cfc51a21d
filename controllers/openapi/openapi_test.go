package openapi

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/crdgen"
)

// builtins are the Resources of the built-in kinds.
func builtins() []Resource {
	var rs []Resource
	for _, k := range api.Registered() {
		if api.IsBuiltin(k.GroupVersionKind) {
			rs = append(rs, Resource{GroupVersionKind: k.GroupVersionKind, Resource: k.Resource,
				Namespaced: k.Namespaced, Status: k.Status, Scale: k.Scale, GoType: k.GoType()})
		}
	}
	return rs
}

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

func at(t *testing.T, m any, keys ...string) any {
	t.Helper()
	for _, k := range keys {
		mm, ok := m.(map[string]any)
		require.True(t, ok, "%s: not an object: %v", k, m)
		m, ok = mm[k]
		require.True(t, ok, "no %s in %v", k, keys)
	}
	return m
}

// zz_generated_comments.go is what gen_comments.go writes from the
// current source of controllers/api.
func TestCommentsCurrent(t *testing.T) {
	cs, err := crdgen.ParseComments("../api")
	require.NoError(t, err)
	require.True(t, reflect.DeepEqual(cs, apiComments), "zz_generated_comments.go is stale: run go generate in controllers/openapi")
}

func TestV3Deployment(t *testing.T) {
	docs, err := Build("v1.37.2", builtins())
	require.NoError(t, err)
	doc := decode(t, docs.V3["apis/apps/v1"])
	schemas := at(t, doc, "components", "schemas")
	d := at(t, schemas, "io.k8s.api.apps.v1.Deployment")
	require.Equal(t, []any{map[string]any{"group": "apps", "version": "v1", "kind": "Deployment"}}, at(t, d, "x-kubernetes-group-version-kind"))
	require.Equal(t, "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", at(t, d, "properties", "metadata", "$ref"))
	spec := at(t, schemas, "io.k8s.api.apps.v1.DeploymentSpec")
	require.Equal(t, "Strategy replaces old pods with new ones.", at(t, spec, "properties", "strategy", "description"))
	require.Equal(t, "retainKeys", at(t, spec, "properties", "strategy", "x-kubernetes-patch-strategy"))
	require.Equal(t, "DeploymentSpec is the desired state of a deployment.", at(t, spec, "description"))
	ps := at(t, schemas, "io.k8s.api.core.v1.PodSpec")
	c := at(t, ps, "properties", "containers").(map[string]any)
	require.Equal(t, "merge", c["x-kubernetes-patch-strategy"])
	require.Equal(t, "name", c["x-kubernetes-patch-merge-key"])
	require.Equal(t, "map", c["x-kubernetes-list-type"])
	require.Equal(t, []any{"name"}, c["x-kubernetes-list-map-keys"])
	require.Equal(t, "#/components/schemas/io.k8s.api.core.v1.Container", at(t, c, "items", "$ref"))
	ru := at(t, schemas, "io.k8s.api.apps.v1.RollingUpdateDeployment")
	require.Equal(t, "#/components/schemas/io.k8s.apimachinery.pkg.util.intstr.IntOrString", at(t, ru, "properties", "maxSurge", "allOf").([]any)[0].(map[string]any)["$ref"])
	require.Equal(t, true, at(t, schemas, "io.k8s.apimachinery.pkg.util.intstr.IntOrString", "x-kubernetes-int-or-string"))
	require.Contains(t, schemas, "io.k8s.api.apps.v1.DeploymentList")
	require.NotContains(t, schemas, "io.k8s.api.batch.v1.Job")
	p := at(t, doc, "paths", "/apis/apps/v1/namespaces/{namespace}/deployments/{name}", "patch")
	require.Equal(t, "patchAppsV1NamespacedDeployment", at(t, p, "operationId"))
	require.Equal(t, "patch", at(t, p, "x-kubernetes-action"))
	require.Contains(t, at(t, p, "requestBody", "content"), "application/strategic-merge-patch+json")

	v2 := decode(t, docs.V2)
	require.Equal(t, "2.0", v2["swagger"])
	require.Equal(t, "#/definitions/io.k8s.api.core.v1.Container", at(t, v2, "definitions", "io.k8s.api.core.v1.PodSpec", "properties", "containers", "items", "$ref"))
	require.Equal(t, "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", at(t, v2, "definitions", "io.k8s.api.core.v1.Pod", "properties", "metadata", "$ref"))
	require.Contains(t, at(t, v2, "paths"), "/api/v1/namespaces/{namespace}/pods/{name}/status")
}
