package statefulset

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/source"
)

// After kcm's TestStatefulSetControl_getSetRevisions and
// TestStatefulSetControlLimitsHistory (stateful_set_control_test.go).
func TestChooseRevisions(t *testing.T) {
	set := webSet(3, "nginx:1.12")
	a := rev(t, set, "nginx:1.12", 1)
	b := rev(t, set, "nginx:1.13", 2)

	// No history: the first revision, current and update alike.
	p, err := chooseRevisions(set, nil)
	require.NoError(t, err)
	require.True(t, p.create)
	require.EqualValues(t, 1, p.update.Revision)
	require.Equal(t, p.update, p.current)
	require.Equal(t, a.Name, p.update.Name, "named after the template's hash")
	require.Equal(t, a.Name, "web-"+p.update.Labels[api.LabelControllerRevisionHash])
	require.Equal(t, "nginx", p.update.Labels["app"], "the template's labels")
	require.True(t, api.IsControlledBy(p.update, set))

	// Unchanged template: the newest revision is the update revision.
	set.Status.CurrentRevision = a.Name
	p, err = chooseRevisions(set, []*api.ControllerRevision{a})
	require.NoError(t, err)
	require.False(t, p.create || p.renumber)
	require.Equal(t, a, p.update)

	// A new template: a new revision, numbered next; current stays.
	s2 := webSet(3, "nginx:1.13")
	s2.Status.CurrentRevision = a.Name
	p, err = chooseRevisions(s2, []*api.ControllerRevision{a})
	require.NoError(t, err)
	require.True(t, p.create)
	require.Equal(t, b.Name, p.update.Name)
	require.EqualValues(t, 2, p.update.Revision)
	require.Equal(t, a, p.current)

	// Back to an older template (a rollback): that revision is
	// renumbered instead of a new one made.
	s3 := webSet(3, "nginx:1.12")
	s3.Status.CurrentRevision = b.Name
	p, err = chooseRevisions(s3, []*api.ControllerRevision{b, a})
	require.NoError(t, err)
	require.True(t, p.renumber)
	require.Equal(t, a.Name, p.update.Name)
	require.EqualValues(t, 3, p.update.Revision)
	require.EqualValues(t, 1, a.Revision, "the cached revision is not changed")

	// A revision of that name with other data: a hash collision bumps
	// the collision count and changes the name.
	fake := a.DeepCopy()
	fake.Data = []byte(`{"spec":{"template":{"$patch":"replace"}}}`)
	delete(fake.Labels, api.LabelControllerRevisionHash)
	p, err = chooseRevisions(webSet(3, "nginx:1.12"), []*api.ControllerRevision{fake})
	require.NoError(t, err)
	require.True(t, p.create)
	require.EqualValues(t, 1, p.collisionCount)
	require.NotEqual(t, a.Name, p.update.Name)
}

func TestHashRevision(t *testing.T) {
	require.Equal(t, hashRevision([]byte("x"), 0), hashRevision([]byte("x"), 0))
	require.NotEqual(t, hashRevision([]byte("x"), 0), hashRevision([]byte("x"), 1))
	for _, c := range hashRevision([]byte("some data"), 3) {
		require.Contains(t, safeAlphabet, string(c))
	}
}

func TestHistoryToDelete(t *testing.T) {
	set := webSet(1, "nginx:1.12")
	var revs []*api.ControllerRevision
	for i := 1; i <= 14; i++ {
		revs = append(revs, rev(t, set, fmt.Sprintf("nginx:1.%d", i), int64(i)))
	}
	current, update := revs[13].Name, revs[13].Name
	pods := []*api.Pod{pod(set, revs[0], 0, ready)} // a pod keeps the oldest alive

	// 14 revisions: current/update (14) and the pod's (1) are live;
	// of the 12 others, the 2 oldest go.
	del := historyToDelete(set, revs, pods, current, update)
	require.Equal(t, []*api.ControllerRevision{revs[1], revs[2]}, del)

	set.Spec.RevisionHistoryLimit = ptr(int32(0))
	require.Len(t, historyToDelete(set, revs, pods, current, update), 12)
	set.Spec.RevisionHistoryLimit = ptr(int32(-1))
	require.Empty(t, historyToDelete(set, revs, pods, current, update))
}

func TestTemplateRoundTrip(t *testing.T) {
	set := webSet(1, "nginx:1.12")
	r := rev(t, set, "nginx:1.12", 1)
	require.Contains(t, string(r.Data), `"$patch":"replace"`)
	tp, err := templateOf(r)
	require.NoError(t, err)
	require.Equal(t, set.Spec.Template, *tp)
}

func TestParentAndOrdinal(t *testing.T) {
	for _, tc := range []struct {
		name   string
		parent string
		ord    int
	}{{"web-0", "web", 0}, {"my-web-12", "my-web", 12}, {"web", "", -1}, {"web-", "", -1}, {"web-x", "", -1}, {"web--1", "web-", 1}} {
		p, o := parentAndOrdinal(tc.name)
		require.Equal(t, tc.parent, p, tc.name)
		require.Equal(t, tc.ord, o, tc.name)
	}
}

// The finding of the harness's stale@1 (TestReferenceStatefulSet,
// subtest views): restarted on a stale list without its revision, the
// controller planned to create it again, got AlreadyExists, and bumped
// status.collisionCount as for a hash collision — ending on another
// revision name than an unperturbed run. kcm's CreateControllerRevision
// (pkg/controller/history/controller_history.go) reads the revision of
// that name and, its data equal, uses it; only other data is a
// collision.
func TestExistingEqualRevisionIsNoCollision(t *testing.T) {
	ctx := t.Context()
	c, err := cluster.New(ctx, cluster.Options{})
	require.NoError(t, err)
	sets, err := client.For[*api.StatefulSet](c)
	require.NoError(t, err)
	revs, err := client.For[*api.ControllerRevision](c)
	require.NoError(t, err)
	set := webSet(1, "nginx:1.12")
	set.UID = ""
	_, err = sets.Create(ctx, set)
	require.NoError(t, err)
	set, _, err = sets.Get(ctx, "default/web")
	require.NoError(t, err)
	m := &manager{revW: revs, setClient: sets}
	collisions := func() int32 {
		s, _, err := sets.Get(ctx, "default/web")
		require.NoError(t, err)
		if s.Status.CollisionCount == nil {
			return 0
		}
		return *s.Status.CollisionCount
	}

	// The stale plan: no revision cached; the store has it.
	p, err := chooseRevisions(set, nil)
	require.NoError(t, err)
	require.True(t, p.create)
	_, err = revs.Create(ctx, p.update.DeepCopy())
	require.NoError(t, err)
	require.NoError(t, m.writeRevision(ctx, set, p), "the existing revision of equal data is the update revision")
	require.Zero(t, collisions())

	// Another revision under that name: a hash collision.
	other := p.update.DeepCopy()
	other.Name = p.update.Name + "x"
	p2 := p
	p2.update = other
	taken := other.DeepCopy()
	taken.Data = []byte(`{"spec":{"template":{"$patch":"replace"}}}`)
	_, err = revs.Create(ctx, taken)
	require.NoError(t, err)
	require.ErrorIs(t, m.writeRevision(ctx, set, p2), source.ErrAlreadyExists)
	require.EqualValues(t, 1, collisions())
}
