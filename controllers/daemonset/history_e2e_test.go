package daemonset_test

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/daemonset"
	"github.com/ctrlkit/ctrlkit/source"
)

// Every template gets a ControllerRevision numbered one above the
// others; revisionHistoryLimit old ones are kept; going back to a kept
// template reuses its revision, renumbered as the newest.
func TestRevisionHistoryEndToEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t) // no kubelets: pods never turn ready, so each update replaces them all at once
		for _, n := range []string{"node-1", "node-2"} {
			_, err := e.c.Nodes().Create(e.ctx, &api.Node{ObjectMeta: api.ObjectMeta{Name: n}})
			require.NoError(t, err)
		}
		ds := logDaemon(nil)
		two := int32(2)
		ds.Spec.RevisionHistoryLimit = &two
		_, err := e.c.CreateObject(e.ctx, ds)
		require.NoError(t, err)
		e.settle(10 * time.Second)

		revisions := func() map[string]int64 { // image → revision
			l, err := e.c.ControllerRevisions().List(e.ctx, source.ListOptions{})
			require.NoError(t, err)
			out := map[string]int64{}
			for _, r := range l.Items {
				for _, img := range []string{"log:1", "log:2", "log:3", "log:4", "log:5"} {
					if containsImage(r.Data, img) {
						out[img] = r.Revision
					}
				}
			}
			return out
		}
		for i := 2; i <= 5; i++ {
			e.setImage(fmt.Sprintf("log:%d", i))
			e.settle(10 * time.Second)
			require.Equal(t, map[string]string{"node-1": fmt.Sprintf("log:%d", i), "node-2": fmt.Sprintf("log:%d", i)}, images(e.pods()))
		}
		require.Equal(t, map[string]int64{"log:3": 3, "log:4": 4, "log:5": 5}, revisions(), "the current and two old ones")

		e.setImage("log:3") // a rollback to a kept revision
		e.settle(10 * time.Second)
		require.Equal(t, map[string]int64{"log:3": 6, "log:4": 4, "log:5": 5}, revisions())
		cur, _, err := e.c.DaemonSets().Get(e.ctx, "default/log")
		require.NoError(t, err)
		require.EqualValues(t, 2, cur.Status.UpdatedNumberScheduled)
		for _, p := range e.pods() {
			require.Equal(t, "log-"+p.Labels[api.LabelControllerRevisionHash], revisionName(t, e, 6))
		}
	})
}

func containsImage(data []byte, image string) bool {
	return strings.Contains(string(data), `"image":"`+image+`"`)
}

func revisionName(t *testing.T, e *env, revision int64) string {
	l, err := e.c.ControllerRevisions().List(e.ctx, source.ListOptions{})
	require.NoError(t, err)
	for _, r := range l.Items {
		if r.Revision == revision {
			return r.Name
		}
	}
	t.Fatalf("no revision %d", revision)
	return ""
}

// Two revisions of the current template (another client made a copy):
// the one with the higher revision is kept, the pods are relabelled with
// its hash, the other is deleted (kcm's dedupCurHistories).
func TestDuplicateRevisionsEndToEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		_, err := e.c.Nodes().Create(e.ctx, &api.Node{ObjectMeta: api.ObjectMeta{Name: "node-1"}})
		require.NoError(t, err)
		_, err = e.c.CreateObject(e.ctx, logDaemon(nil))
		require.NoError(t, err)
		e.settle(10 * time.Second)
		before := e.pods()
		require.Len(t, before, 1)
		l, err := e.c.ControllerRevisions().List(e.ctx, source.ListOptions{})
		require.NoError(t, err)
		require.Len(t, l.Items, 1)
		orig := l.Items[0]
		dup := orig.DeepCopy()
		dup.ObjectMeta = api.ObjectMeta{Namespace: orig.Namespace, Name: "log-copy",
			Labels:          map[string]string{"app": "log", api.LabelControllerRevisionHash: "copy"},
			OwnerReferences: orig.OwnerReferences}
		dup.Revision = 7
		_, err = e.c.ControllerRevisions().Create(e.ctx, dup)
		require.NoError(t, err)
		e.settle(10 * time.Second)

		l, err = e.c.ControllerRevisions().List(e.ctx, source.ListOptions{})
		require.NoError(t, err)
		require.Len(t, l.Items, 1)
		require.Equal(t, "log-copy", l.Items[0].Name)
		require.EqualValues(t, 7, l.Items[0].Revision)
		pods := e.pods()
		require.Len(t, pods, 1)
		require.Equal(t, before[0].UID, pods[0].UID, "the pod is kept, not replaced")
		require.Equal(t, "copy", pods[0].Labels[api.LabelControllerRevisionHash])
	})
}

// An orphan pod that the selector picks, on a node that should run one,
// is adopted rather than duplicated (with OnDelete it is then kept,
// though its template is not the set's; RollingUpdate would replace it).
func TestAdoptsOrphanEndToEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		_, err := e.c.Nodes().Create(e.ctx, &api.Node{ObjectMeta: api.ObjectMeta{Name: "node-1"}})
		require.NoError(t, err)
		orphan := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "orphan", Labels: map[string]string{"app": "log"}},
			Spec: api.PodSpec{NodeName: "node-1", Containers: []api.Container{{Name: "log", Image: "log:0"}}}}
		_, err = e.c.Pods().Create(e.ctx, orphan)
		require.NoError(t, err)
		ds := logDaemon(nil)
		ds.Spec.UpdateStrategy.Type = daemonset.OnDeleteStrategy
		_, err = e.c.CreateObject(e.ctx, ds)
		require.NoError(t, err)
		e.settle(10 * time.Second)
		pods := e.pods()
		require.Len(t, pods, 1)
		require.Equal(t, "orphan", pods[0].Name)
		require.Nil(t, pods[0].DeletionTimestamp)
		require.Equal(t, "log", pods[0].ControllerRef().Name)
	})
}
