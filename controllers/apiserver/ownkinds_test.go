package apiserver_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	_ "github.com/ctrlkit/ctrlkit/controllers/api/apitest" // registers Widget and Gizmo
	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

const (
	widgets = "/apis/example.ctrlkit.dev/v1/namespaces/default/widgets"
	gizmos  = "/apis/example.ctrlkit.dev/v1alpha1/gizmos"
	mergeCT = "application/merge-patch+json"
	tableAs = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
)

func widget(name, color string) string {
	return `{"apiVersion":"example.ctrlkit.dev/v1","kind":"Widget","metadata":{"name":"` + name +
		`","labels":{"tier":"` + color + `"}},"spec":{"color":"` + color + `"}}`
}

func resourcesOf(t *testing.T, r response) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, x := range r.body["resources"].([]any) {
		out[x.(map[string]any)["name"].(string)] = x.(map[string]any)
	}
	return out
}

// The kinds added with api.Register (apitest's Widget and Gizmo) are in
// discovery as kube-apiserver lists custom resources: their group with
// both versions (v1 preferred), their resources with verbs, short names,
// categories and singular names, and their status and scale
// subresources.
func TestOwnKindDiscovery(t *testing.T) {
	_, ts := start(t, cluster.Options{})
	var group map[string]any
	for _, g := range do(t, ts, "GET", "/apis", "", "").body["groups"].([]any) {
		if g.(map[string]any)["name"] == "example.ctrlkit.dev" {
			group = g.(map[string]any)
		}
	}
	require.NotNil(t, group, "example.ctrlkit.dev in /apis")
	v1 := map[string]any{"groupVersion": "example.ctrlkit.dev/v1", "version": "v1"}
	require.Equal(t, []any{v1, map[string]any{"groupVersion": "example.ctrlkit.dev/v1alpha1", "version": "v1alpha1"}}, group["versions"])
	require.Equal(t, v1, group["preferredVersion"])
	g := do(t, ts, "GET", "/apis/example.ctrlkit.dev", "", "")
	require.Equal(t, "APIGroup", g.body["kind"], g.raw)
	require.Equal(t, v1, g.body["preferredVersion"])

	res := resourcesOf(t, do(t, ts, "GET", "/apis/example.ctrlkit.dev/v1", "", ""))
	w := res["widgets"]
	require.NotNil(t, w)
	require.Equal(t, "widget", w["singularName"])
	require.Equal(t, "Widget", w["kind"])
	require.Equal(t, true, w["namespaced"])
	require.Equal(t, []any{"wd"}, w["shortNames"])
	require.Equal(t, []any{"all"}, w["categories"])
	require.ElementsMatch(t, []any{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}, w["verbs"])
	require.Equal(t, "Widget", res["widgets/status"]["kind"])
	require.Equal(t, "Scale", res["widgets/scale"]["kind"])
	require.Equal(t, "autoscaling", res["widgets/scale"]["group"])
	require.Len(t, res, 3)

	alpha := resourcesOf(t, do(t, ts, "GET", "/apis/example.ctrlkit.dev/v1alpha1", "", ""))
	require.Equal(t, false, alpha["gizmos"]["namespaced"])
	require.Equal(t, "gizmo", alpha["gizmos"]["singularName"])
	require.Len(t, alpha, 1)

	// Not served in another version.
	require.Equal(t, 404, do(t, ts, "GET", "/apis/example.ctrlkit.dev/v1/gizmos", "", "").code)
	require.Equal(t, 404, do(t, ts, "GET", "/apis/example.ctrlkit.dev/v2", "", "").code)

	oa := do(t, ts, "GET", "/openapi/v3", "", "")
	require.Contains(t, oa.body["paths"], "apis/example.ctrlkit.dev/v1")
}

// A Widget is written and read with kubectl's requests: create (defaulted,
// generation 1), get, list with label and field selectors, conflicts,
// merge and JSON patches, the status and scale subresources, and delete.
func TestOwnKindCRUD(t *testing.T) {
	_, ts := start(t, cluster.Options{})
	created := do(t, ts, "POST", widgets, jsonCT, widget("a", "red"))
	require.Equal(t, 201, created.code, created.raw)
	require.Equal(t, "Widget", created.body["kind"])
	require.Equal(t, "example.ctrlkit.dev/v1", created.body["apiVersion"])
	require.EqualValues(t, 1, created.body["spec"].(map[string]any)["replicas"], "defaulted")
	require.EqualValues(t, 1, meta(created)["generation"])
	require.NotEmpty(t, meta(created)["uid"])
	require.Equal(t, 201, do(t, ts, "POST", widgets, "application/yaml",
		"apiVersion: example.ctrlkit.dev/v1\nkind: Widget\nmetadata:\n  name: b\n  labels: {tier: blue}\nspec:\n  color: blue\n").code)

	got := do(t, ts, "GET", widgets+"/a", "", "")
	require.Equal(t, 200, got.code)
	require.Equal(t, "red", got.body["spec"].(map[string]any)["color"])

	names := func(r response) []string {
		require.Equal(t, 200, r.code, r.raw)
		require.Equal(t, "WidgetList", r.body["kind"])
		var out []string
		for _, it := range r.body["items"].([]any) {
			out = append(out, it.(map[string]any)["metadata"].(map[string]any)["name"].(string))
		}
		return out
	}
	require.Equal(t, []string{"a", "b"}, names(do(t, ts, "GET", widgets, "", "")))
	require.Equal(t, []string{"a", "b"}, names(do(t, ts, "GET", "/apis/example.ctrlkit.dev/v1/widgets", "", "")))
	require.Equal(t, []string{"b"}, names(do(t, ts, "GET", widgets+"?labelSelector=tier%3Dblue", "", "")))
	require.Equal(t, []string{"a"}, names(do(t, ts, "GET", widgets+"?fieldSelector=metadata.name%3Da", "", "")))
	require.Empty(t, names(do(t, ts, "GET", "/apis/example.ctrlkit.dev/v1/widgets?fieldSelector=metadata.namespace%3Dother", "", "")))

	// 409 and 404 name the qualified resource.
	dup := do(t, ts, "POST", widgets, jsonCT, widget("a", "red"))
	requireStatus(t, dup, 409, "AlreadyExists")
	require.Equal(t, `widgets.example.ctrlkit.dev "a" already exists`, dup.body["message"])
	require.Equal(t, "example.ctrlkit.dev", dup.body["details"].(map[string]any)["group"])
	missing := do(t, ts, "GET", widgets+"/nope", "", "")
	requireStatus(t, missing, 404, "NotFound")
	require.Equal(t, `widgets.example.ctrlkit.dev "nope" not found`, missing.body["message"])
	// A body of another kind.
	requireStatus(t, do(t, ts, "POST", widgets, jsonCT, cm), 400, "BadRequest")
	gz := `{"apiVersion":"example.ctrlkit.dev/v1alpha1","kind":"Gizmo","metadata":{"name":"g"}}`
	requireStatus(t, do(t, ts, "POST", widgets, jsonCT, gz), 400, "BadRequest")

	// Patches: merge and JSON; strategic merge is 415 for an own kind.
	p := do(t, ts, "PATCH", widgets+"/a", mergeCT, `{"metadata":{"labels":{"x":"y"}},"spec":{"replicas":2}}`)
	require.Equal(t, 200, p.code, p.raw)
	require.EqualValues(t, 2, p.body["spec"].(map[string]any)["replicas"])
	require.EqualValues(t, 2, meta(p)["generation"])
	require.Equal(t, "y", meta(p)["labels"].(map[string]any)["x"])
	jp := do(t, ts, "PATCH", widgets+"/a", "application/json-patch+json", `[{"op":"replace","path":"/spec/replicas","value":4}]`)
	require.Equal(t, 200, jp.code, jp.raw)
	require.EqualValues(t, 4, jp.body["spec"].(map[string]any)["replicas"])
	stale := strings.Replace(widget("a", "red"), `"name":"a"`, `"name":"a","resourceVersion":"`+meta(created)["resourceVersion"].(string)+`"`, 1)
	requireStatus(t, do(t, ts, "PUT", widgets+"/a", jsonCT, stale), 409, "Conflict")
	smp := do(t, ts, "PATCH", widgets+"/a", "application/strategic-merge-patch+json", `{"spec":{"replicas":5}}`)
	requireStatus(t, smp, 415, "UnsupportedMediaType")
	require.Contains(t, smp.body["message"], "application/merge-patch+json")

	// The status subresource: Update ignores the status, UpdateStatus
	// writes only it.
	st := do(t, ts, "PATCH", widgets+"/a/status", mergeCT, `{"status":{"replicas":3,"observedGeneration":3},"spec":{"replicas":9}}`)
	require.Equal(t, 200, st.code, st.raw)
	require.EqualValues(t, 3, st.body["status"].(map[string]any)["replicas"])
	require.EqualValues(t, 4, st.body["spec"].(map[string]any)["replicas"], "status writes only the status")
	ign := do(t, ts, "PATCH", widgets+"/a", mergeCT, `{"status":{"replicas":7}}`)
	require.EqualValues(t, 3, ign.body["status"].(map[string]any)["replicas"], "the main resource ignores the status")

	// The scale subresource.
	sc := do(t, ts, "GET", widgets+"/a/scale", "", "")
	require.Equal(t, 200, sc.code, sc.raw)
	require.Equal(t, "Scale", sc.body["kind"])
	require.Equal(t, "autoscaling/v1", sc.body["apiVersion"])
	require.EqualValues(t, 4, sc.body["spec"].(map[string]any)["replicas"])
	require.EqualValues(t, 3, sc.body["status"].(map[string]any)["replicas"])
	up := do(t, ts, "PATCH", widgets+"/a/scale", mergeCT, `{"spec":{"replicas":6}}`)
	require.Equal(t, 200, up.code, up.raw)
	require.EqualValues(t, 6, do(t, ts, "GET", widgets+"/a", "", "").body["spec"].(map[string]any)["replicas"])

	// Delete: the object while a finalizer holds it, then gone.
	fin := do(t, ts, "PATCH", widgets+"/b", mergeCT, `{"metadata":{"finalizers":["example.ctrlkit.dev/hold"]}}`)
	require.Equal(t, 200, fin.code, fin.raw)
	held := do(t, ts, "DELETE", widgets+"/b", "", "")
	require.Equal(t, 200, held.code, held.raw)
	require.NotEmpty(t, meta(held)["deletionTimestamp"])
	require.Equal(t, 200, do(t, ts, "PATCH", widgets+"/b", mergeCT, `{"metadata":{"finalizers":null}}`).code)
	requireStatus(t, do(t, ts, "GET", widgets+"/b", "", ""), 404, "NotFound")
	del := do(t, ts, "DELETE", widgets+"/a?propagationPolicy=Background", "", "")
	require.Equal(t, 200, del.code, del.raw)
	require.Equal(t, "Success", del.body["status"])
	require.Equal(t, "widgets", del.body["details"].(map[string]any)["kind"])
	requireStatus(t, do(t, ts, "GET", widgets+"/a", "", ""), 404, "NotFound")

	// A cluster-scoped kind: no namespace in its path.
	require.Equal(t, 201, do(t, ts, "POST", gizmos, jsonCT, gz).code)
	requireStatus(t, do(t, ts, "GET", "/apis/example.ctrlkit.dev/v1alpha1/namespaces/default/gizmos/g", "", ""), 404, "NotFound")
	require.Equal(t, 200, do(t, ts, "DELETE", gizmos+"/g", "", "").code)
}

// An invalid Widget is refused with kube-apiserver's 422: the qualified
// kind in the message, one cause per field error.
func TestOwnKindInvalid(t *testing.T) {
	_, ts := start(t, cluster.Options{})
	bad := do(t, ts, "POST", widgets, jsonCT,
		`{"apiVersion":"example.ctrlkit.dev/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"color":"purple","replicas":-1}}`)
	requireStatus(t, bad, 422, "Invalid")
	require.Equal(t, `Widget.example.ctrlkit.dev "w" is invalid: [spec.color: Unsupported value: "purple": supported values: "blue", "green", "red", `+
		`spec.replicas: Invalid value: "-1": must be greater than or equal to 0]`, bad.body["message"])
	d := bad.body["details"].(map[string]any)
	require.Equal(t, "w", d["name"])
	require.Equal(t, "example.ctrlkit.dev", d["group"])
	require.Equal(t, "Widget", d["kind"], "the kind, as kube-apiserver's NewInvalid")
	require.Equal(t, []any{
		map[string]any{"reason": "FieldValueNotSupported", "field": "spec.color",
			"message": `Unsupported value: "purple": supported values: "blue", "green", "red"`},
		map[string]any{"reason": "FieldValueInvalid", "field": "spec.replicas",
			"message": `Invalid value: "-1": must be greater than or equal to 0`},
	}, d["causes"])

	required := do(t, ts, "POST", widgets, jsonCT, `{"apiVersion":"example.ctrlkit.dev/v1","kind":"Widget","metadata":{"name":"w"},"spec":{}}`)
	requireStatus(t, required, 422, "Invalid")
	require.Equal(t, "FieldValueRequired", required.body["details"].(map[string]any)["causes"].([]any)[0].(map[string]any)["reason"])

	// An immutable field on update.
	require.Equal(t, 201, do(t, ts, "POST", widgets, jsonCT, widget("w", "red")).code)
	imm := do(t, ts, "PATCH", widgets+"/w", mergeCT, `{"spec":{"color":"blue"}}`)
	requireStatus(t, imm, 422, "Invalid")
	require.Contains(t, imm.body["message"], "field is immutable")
	// Unknown fields: dropped, or refused under fieldValidation=Strict.
	unknown := `{"apiVersion":"example.ctrlkit.dev/v1","kind":"Widget","metadata":{"name":"u"},"spec":{"color":"red","shade":"dark"}}`
	requireStatus(t, do(t, ts, "POST", widgets+"?fieldValidation=Strict", jsonCT, unknown), 400, "BadRequest")
	require.Equal(t, 201, do(t, ts, "POST", widgets, jsonCT, unknown).code)
}

// A watch of widgets sends their events; a Table has the kind's columns
// and rows from its Cells, the default Name and Age for a kind without.
func TestOwnKindWatchAndTables(t *testing.T) {
	_, ts := start(t, cluster.Options{})
	w := watchLines(t, ts, widgets+"?watch=true&labelSelector=tier%3Dred")
	require.Equal(t, 201, do(t, ts, "POST", widgets, jsonCT, widget("blue", "blue")).code)
	require.Equal(t, 201, do(t, ts, "POST", widgets, jsonCT, widget("w", "red")).code)
	ev := next(t, w)
	require.Equal(t, "ADDED", ev["type"])
	require.Equal(t, "Widget", ev["object"].(map[string]any)["kind"])
	require.Equal(t, "w", objectMeta(ev)["name"])
	require.Equal(t, 200, do(t, ts, "PATCH", widgets+"/w", mergeCT, `{"spec":{"replicas":3}}`).code)
	ev = next(t, w)
	require.Equal(t, "MODIFIED", ev["type"])
	require.EqualValues(t, 3, ev["object"].(map[string]any)["spec"].(map[string]any)["replicas"])
	require.Equal(t, 200, do(t, ts, "DELETE", widgets+"/w", "", "").code)
	require.Equal(t, "DELETED", next(t, w)["type"])

	tab := do(t, ts, "GET", widgets, "", "", "Accept", tableAs)
	require.Equal(t, "Table", tab.body["kind"], tab.raw)
	var cols []string
	for _, c := range tab.body["columnDefinitions"].([]any) {
		cols = append(cols, c.(map[string]any)["name"].(string))
	}
	require.Equal(t, []string{"Name", "Color", "Replicas", "Age"}, cols)
	rows := tab.body["rows"].([]any)
	require.Len(t, rows, 1)
	cells := rows[0].(map[string]any)["cells"].([]any)
	require.Equal(t, []any{"blue", "blue", "1"}, cells[:3])
	require.NotEmpty(t, cells[3])

	require.Equal(t, 201, do(t, ts, "POST", gizmos, jsonCT, `{"apiVersion":"example.ctrlkit.dev/v1alpha1","kind":"Gizmo","metadata":{"name":"g"}}`).code)
	gt := do(t, ts, "GET", gizmos+"/g", "", "", "Accept", tableAs)
	require.Len(t, gt.body["columnDefinitions"], 2)
	require.Equal(t, "g", gt.body["rows"].([]any)[0].(map[string]any)["cells"].([]any)[0])
}

// Sprocket is a kind registered in a test's body, after the server was
// made.
type Sprocket struct {
	api.TypeMeta   `json:",inline"`
	api.ObjectMeta `json:"metadata"`
	Spec           struct {
		Teeth int `json:"teeth"`
	} `json:"spec"`
}

var sprocketGVK = api.GroupVersionKind{Group: "late.ctrlkit.dev", Version: "v1beta1", Kind: "Sprocket"}

func (*Sprocket) GroupVersionKind() api.GroupVersionKind { return sprocketGVK }
func (s *Sprocket) DeepCopyObject() api.Object           { return api.DeepCopyOf(s) }

// A kind registered after the server was made is served from then on:
// discovery lists it and its resource answers.
func TestOwnKindRegisteredLater(t *testing.T) {
	c, err := cluster.New(t.Context(), cluster.Options{})
	require.NoError(t, err)
	srv, err := apiserver.New(c, apiserver.Options{})
	require.NoError(t, err)
	_, err = api.Register[*Sprocket](api.KindInfo{GroupVersionKind: sprocketGVK, Resource: "sprockets", Namespaced: true})
	require.NoError(t, err)
	ts := startHandler(t, srv)

	found := false
	for _, g := range do(t, ts, "GET", "/apis", "", "").body["groups"].([]any) {
		found = found || g.(map[string]any)["name"] == "late.ctrlkit.dev"
	}
	require.True(t, found, "late.ctrlkit.dev in /apis")
	require.Contains(t, resourcesOf(t, do(t, ts, "GET", "/apis/late.ctrlkit.dev/v1beta1", "", "")), "sprockets")
	r := do(t, ts, "POST", "/apis/late.ctrlkit.dev/v1beta1/namespaces/default/sprockets", jsonCT,
		`{"apiVersion":"late.ctrlkit.dev/v1beta1","kind":"Sprocket","metadata":{"name":"s"},"spec":{"teeth":12}}`)
	require.Equal(t, 201, r.code, r.raw)
	require.EqualValues(t, 12, do(t, ts, "GET", "/apis/late.ctrlkit.dev/v1beta1/namespaces/default/sprockets/s", "", "").
		body["spec"].(map[string]any)["teeth"])
}

func startHandler(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}
