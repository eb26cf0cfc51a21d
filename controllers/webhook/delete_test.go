package webhook_test

import (
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/webhook"
)

// A validating webhook with a DELETE rule is called on deletes, as
// kube-apiserver calls it: operation DELETE, object null, the stored
// object as oldObject, the DeleteOptions; its refusal fails the delete
// with its code (400 without one) and keeps the object.
func TestValidatingWebhookOnDelete(t *testing.T) {
	var mu sync.Mutex
	var got []*webhook.AdmissionRequest
	s, ca := tlsServer(t, serve(t, func(req *webhook.AdmissionRequest) *webhook.AdmissionResponse {
		mu.Lock()
		got = append(got, req)
		mu.Unlock()
		var old api.Pod
		if err := json.Unmarshal(req.OldObject, &old); err != nil {
			return &webhook.AdmissionResponse{Result: &webhook.Status{Message: err.Error()}}
		}
		switch old.Labels["protected"] {
		case "true":
			return &webhook.AdmissionResponse{Result: &webhook.Status{Code: 403, Reason: "Forbidden", Message: "pod " + old.Name + " is protected"}}
		case "quietly":
			return &webhook.AdmissionResponse{}
		}
		return &webhook.AdmissionResponse{Allowed: true}
	}))
	c := newCluster(t, webhook.Options{})
	createValidating(t, c, "protect", validating("protect.example.com", s.URL, ca, func(w *api.ValidatingWebhook) {
		w.Rules = podRule(api.OperationDelete)
	}))
	ctx := t.Context()
	for name, v := range map[string]string{"keep": "true", "quiet": "quietly", "drop": ""} {
		_, err := c.Pods().Create(ctx, pod("default", name, map[string]string{"protected": v}))
		require.NoError(t, err)
	}
	require.Empty(t, got, "the webhook only handles DELETE")

	_, err := c.Pods().DeleteWith(ctx, "default/keep", cluster.DeleteOptions{PropagationPolicy: cluster.DeletePropagationForeground})
	var denied *webhook.DeniedError
	require.True(t, errors.As(err, &denied), "%v", err)
	require.Equal(t, `admission webhook "protect.example.com" denied the request: pod keep is protected`, denied.Error())
	require.True(t, client.IsForbidden(err), "%v", err)
	_, _, err = c.Pods().Get(ctx, "default/keep")
	require.NoError(t, err, "a refused delete keeps the object")

	require.Len(t, got, 1)
	req := got[0]
	require.Equal(t, "DELETE", req.Operation)
	require.Equal(t, "keep", req.Name)
	require.Equal(t, "default", req.Namespace)
	require.Equal(t, webhook.GroupVersionResource{Version: "v1", Resource: "pods"}, req.Resource)
	require.JSONEq(t, "null", string(req.Object))
	var old api.Pod
	require.NoError(t, json.Unmarshal(req.OldObject, &old))
	require.Equal(t, "keep", old.Name)
	require.NotEmpty(t, old.UID)
	require.JSONEq(t, `{"kind":"DeleteOptions","apiVersion":"meta.k8s.io/v1","propagationPolicy":"Foreground"}`, string(req.Options))

	_, err = c.Pods().Delete(ctx, "default/quiet", "")
	require.ErrorContains(t, err, `admission webhook "protect.example.com" denied the request without explanation`)
	require.True(t, client.IsBadRequest(err), "a denial without a code is 400: %v", err)

	_, err = c.Pods().DeleteWith(ctx, "default/drop", cluster.DeleteOptions{GracePeriodSeconds: ptr(int64(0))})
	require.NoError(t, err)
	_, _, err = c.Pods().Get(ctx, "default/drop")
	require.True(t, client.IsNotFound(err), "%v", err)
	require.JSONEq(t, `{"kind":"DeleteOptions","apiVersion":"meta.k8s.io/v1","gracePeriodSeconds":0}`, string(got[len(got)-1].Options))
}

// A mutating webhook is called on DELETE too, with nothing to patch: a
// patch is refused, as kube-apiserver refuses it.
func TestMutatingWebhookOnDelete(t *testing.T) {
	var mu sync.Mutex
	var ops []string
	s, ca := tlsServer(t, serve(t, func(req *webhook.AdmissionRequest) *webhook.AdmissionResponse {
		mu.Lock()
		ops = append(ops, req.Operation)
		mu.Unlock()
		if req.Name == "patched" {
			return &webhook.AdmissionResponse{Allowed: true, PatchType: ptr("JSONPatch"), Patch: addLabel("x", "y")}
		}
		return &webhook.AdmissionResponse{Allowed: true}
	}))
	c := newCluster(t, webhook.Options{})
	createMutating(t, c, "m", mutatingHook("m.example.com", s.URL, ca, func(w *api.MutatingWebhook) {
		w.Rules = podRule(api.OperationDelete)
	}))
	ctx := t.Context()
	for _, name := range []string{"plain", "patched"} {
		_, err := c.Pods().Create(ctx, pod("default", name, map[string]string{"a": "b"}))
		require.NoError(t, err)
	}
	_, err := c.Pods().Delete(ctx, "default/plain", "")
	require.NoError(t, err)
	_, err = c.Pods().Delete(ctx, "default/patched", "")
	require.ErrorContains(t, err, `admission webhook "m.example.com" attempted to modify the object, which is not supported for this operation`)
	_, _, err = c.Pods().Get(ctx, "default/patched")
	require.NoError(t, err)
	require.Equal(t, []string{"DELETE", "DELETE"}, ops)
}
