package apiserver_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/resourcequota"
)

// TestEveryRegisteredKindIsServed is the end-to-end check of the kind
// registry: every kind of api.Registered is in discovery, is created and
// read back over HTTP through its handler (a sample of each, from
// controllers/api/testdata/kinds.yaml), has a store in the cluster, and,
// if namespaced, is counted by the resource quota. A kind registered in
// controllers/api without go generate has no handler and no store, and
// fails here (and in kindgen's own test).
func TestEveryRegisteredKindIsServed(t *testing.T) {
	c, ts := start(t, cluster.Options{})
	samples, err := api.DecodeFile("../api/testdata/kinds.yaml", api.DecodeOptions{})
	require.NoError(t, err)
	byKind := map[api.GroupVersionKind]api.Object{}
	for _, o := range samples {
		byKind[o.GroupVersionKind()] = o
	}
	for _, k := range api.Registered() {
		if !api.IsBuiltin(k.GroupVersionKind) {
			continue // the kinds of Register: ownkinds_test.go
		}
		gv := "/apis/" + k.APIVersion()
		if k.Group == "" {
			gv = "/api/" + k.Version
		}
		discovered := false
		for _, r := range do(t, ts, "GET", gv, "", "").body["resources"].([]any) {
			r := r.(map[string]any)
			discovered = discovered || (r["name"] == k.Resource && r["kind"] == k.Kind)
		}
		require.True(t, discovered, "%s: %s in the discovery of %s", k.Kind, k.Resource, gv)

		sample, ok := byKind[k.GroupVersionKind]
		require.True(t, ok, "%s: a sample in kinds.yaml", k.Kind)
		body, err := json.Marshal(sample)
		require.NoError(t, err)
		coll := gv + "/" + k.Resource
		if k.Namespaced {
			coll = gv + "/namespaces/default/" + k.Resource
		}
		created := do(t, ts, "POST", coll, "application/json", string(body))
		require.Equal(t, 201, created.code, "%s: create: %s", k.Kind, created.raw)
		name := sample.GetObjectMeta().Name // "sample", but a CRD's is <plural>.<group>
		got := do(t, ts, "GET", coll+"/"+name, "", "")
		require.Equal(t, 200, got.code, "%s: get: %s", k.Kind, got.raw)
		require.Equal(t, k.Kind, got.body["kind"])
		require.Equal(t, k.APIVersion(), got.body["apiVersion"])
		meta := got.body["metadata"].(map[string]any)
		require.Equal(t, name, meta["name"], k.Kind)
		require.Equal(t, created.body["metadata"].(map[string]any)["uid"], meta["uid"], k.Kind)

		r, err := c.ResourceFor(k.GroupVersionKind)
		require.NoError(t, err, "%s: a cluster store", k.Kind)
		require.Equal(t, k.Resource, r.Resource())

		g, counted := resourcequota.Groups[k.Resource]
		if k.Namespaced && k.Resource != "events" {
			require.True(t, counted, "%s: counted by the resource quota", k.Kind)
			require.Equal(t, k.Group, g, k.Kind)
		} else {
			require.False(t, counted, "%s: not counted by the resource quota", k.Kind)
		}
	}
}
