package crdcel_test

import (
	"encoding/json"
	"io"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/webhook"
	"github.com/ctrlkit/ctrlkit/controllers/webhook/webhooktest"
	"github.com/ctrlkit/ctrlkit/crdcel"
)

// denyAll is a validating webhook refusing everything it is sent,
// counting the calls.
func denyAll(calls *atomic.Int32) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var review webhook.AdmissionReview
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
			http.Error(w, "bad review", http.StatusBadRequest)
			return
		}
		out, _ := json.Marshal(webhook.AdmissionReview{TypeMeta: review.TypeMeta, Response: &webhook.AdmissionResponse{
			UID: review.Request.UID, Allowed: false, Result: &webhook.Status{Code: 403, Message: "denied by the webhook"}}})
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
	})
}

// A webhook's matchConditions decide whether it is called, evaluated
// with kube-apiserver's code: a false condition skips it, all true call
// it, and a condition that cannot be evaluated fails the write closed
// (403 with kube's message) under failurePolicy Fail and skips the
// webhook under Ignore — after kube's matchconditions matcher_test.go
// (TestMatch: "false", "true", "error and true with fail policy",
// "error with ignore policy").
func TestMatchConditions(t *testing.T) {
	fail, ignore := api.Fail, api.Ignore
	tests := []struct {
		name       string
		conditions []api.MatchCondition
		policy     *api.FailurePolicyType
		obj        *api.ConfigMap
		called     bool
		err        string
		forbidden  bool // 403: the API server answers `configmaps "NAME" is forbidden: ERR`
	}{
		{name: "false skips", conditions: []api.MatchCondition{{Name: "not-skip", Expression: "object.metadata.name != 'skip'"}},
			obj: cm("skip", nil), called: false},
		{name: "true calls", conditions: []api.MatchCondition{{Name: "not-skip", Expression: "object.metadata.name != 'skip'"}},
			obj: cm("other", nil), called: true, err: "denied by the webhook"},
		{name: "request and labels", conditions: []api.MatchCondition{
			{Name: "create", Expression: "request.operation == 'CREATE'"},
			{Name: "team", Expression: "has(object.metadata.labels) && 'team' in object.metadata.labels"}},
			obj: cm("labelled", map[string]string{"team": "a"}), called: true, err: "denied by the webhook"},
		{name: "one of two false", conditions: []api.MatchCondition{
			{Name: "create", Expression: "request.operation == 'CREATE'"},
			{Name: "team", Expression: "has(object.metadata.labels) && 'team' in object.metadata.labels"}},
			obj: cm("bare", nil), called: false},
		{name: "error fails closed", conditions: []api.MatchCondition{{Name: "data", Expression: "object.data.size == '1'"}},
			policy: &fail, obj: cm("nodata", nil), called: false,
			err: `expression 'object.data.size == '1'' resulted in error: no such key: data`, forbidden: true},
		{name: "error and false is false", conditions: []api.MatchCondition{
			{Name: "data", Expression: "object.data.size == '1'"}, {Name: "never", Expression: "false"}},
			policy: &fail, obj: cm("nodata", nil), called: false},
		{name: "error ignored", conditions: []api.MatchCondition{{Name: "data", Expression: "object.data.size == '1'"}},
			policy: &ignore, obj: cm("nodata", nil), called: false},
		{name: "no authorizer here", conditions: []api.MatchCondition{{Name: "authz", Expression: "authorizer.group('').resource('pods').check('get').allowed()"}},
			policy: &ignore, obj: cm("authz", nil), called: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			var calls atomic.Int32
			hook := webhooktest.Start(t, denyAll(&calls))
			d := webhook.New(webhook.Options{DialContext: hook.Dial, MatchConditions: crdcel.MatchConditions})
			c, err := cluster.New(ctx, cluster.Options{Admission: []cluster.AdmissionFunc{d.Validate}})
			require.NoError(t, err)
			d.SetClient(c)
			configs, err := client.For[*api.ValidatingWebhookConfiguration](c)
			require.NoError(t, err)
			none := api.SideEffectClassNone
			_, err = configs.Create(ctx, &api.ValidatingWebhookConfiguration{ObjectMeta: api.ObjectMeta{Name: "check"},
				Webhooks: []api.ValidatingWebhook{{
					Name: "check.example.com", ClientConfig: api.WebhookClientConfig{URL: &hook.URL, CABundle: hook.CABundle},
					Rules: []api.RuleWithOperations{{Operations: []api.OperationType{api.OperationAll},
						Rule: api.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}},
					SideEffects: &none, AdmissionReviewVersions: []string{"v1"}, FailurePolicy: tt.policy,
					MatchConditions: tt.conditions,
				}}})
			require.NoError(t, err)
			_, err = c.ConfigMaps().Create(ctx, tt.obj)
			if tt.err == "" {
				require.NoError(t, err)
			} else {
				require.ErrorContains(t, err, tt.err)
				require.Equal(t, tt.forbidden, client.IsForbidden(err) && !tt.called, "refused before any call: %v", err)
			}
			require.Equal(t, tt.called, calls.Load() == 1, "webhook called")
		})
	}
}

// On a DELETE the object is null and oldObject the stored one, as the
// conditions see them on kube-apiserver.
func TestMatchConditionsOnDelete(t *testing.T) {
	ctx := t.Context()
	var calls atomic.Int32
	hook := webhooktest.Start(t, denyAll(&calls))
	d := webhook.New(webhook.Options{DialContext: hook.Dial, MatchConditions: crdcel.MatchConditions})
	c, err := cluster.New(ctx, cluster.Options{Admission: []cluster.AdmissionFunc{d.Validate}})
	require.NoError(t, err)
	d.SetClient(c)
	_, err = c.ConfigMaps().Create(ctx, cm("keep", map[string]string{"keep": "true"}))
	require.NoError(t, err)
	_, err = c.ConfigMaps().Create(ctx, cm("drop", nil))
	require.NoError(t, err)
	configs, err := client.For[*api.ValidatingWebhookConfiguration](c)
	require.NoError(t, err)
	none := api.SideEffectClassNone
	_, err = configs.Create(ctx, &api.ValidatingWebhookConfiguration{ObjectMeta: api.ObjectMeta{Name: "protect"},
		Webhooks: []api.ValidatingWebhook{{
			Name: "protect.example.com", ClientConfig: api.WebhookClientConfig{URL: &hook.URL, CABundle: hook.CABundle},
			Rules: []api.RuleWithOperations{{Operations: []api.OperationType{api.OperationDelete},
				Rule: api.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}},
			SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
			MatchConditions: []api.MatchCondition{{Name: "kept", Expression: "object == null && has(oldObject.metadata.labels) && oldObject.metadata.labels.keep == 'true'"}},
		}}})
	require.NoError(t, err)
	_, err = c.ConfigMaps().Delete(ctx, "default/drop", "")
	require.NoError(t, err)
	require.Zero(t, calls.Load())
	_, err = c.ConfigMaps().Delete(ctx, "default/keep", "")
	require.ErrorContains(t, err, "denied by the webhook")
	require.EqualValues(t, 1, calls.Load())
}

func cm(name string, labels map[string]string) *api.ConfigMap {
	return &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name, Labels: labels}}
}

var _ webhook.MatchConditionsFunc = crdcel.MatchConditions
