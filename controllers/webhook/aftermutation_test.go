package webhook_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/webhook"
)

// After the mutating webhooks the cluster validates the object again, as
// kube-apiserver does: a patch that makes it invalid fails the write
// with 422; and a patch of an update's spec bumps metadata.generation.
func TestMutatingPatchValidatedAndBumpsGeneration(t *testing.T) {
	s, ca := tlsServer(t, serve(t, func(req *webhook.AdmissionRequest) *webhook.AdmissionResponse {
		var head struct {
			Metadata api.ObjectMeta `json:"metadata"`
		}
		_ = json.Unmarshal(req.Object, &head)
		obj := head.Metadata
		var ops []map[string]any
		switch {
		case req.Resource.Resource == "pods" && obj.Labels["break"] == "yes":
			ops = append(ops, map[string]any{"op": "replace", "path": "/spec/containers/0/image", "value": ""})
		case req.Resource.Resource == "deployments" && req.Operation == "UPDATE" && obj.Labels["scale"] == "yes":
			ops = append(ops, map[string]any{"op": "replace", "path": "/spec/replicas", "value": 5})
		default:
			return &webhook.AdmissionResponse{Allowed: true}
		}
		patch, _ := json.Marshal(ops)
		return &webhook.AdmissionResponse{Allowed: true, PatchType: ptr("JSONPatch"), Patch: patch}
	}))
	c := newCluster(t, webhook.Options{})
	createMutating(t, c, "m", mutatingHook("m.example.com", s.URL, ca, func(w *api.MutatingWebhook) {
		w.Rules = []api.RuleWithOperations{{Operations: []api.OperationType{api.OperationCreate, api.OperationUpdate},
			Rule: api.Rule{APIGroups: []string{"", "apps"}, APIVersions: []string{"v1"}, Resources: []string{"pods", "deployments"}}}}
	}))
	ctx := t.Context()

	_, err := c.Pods().Create(ctx, pod("default", "broken", map[string]string{"break": "yes"}))
	require.True(t, client.IsInvalid(err), "the patched pod has no image: %v", err)
	require.ErrorContains(t, err, "spec.containers[0].image")
	_, _, err = c.Pods().Get(ctx, "default/broken")
	require.True(t, client.IsNotFound(err), "%v", err)

	labels := map[string]string{"app": "web"}
	d := &api.Deployment{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web", Labels: map[string]string{}}}
	d.Spec.Replicas = ptr(int32(1))
	d.Spec.Selector = &api.LabelSelector{MatchLabels: labels}
	d.Spec.Template.Labels = labels
	d.Spec.Template.Spec.Containers = []api.Container{{Name: "c", Image: "nginx"}}
	_, err = c.Deployments().Create(ctx, d)
	require.NoError(t, err)
	require.Equal(t, int64(1), d.Generation)
	d.Labels["scale"] = "yes" // a metadata change; the webhook changes the spec
	_, err = c.Deployments().Update(ctx, d, "")
	require.NoError(t, err)
	got, _, err := c.Deployments().Get(ctx, "default/web")
	require.NoError(t, err)
	require.Equal(t, int32(5), *got.Spec.Replicas)
	require.Equal(t, int64(2), got.Generation, "the webhook's spec change bumps the generation")
}
