package daemonset

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// TestRevisions: a revision holds the patch that restores the template
// (getPatch), is named <set>-<hash>, is labelled with the hash, and
// matches the set exactly while the template is unchanged (Match).
func TestRevisions(t *testing.T) {
	ds := newDaemonSet()
	r := newRevision(ds, 1)
	hash := templateHash(&ds.Spec.Template, nil)
	require.Equal(t, "foo-"+hash, r.Name)
	require.Equal(t, hash, r.Labels[api.LabelControllerRevisionHash])
	require.Equal(t, "production", r.Labels["type"], "the template's labels")
	require.True(t, api.IsControlledBy(r, ds))
	require.JSONEq(t, `{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"name":"simple-daemon","type":"production"}},
		"spec":{"containers":[{"name":"foo","image":"foo/bar"}]}}}}`, string(r.Data))

	cur, old, next := splitHistory(ds, []*api.ControllerRevision{r})
	require.Equal(t, []*api.ControllerRevision{r}, cur)
	require.Empty(t, old)
	require.EqualValues(t, 1, next)

	ds2 := ds.DeepCopy()
	ds2.Spec.Template.Spec.Containers[0].Image = "foo/bar:2"
	require.NotEqual(t, hash, templateHash(&ds2.Spec.Template, nil))
	one := int32(1)
	require.NotEqual(t, hash, templateHash(&ds.Spec.Template, &one), "the collision count changes the hash")
	cur, old, next = splitHistory(ds2, []*api.ControllerRevision{r})
	require.Empty(t, cur)
	require.Equal(t, []*api.ControllerRevision{r}, old)
	require.EqualValues(t, 2, next, "one more than the highest old revision")
}

// TestHistoryToDelete ports the rule of kcm's cleanupHistory: beyond the
// limit, oldest revision first, never one a live pod runs.
func TestHistoryToDelete(t *testing.T) {
	seq := new(int) // numbers the pods of this test
	var old []*api.ControllerRevision
	for i := 5; i >= 1; i-- { // out of order on purpose
		old = append(old, &api.ControllerRevision{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("r%d", i),
			Labels: map[string]string{api.LabelControllerRevisionHash: fmt.Sprintf("h%d", i)}}, Revision: int64(i)})
	}
	ds := newDaemonSet()
	pods := []*api.Pod{podFor(seq, ds, "n", simpleDaemonSetLabel, hashed("h1"))}
	names := func(rs []*api.ControllerRevision) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Name)
		}
		return out
	}
	require.Equal(t, []string{"r2", "r3", "r4"}, names(historyToDelete(old, pods, 2)), "three go; r1 is still run by a pod")
	require.Equal(t, []string{"r1", "r2", "r3", "r4", "r5"}, names(historyToDelete(old, nil, 0)))
	require.Empty(t, historyToDelete(old, nil, 10))
}
