package apiserver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/webhook"
	"github.com/ctrlkit/ctrlkit/controllers/webhook/webhooktest"
)

// reviewer answers every AdmissionReview with the response answer
// returns (its uid filled in).
func reviewer(answer func() webhook.AdmissionResponse) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review webhook.AdmissionReview
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
			http.Error(w, "bad review", http.StatusBadRequest)
			return
		}
		resp := answer()
		resp.UID = review.Request.UID
		out, _ := json.Marshal(webhook.AdmissionReview{TypeMeta: review.TypeMeta, Response: &resp})
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
	})
}

// webhookServer is an API server over a cluster whose ConfigMap creates
// go through one validating webhook answering with answer.
func webhookServer(t *testing.T, ctx context.Context, answer func() webhook.AdmissionResponse) *apiserver.Server {
	t.Helper()
	hook := webhooktest.Start(t, reviewer(answer))
	d := webhook.New(webhook.Options{DialContext: hook.Dial})
	c, err := cluster.New(ctx, cluster.Options{Admission: []cluster.AdmissionFunc{d.Validate}})
	require.NoError(t, err)
	d.SetClient(c)
	configs, err := client.For[*api.ValidatingWebhookConfiguration](c)
	require.NoError(t, err)
	none := api.SideEffectClassNone
	_, err = configs.Create(ctx, &api.ValidatingWebhookConfiguration{ObjectMeta: api.ObjectMeta{Name: "check"},
		Webhooks: []api.ValidatingWebhook{{
			Name: "check.example.com", ClientConfig: api.WebhookClientConfig{URL: &hook.URL, CABundle: hook.CABundle},
			Rules: []api.RuleWithOperations{{Operations: []api.OperationType{api.OperationCreate},
				Rule: api.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}},
			SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
		}}})
	require.NoError(t, err)
	srv, err := apiserver.New(c, apiserver.Options{})
	require.NoError(t, err)
	return srv
}

const configMapBody = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"}}`

// A webhook's refusal is answered as kube-apiserver answers it
// (webhookerrors.ToStatusErr): the webhook's own code (400 when it gave
// none or one below 400) and reason, the message only prefixed with
// `admission webhook "NAME" denied the request`.
func TestWebhookDenialIsAnsweredWithItsOwnStatus(t *testing.T) {
	tests := []struct {
		name    string
		result  *webhook.Status
		code    int
		reason  string
		message string
	}{
		{"forbidden", &webhook.Status{Code: 403, Reason: "Forbidden", Message: "teams only"}, 403, "Forbidden",
			`admission webhook "check.example.com" denied the request: teams only`},
		{"unprocessable", &webhook.Status{Code: 422, Reason: "Invalid", Message: "bad size"}, 422, "Invalid",
			`admission webhook "check.example.com" denied the request: bad size`},
		{"no code", &webhook.Status{Message: "no"}, 400, "",
			`admission webhook "check.example.com" denied the request: no`},
		{"a code below 400", &webhook.Status{Code: 200, Reason: "Teapot"}, 400, "Teapot",
			`admission webhook "check.example.com" denied the request: Teapot`},
		{"no result", nil, 400, "",
			`admission webhook "check.example.com" denied the request without explanation`},
		{"too many", &webhook.Status{Code: 429, Reason: "TooManyRequests", Message: "slow down"}, 429, "TooManyRequests",
			`admission webhook "check.example.com" denied the request: slow down`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			srv := webhookServer(t, ctx, func() webhook.AdmissionResponse {
				return webhook.AdmissionResponse{Allowed: false, Result: tt.result}
			})
			rec := serve(srv, ctx, http.MethodPost, "/api/v1/namespaces/default/configmaps", "application/json", strings.NewReader(configMapBody))
			require.Equal(t, tt.code, rec.Code, rec.Body.String())
			var st map[string]any
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &st))
			require.Equal(t, "Status", st["kind"])
			require.Equal(t, "Failure", st["status"])
			require.EqualValues(t, tt.code, st["code"])
			require.Equal(t, tt.message, st["message"])
			if tt.reason == "" {
				require.NotContains(t, st, "reason")
			} else {
				require.Equal(t, tt.reason, st["reason"])
			}
		})
	}
}

// A webhook's warnings reach the client as Warning headers (kubectl
// prints "Warning: ..."), escaped, once each, on an admitted and on a
// refused request alike.
func TestWebhookWarningsAreWarningHeaders(t *testing.T) {
	ctx := t.Context()
	var deny atomic.Bool
	srv := webhookServer(t, ctx, func() webhook.AdmissionResponse {
		return webhook.AdmissionResponse{Allowed: !deny.Load(), Warnings: []string{`use "team" labels`, "twice", "twice", "tab\there"}}
	})
	rec := serve(srv, ctx, http.MethodPost, "/api/v1/namespaces/default/configmaps", "application/json", strings.NewReader(configMapBody))
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	require.Equal(t, []string{`299 - "use \"team\" labels"`, `299 - "twice"`}, rec.Header().Values("Warning"),
		"escaped, once each, none with a control character (kube-apiserver drops those)")

	deny.Store(true)
	rec = serve(srv, ctx, http.MethodPost, "/api/v1/namespaces/default/configmaps", "application/json",
		strings.NewReader(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"other"}}`))
	require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
	require.Len(t, rec.Header().Values("Warning"), 2)
}

// Many long warnings are bounded as kube-apiserver's recorder bounds
// them: once they pass 4,096 characters in all, every one (those before
// too) is cut to 256, and no more are taken once the total is reached.
func TestWarningsAreBounded(t *testing.T) {
	ctx := t.Context()
	srv := webhookServer(t, ctx, func() webhook.AdmissionResponse {
		var ws []string
		for i := range 100 {
			ws = append(ws, strings.Repeat(string(rune('a'+i%26)), 1000)+strconv.Itoa(i))
		}
		return webhook.AdmissionResponse{Allowed: true, Warnings: ws}
	})
	rec := serve(srv, ctx, http.MethodPost, "/api/v1/namespaces/default/configmaps", "application/json", strings.NewReader(configMapBody))
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	got := rec.Header().Values("Warning")
	// 16 warnings of 256 reach 4,096; the recorder takes one while under.
	require.Len(t, got, 16)
	for i, w := range got {
		require.Equal(t, `299 - "`+strings.Repeat(string(rune('a'+i%26)), 256)+`"`, w)
	}
}

const deprecatedCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"gizmos.crd.ctrlkit.dev"},
"spec":{"group":"crd.ctrlkit.dev","scope":"Namespaced","names":{"plural":"gizmos","singular":"gizmo","kind":"Gizmo"},
"versions":[
 {"name":"v1alpha1","served":true,"storage":false,"deprecated":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}},
 {"name":"v1beta1","served":true,"storage":false,"deprecated":true,"deprecationWarning":"v1beta1 gizmos go away in 2027","schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}},
 {"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}},
 {"name":"v2alpha1","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`

// Every request to a deprecated version of a definition's kind is
// answered with its warning, as kube-apiserver's CRD handler does: the
// version's deprecationWarning, or the default one naming the newest
// served version of at least its stability that is not deprecated
// (apiextensions-apiserver's defaultDeprecationWarning).
func TestDeprecatedCRDVersionWarns(t *testing.T) {
	ctx := t.Context()
	_, srv := newServer(t, ctx, apiserver.Options{})
	rec := serve(srv, ctx, http.MethodPost, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", strings.NewReader(deprecatedCRD))
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	require.Empty(t, rec.Header().Values("Warning"))

	rec = serve(srv, ctx, http.MethodPost, "/apis/crd.ctrlkit.dev/v1alpha1/namespaces/default/gizmos", "application/json",
		strings.NewReader(`{"apiVersion":"crd.ctrlkit.dev/v1alpha1","kind":"Gizmo","metadata":{"name":"g"}}`))
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	require.Equal(t, []string{`299 - "crd.ctrlkit.dev/v1alpha1 Gizmo is deprecated; use crd.ctrlkit.dev/v1 Gizmo"`}, rec.Header().Values("Warning"))

	rec = serve(srv, ctx, http.MethodGet, "/apis/crd.ctrlkit.dev/v1beta1/namespaces/default/gizmos/g", "", nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Equal(t, []string{`299 - "v1beta1 gizmos go away in 2027"`}, rec.Header().Values("Warning"))

	for _, v := range []string{"v1", "v2alpha1"} {
		rec = serve(srv, ctx, http.MethodGet, "/apis/crd.ctrlkit.dev/"+v+"/namespaces/default/gizmos", "", nil)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		require.Empty(t, rec.Header().Values("Warning"), v)
	}
}
