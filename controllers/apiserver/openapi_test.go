package apiserver_test

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
)

const crontabCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"crontabs.stable.example.com"},
"spec":{"group":"stable.example.com","scope":"Namespaced","names":{"plural":"crontabs","singular":"crontab","kind":"CronTab"},
"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object",
 "properties":{"spec":{"type":"object","description":"Spec is the tab.","properties":{"cronSpec":{"type":"string"}}}}}}}]}}`

// The OpenAPI documents: the index with each document's hash, the
// documents with kube's definitions, ETag and 304, gzip, the immutable
// cache of a hashed URL and the redirect of an outdated hash, v2 in JSON
// (406 for protobuf only), and a CustomResourceDefinition's kind added
// when it is created.
func TestOpenAPIServing(t *testing.T) {
	ctx := t.Context()
	_, srv := newServer(t, ctx, apiserver.Options{})
	get := func(path string, header ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequestWithContext(ctx, http.MethodGet, path, nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		return rec
	}
	index := func() map[string]string {
		rec := get("/openapi/v3")
		require.Equal(t, 200, rec.Code)
		var idx struct {
			Paths map[string]struct {
				URL string `json:"serverRelativeURL"`
			} `json:"paths"`
		}
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &idx))
		out := map[string]string{}
		for p, u := range idx.Paths {
			out[p] = u.URL
		}
		return out
	}
	idx := index()
	require.Contains(t, idx, "api/v1")
	url := idx["apis/apps/v1"]
	require.Regexp(t, `^/openapi/v3/apis/apps/v1\?hash=[0-9A-F]{128}$`, url)

	rec := get("/openapi/v3/apis/apps/v1")
	require.Equal(t, 200, rec.Code)
	require.Equal(t, "no-cache, private", rec.Header().Get("Cache-Control"))
	etag := rec.Header().Get("Etag")
	require.Equal(t, `"`+strings.TrimPrefix(url, "/openapi/v3/apis/apps/v1?hash=")+`"`, etag)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &doc))
	require.Contains(t, doc["components"].(map[string]any)["schemas"], "io.k8s.api.apps.v1.Deployment")

	require.Equal(t, http.StatusNotModified, get("/openapi/v3/apis/apps/v1", "If-None-Match", etag).Code)
	hashed := get(url)
	require.Equal(t, "public, immutable", hashed.Header().Get("Cache-Control"))
	stale := get("/openapi/v3/apis/apps/v1?hash=0123")
	require.Equal(t, http.StatusMovedPermanently, stale.Code)
	require.Equal(t, url, stale.Header().Get("Location"))

	gz := get("/openapi/v3/apis/apps/v1", "Accept-Encoding", "gzip")
	require.Equal(t, "gzip", gz.Header().Get("Content-Encoding"))
	zr, err := gzip.NewReader(gz.Body)
	require.NoError(t, err)
	unzipped, err := io.ReadAll(zr)
	require.NoError(t, err)
	require.Equal(t, rec.Body.String(), string(unzipped))

	v2 := get("/openapi/v2", "Accept", "application/json")
	require.Equal(t, 200, v2.Code)
	require.Contains(t, v2.Body.String(), `"swagger":"2.0"`)
	require.Equal(t, http.StatusNotAcceptable, get("/openapi/v2", "Accept", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf").Code)
	require.Equal(t, 200, get("/openapi/v2", "Accept", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf, application/json").Code)
	require.Equal(t, http.StatusNotFound, get("/openapi/v3/apis/stable.example.com/v1").Code)

	created := serve(srv, ctx, http.MethodPost, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", strings.NewReader(crontabCRD))
	require.Equal(t, http.StatusCreated, created.Code, created.Body.String())
	require.Contains(t, index(), "apis/stable.example.com/v1", "served from its creation")
	rec = get("/openapi/v3/apis/stable.example.com/v1")
	require.Equal(t, 200, rec.Code)
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &doc))
	ct := doc["components"].(map[string]any)["schemas"].(map[string]any)["com.example.stable.v1.CronTab"].(map[string]any)
	require.Equal(t, []any{map[string]any{"group": "stable.example.com", "version": "v1", "kind": "CronTab"}}, ct["x-kubernetes-group-version-kind"])
	require.Equal(t, "Spec is the tab.", ct["properties"].(map[string]any)["spec"].(map[string]any)["description"])
	require.Contains(t, doc["components"].(map[string]any)["schemas"], "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
	require.Equal(t, url, index()["apis/apps/v1"], "a document whose kinds did not change keeps its hash")
}
