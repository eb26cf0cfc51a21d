package operator

import (
	"context"
	"fmt"
	"net/http"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/webhook"
	"github.com/ctrlkit/ctrlkit/source"
)

// ProtectedLabel, set to "true" on a Website, makes the webhook refuse
// its deletion.
const ProtectedLabel = "sites.example.com/protected"

// WebhookName is the name of the operator's validating webhook.
const WebhookName = "validate.websites.sites.example.com"

// Webhook returns the operator's validating admission webhook (serve it
// over HTTPS), which checks what the kind's Validate, seeing one object,
// cannot: a new Website's host is not already another Website's, in any
// namespace (the Directory is one map of hosts), and a Website labelled
// ProtectedLabel=true may not be deleted (403). It reads the Websites
// through c.
func Webhook(c client.Client) (http.Handler, error) {
	sites, err := client.For[*Website](c)
	if err != nil {
		return nil, err
	}
	return webhook.Validating(func(ctx context.Context, req *webhook.AdmissionRequest, site, old *Website) error {
		if req.Operation == "DELETE" {
			if old.Labels[ProtectedLabel] == "true" {
				return &webhook.DeniedError{Code: http.StatusForbidden, Reason: "Forbidden",
					Message: fmt.Sprintf("website %s is protected: remove its label %s first", api.Key(old), ProtectedLabel)}
			}
			return nil
		}
		all, err := sites.List(ctx, source.ListOptions{})
		if err != nil {
			return err
		}
		for _, w := range all.Items {
			if w.Spec.Host == site.Spec.Host && api.Key(w) != api.Key(site) {
				return fmt.Errorf("spec.host %q is already served by website %s", site.Spec.Host, api.Key(w))
			}
		}
		return nil
	}), nil
}

// WebhookConfiguration is the ValidatingWebhookConfiguration that makes
// the API server call the webhook at url, whose certificate caBundle (PEM)
// verifies, on each create and delete of a Website.
func WebhookConfiguration(url string, caBundle []byte) *api.ValidatingWebhookConfiguration {
	none, fail := api.SideEffectClassNone, api.Fail
	return &api.ValidatingWebhookConfiguration{ObjectMeta: api.ObjectMeta{Name: Kind.QualifiedResource()},
		Webhooks: []api.ValidatingWebhook{{
			Name: WebhookName, ClientConfig: api.WebhookClientConfig{URL: &url, CABundle: caBundle},
			Rules: []api.RuleWithOperations{{Operations: []api.OperationType{api.OperationCreate, api.OperationDelete},
				Rule: api.Rule{APIGroups: []string{GVK.Group}, APIVersions: []string{GVK.Version}, Resources: []string{Kind.Resource}}}},
			SideEffects: &none, FailurePolicy: &fail, TimeoutSeconds: new(int32(5)), AdmissionReviewVersions: []string{"v1"},
		}}}
}
