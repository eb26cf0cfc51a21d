package controlplane_test

import (
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane"
	"github.com/ctrlkit/ctrlkit/controllers/webhook"
)

// Options.Webhooks puts the admission webhooks in the control plane's
// admission chain: a validating webhook refuses a ConfigMap; without the
// option the same configuration calls nothing.
func TestWebhooksOption(t *testing.T) {
	var calls atomic.Int32
	s := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var review webhook.AdmissionReview
		if err := json.Unmarshal(body, &review); err != nil {
			t.Error(err)
			return
		}
		if review.Request.Name == "c" { // not the root CA publisher's kube-root-ca.crt
			calls.Add(1)
		}
		out, _ := json.Marshal(webhook.AdmissionReview{TypeMeta: review.TypeMeta, Response: &webhook.AdmissionResponse{
			UID: review.Request.UID, Result: &webhook.Status{Code: http.StatusForbidden, Message: "no configmaps"}}})
		w.Write(out)
	}))
	defer s.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw})
	none := api.SideEffectClassNone
	config := &api.ValidatingWebhookConfiguration{ObjectMeta: api.ObjectMeta{Name: "cm"}, Webhooks: []api.ValidatingWebhook{{
		Name: "cm.example.com", ClientConfig: api.WebhookClientConfig{URL: &s.URL, CABundle: ca},
		Rules: []api.RuleWithOperations{{Operations: []api.OperationType{api.OperationCreate},
			Rule: api.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}},
		SideEffects: &none, AdmissionReviewVersions: []string{"v1"}}}}

	for _, enabled := range []bool{true, false} {
		opts := controlplane.Options{ManagerOnly: true}
		if enabled {
			opts.Webhooks = &webhook.Options{}
		}
		cp, err := controlplane.Start(t.Context(), opts)
		require.NoError(t, err)
		configs, err := client.For[*api.ValidatingWebhookConfiguration](cp.Cluster)
		require.NoError(t, err)
		_, err = configs.Create(t.Context(), config.DeepCopy())
		require.NoError(t, err)
		_, err = cp.Cluster.ConfigMaps().Create(t.Context(), &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "c", Namespace: "default"}})
		if enabled {
			require.ErrorContains(t, err, `admission webhook "cm.example.com" denied the request: no configmaps`)
			require.True(t, client.IsForbidden(err))
		} else {
			require.NoError(t, err)
		}
		require.NoError(t, cp.Stop())
	}
	require.Equal(t, int32(1), calls.Load())
}
