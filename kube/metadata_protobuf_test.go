package kube_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// client-go's metadata client asks for PartialObjectMetadata(List) in
// protobuf first (application/vnd.kubernetes.protobuf;as=…;g=meta.k8s.io;v=v1):
// list, get and watch are answered in protobuf, as kube-apiserver
// answers them, and decoded by apimachinery's own generated types. A
// protobuf Table is not offered (meta.k8s.io/v1 Table has no protobuf
// form): asked for alone it is kube's 406, with a JSON Table after it
// the JSON Table is served (kube's
// test/integration/apiserver/apiserver_test.go TestTransform cases "v1
// verify partial metadata object on config maps in protobuf" and "v1
// verify error on unsupported mimetype protobuf for table conversion").
func TestMetadataClientProtobuf(t *testing.T) {
	c, err := cluster.New(t.Context(), cluster.Options{})
	require.NoError(t, err)
	srv, err := apiserver.New(c, apiserver.Options{})
	require.NoError(t, err)
	var mu sync.Mutex
	types := map[string]string{} // request → response Content-Type
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.URL.Path + "?watch=" + r.URL.Query().Get("watch")
		srv.ServeHTTP(&typeRecorder{ResponseWriter: w, record: func(ct string) {
			mu.Lock()
			types[key] = ct
			mu.Unlock()
		}}, r)
	}))
	t.Cleanup(ts.Close)
	typeOf := func(path string) string {
		mu.Lock()
		defer mu.Unlock()
		return types[path]
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cfg := &rest.Config{Host: ts.URL}
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	_, err = cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a",
		Labels: map[string]string{"app": "x"}, Annotations: map[string]string{"note": "n"}}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{})
	require.NoError(t, err)

	md, err := metadata.NewForConfig(cfg)
	require.NoError(t, err)
	cms := md.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("default")
	const pb = "application/vnd.kubernetes.protobuf"

	l, err := cms.List(ctx, metav1.ListOptions{LabelSelector: "app=x"})
	require.NoError(t, err)
	require.Equal(t, pb, typeOf("/api/v1/namespaces/default/configmaps?watch="))
	require.NotEmpty(t, l.ResourceVersion)
	require.Len(t, l.Items, 1)
	require.Equal(t, "a", l.Items[0].Name)
	require.Equal(t, map[string]string{"app": "x"}, l.Items[0].Labels)
	require.Equal(t, map[string]string{"note": "n"}, l.Items[0].Annotations)
	require.False(t, l.Items[0].CreationTimestamp.IsZero())
	require.NotEmpty(t, l.Items[0].UID)

	got, err := cms.Get(ctx, "a", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, pb, typeOf("/api/v1/namespaces/default/configmaps/a?watch="))
	require.Equal(t, l.Items[0].UID, got.UID)
	require.Equal(t, l.Items[0].ResourceVersion, got.ResourceVersion)

	_, err = cms.Get(ctx, "missing", metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "%v", err)

	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: l.ResourceVersion})
	require.NoError(t, err)
	defer w.Stop()
	_, err = cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "b"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	select {
	case e := <-w.ResultChan():
		require.Equal(t, watch.Added, e.Type)
		obj, ok := e.Object.(*metav1.PartialObjectMetadata)
		require.True(t, ok, "%T", e.Object)
		require.Equal(t, "b", obj.Name)
		require.NotEmpty(t, obj.ResourceVersion)
	case <-ctx.Done():
		t.Fatal("no watch event")
	}
	require.Equal(t, pb+";stream=watch", typeOf("/api/v1/namespaces/default/configmaps?watch=true"))

	// Tables: no protobuf form.
	get := func(accept string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/api/v1/namespaces/default/configmaps", nil)
		require.NoError(t, err)
		req.Header.Set("Accept", accept)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var b strings.Builder
		_, err = io.Copy(&b, resp.Body)
		require.NoError(t, err)
		return resp, []byte(b.String())
	}
	resp, body := get(pb + ";as=Table;g=meta.k8s.io;v=v1")
	require.Equal(t, http.StatusNotAcceptable, resp.StatusCode, string(body))
	var st metav1.Status
	require.NoError(t, json.Unmarshal(body, &st))
	require.Equal(t, metav1.StatusReasonNotAcceptable, st.Reason)
	require.Equal(t, "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf", st.Message)
	resp, body = get(pb + ";as=Table;g=meta.k8s.io;v=v1,application/json;as=Table;g=meta.k8s.io;v=v1")
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	var table metav1.Table
	require.NoError(t, json.Unmarshal(body, &table))
	require.Equal(t, "Table", table.Kind)
	require.Len(t, table.Rows, 2)
	// A protobuf Table or the object in protobuf: the object.
	resp, body = get(pb + ";as=Table;g=meta.k8s.io;v=v1," + pb)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	require.Equal(t, pb, resp.Header.Get("Content-Type"))
}

// typeRecorder records the Content-Type of a response when its header
// is written (a watch's is, long before the handler returns).
type typeRecorder struct {
	http.ResponseWriter
	record func(string)
	done   bool
}

func (r *typeRecorder) WriteHeader(code int) {
	if r.done {
		return
	}
	r.done = true
	r.record(r.Header().Get("Content-Type"))
	r.ResponseWriter.WriteHeader(code)
}

func (r *typeRecorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.ResponseWriter.Write(b)
}

func (r *typeRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *typeRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
