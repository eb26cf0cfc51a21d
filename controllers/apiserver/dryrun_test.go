package apiserver_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/admission"
	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/resourcequota"
	"github.com/ctrlkit/ctrlkit/source"
)

// dryRunRecorder is a mutating and a validating admission plugin that
// labels what it admits and records each write's DryRun.
type dryRunRecorder struct {
	mu   sync.Mutex
	seen []bool
}

func (d *dryRunRecorder) mutate(_ context.Context, a admission.Attributes) error {
	d.mu.Lock()
	d.seen = append(d.seen, a.DryRun)
	d.mu.Unlock()
	if a.Object != nil && a.Resource == "configmaps" {
		m := a.Object.GetObjectMeta()
		if m.Labels == nil {
			m.Labels = map[string]string{}
		}
		m.Labels["mutated"] = "yes"
	}
	return nil
}

func (d *dryRunRecorder) validate(_ context.Context, a admission.Attributes) error {
	if a.Object != nil && a.Object.GetObjectMeta().Labels["refuse"] == "yes" {
		return &admission.ForbiddenError{Message: "refused by the test plugin"}
	}
	return nil
}

func (d *dryRunRecorder) all() []bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]bool(nil), d.seen...)
}

// storeVersions returns the cluster's resourceVersions per kind: a dry
// run must leave them all as they are (nothing written, no watch event).
func storeVersions(t *testing.T, c *cluster.Cluster) map[string]string {
	t.Helper()
	v, err := c.ResourceVersions(t.Context())
	require.NoError(t, err)
	return v
}

// dryRun=All on every write path, as kube-apiserver: admission (which
// sees DryRun) and validation run, the answer is the object as it would
// be stored, and nothing is stored.
func TestDryRunEveryWritePath(t *testing.T) {
	rec := &dryRunRecorder{}
	quota := resourcequota.NewAdmission()
	c, ts := start(t, cluster.Options{
		Mutating:  []admission.MutatingFunc{rec.mutate},
		Admission: []admission.ValidatingFunc{rec.validate, quota.Admit},
	})
	require.NoError(t, quota.SetClient(c))
	ctx := t.Context()
	const cms = "/api/v1/namespaces/default/configmaps"
	const deps = "/apis/apps/v1/namespaces/default/deployments"
	const pods = "/api/v1/namespaces/default/pods"

	r := do(t, ts, "POST", "/api/v1/namespaces/default/resourcequotas", jsonCT,
		`{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"q"},"spec":{"hard":{"configmaps":"10","pods":"10"}}}`)
	require.Equal(t, http.StatusCreated, r.code, r.raw)
	r = do(t, ts, "PUT", "/api/v1/namespaces/default/resourcequotas/q/status", jsonCT,
		`{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"q","resourceVersion":"`+meta(r)["resourceVersion"].(string)+`"},"spec":{"hard":{"configmaps":"10","pods":"10"}},"status":{"hard":{"configmaps":"10","pods":"10"},"used":{"configmaps":"0","pods":"0"}}}`)
	require.Equal(t, http.StatusOK, r.code, r.raw)
	require.Equal(t, 201, do(t, ts, "POST", cms, jsonCT, cm).code)
	require.Equal(t, 201, do(t, ts, "POST", deps, jsonCT,
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"d"}},"template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`).code)
	require.Equal(t, 201, do(t, ts, "POST", pods, jsonCT,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","finalizers":["test/keep"]},"spec":{"containers":[{"name":"c","image":"i"}]}}`).code)
	usedBefore := func() api.ResourceList {
		q, _, err := c.ResourceQuotas().Get(ctx, "default/q")
		require.NoError(t, err)
		return q.Status.Used
	}()
	before := storeVersions(t, c)
	seenBefore := len(rec.all())

	// Create: generateName resolved, uid and creationTimestamp set,
	// mutated, no resourceVersion; nothing stored, quota not charged.
	r = do(t, ts, "POST", cms+"?dryRun=All", jsonCT,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"gen-"},"data":{"a":"1"}}`)
	require.Equal(t, http.StatusCreated, r.code, r.raw)
	name := meta(r)["name"].(string)
	require.Regexp(t, `^gen-[a-z0-9]{5}$`, name)
	require.NotEmpty(t, meta(r)["uid"])
	require.NotEmpty(t, meta(r)["creationTimestamp"])
	require.Nil(t, meta(r)["resourceVersion"])
	require.Equal(t, map[string]any{"mutated": "yes"}, meta(r)["labels"])
	require.Equal(t, 404, do(t, ts, "GET", cms+"/"+name, "", "").code)
	// A taken name, an invalid object and an admission refusal fail as
	// without dryRun.
	requireStatus(t, do(t, ts, "POST", cms+"?dryRun=All", jsonCT, cm), 409, "AlreadyExists")
	requireStatus(t, do(t, ts, "POST", cms+"?dryRun=All", jsonCT, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"Bad_Name"}}`), 422, "Invalid")
	requireStatus(t, do(t, ts, "POST", cms+"?dryRun=All", jsonCT, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"r","labels":{"refuse":"yes"}}}`), 403, "Forbidden")

	// Update and every patch type: the changed object answered, the
	// stored one's resourceVersion kept.
	stored, rv, err := c.ConfigMaps().Get(ctx, "default/cm")
	require.NoError(t, err)
	r = do(t, ts, "PUT", cms+"/cm?dryRun=All", jsonCT, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"put"}}`)
	require.Equal(t, 200, r.code, r.raw)
	require.Equal(t, map[string]any{"a": "put"}, r.body["data"])
	require.Equal(t, rv, meta(r)["resourceVersion"])
	for _, p := range []struct{ ct, body string }{
		{"application/merge-patch+json", `{"data":{"a":"merge"}}`},
		{"application/strategic-merge-patch+json", `{"data":{"a":"merge"}}`},
		{"application/json-patch+json", `[{"op":"replace","path":"/data/a","value":"merge"}]`},
	} {
		r = do(t, ts, "PATCH", cms+"/cm?dryRun=All", p.ct, p.body)
		require.Equal(t, 200, r.code, r.raw)
		require.Equal(t, map[string]any{"a": "merge"}, r.body["data"], p.ct)
	}
	requireStatus(t, do(t, ts, "PATCH", cms+"/cm?dryRun=All", "application/merge-patch+json", `{"metadata":{"labels":{"refuse":"yes"}}}`), 403, "Forbidden")

	// Status and scale subresources.
	r = do(t, ts, "PATCH", deps+"/d/status?dryRun=All", "application/merge-patch+json", `{"status":{"replicas":7}}`)
	require.Equal(t, 200, r.code, r.raw)
	require.EqualValues(t, 7, r.body["status"].(map[string]any)["replicas"])
	r = do(t, ts, "PATCH", deps+"/d/scale?dryRun=All", "application/merge-patch+json", `{"spec":{"replicas":5}}`)
	require.Equal(t, 200, r.code, r.raw)
	require.EqualValues(t, 5, r.body["spec"].(map[string]any)["replicas"])
	r = do(t, ts, "PUT", deps+"/d/scale?dryRun=All", jsonCT, `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"d","namespace":"default"},"spec":{"replicas":4}}`)
	require.Equal(t, 200, r.code, r.raw)
	require.EqualValues(t, 4, r.body["spec"].(map[string]any)["replicas"])

	// Binding and eviction.
	r = do(t, ts, "POST", pods+"/p/binding?dryRun=All", jsonCT, `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p"},"target":{"kind":"Node","name":"n1"}}`)
	require.Equal(t, 201, r.code, r.raw)
	r = do(t, ts, "POST", pods+"/p/eviction", jsonCT, `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p"},"deleteOptions":{"dryRun":["All"]}}`)
	require.Equal(t, 201, r.code, r.raw)

	// Delete: the object as the delete would leave it (a finalizer keeps
	// the pod: deletionTimestamp set), by query or DeleteOptions body.
	r = do(t, ts, "DELETE", pods+"/p?dryRun=All", "", "")
	require.Equal(t, 200, r.code, r.raw)
	require.NotNil(t, meta(r)["deletionTimestamp"], r.raw)
	r = do(t, ts, "DELETE", cms+"/cm", jsonCT, `{"dryRun":["All"]}`)
	require.Equal(t, 200, r.code, r.raw)
	require.Equal(t, "Success", r.body["status"], r.raw)
	r = do(t, ts, "DELETE", cms+"?dryRun=All", "", "")
	require.Equal(t, 200, r.code, r.raw)
	require.Len(t, r.body["items"], 1)

	// Nothing stored: no kind's resourceVersion moved, the objects are
	// as they were, the quota is not charged.
	require.Equal(t, before, storeVersions(t, c))
	got, gotRV, err := c.ConfigMaps().Get(ctx, "default/cm")
	require.NoError(t, err)
	require.Equal(t, rv, gotRV)
	require.Equal(t, stored.Data, got.Data)
	p, _, err := c.Pods().Get(ctx, "default/p")
	require.NoError(t, err)
	require.Nil(t, p.DeletionTimestamp)
	require.Empty(t, p.Spec.NodeName)
	d, _, err := c.Deployments().Get(ctx, "default/d")
	require.NoError(t, err)
	require.EqualValues(t, 1, *d.Spec.Replicas)
	q, _, err := c.ResourceQuotas().Get(ctx, "default/q")
	require.NoError(t, err)
	require.Equal(t, usedBefore, q.Status.Used)

	// Admission saw every dry-run write as one.
	seen := rec.all()[seenBefore:]
	require.NotEmpty(t, seen)
	for i, dry := range seen {
		require.True(t, dry, "admission call %d", i)
	}
}

// A dry run sends no event to watchers: a watch opened before sees only
// the real write that follows.
func TestDryRunNoWatchEvent(t *testing.T) {
	c, ts := start(t, cluster.Options{})
	ctx := t.Context()
	l, err := c.ConfigMaps().List(ctx, source.ListOptions{})
	require.NoError(t, err)
	ch, err := c.ConfigMaps().Watch(ctx, source.WatchOptions{ResourceVersion: l.ResourceVersion})
	require.NoError(t, err)
	require.Equal(t, 201, do(t, ts, "POST", "/api/v1/namespaces/default/configmaps?dryRun=All", jsonCT,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dry"}}`).code)
	require.Equal(t, 201, do(t, ts, "POST", "/api/v1/namespaces/default/configmaps", jsonCT,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"real"}}`).code)
	ev := <-ch
	require.Equal(t, "real", ev.Object.GetObjectMeta().Name)
}

// dryRun takes only "All": any other value is 422 Invalid naming the
// options, as kube-apiserver's ValidateCreateOptions and friends; a GET
// ignores it.
func TestDryRunValues(t *testing.T) {
	_, ts := start(t, cluster.Options{})
	const cms = "/api/v1/namespaces/default/configmaps"
	require.Equal(t, 201, do(t, ts, "POST", cms, jsonCT, cm).code)
	r := do(t, ts, "POST", cms+"?dryRun=Some", jsonCT, cm)
	requireStatus(t, r, 422, "Invalid")
	require.Equal(t, `CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Some"}: supported values: "All"`, r.body["message"])
	require.Equal(t, "dryRun", r.body["details"].(map[string]any)["causes"].([]any)[0].(map[string]any)["field"])
	requireStatus(t, do(t, ts, "PATCH", cms+"/cm?dryRun=All&dryRun=x", "application/merge-patch+json", `{}`), 422, "Invalid")
	r = do(t, ts, "DELETE", cms+"/cm", jsonCT, `{"dryRun":["Nope"]}`)
	requireStatus(t, r, 422, "Invalid")
	require.Contains(t, r.body["message"], "DeleteOptions.meta.k8s.io")
	require.Equal(t, 200, do(t, ts, "GET", cms+"/cm?dryRun=x", "", "").code)
	require.Equal(t, 200, do(t, ts, "GET", cms+"/cm", "", "").code, "a refused dry run deleted")
}

// The eviction of a pod whose budget refuses is refused in a dry run
// too, and one it allows leaves the pod and the budget as they were.
func TestDryRunEvictionKeepsBudget(t *testing.T) {
	c, ts := start(t, cluster.Options{})
	ctx := t.Context()
	const pods = "/api/v1/namespaces/default/pods"
	require.Equal(t, 201, do(t, ts, "POST", pods, jsonCT, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"i"}]}}`).code)
	pdbs, err := client.For[*api.PodDisruptionBudget](c)
	require.NoError(t, err)
	one := api.FromInt32(1)
	b := &api.PodDisruptionBudget{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: api.PodDisruptionBudgetSpec{MinAvailable: &one, Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
	_, err = pdbs.Create(ctx, b)
	require.NoError(t, err)
	b.Status = api.PodDisruptionBudgetStatus{ObservedGeneration: 1, CurrentHealthy: 2, DesiredHealthy: 1, ExpectedPods: 2, DisruptionsAllowed: 1}
	_, err = pdbs.UpdateStatus(ctx, b)
	require.NoError(t, err)
	p, _, err := c.Pods().Get(ctx, "default/a")
	require.NoError(t, err)
	p.Status.Phase = api.PodRunning
	p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}
	_, err = c.Pods().UpdateStatus(ctx, p)
	require.NoError(t, err)
	before := storeVersions(t, c)

	r := do(t, ts, "POST", pods+"/a/eviction", jsonCT, `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"a"},"deleteOptions":{"dryRun":["All"]}}`)
	require.Equal(t, 201, r.code, r.raw)
	require.Equal(t, before, storeVersions(t, c))
	got, _, err := pdbs.Get(ctx, "default/web")
	require.NoError(t, err)
	require.EqualValues(t, 1, got.Status.DisruptionsAllowed)

	got.Status.DisruptionsAllowed = 0
	_, err = pdbs.UpdateStatus(ctx, got)
	require.NoError(t, err)
	r = do(t, ts, "POST", pods+"/a/eviction", jsonCT, `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"a"},"deleteOptions":{"dryRun":["All"]}}`)
	requireStatus(t, r, 429, "TooManyRequests")
}
