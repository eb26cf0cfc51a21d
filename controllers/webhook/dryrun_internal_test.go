package webhook

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/admission"
	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
)

// A dry run is refused by a webhook that may have side effects (Unknown
// and Some, which v1 validation no longer admits but configurations
// written through v1beta1 may hold), as kube-apiserver refuses it: 400,
// `admission webhook "NAME" does not support dry run`; None and
// NoneOnDryRun are called. A request that is not a dry run calls them
// all.
func TestDryRunSideEffects(t *testing.T) {
	d := New(Options{})
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p"}}
	a := admission.Attributes{Operation: admission.Create, Resource: "pods", Object: pod, Kind: pod.GroupVersionKind(), Name: "p"}
	for _, tc := range []struct {
		side   *api.SideEffectClass
		refuse bool
	}{
		{nil, true},
		{ptrTo(api.SideEffectClassUnknown), true},
		{ptrTo(api.SideEffectClassSome), true},
		{ptrTo(api.SideEffectClassNone), false},
		{ptrTo(api.SideEffectClassNoneOnDryRun), false},
	} {
		w := &api.ValidatingWebhook{Name: "side.example.com", SideEffects: tc.side, Rules: []api.RuleWithOperations{{
			Operations: []api.OperationType{api.OperationAll},
			Rule:       api.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*"}}}}}
		a.DryRun = false
		ok, err := d.shouldCall(t.Context(), w, a, nil)
		require.NoError(t, err)
		require.True(t, ok)
		a.DryRun = true
		ok, err = d.shouldCall(t.Context(), w, a, nil)
		if tc.refuse {
			require.EqualError(t, err, `admission webhook "side.example.com" does not support dry run`)
			require.True(t, client.IsBadRequest(err))
			continue
		}
		require.NoError(t, err)
		require.True(t, ok)
	}
}

func ptrTo[V any](v V) *V { return &v }
