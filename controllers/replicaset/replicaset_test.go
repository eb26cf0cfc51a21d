package replicaset_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/replicaset"
	"github.com/ctrlkit/ctrlkit/source"
)

// Scale 0 → 10 → 3 → 0: each step creates or deletes exactly the
// difference, and the status follows.
func TestScale(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, envOptions{})
		e.createRS(replicaSet("web", 0))
		e.eventually("0 replicas observed", func() bool { return e.getRS("web").Status.ObservedGeneration == 1 })
		require.Empty(t, e.pods("web"))

		e.scaleRS("web", 10)
		e.eventually("10 pods", func() bool { return e.settled("web", 10) })
		require.Equal(t, 10, e.count("SuccessfulCreate"), "no pod created twice")
		for _, p := range e.pods("web") {
			require.True(t, api.IsControlledBy(p, e.getRS("web")))
			require.True(t, strings.HasPrefix(p.Name, "web-"), "generateName")
		}

		// Settled: no status write, nothing, for as long as nothing changes.
		rv := e.getRS("web").ResourceVersion
		time.Sleep(10 * time.Minute)
		synctest.Wait()
		require.Equal(t, rv, e.getRS("web").ResourceVersion, "status written only on change")

		e.scaleRS("web", 3)
		e.eventually("3 pods", func() bool { return e.settled("web", 3) })
		require.Equal(t, 7, e.count("SuccessfulDelete"))

		e.scaleRS("web", 0)
		e.eventually("no pods", func() bool { return e.settled("web", 0) })
		require.Equal(t, 10, e.count("SuccessfulDelete"))
		require.Equal(t, 10, e.count("SuccessfulCreate"))
	})
}

// Pods deleted behind the controller's back — at once, or gracefully (the
// terminating pod is replaced before it is gone) — are replaced.
func TestReplacesDeletedPods(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, envOptions{stopIn: time.Minute})
		e.createRS(replicaSet("web", 3))
		e.eventually("3 pods", func() bool { return e.settled("web", 3) })
		ps := e.pods("web")

		zero := int64(0)
		_, err := e.c.Pods().DeleteWith(e.ctx, api.Key(ps[0]), cluster.DeleteOptions{GracePeriodSeconds: &zero})
		require.NoError(t, err)
		_, err = e.c.Pods().Delete(e.ctx, api.Key(ps[1]), "") // graceful: a minute to stop
		require.NoError(t, err)
		e.eventually("replacements while one terminates", func() bool {
			all := e.pods("web")
			return live(all) == 3 && len(all) == 4
		})
		// status.terminatingReplicas counts it (v1.37's default).
		e.eventually("terminatingReplicas 1", func() bool {
			tr := e.getRS("web").Status.TerminatingReplicas
			return tr != nil && *tr == 1
		})
		e.eventually("settled", func() bool { return e.settled("web", 3) })
		e.eventually("terminatingReplicas 0", func() bool {
			tr := e.getRS("web").Status.TerminatingReplicas
			return tr != nil && *tr == 0
		})
		require.Equal(t, 5, e.count("SuccessfulCreate"))
		for _, p := range e.pods("web") {
			require.NotEqual(t, ps[0].UID, p.UID)
			require.NotEqual(t, ps[1].UID, p.UID)
		}
	})
}

// Orphans the selector picks are adopted instead of new pods created; a
// pod relabelled out of the selector is released and replaced.
func TestAdoptAndRelease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, envOptions{})
		for _, name := range []string{"orphan-1", "orphan-2"} {
			tmpl := template("web")
			_, err := e.c.Pods().Create(e.ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", Labels: tmpl.Labels}, Spec: tmpl.Spec})
			require.NoError(t, err)
		}
		e.eventually("orphans running", func() bool {
			ps := e.pods("web")
			return len(ps) == 2 && api.IsPodReady(ps[0]) && api.IsPodReady(ps[1])
		})
		rs := e.createRS(replicaSet("web", 3))
		e.eventually("3 pods", func() bool { return e.settled("web", 3) })
		require.Equal(t, 1, e.count("SuccessfulCreate"), "the orphans were adopted")
		for _, p := range e.pods("web") {
			require.True(t, api.IsControlledBy(p, rs), p.Name)
		}

		p, _, err := e.c.Pods().Get(e.ctx, "default/orphan-1")
		require.NoError(t, err)
		p.Labels = map[string]string{"app": "debug"}
		_, err = e.c.Pods().Update(e.ctx, p, "")
		require.NoError(t, err)
		e.eventually("released and replaced", func() bool {
			p, _, err := e.c.Pods().Get(e.ctx, "default/orphan-1")
			return err == nil && len(p.OwnerReferences) == 0 && e.settled("web", 3)
		})
		require.Equal(t, 2, e.count("SuccessfulCreate"))
	})
}

// No double create when the cache lags: the controller's pod cache sees
// every event 3 seconds late and its watch is cut every 7 events, while
// pods are killed behind its back. At every instant the store changes,
// the live pods never exceed the replicas.
func TestNoDoubleCreateWhenCacheLags(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, envOptions{lag: 3 * time.Second, cutEvery: 7})
		const replicas = 10
		var maxLive, instants atomic.Int64
		ctx, stop := context.WithCancel(e.ctx)
		var wg sync.WaitGroup
		defer wg.Wait()
		defer stop()
		watch, err := e.c.Pods().Watch(ctx, source.WatchOptions{})
		require.NoError(t, err)
		wg.Go(func() {
			for range watch {
				l, err := e.c.Pods().List(ctx, source.ListOptions{})
				if err != nil {
					return
				}
				n := int64(live(l.Items))
				instants.Add(1)
				if n > maxLive.Load() {
					maxLive.Store(n)
				}
				if n > replicas {
					t.Errorf("%d live pods at %v, want at most %d", n, time.Now(), replicas)
				}
			}
		})

		e.createRS(replicaSet("web", replicas))
		e.eventually("10 pods", func() bool { return e.settled("web", replicas) })
		for _, kill := range []int{3, 4, 10} {
			for _, p := range e.pods("web")[:kill] {
				_, err := e.c.Pods().Delete(e.ctx, api.Key(p), "")
				require.NoError(t, err)
			}
			e.eventually("replaced", func() bool { return e.settled("web", replicas) })
		}
		stop()
		require.EqualValues(t, replicas, maxLive.Load())
		require.Greater(t, instants.Load(), int64(100))
		require.Equal(t, replicas+3+4+10, e.count("SuccessfulCreate"))
	})
}

// availableReplicas counts a pod once it has been ready for more than
// minReadySeconds, and the controller notices at that instant without
// another event.
func TestStatusAvailableAfterMinReadySeconds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, envOptions{readyIn: 5 * time.Second})
		rs := replicaSet("web", 3)
		rs.Spec.MinReadySeconds = 30
		rs.Spec.Template.Labels["extra"] = "x"
		rs.Spec.Selector.MatchLabels = map[string]string{"app": "web"}
		created := time.Now()
		e.createRS(rs)

		time.Sleep(time.Second)
		synctest.Wait()
		st := e.getRS("web").Status
		require.Equal(t, api.ReplicaSetStatus{Replicas: 3, FullyLabeledReplicas: 3, ObservedGeneration: 1, TerminatingReplicas: new(int32(0))}, st)

		time.Sleep(created.Add(34 * time.Second).Sub(time.Now()))
		synctest.Wait()
		st = e.getRS("web").Status
		require.EqualValues(t, 3, st.ReadyReplicas)
		require.Zero(t, st.AvailableReplicas, "ready for 29s of 30")

		time.Sleep(2 * time.Second)
		synctest.Wait()
		st = e.getRS("web").Status
		require.EqualValues(t, 3, st.AvailableReplicas, "ready for 31s")
	})
}

// A create the admission rejects (a quota) sets ReplicaFailure; once the
// creates succeed it is removed.
func TestReplicaFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var reject atomic.Bool
		reject.Store(true)
		errQuota := errors.New(`exceeded quota: compute, requested: pods=1, used: pods=0, limited: pods=0`)
		e := start(t, envOptions{admission: []cluster.AdmissionFunc{func(_ context.Context, a cluster.Attributes) error {
			if a.Resource == "pods" && a.Operation == cluster.OperationCreate && reject.Load() {
				return errQuota
			}
			return nil
		}}})
		e.createRS(replicaSet("web", 2))
		var cond api.ReplicaSetCondition
		e.eventually("ReplicaFailure", func() bool {
			cs := e.getRS("web").Status.Conditions
			if len(cs) == 1 {
				cond = cs[0]
			}
			return len(cs) == 1
		})
		require.Equal(t, replicaset.ReplicaFailure, cond.Type)
		require.Equal(t, api.ConditionTrue, cond.Status)
		require.Equal(t, replicaset.ReasonFailedCreate, cond.Reason)
		require.Contains(t, cond.Message, "exceeded quota")
		require.Empty(t, e.pods("web"))
		failed := e.count("FailedCreate")
		time.Sleep(time.Minute)
		synctest.Wait()
		require.Less(t, e.count("FailedCreate")-failed, 30, "slow start and backoff: one create per attempt")

		reject.Store(false)
		e.eventually("2 pods, no failure", func() bool {
			return e.settled("web", 2) && e.getRS("web").Status.Conditions == nil
		})
	})
}

// The ReplicationController manager: a map selector, the same behaviour.
func TestReplicationController(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, envOptions{rc: true})
		tmpl := template("legacy")
		_, err := e.c.Pods().Create(e.ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "orphan", Namespace: "default", Labels: tmpl.Labels}, Spec: tmpl.Spec})
		require.NoError(t, err)
		e.eventually("orphan running", func() bool { return api.IsPodReady(e.pods("legacy")[0]) })
		three := int32(3)
		rc := &api.ReplicationController{
			ObjectMeta: api.ObjectMeta{Name: "legacy", Namespace: "default"},
			Spec:       api.ReplicationControllerSpec{Replicas: &three, Template: &tmpl}, // the selector defaults to the template's labels
		}
		_, err = e.c.ReplicationControllers().Create(e.ctx, rc)
		require.NoError(t, err)
		get := func() *api.ReplicationController {
			rc, _, err := e.c.ReplicationControllers().Get(e.ctx, "default/legacy")
			require.NoError(t, err)
			return rc
		}
		settled := func(n int) bool {
			ps, rc := e.pods("legacy"), get()
			return len(ps) == n && live(ps) == n && rc.Status.Replicas == int32(n) && rc.Status.ReadyReplicas == int32(n)
		}
		e.eventually("3 pods", func() bool { return settled(3) })
		require.Equal(t, 2, e.count("SuccessfulCreate"), "the orphan was adopted")
		for _, p := range e.pods("legacy") {
			require.True(t, api.IsControlledBy(p, rc))
			require.Equal(t, "ReplicationController", p.ControllerRef().Kind)
		}

		rc = get()
		one := int32(1)
		rc.Spec.Replicas = &one
		_, err = e.c.ReplicationControllers().Update(e.ctx, rc, "")
		require.NoError(t, err)
		e.eventually("1 pod", func() bool { return settled(1) })
		require.Equal(t, 2, e.count("SuccessfulDelete"))
	})
}

// An owner being deleted (here kept by the orphan finalizer, which no
// garbage collector removes in this test) neither replaces pods nor
// adopts orphans, but still reports its status.
func TestOwnerBeingDeletedDoesNotManage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, envOptions{})
		e.createRS(replicaSet("web", 2))
		e.eventually("2 pods", func() bool { return e.settled("web", 2) })
		_, err := e.c.ReplicaSets().DeleteWith(e.ctx, "default/web", cluster.DeleteOptions{PropagationPolicy: cluster.DeletePropagationOrphan})
		require.NoError(t, err)
		require.NotNil(t, e.getRS("web").DeletionTimestamp)
		// Let the controller's caches see the deletion timestamp before
		// the pod's deletion: a sync that still sees the owner live would
		// replace the pod, as kube-controller-manager's would.
		synctest.Wait()

		_, err = e.c.Pods().Delete(e.ctx, api.Key(e.pods("web")[0]), "")
		require.NoError(t, err)
		tmpl := template("web")
		_, err = e.c.Pods().Create(e.ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "orphan", Namespace: "default", Labels: tmpl.Labels}, Spec: tmpl.Spec})
		require.NoError(t, err)
		e.eventually("status of 1", func() bool {
			return e.getRS("web").Status.Replicas == 1 && len(e.pods("web")) == 2 // the survivor and the orphan
		})
		time.Sleep(time.Minute)
		synctest.Wait()
		require.Equal(t, 2, e.count("SuccessfulCreate"), "no replacement")
		p, _, err := e.c.Pods().Get(e.ctx, "default/orphan")
		require.NoError(t, err)
		require.Nil(t, p.ControllerRef(), "no adoption")
	})
}

// An owner's pods are those whose controller reference names it — its
// kind, name and UID, in its namespace — and the orphans of its namespace
// (kube-controller-manager's pod controller index, FilterPodsByOwner): a
// pod whose reference has the ReplicaSet's UID but another kind, or that
// lives in another namespace, is not one of its replicas, so it is neither
// counted nor deleted.
func TestPodsByControllerIndex(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, envOptions{})
		e.createRS(replicaSet("web", 2))
		e.eventually("2 pods", func() bool { return e.settled("web", 2) })
		uid := e.getRS("web").UID
		tmpl := template("web")
		for _, p := range []*api.Pod{
			{ObjectMeta: api.ObjectMeta{Name: "other-kind", Namespace: "default", Labels: tmpl.Labels,
				OwnerReferences: []api.OwnerReference{{APIVersion: "v1", Kind: "ReplicationController", Name: "web", UID: uid, Controller: new(true)}}}, Spec: tmpl.Spec},
			{ObjectMeta: api.ObjectMeta{Name: "other-namespace", Namespace: "kube-system", Labels: tmpl.Labels,
				OwnerReferences: []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: uid, Controller: new(true)}}}, Spec: tmpl.Spec},
		} {
			_, err := e.c.Pods().Create(e.ctx, p)
			require.NoError(t, err)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		got := e.getRS("web")
		require.Equal(t, int32(2), got.Status.Replicas, "status counts only the ReplicaSet's own pods")
		require.Equal(t, int32(2), got.Status.ReadyReplicas)
		require.Len(t, e.pods("web"), 4)
		require.Equal(t, 0, e.count("SuccessfulDelete"))
		require.Equal(t, 2, e.count("SuccessfulCreate"))
		for _, key := range []string{"default/other-kind", "kube-system/other-namespace"} {
			_, _, err := e.c.Pods().Get(e.ctx, key)
			require.NoError(t, err, key)
		}
	})
}
