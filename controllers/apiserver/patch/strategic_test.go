package patch

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Strategic merge patches on controllers/api kinds: one case per merge key
// of the strategies table and per directive. The results are those of
// apimachinery v0.37.2's StrategicMergePatch with the k8s.io/api types as
// schema (checked by running it on this table), except where a comment
// says otherwise.
func TestStrategicMergePatchKinds(t *testing.T) {
	tests := []struct {
		name, kind, doc, patch, want string
	}{
		{"containers by name", "Pod",
			`{"spec":{"containers":[{"name":"a","image":"x"},{"name":"b","image":"y"}]}}`,
			`{"spec":{"containers":[{"name":"b","image":"z"}]}}`,
			`{"spec":{"containers":[{"image":"x","name":"a"},{"image":"z","name":"b"}]}}`},
		{"new container appended", "Pod",
			`{"spec":{"containers":[{"name":"a"}]}}`,
			`{"spec":{"containers":[{"name":"b"}]}}`,
			`{"spec":{"containers":[{"name":"b"},{"name":"a"}]}}`},
		{"init containers, env, ports, volume mounts", "Pod",
			`{"spec":{"initContainers":[{"name":"i","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],` +
				`"ports":[{"containerPort":80,"name":"http"}],"volumeMounts":[{"name":"v","mountPath":"/a"}]}]}}`,
			`{"spec":{"initContainers":[{"name":"i","env":[{"name":"B","value":"3"}],` +
				`"ports":[{"containerPort":80,"protocol":"TCP"}],"volumeMounts":[{"name":"w","mountPath":"/a"}]}]}}`,
			`{"spec":{"initContainers":[{"env":[{"name":"A","value":"1"},{"name":"B","value":"3"}],"name":"i",` +
				`"ports":[{"containerPort":80,"name":"http","protocol":"TCP"}],"volumeMounts":[{"mountPath":"/a","name":"w"}]}]}}`},
		{"volumes by name, hostAliases by ip, imagePullSecrets by name", "Pod",
			`{"spec":{"volumes":[{"name":"a","emptyDir":{}}],"hostAliases":[{"ip":"1.1.1.1","hostnames":["a"]}],"imagePullSecrets":[{"name":"r"}]}}`,
			`{"spec":{"volumes":[{"name":"b","emptyDir":{}}],"hostAliases":[{"ip":"1.1.1.1","hostnames":["b"]}],"imagePullSecrets":[{"name":"s"}]}}`,
			`{"spec":{"hostAliases":[{"hostnames":["b"],"ip":"1.1.1.1"}],"imagePullSecrets":[{"name":"s"},{"name":"r"}],"volumes":[{"emptyDir":{},"name":"b"},{"emptyDir":{},"name":"a"}]}}`},
		{"topologySpreadConstraints by topologyKey, schedulingGates by name", "Pod",
			`{"spec":{"topologySpreadConstraints":[{"topologyKey":"zone","maxSkew":1,"whenUnsatisfiable":"DoNotSchedule"}],"schedulingGates":[{"name":"g"}]}}`,
			`{"spec":{"topologySpreadConstraints":[{"topologyKey":"zone","maxSkew":2}],"schedulingGates":[{"name":"g","$patch":"delete"}]}}`,
			`{"spec":{"schedulingGates":[],"topologySpreadConstraints":[{"maxSkew":2,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule"}]}}`},
		{"tolerations are atomic", "Pod",
			`{"spec":{"tolerations":[{"key":"a","operator":"Exists"},{"key":"b","operator":"Exists"}]}}`,
			`{"spec":{"tolerations":[{"key":"a","operator":"Exists","effect":"NoSchedule"}]}}`,
			`{"spec":{"tolerations":[{"effect":"NoSchedule","key":"a","operator":"Exists"}]}}`},
		{"container args are atomic", "Pod",
			`{"spec":{"containers":[{"name":"a","args":["x","y"]}]}}`,
			`{"spec":{"containers":[{"name":"a","args":["z"]}]}}`,
			`{"spec":{"containers":[{"args":["z"],"name":"a"}]}}`},
		{"pod conditions by type, podIPs by ip", "Pod",
			`{"status":{"conditions":[{"type":"Ready","status":"False"},{"type":"PodScheduled","status":"True"}],"podIPs":[{"ip":"10.0.0.1"}]}}`,
			`{"status":{"conditions":[{"type":"Ready","status":"True"}],"podIPs":[{"ip":"fd00::1"}]}}`,
			`{"status":{"conditions":[{"status":"True","type":"Ready"},{"status":"True","type":"PodScheduled"}],"podIPs":[{"ip":"fd00::1"},{"ip":"10.0.0.1"}]}}`},
		{"ownerReferences by uid, finalizers as a set", "ReplicaSet",
			`{"metadata":{"ownerReferences":[{"uid":"1","name":"d","kind":"Deployment","apiVersion":"apps/v1"}],"finalizers":["a","b"]}}`,
			`{"metadata":{"ownerReferences":[{"uid":"1","controller":true}],"finalizers":["b","c"]}}`,
			`{"metadata":{"finalizers":["a","b","c"],"ownerReferences":[{"apiVersion":"apps/v1","controller":true,"kind":"Deployment","name":"d","uid":"1"}]}}`},
		{"deployment conditions by type", "Deployment",
			`{"status":{"conditions":[{"type":"Available","status":"False"},{"type":"Progressing","status":"True"}]}}`,
			`{"status":{"conditions":[{"type":"Available","status":"True","reason":"MinimumReplicasAvailable"}]}}`,
			`{"status":{"conditions":[{"reason":"MinimumReplicasAvailable","status":"True","type":"Available"},{"status":"True","type":"Progressing"}]}}`},
		{"service ports by port", "Service",
			`{"spec":{"ports":[{"port":80,"targetPort":8080},{"port":443}]}}`,
			`{"spec":{"ports":[{"port":80,"targetPort":9090}]}}`,
			`{"spec":{"ports":[{"port":80,"targetPort":9090},{"port":443}]}}`},
		{"node addresses by type, podCIDRs as a set", "Node",
			`{"spec":{"podCIDRs":["10.0.0.0/24"]},"status":{"addresses":[{"type":"InternalIP","address":"1.2.3.4"},{"type":"Hostname","address":"n"}]}}`,
			`{"spec":{"podCIDRs":["fd00::/64"]},"status":{"addresses":[{"type":"InternalIP","address":"5.6.7.8"}]}}`,
			`{"spec":{"podCIDRs":["fd00::/64","10.0.0.0/24"]},"status":{"addresses":[{"address":"5.6.7.8","type":"InternalIP"},{"address":"n","type":"Hostname"}]}}`},
		{"service account secrets by name", "ServiceAccount",
			`{"secrets":[{"name":"a"}]}`, `{"secrets":[{"name":"b"}]}`, `{"secrets":[{"name":"b"},{"name":"a"}]}`},
		{"maps merge, null deletes", "ConfigMap",
			`{"data":{"a":"1","b":"2"},"metadata":{"labels":{"x":"1"}}}`,
			`{"data":{"a":null,"c":"3"},"metadata":{"labels":null}}`,
			`{"data":{"b":"2","c":"3"},"metadata":{}}`},
		{"null of a missing member is dropped", "ConfigMap", `{}`, `{"data":{"a":null},"metadata":{"labels":{"x":null}}}`, `{"data":{},"metadata":{"labels":{}}}`},
		{"$patch replace of a map", "Deployment",
			`{"spec":{"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1}}}}`,
			`{"spec":{"strategy":{"$patch":"replace","type":"Recreate"}}}`,
			`{"spec":{"strategy":{"type":"Recreate"}}}`},
		{"$patch delete of a map", "Pod",
			`{"metadata":{"labels":{"a":"1"},"name":"p"}}`, `{"metadata":{"labels":{"$patch":"delete"}}}`, `{"metadata":{"labels":{},"name":"p"}}`},
		{"$patch delete of a missing map drops it", "Pod",
			`{"metadata":{"name":"p"}}`, `{"metadata":{"labels":{"$patch":"delete"}}}`, `{"metadata":{"name":"p"}}`},
		{"$patch replace of a list", "Pod",
			`{"spec":{"containers":[{"name":"a"},{"name":"b"}]}}`,
			`{"spec":{"containers":[{"name":"c"},{"$patch":"replace"}]}}`,
			`{"spec":{"containers":[{"name":"c"}]}}`},
		{"$patch delete of list elements", "Pod",
			`{"spec":{"containers":[{"name":"a"},{"name":"b"}],"volumes":[{"name":"v"}]}}`,
			`{"spec":{"containers":[{"name":"a","$patch":"delete"}],"volumes":[{"name":"v","$patch":"delete"},{"name":"w"}]}}`,
			`{"spec":{"containers":[{"name":"b"}],"volumes":[{"name":"w"}]}}`},
		{"$retainKeys clears unlisted members", "Deployment",
			`{"spec":{"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1}}}}`,
			`{"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate"}}}`,
			`{"spec":{"strategy":{"type":"Recreate"}}}`},
		{"$retainKeys in a volume", "Pod",
			`{"spec":{"volumes":[{"name":"v","emptyDir":{}}]}}`,
			`{"spec":{"volumes":[{"name":"v","$retainKeys":["configMap","name"],"configMap":{"name":"c"}}]}}`,
			`{"spec":{"volumes":[{"configMap":{"name":"c"},"name":"v"}]}}`},
		{"$deleteFromPrimitiveList", "Pod",
			`{"metadata":{"finalizers":["a","b","c"]}}`,
			`{"metadata":{"$deleteFromPrimitiveList/finalizers":["b","x"]}}`,
			`{"metadata":{"finalizers":["a","c"]}}`},
		{"$deleteFromPrimitiveList and additions", "Pod",
			`{"metadata":{"finalizers":["a","b"]}}`,
			`{"metadata":{"$deleteFromPrimitiveList/finalizers":["a"],"finalizers":["c"]}}`,
			`{"metadata":{"finalizers":["c","b"]}}`},
		{"$deleteFromPrimitiveList of a missing list", "Pod", `{"metadata":{}}`, `{"metadata":{"$deleteFromPrimitiveList/finalizers":["a"]}}`, `{"metadata":{}}`},
		{"$setElementOrder orders merged elements", "Pod",
			`{"spec":{"containers":[{"name":"a"},{"name":"b"},{"name":"c"}]}}`,
			`{"spec":{"$setElementOrder/containers":[{"name":"c"},{"name":"b"},{"name":"a"}]}}`,
			`{"spec":{"containers":[{"name":"c"},{"name":"b"},{"name":"a"}]}}`},
		{"$setElementOrder places server-only elements by the original order", "Pod",
			`{"spec":{"containers":[{"name":"a"},{"name":"sidecar"},{"name":"b"}]}}`,
			`{"spec":{"$setElementOrder/containers":[{"name":"b"},{"name":"a"}],"containers":[{"name":"b","image":"x"}]}}`,
			`{"spec":{"containers":[{"name":"sidecar"},{"image":"x","name":"b"},{"name":"a"}]}}`},
		{"$setElementOrder of scalars", "Pod",
			`{"metadata":{"finalizers":["a","b"]}}`,
			`{"metadata":{"$setElementOrder/finalizers":["b","c","a"],"finalizers":["c"]}}`,
			`{"metadata":{"finalizers":["b","c","a"]}}`},
		{"$setElementOrder for a new list", "Pod",
			`{"spec":{}}`,
			`{"spec":{"$setElementOrder/containers":[{"name":"a"}],"containers":[{"name":"a","image":"x"}]}}`,
			`{"spec":{"containers":[{"image":"x","name":"a"}]}}`},
		{"a different JSON type replaces", "Deployment",
			`{"spec":{"replicas":3,"selector":{"matchLabels":{"a":"b"}}}}`,
			`{"spec":{"replicas":"x","selector":"y"}}`,
			`{"spec":{"replicas":"x","selector":"y"}}`},
		// Upstream leaves the $setElementOrder in the new member (for the
		// decoder to drop); Apply applies it.
		{"directives are cleaned from new members", "Deployment",
			`{"spec":{}}`,
			`{"spec":{"template":{"metadata":{"labels":{"a":"1","b":null}},"spec":{"$setElementOrder/containers":[{"name":"a"}],"containers":[{"name":"a","env":[{"name":"E","$patch":"delete"}],"resources":null}]}}}}`,
			`{"spec":{"template":{"metadata":{"labels":{"a":"1"}},"spec":{"containers":[{"env":[],"name":"a"}]}}}}`},
		// Upstream fails here (RawExtension has no field "spec").
		{"an opaque field merges without strategies", "ControllerRevision",
			`{"data":{"spec":{"template":{"spec":{"containers":[{"name":"a"}]}}}}}`,
			`{"data":{"spec":{"template":{"spec":{"containers":[{"name":"b"}]}}}}}`,
			`{"data":{"spec":{"template":{"spec":{"containers":[{"name":"b"}]}}}}}`},
		{"quantities and int-or-strings are scalars", "Deployment",
			`{"spec":{"strategy":{"rollingUpdate":{"maxSurge":1}},"template":{"spec":{"containers":[{"name":"a","resources":{"limits":{"cpu":"1"}}}]}}}}`,
			`{"spec":{"strategy":{"rollingUpdate":{"maxSurge":"25%"}},"template":{"spec":{"containers":[{"name":"a","resources":{"limits":{"memory":"1Gi"}}}]}}}}`,
			`{"spec":{"strategy":{"rollingUpdate":{"maxSurge":"25%"}},"template":{"spec":{"containers":[{"name":"a","resources":{"limits":{"cpu":"1","memory":"1Gi"}}}]}}}}`},
		{"json field names match case-insensitively", "Pod",
			`{"spec":{"containers":[{"name":"a","image":"x"}]}}`,
			`{"Spec":{"Containers":[{"name":"a","image":"y"}]}}`,
			`{"Spec":{"Containers":[{"image":"y","name":"a"}]},"spec":{"containers":[{"image":"x","name":"a"}]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Apply(StrategicMerge, tt.kind, []byte(tt.doc), []byte(tt.patch))
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(got))
		})
	}
}

func TestStrategicMergePatchErrors(t *testing.T) {
	tests := []struct {
		name, kind, doc, patch, wantError string
	}{
		{"unknown kind", "Widget", `{}`, `{}`, `needs a built-in kind, and "Widget" is not one`},
		{"patch not an object", "Pod", `{}`, `[]`, "strategic merge patch is not a JSON object"},
		{"patch not JSON", "Pod", `{}`, `{`, "strategic merge patch is not valid JSON"},
		{"unknown field merged", "Pod", `{"spec":{"widgets":{"a":1}}}`, `{"spec":{"widgets":{"b":1}}}`, `unable to find api field in struct PodSpec for the json field "widgets"`},
		{"$patch merge in a map", "Pod", `{"metadata":{}}`, `{"metadata":{"$patch":"merge"}}`, "unknown $patch directive merge"},
		{"$patch merge in a list", "Pod", `{"spec":{"containers":[{"name":"a"}]}}`, `{"spec":{"containers":[{"$patch":"merge"}]}}`, `"$patch: merge" is not supported in a list`},
		{"unknown $patch", "Pod", `{"spec":{"containers":[{"name":"a"}]}}`, `{"spec":{"containers":[{"$patch":"frob","name":"a"}]}}`, "unknown $patch directive frob"},
		{"delete without merge key", "Pod", `{"spec":{"containers":[{"name":"a"}]}}`, `{"spec":{"containers":[{"$patch":"delete"}]}}`, `has no merge key "name"`},
		{"element without merge key", "Pod", `{"spec":{"containers":[{"name":"a"}]}}`, `{"spec":{"containers":[{"image":"x"}]}}`, `has no merge key "name"`},
		{"mixed element types", "Pod", `{"spec":{"containers":[{"name":"a"}]}}`, `{"spec":{"containers":["a"]}}`, "mix objects and strings"},
		{"list of lists", "Pod", `{"metadata":{"finalizers":[["a"]]}}`, `{"metadata":{"finalizers":[["b"]]}}`, "lists of lists"},
		// Upstream keeps "$frob" as a member, for the decoder to reject.
		{"unknown directive", "Pod", `{}`, `{"$frob":1}`, `unknown directive "$frob"`},
		{"bad $retainKeys", "Deployment", `{"spec":{"strategy":{}}}`, `{"spec":{"strategy":{"$retainKeys":"type"}}}`, "must be a list of field names"},
		{"$retainKeys missing a patched key", "Deployment", `{"spec":{"strategy":{}}}`, `{"spec":{"strategy":{"$retainKeys":["type"],"rollingUpdate":{}}}}`, `"rollingUpdate" is set by the patch but not listed`},
		{"bad $setElementOrder", "Pod", `{"spec":{}}`, `{"spec":{"$setElementOrder/containers":{"name":"a"}}}`, "must be a list"},
		{"$setElementOrder out of order", "Pod", `{"spec":{"containers":[{"name":"a"},{"name":"b"}]}}`,
			`{"spec":{"$setElementOrder/containers":[{"name":"a"},{"name":"b"}],"containers":[{"name":"b"},{"name":"a"}]}}`, "not in its order"},
		{"$setElementOrder missing an element", "Pod", `{"spec":{"containers":[{"name":"a"}]}}`,
			`{"spec":{"$setElementOrder/containers":[{"name":"a"}],"containers":[{"name":"c"}]}}`, "not all in the order list"},
		{"$setElementOrder of a non-list", "Pod", `{"spec":{"containers":{}}}`, `{"spec":{"$setElementOrder/containers":[]}}`, "containers is not a list in the object"},
		{"$setElementOrder without a field", "Pod", `{}`, `{"$setElementOrder/":[]}`, "names no list"},
		// Upstream ignores this one.
		{"$deleteFromPrimitiveList without a field", "Pod", `{}`, `{"$deleteFromPrimitiveList/":[]}`, "names no list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Apply(StrategicMerge, tt.kind, []byte(tt.doc), []byte(tt.patch))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantError)
			// Upstream's interpretStrategicMergePatchError answers 422 for these two.
			unprocessable := tt.name == "list of lists" || tt.name == "$retainKeys missing a patched key"
			assert.Equal(t, unprocessable, errors.Is(err, ErrUnprocessable))
			assert.True(t, strings.HasPrefix(err.Error(), "patch: "), err.Error())
		})
	}
}

// Every entry of the generated strategies table names a field that
// controllers/api's kinds have, so a renamed field cannot silently lose
// its merge key.
func TestStrategiesTableMatchesAPI(t *testing.T) {
	seen := map[string]map[string]bool{}
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || t.PkgPath() != apiPkg || seen[t.Name()] != nil {
			return
		}
		seen[t.Name()] = map[string]bool{}
		for f := range t.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			seen[t.Name()][name] = true
			walk(f.Type)
		}
	}
	for _, gvk := range api.Kinds() {
		obj, ok := api.New(gvk.Kind)
		require.True(t, ok)
		walk(reflect.TypeOf(obj))
	}
	n := 0
	for typ, fields := range strategies {
		for field, st := range fields {
			assert.True(t, seen[typ][field], "%s.%s is in the table but not in controllers/api", typ, field)
			assert.NotEmpty(t, st.strategy)
			n++
		}
	}
	assert.Equal(t, 34, n)
	// The merge keys the brief of this package names.
	for _, c := range []struct{ typ, field, key string }{
		{"PodSpec", "containers", "name"}, {"PodSpec", "initContainers", "name"}, {"Container", "ports", "containerPort"},
		{"Container", "env", "name"}, {"PodSpec", "volumes", "name"}, {"Container", "volumeMounts", "mountPath"},
		{"PodSpec", "imagePullSecrets", "name"}, {"PodStatus", "conditions", "type"}, {"ObjectMeta", "ownerReferences", "uid"},
		{"PodSpec", "hostAliases", "ip"}, {"PodSpec", "topologySpreadConstraints", "topologyKey"}, {"ServiceSpec", "ports", "port"},
		{"ObjectMeta", "finalizers", ""},
	} {
		st, ok := strategies[c.typ][c.field]
		if assert.True(t, ok, "%s.%s", c.typ, c.field) {
			assert.True(t, st.merges())
			assert.Equal(t, c.key, st.mergeKey, "%s.%s", c.typ, c.field)
		}
	}
	_, ok := strategies["PodSpec"]["tolerations"]
	assert.False(t, ok, "tolerations are atomic")
}
