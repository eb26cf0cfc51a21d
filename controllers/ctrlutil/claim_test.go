package ctrlutil_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/ctrlutil"
	"github.com/ctrlkit/ctrlkit/fake"
)

func podSource(t *testing.T, pods ...*api.Pod) *fake.Source[*api.Pod] {
	t.Helper()
	src, err := fake.NewSource(api.Key[*api.Pod], fake.Options[*api.Pod]{Copy: (*api.Pod).DeepCopy})
	require.NoError(t, err)
	for _, p := range pods {
		_, err := src.Create(t.Context(), p)
		require.NoError(t, err)
	}
	return src
}

func labelled(app string) podOpt {
	return func(p *api.Pod) { p.Labels = map[string]string{"app": app} }
}
func ownedBy(owner api.Object) podOpt {
	return func(p *api.Pod) { p.OwnerReferences = []api.OwnerReference{api.NewControllerRef(owner)} }
}

func cached(t *testing.T, src *fake.Source[*api.Pod], names ...string) []*api.Pod {
	t.Helper()
	var out []*api.Pod
	for _, n := range names {
		p, _, err := src.Get(t.Context(), "default/"+n)
		require.NoError(t, err)
		out = append(out, p)
	}
	return out
}

// ControllerRefManager's rules (kube-controller-manager,
// pkg/controller/controller_ref_manager.go), one pod each.
func TestClaim(t *testing.T) {
	rs := replicaSet("web", "u1")
	other := replicaSet("other", "u2")
	sel, err := rs.Spec.Selector.AsSelector()
	require.NoError(t, err)
	live := func(context.Context) (api.Object, error) { return rs, nil }

	src := podSource(t,
		newPod("orphan", labelled("web")),
		newPod("stranger", labelled("db")),
		newPod("mine", labelled("web"), ownedBy(rs)),
		newPod("strayed", labelled("db"), ownedBy(rs)),
		newPod("theirs", labelled("web"), ownedBy(other)),
	)
	children := cached(t, src, "orphan", "stranger", "mine", "strayed", "theirs")
	got, err := ctrlutil.NewClaimer(rs, sel, live, src).Claim(t.Context(), children)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"orphan", "mine"}, names(got))

	stored := func(name string) *api.Pod { return cached(t, src, name)[0] }
	require.True(t, api.IsControlledBy(stored("orphan"), rs), "adopted")
	require.Empty(t, stored("strayed").OwnerReferences, "released")
	require.True(t, api.IsControlledBy(stored("theirs"), other), "left alone")
	require.Empty(t, children[0].OwnerReferences, "the cached object is not changed")
}

func TestClaimRefusesWhenTheOwnerIsGoneOrDeleting(t *testing.T) {
	rs := replicaSet("web", "u1")
	sel, err := rs.Spec.Selector.AsSelector()
	require.NoError(t, err)

	// Deleted and re-created under the same name: the live read finds
	// another UID, so nothing is adopted; owned pods are still kept.
	src := podSource(t, newPod("orphan", labelled("web")), newPod("mine", labelled("web"), ownedBy(rs)))
	reads := 0
	recreated := func(context.Context) (api.Object, error) { reads++; return replicaSet("web", "u9"), nil }
	got, err := ctrlutil.NewClaimer(rs, sel, recreated, src).Claim(t.Context(), cached(t, src, "orphan", "mine"))
	require.ErrorContains(t, err, `the original ReplicaSet "web" is gone: got uid u9, wanted u1`)
	require.Equal(t, []string{"mine"}, names(got))
	require.Empty(t, cached(t, src, "orphan")[0].OwnerReferences)

	// A live read that fails blocks adoption too, once per Claim.
	src = podSource(t, newPod("a", labelled("web")), newPod("b", labelled("web")))
	failing := func(context.Context) (api.Object, error) { reads++; return nil, errors.New("unreachable") }
	reads = 0
	_, err = ctrlutil.NewClaimer(rs, sel, failing, src).Claim(t.Context(), cached(t, src, "a", "b"))
	require.ErrorContains(t, err, "unreachable")
	require.Equal(t, 1, reads, "the owner is read live once per claim")

	// A deleting owner neither adopts nor releases.
	deleting := rs.DeepCopy()
	now := api.NewTime(now)
	deleting.DeletionTimestamp = &now
	src = podSource(t, newPod("orphan", labelled("web")), newPod("strayed", labelled("db"), ownedBy(rs)))
	got, err = ctrlutil.NewClaimer(deleting, sel, func(context.Context) (api.Object, error) { return deleting, nil }, src).
		Claim(t.Context(), cached(t, src, "orphan", "strayed"))
	require.NoError(t, err)
	require.Empty(t, got)
	require.Empty(t, cached(t, src, "orphan")[0].OwnerReferences)
	require.Len(t, cached(t, src, "strayed")[0].OwnerReferences, 1)
}

func TestClaimConflictIsAnError(t *testing.T) {
	rs := replicaSet("web", "u1")
	sel, err := rs.Spec.Selector.AsSelector()
	require.NoError(t, err)
	src := podSource(t, newPod("orphan", labelled("web")))
	stale := cached(t, src, "orphan")
	fresh := stale[0].DeepCopy()
	fresh.Annotations = map[string]string{"touched": "yes"}
	_, err = src.Update(t.Context(), fresh, "")
	require.NoError(t, err)
	got, err := ctrlutil.NewClaimer(rs, sel, func(context.Context) (api.Object, error) { return rs, nil }, src).
		Claim(t.Context(), stale)
	require.ErrorContains(t, err, "conflict", "the cached version is the precondition")
	require.Empty(t, got)
}

// ClaimOne applies Claim's rules to one child: an owned child that the
// selector picks comes back as the cached object itself (no copy, no
// write); an adopted one as the written copy; others not at all.
func TestClaimOne(t *testing.T) {
	rs := replicaSet("web", "u1")
	other := replicaSet("other", "u2")
	sel, err := rs.Spec.Selector.AsSelector()
	require.NoError(t, err)
	src := podSource(t,
		newPod("mine", labelled("web"), ownedBy(rs)),
		newPod("orphan", labelled("web")),
		newPod("strayed", labelled("db"), ownedBy(rs)),
		newPod("theirs", labelled("web"), ownedBy(other)),
	)
	c := ctrlutil.NewClaimer(rs, sel, func(context.Context) (api.Object, error) { return rs, nil }, src)
	pods := cached(t, src, "mine", "orphan", "strayed", "theirs")

	got, ok, err := c.ClaimOne(t.Context(), pods[0])
	require.NoError(t, err)
	require.True(t, ok)
	require.Same(t, pods[0], got, "an owned child is returned as it is")

	got, ok, err = c.ClaimOne(t.Context(), pods[1])
	require.NoError(t, err)
	require.True(t, ok)
	require.NotSame(t, pods[1], got, "the adopted copy")
	require.True(t, api.IsControlledBy(got, rs))
	require.Empty(t, pods[1].OwnerReferences, "the cached object is not changed")

	for _, p := range pods[2:] {
		got, ok, err = c.ClaimOne(t.Context(), p)
		require.NoError(t, err)
		require.False(t, ok, p.Name)
		require.Nil(t, got)
	}
	require.Empty(t, cached(t, src, "strayed")[0].OwnerReferences, "released")
	require.True(t, api.IsControlledBy(cached(t, src, "theirs")[0], other), "left alone")
}
