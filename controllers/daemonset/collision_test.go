package daemonset

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

// A revision name taken by another template (a hash collision, staged
// here by creating it first) bumps status.collisionCount, and the next
// sync names the revision with the new hash (kcm's snapshot).
func TestHashCollision(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		quiet := slog.New(slog.DiscardHandler)
		c, err := cluster.New(ctx, cluster.Options{})
		require.NoError(t, err)
		_, err = c.Nodes().Create(ctx, &api.Node{ObjectMeta: api.ObjectMeta{Name: "node-0"}})
		require.NoError(t, err)
		// The set is created before the controller starts, so that the
		// colliding revision can be made from its defaulted template.
		ds := newDaemonSet()
		ds.UID, ds.Generation = "", 0
		_, err = c.DaemonSets().Create(ctx, ds)
		require.NoError(t, err)
		stored, _, err := c.DaemonSets().Get(ctx, "default/foo")
		require.NoError(t, err)
		taken := "foo-" + templateHash(&stored.Spec.Template, nil)
		_, err = c.ControllerRevisions().Create(ctx, &api.ControllerRevision{
			ObjectMeta: api.ObjectMeta{Name: taken, Namespace: "default", Labels: map[string]string{"other": "x"}},
			Data:       []byte(`{"spec":{"template":{"$patch":"replace"}}}`), Revision: 1})
		require.NoError(t, err)

		f := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
		ctl, err := New(c, f, Options{Logger: quiet})
		require.NoError(t, err)
		f.Start(ctx)
		var wg sync.WaitGroup
		wg.Go(func() { _ = ctl.Run(ctx) })
		defer func() { cancel(); wg.Wait(); f.Shutdown() }()
		time.Sleep(10 * time.Second)
		synctest.Wait()

		cur, _, err := c.DaemonSets().Get(ctx, "default/foo")
		require.NoError(t, err)
		require.NotNil(t, cur.Status.CollisionCount)
		require.EqualValues(t, 1, *cur.Status.CollisionCount)
		hash := templateHash(&cur.Spec.Template, cur.Status.CollisionCount)
		r, _, err := c.ControllerRevisions().Get(ctx, "default/foo-"+hash)
		require.NoError(t, err)
		require.True(t, api.IsControlledBy(r, cur))
		pods, err := c.Pods().List(ctx, source.ListOptions{})
		require.NoError(t, err)
		require.Len(t, pods.Items, 1)
		require.Equal(t, hash, pods.Items[0].Labels[api.LabelControllerRevisionHash])
		other, _, err := c.ControllerRevisions().Get(ctx, "default/"+taken)
		require.NoError(t, err)
		require.Nil(t, other.ControllerRef(), "the other revision is left alone")
	})
}
