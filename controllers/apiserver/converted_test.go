package apiserver_test

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/apiserver/protobuf"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

const (
	hpasV1 = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers"
	hpasV2 = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"
	// hpaV1 is what kubectl autoscale --max=5 --cpu-percent=70 sends.
	hpaV1 = `{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"web","labels":{"app":"web"}},
		"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"maxReplicas":5,"targetCPUUtilizationPercentage":70}}`
	// hpaV2Memory has a metric autoscaling/v1 cannot express.
	hpaV2Memory = `{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"mem"},
		"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"mem"},"minReplicas":2,"maxReplicas":4,"metrics":[
		{"type":"Resource","resource":{"name":"memory","target":{"type":"AverageValue","averageValue":"100Mi"}}},
		{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":60}}}]}}`
)

func spec(r response) map[string]any { return r.body["spec"].(map[string]any) }

// TestHPAServedInV1 serves autoscaling/v1 HorizontalPodAutoscaler over
// the autoscaling/v2 store, as kube-apiserver v1.37 does: each verb
// converts, and both versions see one object, one resourceVersion.
func TestHPAServedInV1(t *testing.T) {
	_, ts := start(t, cluster.Options{})
	get := func(path string) response { return do(t, ts, "GET", path, "", "") }
	cpuTarget := func(name string) any {
		m := get(hpasV2 + "/" + name)
		require.Equal(t, 200, m.code, m.raw)
		metrics := spec(m)["metrics"].([]any)
		require.Len(t, metrics, 1)
		return metrics[0].(map[string]any)["resource"].(map[string]any)["target"].(map[string]any)["averageUtilization"]
	}

	// create: v1 defaults, stored as v2 with the CPU metric.
	c := do(t, ts, "POST", hpasV1, jsonCT, hpaV1)
	require.Equal(t, 201, c.code, c.raw)
	require.Equal(t, "autoscaling/v1", c.body["apiVersion"])
	require.EqualValues(t, 1, spec(c)["minReplicas"])
	require.EqualValues(t, 70, spec(c)["targetCPUUtilizationPercentage"])
	require.NotContains(t, spec(c), "metrics")
	require.EqualValues(t, 70, cpuTarget("web"))
	v2 := get(hpasV2 + "/web")
	rv := meta(c)["resourceVersion"]
	require.Equal(t, rv, meta(v2)["resourceVersion"])
	require.Equal(t, meta(c)["uid"], meta(v2)["uid"])

	// A v1 body with no target: kube's default, 80% CPU.
	noTarget := strings.Replace(strings.Replace(hpaV1, `,"targetCPUUtilizationPercentage":70`, "", 1), `"web","labels":{"app":"web"}`, `"dflt","labels":{"app":"dflt"}`, 1)
	require.Equal(t, 201, do(t, ts, "POST", hpasV1, jsonCT, noTarget).code)
	require.EqualValues(t, 80, cpuTarget("dflt"))

	// get: a v2 object with a metric v1 cannot express keeps it in kube's
	// annotation, and the CPU target as targetCPUUtilizationPercentage.
	require.Equal(t, 201, do(t, ts, "POST", hpasV2, jsonCT, hpaV2Memory).code)
	mem := get(hpasV1 + "/mem")
	require.Equal(t, 200, mem.code, mem.raw)
	require.EqualValues(t, 60, spec(mem)["targetCPUUtilizationPercentage"])
	ann := meta(mem)["annotations"].(map[string]any)
	require.JSONEq(t, `[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"100Mi"}}]`, ann["autoscaling.alpha.kubernetes.io/metrics"].(string))

	// update: the v1 object PUT back as read keeps the v2-only metric;
	// resourceVersions are shared, a stale one is a conflict.
	memObj := mem.body
	spec(mem)["maxReplicas"] = 6
	b, _ := json.Marshal(memObj)
	u := do(t, ts, "PUT", hpasV1+"/mem", jsonCT, string(b))
	require.Equal(t, 200, u.code, u.raw)
	require.EqualValues(t, 6, spec(u)["maxReplicas"])
	after := get(hpasV2 + "/mem")
	require.EqualValues(t, 6, spec(after)["maxReplicas"])
	require.Len(t, spec(after)["metrics"], 2, "the memory metric survives a v1 update")
	require.NotContains(t, meta(after), "annotations", "the round-trip annotations are not stored")
	stale := do(t, ts, "PUT", hpasV1+"/mem", jsonCT, string(b)) // the old resourceVersion
	require.Equal(t, 409, stale.code, stale.raw)
	require.Equal(t, "Conflict", stale.body["reason"])

	// patch: JSON merge, JSON patch (with a test of a v1 field) and
	// strategic merge apply to the v1 form.
	p := do(t, ts, "PATCH", hpasV1+"/web", "application/merge-patch+json", `{"spec":{"targetCPUUtilizationPercentage":50}}`)
	require.Equal(t, 200, p.code, p.raw)
	require.EqualValues(t, 50, spec(p)["targetCPUUtilizationPercentage"])
	require.EqualValues(t, 50, cpuTarget("web"))
	p = do(t, ts, "PATCH", hpasV1+"/web", "application/json-patch+json",
		`[{"op":"test","path":"/spec/targetCPUUtilizationPercentage","value":50},{"op":"replace","path":"/spec/maxReplicas","value":7}]`)
	require.Equal(t, 200, p.code, p.raw)
	require.EqualValues(t, 7, spec(p)["maxReplicas"])
	p = do(t, ts, "PATCH", hpasV1+"/web", "application/json-patch+json", `[{"op":"test","path":"/spec/metrics","value":[]}]`)
	require.Equal(t, 422, p.code, "spec.metrics is not a v1 field: %s", p.raw)
	p = do(t, ts, "PATCH", hpasV1+"/web", "application/strategic-merge-patch+json", `{"spec":{"minReplicas":2}}`)
	require.Equal(t, 200, p.code, p.raw)
	require.EqualValues(t, 2, spec(get(hpasV2 + "/web"))["minReplicas"])

	// status: written in v1, read in v2.
	s := do(t, ts, "PATCH", hpasV1+"/web/status", "application/merge-patch+json",
		`{"status":{"currentReplicas":3,"desiredReplicas":4,"currentCPUUtilizationPercentage":65}}`)
	require.Equal(t, 200, s.code, s.raw)
	st := get(hpasV2 + "/web").body["status"].(map[string]any)
	require.EqualValues(t, 4, st["desiredReplicas"])
	require.EqualValues(t, 65, st["currentMetrics"].([]any)[0].(map[string]any)["resource"].(map[string]any)["current"].(map[string]any)["averageUtilization"])
	gs := get(hpasV1 + "/web/status")
	require.EqualValues(t, 65, gs.body["status"].(map[string]any)["currentCPUUtilizationPercentage"])

	// list: v1 items, selectors, limit and continue.
	l := get(hpasV1 + "?limit=2")
	require.Equal(t, 200, l.code, l.raw)
	require.Equal(t, "autoscaling/v1", l.body["apiVersion"])
	require.Equal(t, "HorizontalPodAutoscalerList", l.body["kind"])
	require.Len(t, l.body["items"], 2)
	for _, it := range l.body["items"].([]any) {
		require.NotContains(t, it.(map[string]any)["spec"], "metrics")
	}
	cont := l.body["metadata"].(map[string]any)["continue"].(string)
	require.NotEmpty(t, cont)
	require.Len(t, get(hpasV1 + "?limit=2&continue=" + cont).body["items"], 1)
	sel := get(hpasV1 + "?labelSelector=app%3Dweb")
	require.Len(t, sel.body["items"], 1)
	require.EqualValues(t, 50, sel.body["items"].([]any)[0].(map[string]any)["spec"].(map[string]any)["targetCPUUtilizationPercentage"])

	// Tables are the kind's; includeObject=Object embeds the v1 form.
	tb := do(t, ts, "GET", hpasV1+"/web?includeObject=Object", "", "", "Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	require.Equal(t, "Table", tb.body["kind"], tb.raw)
	require.Equal(t, "autoscaling/v1", tb.body["rows"].([]any)[0].(map[string]any)["object"].(map[string]any)["apiVersion"])
	pm := do(t, ts, "GET", hpasV1+"/web", "", "", "Accept", "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io")
	require.Equal(t, "PartialObjectMetadata", pm.body["kind"], pm.raw)

	// dryRun: answered in v1, not stored.
	dry := strings.Replace(hpaV1, `"web","labels"`, `"dry","labels"`, 1)
	dr := do(t, ts, "POST", hpasV1+"?dryRun=All", jsonCT, dry)
	require.Equal(t, 201, dr.code, dr.raw)
	require.Equal(t, "autoscaling/v1", dr.body["apiVersion"])
	require.Equal(t, 404, get(hpasV2+"/dry").code)

	// delete and deletecollection.
	d := do(t, ts, "DELETE", hpasV1+"/dflt", "", "")
	require.Equal(t, 200, d.code, d.raw)
	require.Equal(t, 404, get(hpasV2+"/dflt").code)
	dc := do(t, ts, "DELETE", hpasV1+"?labelSelector=app%3Dweb", "", "")
	require.Equal(t, 200, dc.code, dc.raw)
	require.Equal(t, "autoscaling/v1", dc.body["apiVersion"])
	require.Equal(t, 404, get(hpasV1+"/web").code)
	require.Equal(t, 200, get(hpasV1+"/mem").code)
}

// TestHPAV1Errors: the client mistakes of a v1 body are 4xx with kube's
// words; validation is of the converted object, as kube validates the
// internal form.
func TestHPAV1Errors(t *testing.T) {
	_, ts := start(t, cluster.Options{})
	for _, tc := range []struct {
		name, method, path, body string
		code                     int
		reason, msg              string
	}{
		{"v2 body on the v1 resource", "POST", hpasV1, hpaV2Memory, 400, "BadRequest",
			"the API version in the data (autoscaling/v2) does not match the expected API version (autoscaling/v1)"},
		{"another kind", "POST", hpasV1, `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"x"}}`, 400, "BadRequest", "holds HorizontalPodAutoscaler"},
		{"no kind", "POST", hpasV1, `{"apiVersion":"autoscaling/v1","metadata":{"name":"x"}}`, 400, "BadRequest", "Object 'Kind' is missing"},
		{"a v2 field, strict", "POST", hpasV1 + "?fieldValidation=Strict",
			strings.Replace(hpaV1, `"maxReplicas":5`, `"maxReplicas":5,"metrics":[]`, 1), 400, "BadRequest", `unknown field "spec.metrics"`},
		{"maxReplicas 0", "POST", hpasV1, strings.Replace(hpaV1, `"maxReplicas":5`, `"maxReplicas":0`, 1), 422, "Invalid",
			`HorizontalPodAutoscaler.autoscaling "web" is invalid: [spec.maxReplicas: Required value: must be set and greater than 0`},
		{"targetCPUUtilizationPercentage 0", "POST", hpasV1, strings.Replace(hpaV1, `"targetCPUUtilizationPercentage":70`, `"targetCPUUtilizationPercentage":0`, 1), 422, "Invalid",
			`spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0`},
		{"not JSON", "POST", hpasV1, `{"apiVersion":`, 400, "BadRequest", "malformed"},
		{"apply without a field manager", "PATCH", hpasV1 + "/web", `{}`, 415, "UnsupportedMediaType",
			"application/merge-patch+json, application/strategic-merge-patch+json (got \"application/apply-patch+yaml\"); server-side apply is not served by this build of ctrlkit (its core module's), it is by the full build: cd crdcel && go run ./cmd/ctrlkit up"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ct := jsonCT
			if tc.method == "PATCH" {
				ct = "application/apply-patch+yaml"
			}
			r := do(t, ts, tc.method, tc.path, ct, tc.body)
			require.Equal(t, tc.code, r.code, r.raw)
			require.Equal(t, tc.reason, r.body["reason"], r.raw)
			require.Contains(t, r.body["message"], tc.msg)
		})
	}
}

// TestHPAV1Watch: a v1 watch sends v1 objects and v1 bookmarks while a
// v2 watch of the same object sends v2 ones (their encodings are cached
// apart); a protobuf watch sends v1 frames.
func TestHPAV1Watch(t *testing.T) {
	_, ts := start(t, cluster.Options{})
	c := do(t, ts, "POST", hpasV1, jsonCT, hpaV1)
	require.Equal(t, 201, c.code, c.raw)
	rv := meta(c)["resourceVersion"].(string)
	w1 := watchLines(t, ts, hpasV1+"?watch=true&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan")
	w2 := watchLines(t, ts, hpasV2+"?watch=true")
	ev := next(t, w1)
	require.Equal(t, "ADDED", ev["type"])
	require.Equal(t, "autoscaling/v1", ev["object"].(map[string]any)["apiVersion"])
	ev = next(t, w1)
	require.Equal(t, "BOOKMARK", ev["type"])
	require.Equal(t, "autoscaling/v1", ev["object"].(map[string]any)["apiVersion"])
	require.Equal(t, "autoscaling/v2", next(t, w2)["object"].(map[string]any)["apiVersion"])

	pb := watchProtobuf(t, ts.URL+hpasV1+"?watch=true&resourceVersion="+rv)
	p := do(t, ts, "PATCH", hpasV2+"/web", "application/merge-patch+json", `{"spec":{"maxReplicas":9}}`)
	require.Equal(t, 200, p.code, p.raw)
	for _, w := range []<-chan map[string]any{w1, w2, pb} {
		ev := next(t, w)
		require.Equal(t, "MODIFIED", ev["type"])
		require.EqualValues(t, 9, ev["object"].(map[string]any)["spec"].(map[string]any)["maxReplicas"])
	}
}

// watchProtobuf reads a protobuf watch stream as kube's framing sends it
// (a 4-byte length, then a WatchEvent), each object decoded to JSON.
func watchProtobuf(t *testing.T, url string) <-chan map[string]any {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "GET", url, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", protobuf.MediaType+";stream=watch")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode)
	out := make(chan map[string]any)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		br := bufio.NewReader(resp.Body)
		for {
			var n uint32
			if binary.Read(br, binary.BigEndian, &n) != nil {
				return
			}
			frame := make([]byte, n)
			if _, err := io.ReadFull(br, frame); err != nil {
				return
			}
			typ, obj, err := protobuf.UnmarshalWatchEvent(frame)
			if err != nil {
				return
			}
			j, err := protobuf.Unmarshal(obj, "autoscaling/v1", "HorizontalPodAutoscaler")
			if err != nil {
				return
			}
			var o map[string]any
			if json.Unmarshal(j, &o) != nil || o["apiVersion"] != "autoscaling/v1" {
				return
			}
			select {
			case out <- map[string]any{"type": typ, "object": o}:
			case <-t.Context().Done():
				return
			}
		}
	}()
	return out
}

// TestHPAV1Protobuf: kubectl autoscale's request, a protobuf v1 body
// answered in protobuf, and a protobuf list.
func TestHPAV1Protobuf(t *testing.T) {
	_, ts := start(t, cluster.Options{})
	body, err := protobuf.Marshal([]byte(hpaV1))
	require.NoError(t, err)
	send := func(method, path string, body []byte) (int, []byte) {
		req, err := http.NewRequestWithContext(t.Context(), method, ts.URL+path, strings.NewReader(string(body)))
		require.NoError(t, err)
		if body != nil {
			req.Header.Set("Content-Type", protobuf.MediaType)
		}
		req.Header.Set("Accept", protobuf.MediaType+", application/json")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, protobuf.MediaType, resp.Header.Get("Content-Type"))
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, b
	}
	code, out := send("POST", hpasV1, body)
	require.Equal(t, 201, code)
	j, err := protobuf.Unmarshal(out, "", "")
	require.NoError(t, err)
	var created map[string]any
	require.NoError(t, json.Unmarshal(j, &created))
	require.Equal(t, "autoscaling/v1", created["apiVersion"])
	require.EqualValues(t, 70, created["spec"].(map[string]any)["targetCPUUtilizationPercentage"])
	require.EqualValues(t, 1, created["spec"].(map[string]any)["minReplicas"])

	code, out = send("GET", hpasV1, nil)
	require.Equal(t, 200, code)
	j, err = protobuf.Unmarshal(out, "", "")
	require.NoError(t, err)
	var list map[string]any
	require.NoError(t, json.Unmarshal(j, &list))
	require.Equal(t, "HorizontalPodAutoscalerList", list["kind"])
	require.Equal(t, "autoscaling/v1", list["apiVersion"])
	require.Len(t, list["items"], 1)
}

// TestHPAV1Discovery: autoscaling serves v2 and v1, v2 preferred, as
// kube-apiserver; v1 lists the resource, its status, short name and
// category.
func TestHPAV1Discovery(t *testing.T) {
	_, ts := start(t, cluster.Options{})
	g := do(t, ts, "GET", "/apis/autoscaling", "", "")
	require.Equal(t, 200, g.code, g.raw)
	var versions []string
	for _, v := range g.body["versions"].([]any) {
		versions = append(versions, v.(map[string]any)["version"].(string))
	}
	require.Equal(t, []string{"v2", "v1"}, versions)
	require.Equal(t, "autoscaling/v2", g.body["preferredVersion"].(map[string]any)["groupVersion"])

	rl := do(t, ts, "GET", "/apis/autoscaling/v1", "", "")
	require.Equal(t, 200, rl.code, rl.raw)
	byName := map[string]map[string]any{}
	for _, r := range rl.body["resources"].([]any) {
		byName[r.(map[string]any)["name"].(string)] = r.(map[string]any)
	}
	hpa := byName["horizontalpodautoscalers"]
	require.NotNil(t, hpa, rl.raw)
	require.Equal(t, "HorizontalPodAutoscaler", hpa["kind"])
	require.Equal(t, []any{"hpa"}, hpa["shortNames"])
	require.Equal(t, []any{"all"}, hpa["categories"])
	require.Contains(t, byName, "horizontalpodautoscalers/status")
}

// TestHPAV1OpenAPI: the OpenAPI documents describe autoscaling/v1
// HorizontalPodAutoscaler under kube's definition names, with its
// x-kubernetes-group-version-kind, beside the v2 one (what kubectl
// explain --api-version=autoscaling/v1 reads).
func TestHPAV1OpenAPI(t *testing.T) {
	_, ts := start(t, cluster.Options{})
	v3 := do(t, ts, "GET", "/openapi/v3/apis/autoscaling/v1", "", "")
	require.Equal(t, 200, v3.code, v3.raw)
	schemas := v3.body["components"].(map[string]any)["schemas"].(map[string]any)
	hpa := schemas["io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler"].(map[string]any)
	require.Equal(t, []any{map[string]any{"group": "autoscaling", "version": "v1", "kind": "HorizontalPodAutoscaler"}},
		hpa["x-kubernetes-group-version-kind"])
	spec := schemas["io.k8s.api.autoscaling.v1.HorizontalPodAutoscalerSpec"].(map[string]any)
	require.Contains(t, spec["properties"], "targetCPUUtilizationPercentage")
	require.NotContains(t, spec["properties"], "metrics")
	require.Contains(t, schemas, "io.k8s.api.autoscaling.v1.HorizontalPodAutoscalerList")
	paths := v3.body["paths"].(map[string]any)
	require.Contains(t, paths, "/apis/autoscaling/v1/namespaces/{namespace}/horizontalpodautoscalers/{name}/status")

	v2 := do(t, ts, "GET", "/openapi/v2", "", "")
	require.Equal(t, 200, v2.code)
	defs := v2.body["definitions"].(map[string]any)
	require.Contains(t, defs, "io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler")
	require.Contains(t, defs, "io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler")
}
