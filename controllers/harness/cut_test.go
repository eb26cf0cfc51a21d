package harness_test

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/harness"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/stretchr/testify/require"
)

// foreground deletes a deleting parent's child, then — once its cache
// shows the child gone, which only the child's delete event tells it —
// removes the parent's finalizer, as the garbage collector ends a
// foreground deletion.
func foreground() harness.Controller {
	return func(c client.Client) (harness.Runner, error) {
		return newViewLoop(c, func(ctx context.Context, cms client.Resource[*api.ConfigMap], inf *informer.Informer[*api.ConfigMap], key string) (reconcile.Result, error) {
			p, ok := parentKey(inf, key)
			if !ok || p.DeletionTimestamp == nil || !slices.Contains(p.Finalizers, finalizer) {
				return reconcile.Result{}, nil
			}
			name := api.NamespacedKey(p.Namespace, p.Name+"-child")
			if _, ok := inf.Lister().Get(name); ok {
				_, err := cms.Delete(ctx, name, "")
				if client.IsNotFound(err) {
					err = nil
				}
				return reconcile.Result{}, err // the delete event comes back here
			}
			p = p.DeepCopy()
			p.Finalizers = slices.DeleteFunc(p.Finalizers, func(f string) bool { return f == finalizer })
			_, err := cms.Update(ctx, p, "")
			return reconcile.Result{}, err
		}, nil)
	}
}

// A watch cut whose held events the system waits for — the settle
// after the last step waits for the parent's finalizer, which the
// controller removes only once it sees its child's deletion — relists
// once the settle has gone harness.CutHold without settling, rather
// than never (the relist waited for the scenario's next change, which
// waited for that settle): the run converges, one CutHold late.
func TestCutRelistsWhenTheSettleStalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := parent("web", nil)
		p.Finalizers = []string{finalizer}
		s := harness.Scenario{
			Name:    "foreground",
			Objects: []api.Object{p, child("web", "web-child")},
			Kinds:   []harness.Kind{harness.KindOf[*api.ConfigMap]()},
			Steps:   []harness.Step{deleteWeb()},
		}
		ref, err := harness.Replay(t.Context(), s, foreground(), nil, nil)
		require.NoError(t, err)
		require.Empty(t, ref.Problems)
		require.Equal(t, 2, ref.Writes, "the child's delete, then the finalizer's removal")

		o, err := harness.Replay(t.Context(), s, foreground(), ref, []harness.Perturbation{{Write: 1, Fault: harness.Cut}})
		require.NoError(t, err)
		require.Empty(t, o.Problems)
		require.Equal(t, 2, o.Writes)
		require.Equal(t, "update", o.Timeline[1].Verb)
		held := o.Timeline[1].At - o.Timeline[0].At
		require.GreaterOrEqual(t, held, harness.CutHold-time.Second, "the finalizer waited for the relist")
		require.Less(t, held, harness.CutHold+10*time.Second, "the relist came once the settle stalled")
		require.Less(t, o.Elapsed, ref.Elapsed+harness.CutHold+time.Minute)
	})
}
