package apiserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

func start(t *testing.T, opts cluster.Options) (*cluster.Cluster, *httptest.Server) {
	t.Helper()
	c, err := cluster.New(t.Context(), opts)
	require.NoError(t, err)
	srv, err := apiserver.New(c, apiserver.Options{})
	require.NoError(t, err)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return c, ts
}

type response struct {
	code int
	body map[string]any
	raw  string
}

func do(t *testing.T, ts *httptest.Server, method, path, contentType, body string, header ...string) response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, ts.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	r := response{code: resp.StatusCode, raw: string(b)}
	_ = json.Unmarshal(b, &r.body)
	return r
}

const (
	jsonCT = "application/json"
	cm     = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"1"}}`
)

func meta(r response) map[string]any { return r.body["metadata"].(map[string]any) }

func TestDiscovery(t *testing.T) {
	_, ts := start(t, cluster.Options{})
	require.Equal(t, "ok", do(t, ts, "GET", "/healthz", "", "").raw)
	require.Equal(t, "ok", do(t, ts, "GET", "/readyz", "", "").raw)
	v := do(t, ts, "GET", "/version", "", "")
	require.Equal(t, "1", v.body["major"])
	require.Equal(t, "32", v.body["minor"])
	require.Equal(t, []any{"v1"}, do(t, ts, "GET", "/api", "", "").body["versions"])

	groups := map[string]bool{}
	for _, g := range do(t, ts, "GET", "/apis", "", "").body["groups"].([]any) {
		groups[g.(map[string]any)["name"].(string)] = true
	}
	want := map[string]bool{"apps": true, "batch": true, "storage.k8s.io": true, "autoscaling": true, "coordination.k8s.io": true, "apiextensions.k8s.io": true, "admissionregistration.k8s.io": true,
		"policy": true, "networking.k8s.io": true, "scheduling.k8s.io": true, "discovery.k8s.io": true,
		"rbac.authorization.k8s.io": true, "authorization.k8s.io": true, "authentication.k8s.io": true}
	for _, k := range api.Registered() {
		if !api.IsBuiltin(k.GroupVersionKind) {
			want[k.Group] = true // the kinds of Register these tests add (apitest's)
		}
	}
	require.Equal(t, want, groups)

	// Every kind of controllers/api is listed in its group version.
	for _, gvk := range api.Kinds() {
		path := "/apis/" + gvk.APIVersion()
		if gvk.Group == "" {
			path = "/api/" + gvk.Version
		}
		found := false
		for _, r := range do(t, ts, "GET", path, "", "").body["resources"].([]any) {
			r := r.(map[string]any)
			if r["kind"] == gvk.Kind && !strings.Contains(r["name"].(string), "/") {
				found = true
				require.Equal(t, api.IsNamespaced(gvk.Kind), r["namespaced"], gvk.Kind)
				require.Contains(t, r["verbs"], "watch")
			}
		}
		require.True(t, found, "%s is served", gvk)
	}
	core := do(t, ts, "GET", "/api/v1", "", "").body["resources"].([]any)
	byName := map[string]map[string]any{}
	for _, r := range core {
		byName[r.(map[string]any)["name"].(string)] = r.(map[string]any)
	}
	require.Equal(t, []any{"po"}, byName["pods"]["shortNames"])
	require.Equal(t, []any{"all"}, byName["pods"]["categories"])
	require.Equal(t, []any{"quota"}, byName["resourcequotas"]["shortNames"])
	require.Contains(t, byName, "pods/status")
	require.Equal(t, "autoscaling", byName["replicationcontrollers/scale"]["group"])
	require.Equal(t, "Scale", byName["replicationcontrollers/scale"]["kind"])
	require.NotContains(t, byName, "pods/scale")

	oa := do(t, ts, "GET", "/openapi/v3", "", "")
	require.Contains(t, oa.body["paths"], "apis/apps/v1")
	doc := do(t, ts, "GET", "/openapi/v3/apis/apps/v1", "", "")
	op := doc.body["paths"].(map[string]any)["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"].(map[string]any)["patch"].(map[string]any)
	require.Equal(t, "Deployment", op["x-kubernetes-group-version-kind"].(map[string]any)["kind"])
	require.Equal(t, 200, do(t, ts, "GET", "/openapi/v2", "", "").code)
	require.Equal(t, 404, do(t, ts, "GET", "/apis/apps/v1beta1", "", "").code)
}

// Errors come back as Status objects with kube-apiserver's codes and reasons.
func TestErrors(t *testing.T) {
	_, ts := start(t, cluster.Options{HistorySize: 2})
	const cms = "/api/v1/namespaces/default/configmaps"
	created := do(t, ts, "POST", cms, jsonCT, cm)
	require.Equal(t, 201, created.code, created.raw)
	rv := meta(created)["resourceVersion"].(string)
	stale := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","resourceVersion":"` + rv + `"},"data":{"a":"2"}}`
	require.Equal(t, 200, do(t, ts, "PUT", cms+"/cm", jsonCT, stale).code)
	for i := range 3 {
		r := do(t, ts, "PUT", cms+"/cm", jsonCT, strings.Replace(cm, `"1"`, `"x`+string(rune('a'+i))+`"`, 1))
		require.Equal(t, 200, r.code, r.raw)
	}

	for _, tc := range []struct {
		name, method, path, ct, body string
		code                         int
		reason, message              string
	}{
		{"get missing", "GET", cms + "/nope", "", "", 404, "NotFound", `configmaps "nope" not found`},
		{"unknown resource", "GET", "/api/v1/nosuch", "", "", 404, "NotFound", "the server could not find the requested resource"},
		{"unknown subresource", "GET", cms + "/cm/scale", "", "", 404, "NotFound", ""},
		{"cluster-scoped in a namespace", "GET", "/api/v1/namespaces/default/nodes", "", "", 404, "NotFound", ""},
		{"create twice", "POST", cms, jsonCT, cm, 409, "AlreadyExists", `configmaps "cm" already exists`},
		{"stale update", "PUT", cms + "/cm", jsonCT, stale, 409, "Conflict", `Operation cannot be fulfilled on configmaps "cm"`},
		{"name mismatch", "PUT", cms + "/other", jsonCT, cm, 400, "BadRequest", "does not match the name on the URL"},
		{"namespace mismatch", "POST", "/api/v1/namespaces/kube-system/configmaps", jsonCT,
			strings.Replace(cm, `"name":"cm"`, `"name":"cm","namespace":"default"`, 1), 400, "BadRequest", "namespace"},
		{"invalid", "POST", "/api/v1/namespaces/default/pods", jsonCT, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}`,
			422, "Invalid", `Pod "p" is invalid: spec.containers: Required value`},
		{"invalid deployment", "POST", "/apis/apps/v1/namespaces/default/deployments", jsonCT,
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"template":{"spec":{"containers":[{"name":"c","image":"i"}]}}}}`,
			422, "Invalid", `Deployment.apps "d" is invalid`},
		{"wrong kind", "POST", cms, jsonCT, `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"}}`, 400, "BadRequest", "Secret"},
		{"unknown field, strict", "POST", cms + "?fieldValidation=Strict", jsonCT,
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"u"},"bogus":1}`, 400, "BadRequest", "unknown field"},
		{"not json", "POST", cms, jsonCT, `{`, 400, "BadRequest", ""},
		{"forbidden", "DELETE", "/api/v1/namespaces/default", "", "", 403, "Forbidden", `namespaces "default" is forbidden`},
		{"create in a missing namespace", "POST", "/api/v1/namespaces/nope/configmaps", jsonCT, cm, 404, "NotFound", ""},
		{"bad selector", "GET", cms + "?labelSelector=a+in+(b", "", "", 400, "BadRequest", "label selector"},
		{"unsupported field", "GET", cms + "?fieldSelector=spec.nodeName%3Dx", "", "", 400, "BadRequest", "field label not supported"},
		{"method", "PUT", cms, jsonCT, cm, 405, "MethodNotAllowed", ""},
		{"create without a namespace", "POST", "/api/v1/configmaps", jsonCT, cm, 405, "MethodNotAllowed", ""},
		{"malformed protobuf", "POST", cms, "application/vnd.kubernetes.protobuf", "x", 400, "BadRequest", "protobuf body is malformed"},
		{"server-side apply", "PATCH", cms + "/cm", "application/apply-patch+yaml", "{}", 415, "UnsupportedMediaType",
			"server-side apply is not served by this build of ctrlkit (its core module's), it is by the full build: cd crdcel && go run ./cmd/ctrlkit up"},
		{"bad patch", "PATCH", cms + "/cm", "application/merge-patch+json", "[", 400, "BadRequest", ""},
		{"failed test op", "PATCH", cms + "/cm", "application/json-patch+json", `[{"op":"test","path":"/data/a","value":"zz"}]`, 422, "Invalid", ""},
		{"json patch of a missing path", "PATCH", cms + "/cm", "application/json-patch+json", `[{"op":"remove","path":"/data/nope"}]`, 422, "Invalid", ""},
		{"expired", "GET", cms + "?resourceVersion=" + rv + "&resourceVersionMatch=Exact", "", "", 410, "Expired", ""},
		{"exact without a version", "GET", cms + "?resourceVersionMatch=Exact", "", "", 422, "Invalid", ""},
		{"continue with a version", "GET", cms + "?continue=x&resourceVersion=5", "", "", 400, "BadRequest", ""},
		{"watch match without sendInitialEvents", "GET", cms + "?watch=true&resourceVersionMatch=NotOlderThan", "", "", 422, "Invalid", ""},
		{"dry run, unsupported value", "POST", cms + "?dryRun=Some", jsonCT, cm, 422, "Invalid", "dryRun: Unsupported value"},
		{"bad propagation", "DELETE", cms + "/cm?propagationPolicy=Sideways", "", "", 400, "BadRequest", ""},
		{"delete precondition", "DELETE", cms + "/cm", jsonCT, `{"preconditions":{"uid":"other"}}`, 409, "Conflict", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, ts, tc.method, tc.path, tc.ct, tc.body)
			require.Equal(t, tc.code, r.code, r.raw)
			require.Equal(t, "Status", r.body["kind"], r.raw)
			require.Equal(t, "Failure", r.body["status"])
			require.Equal(t, tc.reason, r.body["reason"], r.raw)
			require.EqualValues(t, tc.code, r.body["code"])
			require.Contains(t, r.body["message"], tc.message)
		})
	}

	inv := do(t, ts, "POST", "/api/v1/namespaces/default/configmaps", jsonCT, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"Bad_Name"}}`)
	causes := inv.body["details"].(map[string]any)["causes"].([]any)
	require.Equal(t, "metadata.name", causes[0].(map[string]any)["field"])
	require.Equal(t, "FieldValueInvalid", causes[0].(map[string]any)["reason"])
}

func TestListPagingAndSelectors(t *testing.T) {
	_, ts := start(t, cluster.Options{})
	const cms = "/api/v1/namespaces/default/configmaps"
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		body := strings.Replace(cm, `"name":"cm"`, `"name":"`+n+`","labels":{"odd":"`+map[bool]string{true: "yes", false: "no"}[strings.Contains("ace", n)]+`"}`, 1)
		require.Equal(t, 201, do(t, ts, "POST", cms, jsonCT, body).code)
	}
	var names []string
	next := cms + "?limit=2"
	for pages := 0; ; pages++ {
		l := do(t, ts, "GET", next, "", "")
		require.Equal(t, "ConfigMapList", l.body["kind"])
		for _, it := range l.body["items"].([]any) {
			names = append(names, it.(map[string]any)["metadata"].(map[string]any)["name"].(string))
		}
		c, _ := meta(l)["continue"].(string)
		if c == "" {
			require.Equal(t, 2, pages)
			break
		}
		next = cms + "?limit=2&continue=" + c
	}
	require.Equal(t, []string{"a", "b", "c", "d", "e"}, names)
	odd := do(t, ts, "GET", cms+"?labelSelector=odd%3Dyes", "", "")
	require.Len(t, odd.body["items"], 3)
	byName := do(t, ts, "GET", "/api/v1/configmaps?fieldSelector=metadata.name%3Db", "", "")
	require.Len(t, byName.body["items"], 1)
	none := do(t, ts, "GET", "/api/v1/namespaces/kube-public/configmaps", "", "")
	require.Equal(t, []any{}, none.body["items"])
}

// watchLines opens a watch and returns its events, one JSON line each.
func watchLines(t *testing.T, ts *httptest.Server, path string, header ...string) <-chan map[string]any {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "GET", ts.URL+path, nil)
	require.NoError(t, err)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode)
	out := make(chan map[string]any)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			var ev map[string]any
			if json.Unmarshal(sc.Bytes(), &ev) != nil {
				return
			}
			select {
			case out <- ev:
			case <-t.Context().Done():
				return
			}
		}
	}()
	return out
}

func next(t *testing.T, ch <-chan map[string]any) map[string]any {
	t.Helper()
	select {
	case ev, ok := <-ch:
		require.True(t, ok, "the watch ended")
		return ev
	case <-time.After(5 * time.Second):
		t.Fatal("no event")
	}
	return nil
}

func objectMeta(ev map[string]any) map[string]any {
	return ev["object"].(map[string]any)["metadata"].(map[string]any)
}

func TestWatch(t *testing.T) {
	_, ts := start(t, cluster.Options{HistorySize: 3})
	const cms = "/api/v1/namespaces/default/configmaps"
	rv := meta(do(t, ts, "POST", cms, jsonCT, cm))["resourceVersion"].(string)

	// From a version: the changes after it, with the versions of the writes.
	w := watchLines(t, ts, cms+"?watch=true&resourceVersion="+rv)
	upd := do(t, ts, "PATCH", cms+"/cm", "application/merge-patch+json", `{"data":{"a":"2"}}`)
	require.Equal(t, 200, upd.code, upd.raw)
	ev := next(t, w)
	require.Equal(t, "MODIFIED", ev["type"])
	require.Equal(t, meta(upd)["resourceVersion"], objectMeta(ev)["resourceVersion"])
	require.Equal(t, "2", ev["object"].(map[string]any)["data"].(map[string]any)["a"])
	require.Equal(t, 200, do(t, ts, "DELETE", cms+"/cm", "", "").code)
	require.Equal(t, "DELETED", next(t, w)["type"])

	// The legacy /watch/ path of one object, from "": its current state first.
	require.Equal(t, 201, do(t, ts, "POST", cms, jsonCT, cm).code)
	one := watchLines(t, ts, "/api/v1/watch/namespaces/default/configmaps/cm")
	ev = next(t, one)
	require.Equal(t, "ADDED", ev["type"])
	require.Equal(t, "cm", objectMeta(ev)["name"])

	// sendInitialEvents: the state, then the annotated bookmark.
	wl := watchLines(t, ts, cms+"?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")
	require.Equal(t, "ADDED", next(t, wl)["type"])
	ev = next(t, wl)
	require.Equal(t, "BOOKMARK", ev["type"])
	require.Equal(t, "ConfigMap", ev["object"].(map[string]any)["kind"])
	require.Equal(t, map[string]any{apiserver.InitialEventsEndAnnotation: "true"}, objectMeta(ev)["annotations"])

	// A version the store forgot: an ERROR event with a 410 Status.
	for i := range 5 {
		do(t, ts, "PATCH", cms+"/cm", "application/merge-patch+json", `{"data":{"a":"`+string(rune('a'+i))+`"}}`)
	}
	gone := watchLines(t, ts, cms+"?watch=true&resourceVersion="+rv)
	ev = next(t, gone)
	require.Equal(t, "ERROR", ev["type"])
	require.EqualValues(t, 410, ev["object"].(map[string]any)["code"])
	require.Equal(t, "Expired", ev["object"].(map[string]any)["reason"])
	_, open := <-gone
	require.False(t, open, "the stream ends after the error")

	// timeoutSeconds ends the stream.
	short := watchLines(t, ts, cms+"?watch=true&timeoutSeconds=1&resourceVersion="+meta(do(t, ts, "GET", cms+"/cm", "", ""))["resourceVersion"].(string))
	select {
	case _, open := <-short:
		require.False(t, open)
	case <-time.After(5 * time.Second):
		t.Fatal("timeoutSeconds did not end the watch")
	}
}

func TestTables(t *testing.T) {
	c, ts := start(t, cluster.Options{})
	const table = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
	pod := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i"}]}}`
	require.Equal(t, 201, do(t, ts, "POST", "/api/v1/namespaces/default/pods", jsonCT, pod).code)
	require.NoError(t, errors.Join(func() error { _, err := c.Bind(t.Context(), "default", "p", "node-1"); return err }()))

	r := do(t, ts, "GET", "/api/v1/namespaces/default/pods", "", "", "Accept", table)
	require.Equal(t, "Table", r.body["kind"], r.raw)
	var cols []string
	for _, c := range r.body["columnDefinitions"].([]any) {
		cols = append(cols, c.(map[string]any)["name"].(string))
	}
	require.Equal(t, []string{"Name", "Ready", "Status", "Restarts", "Age", "IP", "Node", "Nominated Node", "Readiness Gates"}, cols)
	rows := r.body["rows"].([]any)
	require.Len(t, rows, 1)
	cells := rows[0].(map[string]any)["cells"].([]any)
	require.Equal(t, []any{"p", "0/1", "Pending", "0"}, cells[:4])
	require.Equal(t, "node-1", cells[6])
	require.Equal(t, "PartialObjectMetadata", rows[0].(map[string]any)["object"].(map[string]any)["kind"])

	obj := do(t, ts, "GET", "/api/v1/namespaces/default/pods/p?includeObject=Object", "", "", "Accept", table)
	require.Equal(t, "Pod", obj.body["rows"].([]any)[0].(map[string]any)["object"].(map[string]any)["kind"])
	none := do(t, ts, "GET", "/api/v1/namespaces/default/pods/p?includeObject=None", "", "", "Accept", table)
	require.NotContains(t, none.body["rows"].([]any)[0], "object")

	// The default: NAME and AGE.
	cmt := do(t, ts, "GET", "/api/v1/namespaces/kube-system/serviceaccounts", "", "", "Accept", table)
	require.Len(t, cmt.body["columnDefinitions"], 2)

	// A watch of Tables: column definitions in the first event only.
	w := watchLines(t, ts, "/api/v1/namespaces/default/pods?watch=true", "Accept", table)
	ev := next(t, w)
	require.Equal(t, "ADDED", ev["type"])
	require.Equal(t, "Table", ev["object"].(map[string]any)["kind"])
	require.Len(t, ev["object"].(map[string]any)["columnDefinitions"], 9)
	require.Equal(t, 200, do(t, ts, "DELETE", "/api/v1/namespaces/default/pods/p", "", "").code)
	ev = next(t, w)
	require.Equal(t, "MODIFIED", ev["type"])
	require.Nil(t, ev["object"].(map[string]any)["columnDefinitions"])
	require.Equal(t, "Terminating", ev["object"].(map[string]any)["rows"].([]any)[0].(map[string]any)["cells"].([]any)[2])

	// Metadata only.
	m := do(t, ts, "GET", "/api/v1/namespaces/default/pods", "", "", "Accept", "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io")
	require.Equal(t, "PartialObjectMetadataList", m.body["kind"])
}

func TestScaleAndStatus(t *testing.T) {
	c, ts := start(t, cluster.Options{})
	const deps = "/apis/apps/v1/namespaces/default/deployments"
	d := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`
	require.Equal(t, 201, do(t, ts, "POST", deps, jsonCT, d).code)
	sc := do(t, ts, "GET", deps+"/web/scale", "", "")
	require.Equal(t, "Scale", sc.body["kind"])
	require.Equal(t, "autoscaling/v1", sc.body["apiVersion"])
	require.EqualValues(t, 2, sc.body["spec"].(map[string]any)["replicas"])
	require.Equal(t, "app=web", sc.body["status"].(map[string]any)["selector"])

	// kubectl scale sends a merge patch.
	p := do(t, ts, "PATCH", deps+"/web/scale", "application/merge-patch+json", `{"spec":{"replicas":5}}`)
	require.Equal(t, 200, p.code, p.raw)
	require.EqualValues(t, 5, p.body["spec"].(map[string]any)["replicas"])
	put := do(t, ts, "PUT", deps+"/web/scale", jsonCT, `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web","resourceVersion":"1"},"spec":{"replicas":7}}`)
	require.Equal(t, 409, put.code, put.raw)
	require.Equal(t, 422, do(t, ts, "PUT", deps+"/web/scale", jsonCT, `{"spec":{"replicas":-1}}`).code)
	stored, _, err := c.Deployments().Get(t.Context(), "default/web")
	require.NoError(t, err)
	require.EqualValues(t, 5, *stored.Spec.Replicas)

	// The status subresource writes the status only.
	st := do(t, ts, "PATCH", deps+"/web/status", "application/merge-patch+json", `{"spec":{"paused":true},"status":{"replicas":3}}`)
	require.Equal(t, 200, st.code, st.raw)
	stored, _, err = c.Deployments().Get(t.Context(), "default/web")
	require.NoError(t, err)
	require.EqualValues(t, 3, stored.Status.Replicas)
	require.False(t, stored.Spec.Paused)
	require.Equal(t, 404, do(t, ts, "GET", "/api/v1/namespaces/default/configmaps/x/status", "", "").code)
	require.Equal(t, 405, do(t, ts, "POST", deps+"/web/status", jsonCT, d).code)

	// A strategic merge patch merges the containers by name.
	smp := do(t, ts, "PATCH", deps+"/web", "application/strategic-merge-patch+json",
		`{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"s"}]}}}}`)
	require.Equal(t, 200, smp.code, smp.raw)
	stored, _, err = c.Deployments().Get(t.Context(), "default/web")
	require.NoError(t, err)
	require.Len(t, stored.Spec.Template.Spec.Containers, 2)
}

func TestCheckAddress(t *testing.T) {
	for _, tc := range []struct {
		addr  string
		allow bool
		ok    bool
	}{
		{"127.0.0.1:0", false, true},
		{"[::1]:6443", false, true},
		{"localhost:6443", false, true},
		{":6443", false, false},
		{"0.0.0.0:6443", false, false},
		{"10.1.2.3:6443", false, false},
		{"example.com:6443", false, false},
		{"0.0.0.0:6443", true, true},
		{"nonsense", true, false},
	} {
		err := apiserver.CheckAddress(tc.addr, tc.allow)
		require.Equal(t, tc.ok, err == nil, "%s allow=%v: %v", tc.addr, tc.allow, err)
		if !tc.ok && tc.addr != "nonsense" {
			require.ErrorIs(t, err, apiserver.ErrNonLoopback)
		}
	}
}

func TestServe(t *testing.T) {
	c, err := cluster.New(t.Context(), cluster.Options{})
	require.NoError(t, err)
	srv, err := apiserver.New(c, apiserver.Options{})
	require.NoError(t, err)
	_, err = srv.Listen("0.0.0.0:0")
	require.ErrorIs(t, err, apiserver.ErrNonLoopback)

	ctx, cancel := context.WithCancel(t.Context())
	addrs := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, "127.0.0.1:0", func(a net.Addr) { addrs <- a.String() }) }()
	addr := <-addrs
	resp, err := http.Get("http://" + addr + "/livez")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	cancel()
	require.NoError(t, <-done)
}

// Cases from kubectl's duration.HumanDuration
// (k8s.io/apimachinery/pkg/util/duration/duration_test.go).
func TestHumanDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		-2 * time.Second: "<invalid>", 0: "0s", 59 * time.Second: "59s", 119 * time.Second: "119s",
		2 * time.Minute: "2m", 2*time.Minute + 30*time.Second: "2m30s", 10 * time.Minute: "10m",
		179 * time.Minute: "179m", 3 * time.Hour: "3h", 3*time.Hour + 30*time.Minute: "3h30m",
		8 * time.Hour: "8h", 47 * time.Hour: "47h", 48 * time.Hour: "2d", 50 * time.Hour: "2d2h",
		8 * 24 * time.Hour: "8d", 2 * 365 * 24 * time.Hour: "2y", 800 * 24 * time.Hour: "2y70d",
		8 * 365 * 24 * time.Hour: "8y",
	} {
		require.Equal(t, want, apiserver.HumanDuration(d), "%v", d)
	}
}
