package cluster_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

func ptrTo[V any](v V) *V { return &v }

// validWebhook returns a webhook that passes validation.
func validWebhook(name string) api.ValidatingWebhook {
	return api.ValidatingWebhook{
		Name:         name,
		ClientConfig: api.WebhookClientConfig{URL: ptrTo("https://example.com/validate")},
		Rules: []api.RuleWithOperations{{Operations: []api.OperationType{api.OperationCreate},
			Rule: api.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}},
		SideEffects:             ptrTo(api.SideEffectClassNone),
		AdmissionReviewVersions: []string{"v1"},
	}
}

// Cases ported from kube's
// k8s.io/kubernetes/pkg/apis/admissionregistration/validation/validation_test.go
// (TestValidateValidatingWebhookConfiguration), each with the field path,
// type and message kube-apiserver reports; they run through Create, so
// they get the 422 Invalid the API server answers.
func TestWebhookConfigurationValidationPorted(t *testing.T) {
	ctx := context.Background()
	rule := func(mutate func(r *api.RuleWithOperations)) func(w *api.ValidatingWebhook) {
		return func(w *api.ValidatingWebhook) { mutate(&w.Rules[0]) }
	}
	service := func(path *string, port *int32) func(w *api.ValidatingWebhook) {
		return func(w *api.ValidatingWebhook) {
			w.ClientConfig = api.WebhookClientConfig{Service: &api.ServiceReference{Namespace: "ns", Name: "n", Path: path, Port: port}}
		}
	}
	cases := []struct {
		name   string
		mutate func(w *api.ValidatingWebhook)
		field  string // "" when valid
		typ    cluster.FieldErrorType
		detail string
	}{
		{"valid", func(*api.ValidatingWebhook) {}, "", "", ""},
		{"name needs three segments", func(w *api.ValidatingWebhook) { w.Name = "k8s.io" }, "webhooks[0].name", cluster.FieldInvalid, "should be a domain with at least three segments separated by dots"},
		{"name required", func(w *api.ValidatingWebhook) { w.Name = "" }, "webhooks[0].name", cluster.FieldRequired, ""},
		{"operations not empty", rule(func(r *api.RuleWithOperations) { r.Operations = nil }), "webhooks[0].rules[0].operations", cluster.FieldRequired, ""},
		{"empty operation", rule(func(r *api.RuleWithOperations) { r.Operations = []api.OperationType{""} }), "webhooks[0].rules[0].operations[0]", cluster.FieldUnsupported, `supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"`},
		{"operation PATCH", rule(func(r *api.RuleWithOperations) { r.Operations = []api.OperationType{"PATCH"} }), "webhooks[0].rules[0].operations[0]", cluster.FieldUnsupported, ""},
		{"wildcard operation mixed", rule(func(r *api.RuleWithOperations) { r.Operations = []api.OperationType{"*", "CREATE"} }), "webhooks[0].rules[0].operations", cluster.FieldInvalid, "if '*' is present, must not specify other operations"},
		{"apiGroups required", rule(func(r *api.RuleWithOperations) { r.APIGroups = nil }), "webhooks[0].rules[0].apiGroups", cluster.FieldRequired, ""},
		{"wildcard apiGroups mixed", rule(func(r *api.RuleWithOperations) { r.APIGroups = []string{"*", "a"} }), "webhooks[0].rules[0].apiGroups", cluster.FieldInvalid, "if '*' is present, must not specify other API groups"},
		{"empty apiVersion", rule(func(r *api.RuleWithOperations) { r.APIVersions = []string{"v1", ""} }), "webhooks[0].rules[0].apiVersions[1]", cluster.FieldRequired, ""},
		{"resources required", rule(func(r *api.RuleWithOperations) { r.Resources = nil }), "webhooks[0].rules[0].resources", cluster.FieldRequired, ""},
		{"* with subresources", rule(func(r *api.RuleWithOperations) { r.Resources = []string{"*", "a/b", "a/*", "*/b"} }), "", "", ""},
		{"* with plain resources", rule(func(r *api.RuleWithOperations) { r.Resources = []string{"*", "a"} }), "webhooks[0].rules[0].resources", cluster.FieldInvalid, "if '*' is present, must not specify other resources without subresources"},
		{"*/* with others", rule(func(r *api.RuleWithOperations) { r.Resources = []string{"*/*", "a"} }), "webhooks[0].rules[0].resources", cluster.FieldInvalid, "if '*/*' is present, must not specify other resources"},
		{"a/* with a/x", rule(func(r *api.RuleWithOperations) { r.Resources = []string{"a/*", "a/x"} }), "webhooks[0].rules[0].resources[1]", cluster.FieldInvalid, "if 'a/*' is present, must not specify a/x"},
		{"*/x with a/x", rule(func(r *api.RuleWithOperations) { r.Resources = []string{"*/x", "a/x"} }), "webhooks[0].rules[0].resources[1]", cluster.FieldInvalid, "if '*/x' is present, must not specify a/x"},
		{"scope", rule(func(r *api.RuleWithOperations) { r.Scope = ptrTo(api.ScopeType("Global")) }), "webhooks[0].rules[0].scope", cluster.FieldUnsupported, `supported values: "*", "Cluster", "Namespaced"`},
		{"failurePolicy", func(w *api.ValidatingWebhook) { w.FailurePolicy = ptrTo(api.FailurePolicyType("other")) }, "webhooks[0].failurePolicy", cluster.FieldUnsupported, `supported values: "Fail", "Ignore"`},
		{"matchPolicy", func(w *api.ValidatingWebhook) { w.MatchPolicy = ptrTo(api.MatchPolicyType("other")) }, "webhooks[0].matchPolicy", cluster.FieldUnsupported, `supported values: "Equivalent", "Exact"`},
		{"sideEffects required", func(w *api.ValidatingWebhook) { w.SideEffects = nil }, "webhooks[0].sideEffects", cluster.FieldRequired, "must specify one of None, NoneOnDryRun"},
		{"sideEffects Some", func(w *api.ValidatingWebhook) { w.SideEffects = ptrTo(api.SideEffectClassSome) }, "webhooks[0].sideEffects", cluster.FieldUnsupported, `supported values: "None", "NoneOnDryRun"`},
		{"neither url nor service", func(w *api.ValidatingWebhook) { w.ClientConfig.URL = nil }, "webhooks[0].clientConfig", cluster.FieldRequired, "exactly one of url or service is required"},
		{"both url and service", func(w *api.ValidatingWebhook) {
			w.ClientConfig.Service = &api.ServiceReference{Namespace: "ns", Name: "n"}
		}, "webhooks[0].clientConfig", cluster.FieldRequired, "exactly one of url or service is required"},
		{"blank url", func(w *api.ValidatingWebhook) { w.ClientConfig.URL = ptrTo("") }, "webhooks[0].clientConfig.url", cluster.FieldInvalid, "'https' is the only allowed URL scheme; desired format: https://host[/path]"},
		{"http url", func(w *api.ValidatingWebhook) { w.ClientConfig.URL = ptrTo("http://example.com") }, "webhooks[0].clientConfig.url", cluster.FieldInvalid, "'https' is the only allowed URL scheme"},
		{"url with user", func(w *api.ValidatingWebhook) { w.ClientConfig.URL = ptrTo("https://u@example.com") }, "webhooks[0].clientConfig.url", cluster.FieldInvalid, "user information is not permitted in the URL"},
		{"url with fragment", func(w *api.ValidatingWebhook) { w.ClientConfig.URL = ptrTo("https://example.com/#bookmark") }, "webhooks[0].clientConfig.url", cluster.FieldInvalid, "fragments are not permitted in the URL"},
		{"url with query", func(w *api.ValidatingWebhook) { w.ClientConfig.URL = ptrTo("https://example.com?arg=value") }, "webhooks[0].clientConfig.url", cluster.FieldInvalid, "query parameters are not permitted in the URL"},
		{"service path //", service(ptrTo("//"), nil), "webhooks[0].clientConfig.service.path", cluster.FieldInvalid, "segment[0] may not be empty"},
		{"service path without slash", service(ptrTo("foo"), nil), "webhooks[0].clientConfig.service.path", cluster.FieldInvalid, "must start with a '/'"},
		{"service path /", service(ptrTo("/"), nil), "", "", ""},
		{"service path /foo/", service(ptrTo("/foo/"), nil), "", "", ""},
		{"service path invalid chars", service(ptrTo("/apis/foo.bar/v1alpha1/--bad"), nil), "webhooks[0].clientConfig.service.path", cluster.FieldInvalid, "segment[3]: a lowercase RFC 1123 subdomain"},
		{"service path empty segment", service(ptrTo("/foo//bar/"), nil), "webhooks[0].clientConfig.service.path", cluster.FieldInvalid, "segment[1] may not be empty"},
		{"service port 0", service(nil, ptrTo(int32(0))), "webhooks[0].clientConfig.service.port", cluster.FieldInvalid, "port is not valid"},
		{"service port 65536", service(nil, ptrTo(int32(65536))), "webhooks[0].clientConfig.service.port", cluster.FieldInvalid, "port is not valid"},
		{"timeout 31", func(w *api.ValidatingWebhook) { w.TimeoutSeconds = ptrTo(int32(31)) }, "webhooks[0].timeoutSeconds", cluster.FieldInvalid, "the timeout value must be between 1 and 30 seconds"},
		{"timeout 0", func(w *api.ValidatingWebhook) { w.TimeoutSeconds = ptrTo(int32(0)) }, "webhooks[0].timeoutSeconds", cluster.FieldInvalid, "the timeout value must be between 1 and 30 seconds"},
		{"timeout 30", func(w *api.ValidatingWebhook) { w.TimeoutSeconds = ptrTo(int32(30)) }, "", "", ""},
		{"admissionReviewVersions required", func(w *api.ValidatingWebhook) { w.AdmissionReviewVersions = nil }, "webhooks[0].admissionReviewVersions", cluster.FieldRequired, "must specify one of v1, v1beta1"},
		{"admissionReviewVersions unknown", func(w *api.ValidatingWebhook) { w.AdmissionReviewVersions = []string{"invalid-v1"} }, "webhooks[0].admissionReviewVersions", cluster.FieldInvalid, "must include at least one of v1, v1beta1"},
		{"admissionReviewVersions duplicate", func(w *api.ValidatingWebhook) { w.AdmissionReviewVersions = []string{"v1", "v1"} }, "webhooks[0].admissionReviewVersions[1]", cluster.FieldInvalid, "duplicate version"},
		{"admissionReviewVersions v1beta1", func(w *api.ValidatingWebhook) { w.AdmissionReviewVersions = []string{"v1beta1"} }, "", "", ""},
		{"selector", func(w *api.ValidatingWebhook) {
			w.NamespaceSelector = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "a", Operator: "Bogus"}}}
		}, "webhooks[0].namespaceSelector", cluster.FieldInvalid, ""},
		{"matchCondition name", func(w *api.ValidatingWebhook) { w.MatchConditions = []api.MatchCondition{{Expression: "true"}} }, "webhooks[0].matchConditions[0].name", cluster.FieldRequired, ""},
		{"matchCondition expression", func(w *api.ValidatingWebhook) { w.MatchConditions = []api.MatchCondition{{Name: "a"}} }, "webhooks[0].matchConditions[0].expression", cluster.FieldRequired, ""},
		{"matchCondition stored", func(w *api.ValidatingWebhook) {
			w.MatchConditions = []api.MatchCondition{{Name: "a", Expression: "true"}}
		}, "", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newMemory(t, cluster.Options{})
			res, err := client.For[*api.ValidatingWebhookConfiguration](c)
			require.NoError(t, err)
			w := validWebhook("a.example.com")
			tc.mutate(&w)
			_, err = res.Create(ctx, &api.ValidatingWebhookConfiguration{ObjectMeta: api.ObjectMeta{Name: "cfg"}, Webhooks: []api.ValidatingWebhook{w}})
			if tc.field == "" {
				require.NoError(t, err)
				return
			}
			var inv *cluster.InvalidError
			require.True(t, errors.As(err, &inv), "want Invalid, got %v", err)
			fe, ok := inv.Field(tc.field)
			require.True(t, ok, "no error at %s: %v", tc.field, err)
			require.Equal(t, tc.typ, fe.Type, "%v", err)
			require.True(t, strings.Contains(fe.Detail, tc.detail), "detail %q, want %q", fe.Detail, tc.detail)
		})
	}
}

// Webhook names are unique within a configuration, and the mutating kind
// validates its reinvocationPolicy.
func TestWebhookConfigurationDuplicatesAndReinvocation(t *testing.T) {
	ctx := context.Background()
	c := newMemory(t, cluster.Options{})
	vres, err := client.For[*api.ValidatingWebhookConfiguration](c)
	require.NoError(t, err)
	_, err = vres.Create(ctx, &api.ValidatingWebhookConfiguration{ObjectMeta: api.ObjectMeta{Name: "dup"},
		Webhooks: []api.ValidatingWebhook{validWebhook("a.example.com"), validWebhook("a.example.com")}})
	var inv *cluster.InvalidError
	require.True(t, errors.As(err, &inv), "%v", err)
	fe, ok := inv.Field("webhooks[1].name")
	require.True(t, ok, "%v", err)
	require.Equal(t, cluster.FieldDuplicate, fe.Type)

	mres, err := client.For[*api.MutatingWebhookConfiguration](c)
	require.NoError(t, err)
	v := validWebhook("m.example.com")
	m := api.MutatingWebhook{Name: v.Name, ClientConfig: v.ClientConfig, Rules: v.Rules, SideEffects: v.SideEffects,
		AdmissionReviewVersions: v.AdmissionReviewVersions, ReinvocationPolicy: ptrTo(api.ReinvocationPolicyType("Always"))}
	_, err = mres.Create(ctx, &api.MutatingWebhookConfiguration{ObjectMeta: api.ObjectMeta{Name: "m"}, Webhooks: []api.MutatingWebhook{m}})
	require.True(t, errors.As(err, &inv), "%v", err)
	fe, ok = inv.Field("webhooks[0].reinvocationPolicy")
	require.True(t, ok, "%v", err)
	require.Equal(t, cluster.FieldUnsupported, fe.Type)
}

// The defaults of admissionregistration/v1: failurePolicy Fail,
// matchPolicy Equivalent, empty selectors, timeoutSeconds 10, scope "*",
// service port 443, reinvocationPolicy Never.
func TestWebhookConfigurationDefaults(t *testing.T) {
	ctx := context.Background()
	c := newMemory(t, cluster.Options{})
	mres, err := client.For[*api.MutatingWebhookConfiguration](c)
	require.NoError(t, err)
	v := validWebhook("m.example.com")
	m := &api.MutatingWebhookConfiguration{ObjectMeta: api.ObjectMeta{Name: "m"}, Webhooks: []api.MutatingWebhook{{
		Name: v.Name, ClientConfig: api.WebhookClientConfig{Service: &api.ServiceReference{Namespace: "ns", Name: "svc"}},
		Rules: v.Rules, SideEffects: v.SideEffects, AdmissionReviewVersions: v.AdmissionReviewVersions}}}
	_, err = mres.Create(ctx, m)
	require.NoError(t, err)
	got, _, err := mres.Get(ctx, "m")
	require.NoError(t, err)
	w := got.Webhooks[0]
	require.Equal(t, api.Fail, *w.FailurePolicy)
	require.Equal(t, api.Equivalent, *w.MatchPolicy)
	require.Equal(t, &api.LabelSelector{}, w.NamespaceSelector)
	require.Equal(t, &api.LabelSelector{}, w.ObjectSelector)
	require.Equal(t, int32(10), *w.TimeoutSeconds)
	require.Equal(t, api.AllScopes, *w.Rules[0].Scope)
	require.Equal(t, int32(443), *w.ClientConfig.Service.Port)
	require.Equal(t, api.NeverReinvocationPolicy, *w.ReinvocationPolicy)
}
