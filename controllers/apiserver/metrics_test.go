package apiserver_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/metrics"
)

// Server.Instrument records apiserver_request_total and
// apiserver_request_duration_seconds with kube's verbs and scopes, the
// dry_run label, and a bounded label set: unknown resources collapse.
func TestInstrumentRequestMetrics(t *testing.T) {
	c, err := cluster.New(t.Context(), cluster.Options{})
	require.NoError(t, err)
	srv, err := apiserver.New(c, apiserver.Options{})
	require.NoError(t, err)
	reg := metrics.NewRegistry()
	ts := httptest.NewServer(srv.Instrument(reg))
	t.Cleanup(ts.Close)
	const cms = "/api/v1/namespaces/default/configmaps"
	require.Equal(t, 201, do(t, ts, "POST", cms, jsonCT, cm).code)
	require.Equal(t, 201, do(t, ts, "POST", cms+"?dryRun=All", jsonCT, strings.Replace(cm, `"cm"`, `"dry"`, 1)).code)
	require.Equal(t, 200, do(t, ts, "GET", cms+"/cm", "", "").code)
	require.Equal(t, 200, do(t, ts, "GET", "/api/v1/configmaps", "", "").code)
	require.Equal(t, 200, do(t, ts, "GET", cms+"?watch=true&timeoutSeconds=1", "", "").code)
	require.Equal(t, 404, do(t, ts, "PATCH", "/apis/apps/v1/namespaces/default/deployments/x/scale", "application/merge-patch+json", `{}`).code)
	require.Equal(t, 200, do(t, ts, "DELETE", cms, "", "").code)
	for i := range 3 {
		require.Equal(t, 404, do(t, ts, "GET", "/api/v1/namespaces/default/thing"+strings.Repeat("s", i+1), "", "").code)
	}
	require.Equal(t, 200, do(t, ts, "GET", "/version", "", "").code)
	var b strings.Builder
	require.NoError(t, reg.WriteText(&b))
	text := b.String()
	for _, want := range []string{
		`apiserver_request_total{verb="POST",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver",code="201"} 1`,
		`apiserver_request_total{verb="POST",dry_run="All",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver",code="201"} 1`,
		`apiserver_request_total{verb="GET",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver",code="200"} 1`,
		`apiserver_request_total{verb="LIST",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="cluster",component="apiserver",code="200"} 1`,
		`apiserver_request_total{verb="WATCH",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver",code="200"} 1`,
		`apiserver_request_total{verb="PATCH",dry_run="",group="apps",version="v1",resource="deployments",subresource="scale",scope="resource",component="apiserver",code="404"} 1`,
		`apiserver_request_total{verb="DELETECOLLECTION",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver",code="200"} 1`,
		// Three unknown resources, one series; /version, another.
		`apiserver_request_total{verb="GET",dry_run="",group="",version="",resource="",subresource="",scope="",component="apiserver",code="404"} 3`,
		`apiserver_request_total{verb="GET",dry_run="",group="",version="",resource="",subresource="",scope="",component="apiserver",code="200"} 1`,
		`apiserver_request_duration_seconds_count{verb="POST",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver"} 1`,
	} {
		require.Contains(t, text, want+"\n")
	}
	require.NotContains(t, text, "things")
}
