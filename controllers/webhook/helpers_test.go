package webhook_test

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/webhook"
)

func ptr[V any](v V) *V { return &v }

// reviewFunc answers one AdmissionReview request.
type reviewFunc func(req *webhook.AdmissionRequest) *webhook.AdmissionResponse

// serve returns an http.Handler that answers AdmissionReviews with f,
// echoing the request's uid and version.
func serve(t *testing.T, f reviewFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		var review webhook.AdmissionReview
		if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
			t.Errorf("webhook got a bad review: %v %s", err, body)
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		resp := f(review.Request)
		resp.UID = review.Request.UID
		out, _ := json.Marshal(webhook.AdmissionReview{TypeMeta: review.TypeMeta, Response: resp})
		w.Header().Set("Content-Type", "application/json")
		w.Write(out)
	})
}

// tlsServer starts an HTTPS server with h and returns it and the PEM of
// its CA (its own certificate, valid for 127.0.0.1 and example.com).
func tlsServer(t *testing.T, h http.Handler) (*httptest.Server, []byte) {
	s := httptest.NewTLSServer(h)
	t.Cleanup(s.Close)
	return s, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw})
}

// newCluster returns a cluster whose admission chain holds a dispatcher
// built with opts.
func newCluster(t *testing.T, opts webhook.Options) *cluster.Cluster {
	t.Helper()
	d := webhook.New(opts)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c, err := cluster.New(ctx, cluster.Options{Mutating: []cluster.MutatingFunc{d.Mutate}, Admission: []cluster.AdmissionFunc{d.Validate}})
	require.NoError(t, err)
	d.SetClient(c)
	return c
}

// podRule is a rule matching pods (and, with sub, their subresources).
func podRule(ops ...api.OperationType) []api.RuleWithOperations {
	return []api.RuleWithOperations{{Operations: ops,
		Rule: api.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}}
}

// validating returns a validating webhook at url with the CA bundle.
func validating(name, url string, ca []byte, mutate ...func(w *api.ValidatingWebhook)) api.ValidatingWebhook {
	w := api.ValidatingWebhook{Name: name, ClientConfig: api.WebhookClientConfig{URL: &url, CABundle: ca},
		Rules: podRule(api.OperationCreate, api.OperationUpdate), SideEffects: ptr(api.SideEffectClassNone),
		AdmissionReviewVersions: []string{"v1"}}
	for _, m := range mutate {
		m(&w)
	}
	return w
}

// mutatingHook returns a mutating webhook at url with the CA bundle.
func mutatingHook(name, url string, ca []byte, mutate ...func(w *api.MutatingWebhook)) api.MutatingWebhook {
	w := api.MutatingWebhook{Name: name, ClientConfig: api.WebhookClientConfig{URL: &url, CABundle: ca},
		Rules: podRule(api.OperationCreate), SideEffects: ptr(api.SideEffectClassNone),
		AdmissionReviewVersions: []string{"v1"}}
	for _, m := range mutate {
		m(&w)
	}
	return w
}

func createValidating(t *testing.T, c client.Client, name string, ws ...api.ValidatingWebhook) {
	t.Helper()
	res, err := client.For[*api.ValidatingWebhookConfiguration](c)
	require.NoError(t, err)
	_, err = res.Create(context.Background(), &api.ValidatingWebhookConfiguration{ObjectMeta: api.ObjectMeta{Name: name}, Webhooks: ws})
	require.NoError(t, err)
}

func createMutating(t *testing.T, c client.Client, name string, ws ...api.MutatingWebhook) {
	t.Helper()
	res, err := client.For[*api.MutatingWebhookConfiguration](c)
	require.NoError(t, err)
	_, err = res.Create(context.Background(), &api.MutatingWebhookConfiguration{ObjectMeta: api.ObjectMeta{Name: name}, Webhooks: ws})
	require.NoError(t, err)
}

func pod(ns, name string, labels map[string]string) *api.Pod {
	return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: ns, Labels: labels},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}
}

func allow(*webhook.AdmissionRequest) *webhook.AdmissionResponse {
	return &webhook.AdmissionResponse{Allowed: true}
}

// addLabel is a JSON patch adding the label k=v (the object has labels).
func addLabel(k, v string) []byte {
	b, _ := json.Marshal([]map[string]any{{"op": "add", "path": "/metadata/labels/" + k, "value": v}})
	return b
}
