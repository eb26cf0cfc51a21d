package apiserver_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// TestServedIsRegistered checks that discovery serves exactly the kinds
// of api.Registered, each with the facts of its registration, and that
// each kind's tables have its registered columns.
func TestServedIsRegistered(t *testing.T) {
	_, ts := start(t, cluster.Options{})
	paths := []string{"/api/v1"}
	for _, g := range do(t, ts, "GET", "/apis", "", "").body["groups"].([]any) {
		for _, v := range g.(map[string]any)["versions"].([]any) {
			paths = append(paths, "/apis/"+v.(map[string]any)["groupVersion"].(string))
		}
	}
	served := map[api.GroupVersionKind]map[string]any{}
	subresources := map[string]bool{}
	for _, p := range paths {
		doc := do(t, ts, "GET", p, "", "").body
		gv := doc["groupVersion"].(string)
		if gv == "authorization.k8s.io/v1" || gv == "authentication.k8s.io/v1" {
			continue // the reviews (reviews.go): answered, not stored kinds
		}
		for _, r := range doc["resources"].([]any) {
			r := r.(map[string]any)
			name := r["name"].(string)
			if strings.Contains(name, "/") {
				subresources[gv+"/"+name] = true
				continue
			}
			group, version, ok := strings.Cut(gv, "/")
			if !ok {
				group, version = "", gv
			}
			served[api.GroupVersionKind{Group: group, Version: version, Kind: r["kind"].(string)}] = r
		}
	}
	// The one version served converted over another's store (converted.go).
	hpaV1 := api.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "HorizontalPodAutoscaler"}
	require.Contains(t, served, hpaV1)
	delete(served, hpaV1)
	require.Len(t, served, len(api.Registered()), "nothing is served that is not registered")
	for _, k := range api.Registered() {
		r, ok := served[k.GroupVersionKind]
		require.True(t, ok, "%s is served", k.GroupVersionKind)
		require.Equal(t, k.Resource, r["name"])
		require.Equal(t, k.Namespaced, r["namespaced"])
		require.Equal(t, k.ShortNames, strs(r["shortNames"]), k.Kind)
		require.Equal(t, k.Categories, strs(r["categories"]), k.Kind)
		require.Equal(t, k.Status, subresources[k.APIVersion()+"/"+k.Resource+"/status"], k.Kind)
		require.Equal(t, k.Scale, subresources[k.APIVersion()+"/"+k.Resource+"/scale"], k.Kind)

		path := "/apis/" + k.APIVersion() + "/" + k.Resource
		if k.Group == "" {
			path = "/api/" + k.Version + "/" + k.Resource
		}
		table := do(t, ts, "GET", path, "", "", "Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
		require.Equal(t, 200, table.code, table.raw)
		var names []string
		for _, c := range table.body["columnDefinitions"].([]any) {
			names = append(names, c.(map[string]any)["name"].(string))
		}
		want := []string{"Name", "Age"}
		if k.Columns != nil {
			want = nil
			for _, c := range k.Columns {
				want = append(want, c.Name)
			}
		}
		require.Equal(t, want, names, "%s: table columns", k.Kind)
	}
	require.True(t, slices.Contains(paths, "/apis/coordination.k8s.io/v1"))
}

func strs(v any) []string {
	if v == nil {
		return nil
	}
	var out []string
	for _, s := range v.([]any) {
		out = append(out, s.(string))
	}
	return out
}
