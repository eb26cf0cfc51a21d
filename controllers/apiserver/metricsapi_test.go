package apiserver_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// Options.ResourceUsage serves metrics.k8s.io/v1beta1 as metrics-server:
// discovered, PodMetrics split among containers by request, NodeMetrics
// summed over the node's pods, selectors, get, 404 and 405.
func TestResourceMetricsAPI(t *testing.T) {
	c, err := cluster.New(t.Context(), cluster.Options{})
	require.NoError(t, err)
	at := time.Date(2026, 12, 6, 16, 0, 0, 0, time.UTC)
	srv, err := apiserver.New(c, apiserver.Options{ResourceUsage: func(_ context.Context, p *api.Pod) (int64, int64, time.Time, time.Duration, bool) {
		if p.Name == "idle" {
			return 0, 0, time.Time{}, 0, false
		}
		return 300, 3 << 20, at, 30 * time.Second, true
	}})
	require.NoError(t, err)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	require.Equal(t, 201, do(t, ts, "POST", "/api/v1/nodes", jsonCT, `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"}}`).code)
	for _, name := range []string{"a", "b", "idle"} {
		require.Equal(t, 201, do(t, ts, "POST", "/api/v1/namespaces/default/pods", jsonCT, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"`+name+`","labels":{"app":"`+name+`"}},
			"spec":{"nodeName":"n1","containers":[{"name":"big","image":"i","resources":{"requests":{"cpu":"200m","memory":"2Mi"}}},{"name":"small","image":"i","resources":{"requests":{"cpu":"100m","memory":"1Mi"}}}]}}`).code)
	}

	r := do(t, ts, "GET", "/apis", "", "")
	require.Contains(t, r.raw, `"name":"metrics.k8s.io"`)
	r = do(t, ts, "GET", "/apis/metrics.k8s.io/v1beta1", "", "")
	require.Equal(t, 200, r.code)
	require.Contains(t, r.raw, `"kind":"NodeMetrics"`)

	r = do(t, ts, "GET", "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods?labelSelector=app%3Da", "", "")
	require.Equal(t, 200, r.code, r.raw)
	require.JSONEq(t, `{"kind":"PodMetricsList","apiVersion":"metrics.k8s.io/v1beta1","metadata":{},"items":[
		{"kind":"PodMetrics","apiVersion":"metrics.k8s.io/v1beta1","metadata":{"name":"a","namespace":"default","labels":{"app":"a"},"creationTimestamp":"2026-12-06T16:00:00Z"},
		 "timestamp":"2026-12-06T16:00:00Z","window":"30s","containers":[
			{"name":"big","usage":{"cpu":"200m","memory":"2048Ki"}},{"name":"small","usage":{"cpu":"100m","memory":"1024Ki"}}]}]}`, r.raw)
	r = do(t, ts, "GET", "/apis/metrics.k8s.io/v1beta1/pods", "", "")
	require.Len(t, r.body["items"], 2, "idle has no sample")
	r = do(t, ts, "GET", "/apis/metrics.k8s.io/v1beta1/nodes/n1", "", "")
	require.Equal(t, 200, r.code, r.raw)
	require.Equal(t, map[string]any{"cpu": "600m", "memory": "6144Ki"}, r.body["usage"])
	requireStatus(t, do(t, ts, "GET", "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/idle", "", ""), 404, "NotFound")
	requireStatus(t, do(t, ts, "GET", "/apis/metrics.k8s.io/v1beta1/nodes/nope", "", ""), 404, "NotFound")
	requireStatus(t, do(t, ts, "DELETE", "/apis/metrics.k8s.io/v1beta1/nodes/n1", "", ""), 405, "MethodNotAllowed")
	requireStatus(t, do(t, ts, "GET", "/apis/metrics.k8s.io/v1beta1/pods?labelSelector=a+in+(", "", ""), 400, "BadRequest")
}
