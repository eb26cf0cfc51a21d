package apiserver_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// The eviction subresource of pods as kubectl drain posts it: discovery
// lists pods/eviction (policy/v1 Eviction); a budget with no allowance is
// 429 TooManyRequests with kube's message and DisruptionBudget cause; one
// with an allowance lets the pod go (201 Success, DisruptionTarget
// condition, budget charged); a pod under two budgets is 500 with kube's
// message; malformed bodies are 400 with a Status.
func TestEvictionSubresource(t *testing.T) {
	c, ts := start(t, cluster.Options{})
	ctx := t.Context()
	const pods = "/api/v1/namespaces/default/pods"

	r := do(t, ts, "GET", "/api/v1", "", "")
	require.Equal(t, 200, r.code)
	require.Contains(t, r.raw, `{"name":"pods/eviction","singularName":"","namespaced":true,"group":"policy","version":"v1","kind":"Eviction","verbs":["create"]}`)

	for _, name := range []string{"a", "b"} {
		require.Equal(t, 201, do(t, ts, "POST", pods, jsonCT, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"`+name+`","labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"i"}]}}`).code)
		p, _, err := c.Pods().Get(ctx, "default/"+name)
		require.NoError(t, err)
		p.Status.Phase = api.PodRunning
		p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}
		_, err = c.Pods().UpdateStatus(ctx, p)
		require.NoError(t, err)
	}
	pdbs, err := client.For[*api.PodDisruptionBudget](c)
	require.NoError(t, err)
	two := api.FromInt32(2)
	b := &api.PodDisruptionBudget{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: api.PodDisruptionBudgetSpec{MinAvailable: &two, Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
	_, err = pdbs.Create(ctx, b)
	require.NoError(t, err)
	b.Status = api.PodDisruptionBudgetStatus{ObservedGeneration: 1, CurrentHealthy: 2, DesiredHealthy: 2, ExpectedPods: 2}
	_, err = pdbs.UpdateStatus(ctx, b)
	require.NoError(t, err)

	evict := func(name, body string) response { return do(t, ts, "POST", pods+"/"+name+"/eviction", jsonCT, body) }
	body := func(apiVersion, name string) string {
		return `{"apiVersion":"` + apiVersion + `","kind":"Eviction","metadata":{"name":"` + name + `","namespace":"default"}}`
	}

	r = evict("a", body("policy/v1", "a"))
	require.Equal(t, 429, r.code, r.raw)
	require.JSONEq(t, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
		"message":"Cannot evict pod as it would violate the pod's disruption budget.","reason":"TooManyRequests",
		"details":{"causes":[{"reason":"DisruptionBudget","message":"The disruption budget web needs 2 healthy pods and has 2 currently"}]},
		"code":429}`, r.raw)

	// Bad bodies and methods.
	require.Equal(t, 400, evict("a", body("policy/v1", "b")).code, "name mismatch")
	r = evict("a", body("policy/v1", "b"))
	require.Equal(t, "name in URL does not match name in Eviction object", r.body["message"])
	require.Equal(t, "BadRequest", r.body["reason"])
	require.Equal(t, 400, evict("a", `{"metadata":{"name":"a"}}`).code, "no kind")
	require.Equal(t, 400, evict("a", body("apps/v1", "a")).code, "wrong group")
	require.Equal(t, 400, evict("a", `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"a","namespace":"other"}}`).code)
	require.Equal(t, 400, evict("a", `{"apiVersion":"policy/v1","kind":"Eviction",`).code, "truncated")
	require.Equal(t, 429, evict("a", `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"a"},"deleteOptions":{"dryRun":["All"]}}`).code, "a dry run checks the budget")
	require.Equal(t, 405, do(t, ts, "GET", pods+"/a/eviction", "", "").code)
	require.Equal(t, 404, evict("missing", body("policy/v1", "missing")).code)
	require.Equal(t, 404, do(t, ts, "POST", "/api/v1/namespaces/default/configmaps/x/eviction", jsonCT, body("policy/v1", "x")).code)

	// The controller allows one: a v1beta1 body is accepted too.
	b, _, err = pdbs.Get(ctx, "default/web")
	require.NoError(t, err)
	b.Status.CurrentHealthy, b.Status.DesiredHealthy, b.Status.DisruptionsAllowed = 2, 1, 1
	_, err = pdbs.UpdateStatus(ctx, b)
	require.NoError(t, err)
	r = evict("a", `{"apiVersion":"policy/v1beta1","kind":"Eviction","metadata":{"name":"a"},"deleteOptions":{"gracePeriodSeconds":0}}`)
	require.Equal(t, 201, r.code, r.raw)
	require.JSONEq(t, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}`, r.raw)
	_, _, err = c.Pods().Get(ctx, "default/a")
	require.True(t, client.IsNotFound(err), "deleted with grace 0")
	b, _, err = pdbs.Get(ctx, "default/web")
	require.NoError(t, err)
	require.Equal(t, int32(0), b.Status.DisruptionsAllowed)
	require.Contains(t, b.Status.DisruptedPods, "a")

	// A second budget over the same pods.
	_, err = pdbs.Create(ctx, &api.PodDisruptionBudget{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web2"},
		Spec: api.PodDisruptionBudgetSpec{MinAvailable: &two, Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}})
	require.NoError(t, err)
	r = evict("b", body("policy/v1", "b"))
	require.Equal(t, 500, r.code, r.raw)
	require.JSONEq(t, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
		"message":"This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.","code":500}`, r.raw)
}
