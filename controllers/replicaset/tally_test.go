package replicaset

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

// TestTallyMatchesWalk changes a ReplicaSet's pods at random through the
// API — readiness, phases, labels, graceful and immediate deletes, new
// pods of the set, of another set and orphans, the set's own template —
// and after each round compares what a sync counts from the tally with
// what it counts walking the pods (a fresh tally makes it walk): the
// claimed, fully labeled, ready and available replicas and the
// terminating pods. It also requires the tally to be used (counted) in
// every round that leaves nothing to adopt or release.
func TestTallyMatchesWalk(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { tallyRounds(t, seed) })
		})
	}
}

func tallyRounds(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	c, err := cluster.New(ctx, cluster.Options{})
	require.NoError(t, err)
	quiet := slog.New(slog.DiscardHandler)

	sel := map[string]string{"app": "web"}
	newRS := func(name string) *api.ReplicaSet {
		replicas := int32(20)
		rs := &api.ReplicaSet{
			ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
			Spec: api.ReplicaSetSpec{
				Replicas: &replicas,
				Selector: &api.LabelSelector{MatchLabels: sel},
				Template: api.PodTemplateSpec{
					// tier is not in the selector: fullyLabeledReplicas
					// counts the pods that have it.
					ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web", "tier": "front"}},
					Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx"}}},
				},
			},
		}
		_, err := c.ReplicaSets().Create(ctx, rs)
		require.NoError(t, err)
		rs, _, err = c.ReplicaSets().Get(ctx, api.Key(rs))
		require.NoError(t, err)
		return rs
	}
	rs, other := newRS("web"), newRS("other")

	n := 0
	createPod := func(owner *api.ReplicaSet) {
		n++
		p := &api.Pod{
			ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("p-%03d", n), Namespace: "default",
				Labels: map[string]string{"app": "web"}},
			// Bound: a delete with a grace period leaves it terminating.
			Spec: api.PodSpec{NodeName: "node-1", Containers: []api.Container{{Name: "app", Image: "nginx"}}},
		}
		if rng.IntN(2) == 0 {
			p.Labels["tier"] = "front"
		}
		if owner != nil {
			p.OwnerReferences = []api.OwnerReference{api.NewControllerRef(owner)}
		} else {
			p.Labels["app"] = "debug" // an orphan the set may not adopt
		}
		_, err := c.Pods().Create(ctx, p)
		require.NoError(t, err)
	}
	for range 30 {
		createPod(rs)
	}
	for range 5 {
		createPod(other)
		createPod(nil)
	}

	k, err := replicaSetKind(c)
	require.NoError(t, err)
	f := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
	m, err := newManager(c, f, k, "replicaset-controller", Options{Logger: quiet})
	require.NoError(t, err)
	f.Start(ctx)
	defer f.Shutdown()
	require.True(t, f.WaitForCacheSync(ctx))
	synctest.Wait()

	// countAt is what claim counts for the set as the cache holds it.
	countAt := func(tl *tally) (st api.ReplicaSetStatus, counted bool) {
		owner, ok := m.owners.Lister().Get("default/web")
		require.True(t, ok)
		sp, err := m.kind.spec(owner)
		require.NoError(t, err)
		_, cnt, terminating, counted, err := m.claimWith(ctx, tl, "default/web", owner, sp, time.Now(), false)
		require.NoError(t, err)
		st, _ = cnt.status(api.ReplicaSetStatus{}, nil)
		st.TerminatingReplicas = &terminating
		return st, counted
	}
	kept := m.tally             // the controller's, kept by the events
	_, counted := countAt(kept) // the first sync builds the tally
	require.False(t, counted)

	mutate := func() {
		pods := m.pods.Lister().List(nil)
		p, _, err := c.Pods().Get(ctx, api.Key(pods[rng.IntN(len(pods))]))
		if errors.Is(err, source.ErrNotFound) {
			return // deleted earlier this round
		}
		require.NoError(t, err)
		switch rng.IntN(9) {
		case 0, 1: // readiness
			st := api.ConditionTrue
			if api.IsPodReady(p) {
				st = api.ConditionFalse
			}
			p.Status.Phase = api.PodRunning
			p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: st}}
			_, err = c.Pods().UpdateStatus(ctx, p)
		case 2: // terminal
			p.Status.Phase = []api.PodPhase{api.PodSucceeded, api.PodFailed}[rng.IntN(2)]
			_, err = c.Pods().UpdateStatus(ctx, p)
		case 3: // the label only the template has
			if p.DeletionTimestamp != nil {
				return // only status and finalizers may change
			}
			if _, ok := p.Labels["tier"]; ok {
				delete(p.Labels, "tier")
			} else {
				p.Labels["tier"] = "front"
			}
			_, err = c.Pods().Update(ctx, p, "")
		case 4: // graceful: terminating until removed
			_, err = c.Pods().DeleteWith(ctx, api.Key(p), cluster.DeleteOptions{})
		case 5:
			zero := int64(0)
			_, err = c.Pods().DeleteWith(ctx, api.Key(p), cluster.DeleteOptions{GracePeriodSeconds: &zero})
		case 6:
			createPod(rs)
		case 7:
			createPod([]*api.ReplicaSet{other, nil}[rng.IntN(2)])
		case 8: // the template's labels: the tally is classified again
			cur, _, err := c.ReplicaSets().Get(ctx, "default/web")
			require.NoError(t, err)
			if _, ok := cur.Spec.Template.Labels["tier"]; ok {
				delete(cur.Spec.Template.Labels, "tier")
			} else {
				cur.Spec.Template.Labels["tier"] = "front"
			}
			_, err = c.ReplicaSets().Update(ctx, cur, "")
		}
		if err != nil && !errors.Is(err, source.ErrNotFound) {
			require.NoError(t, err)
		}
	}
	fast := 0
	for round := range 60 {
		for range 1 + rng.IntN(4) {
			mutate()
		}
		synctest.Wait() // every event handled
		got, counted := countAt(kept)
		want, walked := countAt(newTally(m.kind.name))
		require.False(t, walked)
		require.Equal(t, want, got, "round %d", round)
		// Twice: a stale tally is rebuilt by the first.
		if !counted {
			got, counted = countAt(kept)
			require.Equal(t, want, got, "round %d", round)
		}
		require.True(t, counted, "round %d: the sync walked the pods", round)
		fast++
	}
	require.Equal(t, 60, fast)
}

// TestTallyBeginFinish: events handled between begin and finish win over
// the cache read finish is given, older or not: a pod updated meanwhile
// keeps the update's mark, a pod deleted meanwhile stays out.
func TestTallyBeginFinish(t *testing.T) {
	owner := &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default", UID: "rs-1"}}
	sel, err := api.ParseSelector("app=web")
	require.NoError(t, err)
	sp := spec{selector: sel, template: &api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web"}}}}
	pod := func(name string, ready bool) *api.Pod {
		p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: api.UID("uid-" + name),
			Labels:          map[string]string{"app": "web"},
			OwnerReferences: []api.OwnerReference{api.NewControllerRef(owner)}}}
		p.Status.Phase = api.PodRunning
		if ready {
			p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}
		}
		return p
	}
	tl := newTally("ReplicaSet")
	b := tl.begin(owner, sp)
	_, state := tl.current(owner, sp, 3)
	require.Equal(t, tallyLagging, state, "building")
	// Handled after begin: a turned ready, c deleted.
	tl.observe(pod("a", false), pod("a", true))
	tl.observe(pod("c", false), nil)
	// The cache read, older than both.
	tl.finish(b, []*api.Pod{pod("a", false), pod("b", false), pod("c", false)})
	c, state := tl.current(owner, sp, 2)
	require.Equal(t, tallyCurrent, state)
	require.Equal(t, counts{claimed: 2, labeled: 2, ready: 1}, c)
	// A pod moved to another owner leaves the tally.
	moved := pod("b", false)
	moved.OwnerReferences[0].UID = "rs-2"
	tl.observe(pod("b", false), moved)
	c, state = tl.current(owner, sp, 1)
	require.Equal(t, tallyCurrent, state)
	require.Equal(t, counts{claimed: 1, labeled: 1, ready: 1}, c)
	// A bucket the tally never catches up with is rebuilt.
	for range maxLagging {
		_, state = tl.current(owner, sp, 5)
		require.Equal(t, tallyLagging, state)
	}
	_, state = tl.current(owner, sp, 5)
	require.Equal(t, tallyStale, state)
	tl.forget(owner.UID)
	_, state = tl.current(owner, sp, 1)
	require.Equal(t, tallyStale, state)
}
