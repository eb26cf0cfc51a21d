package webhook_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/admission"
	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/webhook"
)

// A validating webhook refuses pods labelled deny=yes; the refusal is
// worded as kube-apiserver's, with the webhook's code; the review it got
// carries the request.
func TestValidatingWebhookDenies(t *testing.T) {
	var mu sync.Mutex
	var got []*webhook.AdmissionRequest
	s, ca := tlsServer(t, serve(t, func(req *webhook.AdmissionRequest) *webhook.AdmissionResponse {
		mu.Lock()
		got = append(got, req)
		mu.Unlock()
		var p api.Pod
		if err := json.Unmarshal(req.Object, &p); err != nil {
			return &webhook.AdmissionResponse{Result: &webhook.Status{Message: err.Error()}}
		}
		switch p.Labels["deny"] {
		case "yes":
			return &webhook.AdmissionResponse{Result: &webhook.Status{Code: 403, Reason: "Forbidden", Message: "no thanks"}}
		case "silently":
			return &webhook.AdmissionResponse{}
		}
		return &webhook.AdmissionResponse{Allowed: true}
	}))
	c := newCluster(t, webhook.Options{})
	createValidating(t, c, "policy", validating("deny.example.com", s.URL+"/validate", ca))
	ctx := t.Context()

	_, err := c.Pods().Create(ctx, pod("default", "bad", map[string]string{"deny": "yes"}))
	var denied *webhook.DeniedError
	require.True(t, errors.As(err, &denied), "%v", err)
	require.Equal(t, `admission webhook "deny.example.com" denied the request: no thanks`, denied.Error())
	require.Equal(t, int32(403), denied.Code)
	require.True(t, client.IsForbidden(err))

	_, err = c.Pods().Create(ctx, pod("default", "quiet", map[string]string{"deny": "silently"}))
	require.ErrorContains(t, err, `admission webhook "deny.example.com" denied the request without explanation`)
	require.True(t, client.IsBadRequest(err), "a denial without a code is 400, as kube-apiserver answers")

	p := pod("default", "good", map[string]string{"app": "web"})
	_, err = c.Pods().Create(ctx, p)
	require.NoError(t, err)
	p.Labels["deny"] = "yes"
	_, err = c.Pods().Update(ctx, p, "")
	require.True(t, errors.As(err, &denied), "%v", err)
	_, _, err = c.Pods().Get(ctx, "default/bad")
	require.True(t, client.IsNotFound(err))

	mu.Lock()
	defer mu.Unlock()
	require.Len(t, got, 4)
	create, update := got[2], got[3]
	require.NotEmpty(t, create.UID)
	require.NotEqual(t, create.UID, update.UID)
	require.Equal(t, webhook.GroupVersionKind{Version: "v1", Kind: "Pod"}, create.Kind)
	require.Equal(t, webhook.GroupVersionResource{Version: "v1", Resource: "pods"}, create.Resource)
	require.Equal(t, create.Kind, *create.RequestKind)
	require.Equal(t, create.Resource, *create.RequestResource)
	require.Equal(t, "CREATE", create.Operation)
	require.Equal(t, "good", create.Name)
	require.Equal(t, "default", create.Namespace)
	require.False(t, *create.DryRun)
	require.Nil(t, create.OldObject)
	require.JSONEq(t, `{"kind":"CreateOptions","apiVersion":"meta.k8s.io/v1"}`, string(create.Options))
	var obj map[string]any
	require.NoError(t, json.Unmarshal(create.Object, &obj))
	require.Equal(t, "v1", obj["apiVersion"])
	require.Equal(t, "Pod", obj["kind"])
	require.Equal(t, "UPDATE", update.Operation)
	require.NotNil(t, update.OldObject)
	require.JSONEq(t, `{"kind":"UpdateOptions","apiVersion":"meta.k8s.io/v1"}`, string(update.Options))
}

// A mutating webhook's JSON patch is applied before the validating
// webhooks run, and stored.
func TestMutatingWebhookPatches(t *testing.T) {
	ms, mca := tlsServer(t, serve(t, func(req *webhook.AdmissionRequest) *webhook.AdmissionResponse {
		return &webhook.AdmissionResponse{Allowed: true, PatchType: ptr("JSONPatch"), Patch: addLabel("injected", "yes"),
			Warnings: []string{"labelled"}}
	}))
	vs, vca := tlsServer(t, serve(t, func(req *webhook.AdmissionRequest) *webhook.AdmissionResponse {
		var p api.Pod
		json.Unmarshal(req.Object, &p)
		if p.Labels["injected"] != "yes" {
			return &webhook.AdmissionResponse{Result: &webhook.Status{Message: "not injected"}}
		}
		return &webhook.AdmissionResponse{Allowed: true}
	}))
	var warnings atomic.Int32
	c := newCluster(t, webhook.Options{Warn: func(_ context.Context, name, w string) {
		if name == "label.example.com" && w == "labelled" {
			warnings.Add(1)
		}
	}})
	createMutating(t, c, "inject", mutatingHook("label.example.com", ms.URL, mca))
	createValidating(t, c, "check", validating("check.example.com", vs.URL, vca))
	p := pod("default", "p", map[string]string{"app": "web"})
	_, err := c.Pods().Create(t.Context(), p)
	require.NoError(t, err)
	require.Equal(t, "yes", p.Labels["injected"])
	stored, _, err := c.Pods().Get(t.Context(), "default/p")
	require.NoError(t, err)
	require.Equal(t, map[string]string{"app": "web", "injected": "yes"}, stored.Labels)
	require.Equal(t, int32(1), warnings.Load())
}

// A mutating webhook with reinvocationPolicy IfNeeded is called once more
// when a later webhook changed the object; with Never it is not.
func TestReinvocation(t *testing.T) {
	for _, policy := range []api.ReinvocationPolicyType{api.IfNeededReinvocationPolicy, api.NeverReinvocationPolicy} {
		t.Run(string(policy), func(t *testing.T) {
			var first, second atomic.Int32
			var lastSeen atomic.Value
			fs, fca := tlsServer(t, serve(t, func(req *webhook.AdmissionRequest) *webhook.AdmissionResponse {
				first.Add(1)
				var p api.Pod
				json.Unmarshal(req.Object, &p)
				lastSeen.Store(p.Labels["second"])
				if p.Labels["first"] == "" {
					return &webhook.AdmissionResponse{Allowed: true, PatchType: ptr("JSONPatch"), Patch: addLabel("first", "yes")}
				}
				return &webhook.AdmissionResponse{Allowed: true}
			}))
			ss, sca := tlsServer(t, serve(t, func(req *webhook.AdmissionRequest) *webhook.AdmissionResponse {
				second.Add(1)
				return &webhook.AdmissionResponse{Allowed: true, PatchType: ptr("JSONPatch"), Patch: addLabel("second", "yes")}
			}))
			c := newCluster(t, webhook.Options{})
			// Configurations run by name: "a" before "b".
			createMutating(t, c, "b", mutatingHook("second.example.com", ss.URL, sca, func(w *api.MutatingWebhook) {
				w.ReinvocationPolicy = ptr(api.IfNeededReinvocationPolicy)
			}))
			createMutating(t, c, "a", mutatingHook("first.example.com", fs.URL, fca, func(w *api.MutatingWebhook) {
				w.ReinvocationPolicy = &policy
			}))
			p := pod("default", "p", map[string]string{"app": "web"})
			_, err := c.Pods().Create(t.Context(), p)
			require.NoError(t, err)
			require.Equal(t, "yes", p.Labels["first"])
			require.Equal(t, "yes", p.Labels["second"])
			require.Equal(t, int32(1), second.Load(), "nothing changed the object after the second webhook")
			if policy == api.IfNeededReinvocationPolicy {
				require.Equal(t, int32(2), first.Load())
				require.Equal(t, "yes", lastSeen.Load(), "the reinvocation sees the later webhook's change")
			} else {
				require.Equal(t, int32(1), first.Load())
			}
		})
	}
}

// A webhook that answers garbage, the wrong uid, a non-2xx status, or
// cannot be verified against its caBundle is a failed call: with
// failurePolicy Fail the write gets kube-apiserver's "failed calling
// webhook" (a 500, no 4xx sentinel); with Ignore it goes through.
func TestFailurePolicy(t *testing.T) {
	garbage, gca := tlsServer(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("<html>hello")) }))
	wrongUID, wca := tlsServer(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"nope","allowed":true}}`))
	}))
	broken, bca := tlsServer(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusBadGateway) }))
	good, _ := tlsServer(t, serve(t, allow))
	_, otherCA := selfSigned(t, "other.example.com")
	cases := []struct {
		name, url string
		ca        []byte
		want      string
	}{
		{"garbage", garbage.URL, gca, "received invalid webhook response: invalid character '<'"},
		{"wrong uid", wrongUID.URL, wca, `received invalid webhook response: expected response.uid=`},
		{"bad status", broken.URL, bca, "failed to call webhook: the server responded with the status code 502"},
		{"wrong caBundle", good.URL, otherCA, "failed to call webhook: Post"},
		{"unparsable caBundle", good.URL, []byte("not a pem"), "unable to load root certificates"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, webhook.Options{})
			createValidating(t, c, "fail", validating("fail.example.com", tc.url, tc.ca))
			createValidating(t, c, "ignore", validating("ignore.example.com", tc.url, tc.ca, func(w *api.ValidatingWebhook) {
				w.FailurePolicy = ptr(api.Ignore)
				w.ObjectSelector = &api.LabelSelector{MatchLabels: map[string]string{"policy": "ignore"}}
			}))
			// Only the Ignore webhook selects this pod: it goes through.
			_, err := c.Pods().Create(t.Context(), pod("default", "ignored", map[string]string{"policy": "ignore"}))
			require.Error(t, err, "the Fail webhook selects every pod")
			var callErr *webhook.CallError
			require.True(t, errors.As(err, &callErr), "%v", err)

			c2 := newCluster(t, webhook.Options{})
			createValidating(t, c2, "ignore", validating("ignore.example.com", tc.url, tc.ca, func(w *api.ValidatingWebhook) {
				w.FailurePolicy = ptr(api.Ignore)
			}))
			_, err = c2.Pods().Create(t.Context(), pod("default", "p", nil))
			require.NoError(t, err, "failurePolicy Ignore")

			c3 := newCluster(t, webhook.Options{})
			createValidating(t, c3, "fail", validating("fail.example.com", tc.url, tc.ca))
			_, err = c3.Pods().Create(t.Context(), pod("default", "p", nil))
			require.True(t, errors.As(err, &callErr), "%v", err)
			require.Equal(t, "fail.example.com", callErr.Webhook)
			require.Contains(t, err.Error(), `failed calling webhook "fail.example.com": `+tc.want)
			require.False(t, client.IsForbidden(err) || client.IsBadRequest(err) || client.IsInvalid(err), "a failed call is a 500: %v", err)
		})
	}
}

// namespaceSelector matches the labels of the object's namespace, and a
// Namespace's own; objectSelector the new or the old object's labels.
func TestSelectors(t *testing.T) {
	var calls atomic.Int32
	s, ca := tlsServer(t, serve(t, func(*webhook.AdmissionRequest) *webhook.AdmissionResponse {
		calls.Add(1)
		return &webhook.AdmissionResponse{Result: &webhook.Status{Code: 403, Message: "selected"}}
	}))
	c := newCluster(t, webhook.Options{})
	ctx := t.Context()
	_, err := c.Namespaces().Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "prod", Labels: map[string]string{"env": "prod"}}})
	require.NoError(t, err)
	createValidating(t, c, "ns", validating("ns.example.com", s.URL, ca, func(w *api.ValidatingWebhook) {
		w.NamespaceSelector = &api.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}
		w.Rules = append(w.Rules, api.RuleWithOperations{Operations: []api.OperationType{api.OperationAll},
			Rule: api.Rule{APIGroups: []string{""}, APIVersions: []string{"*"}, Resources: []string{"namespaces"}}})
	}))
	_, err = c.Pods().Create(ctx, pod("default", "p", nil))
	require.NoError(t, err)
	_, err = c.Pods().Create(ctx, pod("prod", "p", nil))
	require.ErrorContains(t, err, `admission webhook "ns.example.com" denied the request: selected`)
	_, err = c.Namespaces().Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "staging", Labels: map[string]string{"env": "staging"}}})
	require.NoError(t, err)
	_, err = c.Namespaces().Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "prod2", Labels: map[string]string{"env": "prod"}}})
	require.ErrorContains(t, err, "selected", "a Namespace is matched by its own labels")
	require.Equal(t, int32(2), calls.Load())

	c2 := newCluster(t, webhook.Options{})
	createValidating(t, c2, "obj", validating("obj.example.com", s.URL, ca, func(w *api.ValidatingWebhook) {
		w.ObjectSelector = &api.LabelSelector{MatchLabels: map[string]string{"checked": "yes"}}
		w.FailurePolicy = ptr(api.Fail)
	}))
	_, err = c2.Pods().Create(ctx, pod("default", "checked", map[string]string{"checked": "yes"}))
	require.ErrorContains(t, err, "selected")
	p := pod("default", "free", map[string]string{"checked": "no"})
	_, err = c2.Pods().Create(ctx, p)
	require.NoError(t, err)
	p.Labels["checked"] = "yes"
	_, err = c2.Pods().Update(ctx, p, "")
	require.ErrorContains(t, err, "selected", "the new object matches")
	require.Equal(t, int32(4), calls.Load())
}

// Rules: operations, resources and subresources, scope.
func TestRules(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	s, ca := tlsServer(t, serve(t, func(req *webhook.AdmissionRequest) *webhook.AdmissionResponse {
		mu.Lock()
		seen = append(seen, req.Operation+" "+req.Resource.Resource+"/"+req.SubResource)
		mu.Unlock()
		return &webhook.AdmissionResponse{Allowed: true}
	}))
	c := newCluster(t, webhook.Options{})
	ctx := t.Context()
	createValidating(t, c, "rules", validating("status.example.com", s.URL, ca, func(w *api.ValidatingWebhook) {
		w.Rules = []api.RuleWithOperations{
			{Operations: []api.OperationType{api.OperationUpdate}, Rule: api.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods/status"}}},
			{Operations: []api.OperationType{api.OperationAll}, Rule: api.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*"}, Scope: ptr(api.ClusterScope)}},
		}
	}))
	p := pod("default", "p", nil)
	_, err := c.Pods().Create(ctx, p)
	require.NoError(t, err)
	p.Status.Phase = api.PodRunning
	_, err = c.Pods().UpdateStatus(ctx, p)
	require.NoError(t, err)
	_, err = c.ConfigMaps().Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cm", Namespace: "default"}})
	require.NoError(t, err)
	_, err = c.Namespaces().Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "n"}})
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []string{"UPDATE pods/status", "CREATE namespaces/"}, seen)
}

// The webhook configurations themselves never go to webhooks.
func TestConfigurationsAreExempt(t *testing.T) {
	s, ca := tlsServer(t, serve(t, func(*webhook.AdmissionRequest) *webhook.AdmissionResponse {
		return &webhook.AdmissionResponse{Result: &webhook.Status{Message: "everything is denied"}}
	}))
	c := newCluster(t, webhook.Options{})
	everything := func(w *api.ValidatingWebhook) {
		w.Rules = []api.RuleWithOperations{{Operations: []api.OperationType{api.OperationAll},
			Rule: api.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*/*"}}}}
	}
	createValidating(t, c, "deny-all", validating("deny.example.com", s.URL, ca, everything))
	createValidating(t, c, "another", validating("deny2.example.com", s.URL, ca, everything))
	createMutating(t, c, "m", mutatingHook("m.example.com", s.URL, ca))
	_, err := c.ConfigMaps().Create(t.Context(), &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cm", Namespace: "default"}})
	require.ErrorContains(t, err, "everything is denied")
}

// A webhook named by a Service is called at Options.ServiceURL and its
// certificate verified for NAME.NAMESPACE.svc.
func TestServiceReference(t *testing.T) {
	cert, ca := selfSigned(t, "hook.webhooks.svc")
	s := httptestTLS(t, cert, serve(t, func(req *webhook.AdmissionRequest) *webhook.AdmissionResponse {
		return &webhook.AdmissionResponse{Result: &webhook.Status{Message: "via service"}}
	}))
	var asked atomic.Value
	c := newCluster(t, webhook.Options{ServiceURL: func(ref api.ServiceReference) (*url.URL, error) {
		def, err := webhook.DefaultServiceURL(ref)
		asked.Store(def.String())
		u, _ := url.Parse(s.URL)
		u.Path = def.Path
		return u, err
	}})
	createValidating(t, c, "svc", validating("svc.example.com", "", ca, func(w *api.ValidatingWebhook) {
		w.ClientConfig.URL = nil
		w.ClientConfig.Service = &api.ServiceReference{Namespace: "webhooks", Name: "hook", Path: ptr("/validate"), Port: ptr(int32(8443))}
	}))
	_, err := c.Pods().Create(t.Context(), pod("default", "p", nil))
	require.ErrorContains(t, err, `admission webhook "svc.example.com" denied the request: via service`)
	require.Equal(t, "https://hook.webhooks.svc:8443/validate", asked.Load())
}

// A dry run reaches a webhook with sideEffects None marked dryRun.
func TestDryRun(t *testing.T) {
	var dry atomic.Bool
	s, ca := tlsServer(t, serve(t, func(req *webhook.AdmissionRequest) *webhook.AdmissionResponse {
		dry.Store(*req.DryRun)
		return &webhook.AdmissionResponse{Allowed: true}
	}))
	d := webhook.New(webhook.Options{})
	c := newCluster(t, webhook.Options{})
	d.SetClient(c)
	createValidating(t, c, "v", validating("v.example.com", s.URL, ca, func(w *api.ValidatingWebhook) {
		w.SideEffects = ptr(api.SideEffectClassNoneOnDryRun)
	}))
	p := pod("default", "p", nil)
	err := d.Validate(t.Context(), admission.Attributes{Operation: admission.Create, Resource: "pods", Object: p,
		Kind: p.GroupVersionKind(), Namespace: "default", Name: "p", DryRun: true})
	require.NoError(t, err)
	require.True(t, dry.Load())
}

// A patch that renames the object fails the write; one that is not a
// valid JSON patch for the object too, whatever the failure policy (as
// kube-apiserver answers an unappliable patch with an internal error).
func TestBadPatches(t *testing.T) {
	for name, p := range map[string]string{
		"rename":       `[{"op":"replace","path":"/metadata/name","value":"other"}]`,
		"missing path": `[{"op":"replace","path":"/spec/nothing/here","value":1}]`,
	} {
		t.Run(name, func(t *testing.T) {
			s, ca := tlsServer(t, serve(t, func(*webhook.AdmissionRequest) *webhook.AdmissionResponse {
				return &webhook.AdmissionResponse{Allowed: true, PatchType: ptr("JSONPatch"), Patch: []byte(p)}
			}))
			c := newCluster(t, webhook.Options{})
			createMutating(t, c, "m", mutatingHook("m.example.com", s.URL, ca, func(w *api.MutatingWebhook) { w.FailurePolicy = ptr(api.Ignore) }))
			_, err := c.Pods().Create(t.Context(), pod("default", "p", nil))
			require.ErrorContains(t, err, `admission webhook "m.example.com"`)
			_, _, err = c.Pods().Get(t.Context(), "default/p")
			require.True(t, client.IsNotFound(err))
		})
	}
}
