package apiserver_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/cronjob"
	"github.com/ctrlkit/ctrlkit/source"
)

// requireStatus checks that r is a failure Status with the code and reason.
func requireStatus(t *testing.T, r response, code int, reason string) {
	t.Helper()
	require.Equal(t, code, r.code, r.raw)
	require.Equal(t, "Status", r.body["kind"], r.raw)
	require.Equal(t, "Failure", r.body["status"], r.raw)
	require.Equal(t, reason, r.body["reason"], r.raw)
	require.EqualValues(t, code, r.body["code"], r.raw)
}

// A body must carry a Content-Type the endpoint accepts: a cross-site
// "no-cors" fetch (text/plain, a form, or none) creates nothing.
func TestContentType(t *testing.T) {
	c, ts := start(t, cluster.Options{})
	const cms = "/api/v1/namespaces/default/configmaps"
	for _, ct := range []string{"", "text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
		"multipart/form-data; boundary=x", "*/*", "application/cbor"} {
		r := do(t, ts, "POST", cms, ct, cm)
		requireStatus(t, r, 415, "UnsupportedMediaType")
		require.Contains(t, r.body["message"], "application/json", ct)
	}
	l, err := c.ConfigMaps().List(t.Context(), source.ListOptions{})
	require.NoError(t, err)
	for _, obj := range l.Items {
		require.NotEqual(t, "cm", obj.Name, "a body without an accepted Content-Type created an object")
	}

	require.Equal(t, 201, do(t, ts, "POST", cms, "application/json; charset=utf-8", cm).code)
	yamlCM := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yml\n"
	yr := do(t, ts, "POST", cms, "application/yaml", yamlCM)
	require.Equal(t, 201, yr.code, yr.raw)
	requireStatus(t, do(t, ts, "PUT", cms+"/cm", "", cm), 415, "UnsupportedMediaType")
	requireStatus(t, do(t, ts, "PUT", cms+"/cm", "text/plain", cm), 415, "UnsupportedMediaType")
	for _, ct := range []string{"", "application/json", "text/plain", "application/apply-patch+yaml"} {
		requireStatus(t, do(t, ts, "PATCH", cms+"/cm", ct, `{"data":{"a":"2"}}`), 415, "UnsupportedMediaType")
	}
	requireStatus(t, do(t, ts, "PATCH", "/apis/apps/v1/namespaces/default/deployments/x/scale", "", `{}`), 415, "UnsupportedMediaType")
	// A DeleteOptions body needs one too; an empty body does not.
	requireStatus(t, do(t, ts, "DELETE", cms+"/cm", "text/plain", `{"gracePeriodSeconds":0}`), 415, "UnsupportedMediaType")
	requireStatus(t, do(t, ts, "DELETE", cms+"/cm", "", `{"gracePeriodSeconds":0}`), 415, "UnsupportedMediaType")
	require.Equal(t, 200, do(t, ts, "DELETE", cms+"/yml", "", "").code)
	require.Equal(t, 200, do(t, ts, "DELETE", cms+"/cm", jsonCT, `{"gracePeriodSeconds":0}`).code)
}

// Methods other than GET, HEAD, POST, PUT, PATCH and DELETE are 405 on
// every path, with a Status.
func TestUnknownMethods(t *testing.T) {
	c, err := cluster.New(t.Context(), cluster.Options{})
	require.NoError(t, err)
	srv, err := apiserver.New(c, apiserver.Options{})
	require.NoError(t, err)
	for _, m := range []string{"TRACE", "CONNECT", "OPTIONS", "PROPFIND", "BREW"} {
		for _, p := range []string{"/version", "/healthz", "/api", "/apis", "/api/v1", "/openapi/v3",
			"/api/v1/namespaces/default/configmaps", "/api/v1/namespaces/default/configmaps/x", "/nowhere"} {
			req := httptest.NewRequestWithContext(t.Context(), "GET", p, nil)
			req.Method = m
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, req)
			require.Equal(t, 405, rec.Code, "%s %s: %s", m, p, rec.Body)
			require.Contains(t, rec.Body.String(), `"reason":"MethodNotAllowed"`)
		}
	}
}

// Client mistakes are 4xx with kube-apiserver's reasons, never 500.
func TestClientMistakes(t *testing.T) {
	_, ts := start(t, cluster.Options{})
	const cms = "/api/v1/namespaces/default/configmaps"
	require.Equal(t, 201, do(t, ts, "POST", cms, jsonCT, cm).code)
	for _, tc := range []struct {
		name, path string
		code       int
		reason     string
		message    string
	}{
		{"list rv abc", cms + "?resourceVersion=abc", 400, "BadRequest", "invalid resource version"},
		{"list rv -5", cms + "?resourceVersion=-5", 400, "BadRequest", "invalid resource version"},
		{"list rv exact", cms + "?resourceVersion=-5&resourceVersionMatch=Exact", 400, "BadRequest", "invalid resource version"},
		{"paged list rv", cms + "?resourceVersion=x1&limit=1", 400, "BadRequest", "invalid resource version"},
		{"get rv", cms + "/cm?resourceVersion=abc", 400, "BadRequest", "invalid resource version"},
		{"continue garbage", cms + "?continue=garbage", 400, "BadRequest", "continue"},
		{"continue base64 garbage", cms + "?limit=1&continue=Z2FyYmFnZQ", 400, "BadRequest", "continue"},
		{"watch rv abc", cms + "?watch=true&resourceVersion=abc", 400, "BadRequest", "invalid resource version"},
		{"watch path rv -5", "/api/v1/watch/namespaces/default/configmaps?resourceVersion=-5", 400, "BadRequest", "invalid resource version"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, ts, "GET", tc.path, "", "")
			requireStatus(t, r, tc.code, tc.reason)
			require.Contains(t, r.body["message"], tc.message)
		})
	}
}

// Every 404 carries details, as kube-apiserver's: kubectl debug reads
// them.
func TestNotFoundDetails(t *testing.T) {
	_, ts := start(t, cluster.Options{})
	for _, p := range []string{"/nowhere", "/api/v1/nosuch", "/apis/nosuch", "/apis/apps/v1/nosuch",
		"/api/v1/namespaces/default/configmaps/x/scale", "/openapi/v3/apis/nosuch/v1", "/api/v1/namespaces/default/configmaps/missing",
		"/apis/apps/v1/namespaces/default/deployments/missing/scale"} {
		r := do(t, ts, "GET", p, "", "")
		requireStatus(t, r, 404, "NotFound")
		require.Contains(t, r.body, "details", p)
		require.IsType(t, map[string]any{}, r.body["details"], p)
	}
	d := do(t, ts, "GET", "/apis/apps/v1/namespaces/default/deployments/missing", "", "").body["details"].(map[string]any)
	require.Equal(t, map[string]any{"name": "missing", "group": "apps", "kind": "deployments"}, d)
}

// A cron job with an invalid schedule, refused by cronjob.Admission, is
// 422 Invalid with the field cause spec.schedule.
func TestCronJobScheduleInvalid(t *testing.T) {
	_, ts := start(t, cluster.Options{Admission: []cluster.AdmissionFunc{cronjob.Admission}})
	const cjs = "/apis/batch/v1/namespaces/default/cronjobs"
	body := func(schedule, tz string) string {
		return `{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"c"},"spec":{"schedule":"` + schedule + `"` + tz +
			`,"jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"i"}]}}}}}}`
	}
	for _, tc := range []struct{ schedule, tz, field string }{
		{"nonsense", "", "spec.schedule"},
		{"61 * * * *", "", "spec.schedule"},
		{"* * * * *", `,"timeZone":"Mars/Olympus"`, "spec.timeZone"},
	} {
		r := do(t, ts, "POST", cjs, jsonCT, body(tc.schedule, tc.tz))
		requireStatus(t, r, 422, "Invalid")
		require.Contains(t, r.body["message"], `CronJob.batch "c" is invalid`)
		causes := r.body["details"].(map[string]any)["causes"].([]any)
		require.Len(t, causes, 1)
		require.Equal(t, tc.field, causes[0].(map[string]any)["field"])
		require.Equal(t, "FieldValueInvalid", causes[0].(map[string]any)["reason"])
	}
	require.Equal(t, 201, do(t, ts, "POST", cjs, jsonCT, body("*/5 * * * *", "")).code)
}

// A DeleteOptions body is under the body limit: beyond it, 413.
func TestDeleteOptionsTooLarge(t *testing.T) {
	_, ts := start(t, cluster.Options{})
	const cms = "/api/v1/namespaces/default/configmaps"
	require.Equal(t, 201, do(t, ts, "POST", cms, jsonCT, cm).code)
	for _, size := range []int{3<<20 + 10, 10 << 20} {
		big := `{"gracePeriodSeconds":0,"dryRun":[` + strings.Repeat(`"x",`, size/4) + `"x"]}`
		r := do(t, ts, "DELETE", cms+"/cm", jsonCT, big)
		requireStatus(t, r, 413, "RequestEntityTooLarge")
		padded := `{"gracePeriodSeconds":0}` + strings.Repeat(" ", size)
		requireStatus(t, do(t, ts, "DELETE", cms+"/cm", jsonCT, padded), 413, "RequestEntityTooLarge")
		requireStatus(t, do(t, ts, "DELETE", cms, jsonCT, padded), 413, "RequestEntityTooLarge")
	}
	require.Equal(t, 200, do(t, ts, "GET", cms+"/cm", "", "").code, "a refused delete deleted")
}

// An object over the store's size limit (cluster.Options.MaxObjectBytes,
// etcd's --max-request-bytes) is the client's mistake: 413, not 500.
func TestObjectTooLarge(t *testing.T) {
	_, ts := start(t, cluster.Options{MaxObjectBytes: 64 << 10})
	const cms = "/api/v1/namespaces/default/configmaps"
	big := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big"},"data":{"k":"` + strings.Repeat("x", 100<<10) + `"}}`
	requireStatus(t, do(t, ts, "POST", cms, jsonCT, big), 413, "RequestEntityTooLarge")
	require.Equal(t, 201, do(t, ts, "POST", cms, jsonCT, cm).code)
	requireStatus(t, do(t, ts, "PATCH", cms+"/cm", "application/merge-patch+json",
		`{"data":{"k":"`+strings.Repeat("x", 100<<10)+`"}}`), 413, "RequestEntityTooLarge")
}
