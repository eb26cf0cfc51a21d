package webhooktest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/webhook"
	"github.com/ctrlkit/ctrlkit/controllers/webhook/webhooktest"
)

// A typed validating webhook served on the in-memory network, called by
// a cluster on the deletion of a ConfigMap.
func Example() {
	s, err := webhooktest.New(webhook.Validating(func(_ context.Context, req *webhook.AdmissionRequest, _, old *api.ConfigMap) error {
		if old.Labels["keep"] == "true" {
			return &webhook.DeniedError{Code: http.StatusForbidden, Message: "kept"}
		}
		return nil
	}))
	if err != nil {
		panic(err)
	}
	defer s.Close()

	ctx := context.Background()
	d := webhook.New(webhook.Options{DialContext: s.Dial})
	c, err := cluster.New(ctx, cluster.Options{Admission: []cluster.AdmissionFunc{d.Validate}})
	if err != nil {
		panic(err)
	}
	d.SetClient(c)
	configs, _ := client.For[*api.ValidatingWebhookConfiguration](c)
	none := api.SideEffectClassNone
	_, err = configs.Create(ctx, &api.ValidatingWebhookConfiguration{ObjectMeta: api.ObjectMeta{Name: "keep"},
		Webhooks: []api.ValidatingWebhook{{
			Name: "keep.example.com", ClientConfig: api.WebhookClientConfig{URL: &s.URL, CABundle: s.CABundle},
			Rules: []api.RuleWithOperations{{Operations: []api.OperationType{api.OperationDelete},
				Rule: api.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}},
			SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
		}}})
	if err != nil {
		panic(err)
	}
	_, err = c.ConfigMaps().Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "kept", Labels: map[string]string{"keep": "true"}}})
	if err != nil {
		panic(err)
	}
	_, err = c.ConfigMaps().Delete(ctx, "default/kept", "")
	fmt.Println(client.IsForbidden(err))
	var denied *webhook.DeniedError
	fmt.Println(errors.As(err, &denied), denied)
	// Output:
	// true
	// true admission webhook "keep.example.com" denied the request: kept
}
