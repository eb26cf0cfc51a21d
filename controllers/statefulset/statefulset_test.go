package statefulset_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/source"
)

// Kubernetes' StatefulSet documentation's manifests unchanged: the headless nginx Service and the web
// StatefulSet. web-0 is Running and Ready before web-1 is created; each
// pod has its stable name, hostname and subdomain (web-0.nginx).
func TestWebOrderedReady(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		log := e.watchPods()
		e.apply(e.manifests("nginx-headless-service.yaml", "web-statefulset.yaml")...)
		e.eventually("web settled", func() bool { return e.settled("web", 2) })

		ready0, added1 := log.firstIndex(readyEv("web-0")), log.firstIndex(added("web-1"))
		require.GreaterOrEqual(t, ready0, 0)
		require.Greater(t, added1, ready0, "web-1 is created only once web-0 is ready")

		s := e.set("web")
		for i, name := range []string{"web-0", "web-1"} {
			p, ok := e.pod(name)
			require.True(t, ok, name)
			require.Equal(t, name, p.Spec.Hostname)
			require.Equal(t, "nginx", p.Spec.Subdomain)
			require.Equal(t, name, p.Labels[api.LabelStatefulSetPodName])
			require.Equal(t, []string{"0", "1"}[i], p.Labels[api.LabelPodIndex])
			require.Equal(t, s.Status.UpdateRevision, p.Labels[api.LabelControllerRevisionHash])
			require.True(t, api.IsControlledBy(p, s))
		}
		require.Equal(t, s.Status.CurrentRevision, s.Status.UpdateRevision)
		require.EqualValues(t, 2, s.Status.CurrentReplicas)
		require.EqualValues(t, 2, s.Status.UpdatedReplicas)
		revs, err := e.c.ControllerRevisions().List(e.ctx, source.ListOptions{})
		require.NoError(t, err)
		require.Len(t, revs.Items, 1)
		require.Equal(t, s.Status.UpdateRevision, revs.Items[0].Name)
		require.EqualValues(t, 1, revs.Items[0].Revision)
		require.Equal(t, "nginx", revs.Items[0].Labels["app"])
	})
}

// The "stable storage" of Kubernetes' StatefulSet documentation: each pod gets its claim, bound to a volume
// the simulated provisioner made; a deleted pod comes back with the same
// name and the same claim and volume. Scaling down goes from the top, one
// pod at a time, and keeps the claims (Retain).
func TestWebStorageAndScaleDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		objs := e.manifests("nginx-headless-service.yaml", "web-statefulset.yaml")
		web := withClaims(objs[1].(*api.StatefulSet))
		web.Spec.Replicas = ptr(int32(3))
		e.apply(defaultClass(), objs[0], web)
		e.eventually("web settled", func() bool { return e.settled("web", 3) })

		volumes := map[string]string{}
		for _, name := range []string{"www-web-0", "www-web-1", "www-web-2"} {
			c, ok := e.claim(name)
			require.True(t, ok, name)
			require.Equal(t, api.PersistentVolumeClaimPhase("Bound"), c.Status.Phase, name)
			require.Equal(t, "standard", *c.Spec.StorageClassName, "the default class")
			require.Equal(t, "nginx", c.Labels["app"])
			volumes[name] = c.Spec.VolumeName
		}
		p0, _ := e.pod("web-0")
		require.Equal(t, "www-web-0", p0.Spec.Volumes[0].PersistentVolumeClaim.ClaimName)

		// Delete web-0: it comes back under its name, with its claim.
		_, err := e.c.Pods().DeleteWith(e.ctx, "default/web-0", cluster.DeleteOptions{})
		require.NoError(t, err)
		e.eventually("web-0 recreated", func() bool {
			p, ok := e.pod("web-0")
			return ok && p.UID != p0.UID && api.IsPodReady(p)
		})
		p, _ := e.pod("web-0")
		require.Equal(t, "www-web-0", p.Spec.Volumes[0].PersistentVolumeClaim.ClaimName)
		c, _ := e.claim("www-web-0")
		require.Equal(t, volumes["www-web-0"], c.Spec.VolumeName, "the same volume")

		// Scale down to 1: web-2 goes first, web-1 only once web-2 is gone.
		log := e.watchPods()
		e.update("web", func(s *api.StatefulSet) { s.Spec.Replicas = ptr(int32(1)) })
		e.eventually("web at 1", func() bool { return e.settled("web", 1) })
		gone2, term1 := log.firstIndex(goneEv("web-2")), log.firstIndex(terminatingEv("web-1"))
		require.GreaterOrEqual(t, gone2, 0)
		require.Greater(t, term1, gone2, "web-1 is deleted only after web-2 is gone")
		require.Equal(t, -1, log.firstIndex(terminatingEv("web-0")))
		for _, name := range []string{"www-web-1", "www-web-2"} {
			_, ok := e.claim(name)
			require.True(t, ok, "Retain keeps %s", name)
		}

		// Scale up again: web-1 gets its old claim and volume back.
		e.update("web", func(s *api.StatefulSet) { s.Spec.Replicas = ptr(int32(2)) })
		e.eventually("web at 2", func() bool { return e.settled("web", 2) })
		c, _ = e.claim("www-web-1")
		require.Equal(t, volumes["www-web-1"], c.Spec.VolumeName)
	})
}

// The partitioned rolling update of Kubernetes' StatefulSet documentation: with partition 2, a new image reaches only
// web-2; web-1 deleted comes back at the old image; lowering the
// partition to 0 updates web-1 then web-0, highest first, each after the
// previous is ready.
func TestPartitionRollout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		objs := e.manifests("nginx-headless-service.yaml", "web-statefulset.yaml")
		web := objs[1].(*api.StatefulSet)
		web.Spec.Replicas = ptr(int32(3))
		web.Spec.Template.Spec.Containers[0].Image = "mysql:5.7.2"
		web.Spec.Template.Spec.TerminationGracePeriodSeconds = ptr(int64(5))
		e.apply(objs[0], web)
		e.eventually("web settled", func() bool { return e.settled("web", 3) })
		oldRev := e.set("web").Status.CurrentRevision

		e.update("web", func(s *api.StatefulSet) {
			s.Spec.UpdateStrategy.RollingUpdate = &api.RollingUpdateStatefulSetStrategy{Partition: ptr(int32(2))}
			s.Spec.Template.Spec.Containers[0].Image = "mysql:5.7.23"
		})
		e.eventually("web-2 updated", func() bool {
			p, ok := e.pod("web-2")
			return ok && imageOf(p) == "mysql:5.7.23" && api.IsPodReady(p) && e.settled("web", 3) && e.set("web").Status.UpdatedReplicas == 1
		})
		time.Sleep(time.Minute)
		synctest.Wait()
		for _, name := range []string{"web-0", "web-1"} {
			p, _ := e.pod(name)
			require.Equal(t, "mysql:5.7.2", imageOf(p), "%s is below the partition", name)
		}
		s := e.set("web")
		require.Equal(t, oldRev, s.Status.CurrentRevision)
		require.NotEqual(t, oldRev, s.Status.UpdateRevision)
		require.EqualValues(t, 2, s.Status.CurrentReplicas)
		require.EqualValues(t, 1, s.Status.UpdatedReplicas)

		// A pod below the partition, deleted, comes back at the old revision.
		p1, _ := e.pod("web-1")
		_, err := e.c.Pods().DeleteWith(e.ctx, "default/web-1", cluster.DeleteOptions{})
		require.NoError(t, err)
		e.eventually("web-1 recreated", func() bool {
			p, ok := e.pod("web-1")
			return ok && p.UID != p1.UID && api.IsPodReady(p)
		})
		p, _ := e.pod("web-1")
		require.Equal(t, "mysql:5.7.2", imageOf(p))
		require.Equal(t, oldRev, p.Labels[api.LabelControllerRevisionHash])

		// Partition 0: the rest, highest first, one at a time.
		log := e.watchPods()
		e.update("web", func(s *api.StatefulSet) { s.Spec.UpdateStrategy.RollingUpdate.Partition = ptr(int32(0)) })
		e.eventually("rollout done", func() bool {
			s := e.set("web")
			return e.settled("web", 3) && s.Status.UpdatedReplicas == 3 && s.Status.CurrentRevision == s.Status.UpdateRevision
		})
		term0, term1 := log.firstIndex(terminatingEv("web-0")), log.firstIndex(terminatingEv("web-1"))
		newReady1 := log.firstIndex(func(ev podEvent) bool {
			return ev.pod.Name == "web-1" && imageOf(ev.pod) == "mysql:5.7.23" && api.IsPodReady(ev.pod)
		})
		require.Greater(t, term0, term1, "web-1 before web-0")
		require.Greater(t, term0, newReady1, "web-0 waits for the new web-1 to be ready")
		for _, p := range e.pods() {
			require.Equal(t, "mysql:5.7.23", imageOf(p))
		}
	})
}

// persistentVolumeClaimRetentionPolicy Delete/Delete: a scaled-down
// pod's claim goes with it (owned by the pod), and deleting the set takes
// the rest (owned by the set); their provisioned volumes are deleted by
// reclaim policy Delete.
func TestClaimRetentionDelete(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		objs := e.manifests("nginx-headless-service.yaml", "web-statefulset.yaml")
		web := withClaims(objs[1].(*api.StatefulSet))
		web.Spec.Template.Spec.TerminationGracePeriodSeconds = ptr(int64(5))
		web.Spec.PersistentVolumeClaimRetentionPolicy = &api.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenDeleted: "Delete", WhenScaled: "Delete"}
		e.apply(defaultClass(), objs[0], web)
		e.eventually("web settled", func() bool { return e.settled("web", 2) })
		c0, _ := e.claim("www-web-0")
		require.Equal(t, "StatefulSet", c0.OwnerReferences[0].Kind)

		e.update("web", func(s *api.StatefulSet) { s.Spec.Replicas = ptr(int32(1)) })
		e.eventually("www-web-1 deleted with web-1", func() bool {
			_, ok := e.claim("www-web-1")
			return !ok && e.settled("web", 1)
		})
		_, ok := e.claim("www-web-0")
		require.True(t, ok)

		_, err := e.c.StatefulSets().DeleteWith(e.ctx, "default/web", cluster.DeleteOptions{})
		require.NoError(t, err)
		e.eventually("everything gone", func() bool {
			_, ok := e.claim("www-web-0")
			pvs, err := e.c.PersistentVolumes().List(e.ctx, source.ListOptions{})
			require.NoError(t, err)
			return !ok && len(e.pods()) == 0 && len(pvs.Items) == 0
		})
	})
}

// The default policy Retain/Retain: deleting the set leaves the claims
// and their volumes.
func TestClaimRetentionRetain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		objs := e.manifests("nginx-headless-service.yaml", "web-statefulset.yaml")
		web := withClaims(objs[1].(*api.StatefulSet))
		web.Spec.Template.Spec.TerminationGracePeriodSeconds = ptr(int64(5))
		e.apply(defaultClass(), objs[0], web)
		e.eventually("web settled", func() bool { return e.settled("web", 2) })
		_, err := e.c.StatefulSets().DeleteWith(e.ctx, "default/web", cluster.DeleteOptions{})
		require.NoError(t, err)
		e.eventually("pods gone", func() bool { return len(e.pods()) == 0 })
		time.Sleep(time.Minute)
		synctest.Wait()
		for _, name := range []string{"www-web-0", "www-web-1"} {
			c, ok := e.claim(name)
			require.True(t, ok, name)
			require.Empty(t, c.OwnerReferences)
			require.Equal(t, api.PersistentVolumeClaimPhase("Bound"), c.Status.Phase)
		}
	})
}

// Parallel pod management creates every pod at once; OnDelete leaves the
// pods at their revision until they are deleted.
func TestParallelOnDelete(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		log := e.watchPods()
		objs := e.manifests("nginx-headless-service.yaml", "web-statefulset.yaml")
		web := objs[1].(*api.StatefulSet)
		web.Spec.Replicas = ptr(int32(3))
		web.Spec.PodManagementPolicy = api.ParallelPodManagement
		web.Spec.UpdateStrategy.Type = "OnDelete"
		web.Spec.Template.Spec.TerminationGracePeriodSeconds = ptr(int64(5))
		e.apply(objs[0], web)
		e.eventually("web settled", func() bool { return e.settled("web", 3) })
		require.Less(t, log.firstIndex(added("web-2")), log.firstIndex(readyEv("web-0")), "no waiting for readiness")

		e.update("web", func(s *api.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = "nginx:1.13" })
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		for _, p := range e.pods() {
			require.Equal(t, "nginx:1.12", imageOf(p))
		}
		_, err := e.c.Pods().DeleteWith(e.ctx, "default/web-1", cluster.DeleteOptions{})
		require.NoError(t, err)
		e.eventually("web-1 updated", func() bool {
			p, ok := e.pod("web-1")
			return ok && imageOf(p) == "nginx:1.13" && api.IsPodReady(p)
		})
		s := e.set("web")
		require.EqualValues(t, 1, s.Status.UpdatedReplicas)
		require.EqualValues(t, 2, s.Status.CurrentReplicas)
	})
}

func ptr[T any](v T) *T { return &v }

// minReadySeconds: web-1 is created only once web-0 has been ready for
// more than minReadySeconds; a rollback to an earlier template reuses
// its revision; revisionHistoryLimit bounds the history.
func TestMinReadySecondsAndHistory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		log := e.watchPods()
		objs := e.manifests("nginx-headless-service.yaml", "web-statefulset.yaml")
		web := objs[1].(*api.StatefulSet)
		web.Spec.MinReadySeconds = 10
		web.Spec.RevisionHistoryLimit = ptr(int32(1))
		web.Spec.Template.Spec.TerminationGracePeriodSeconds = ptr(int64(1))
		e.apply(objs[0], web)
		e.eventually("web settled", func() bool { return e.settled("web", 2) })
		evs := log.events()
		ready0, added1 := evs[log.firstIndex(readyEv("web-0"))], evs[log.firstIndex(added("web-1"))]
		require.GreaterOrEqual(t, added1.when.Sub(ready0.when), 10*time.Second)
		require.Less(t, added1.when.Sub(ready0.when), 13*time.Second, "requeued for the instant web-0 becomes available")

		revisions := func() map[string]int64 {
			l, err := e.c.ControllerRevisions().List(e.ctx, source.ListOptions{})
			require.NoError(t, err)
			out := map[string]int64{}
			for _, r := range l.Items {
				out[r.Name] = r.Revision
			}
			return out
		}
		first := e.set("web").Status.UpdateRevision
		for _, image := range []string{"nginx:1.13", "nginx:1.14", "nginx:1.15"} {
			e.update("web", func(s *api.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = image })
			e.eventually("rolled to "+image, func() bool {
				s := e.set("web")
				return e.settled("web", 2) && s.Status.UpdatedReplicas == 2 && s.Status.CurrentRevision == s.Status.UpdateRevision &&
					s.Status.ObservedGeneration == s.Generation
			})
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		require.Len(t, revisions(), 2, "the live revision and one more")

		e.update("web", func(s *api.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = "nginx:1.14" })
		e.eventually("rolled back", func() bool {
			s := e.set("web")
			return e.settled("web", 2) && s.Status.UpdatedReplicas == 2 && s.Status.CurrentRevision == s.Status.UpdateRevision &&
				s.Status.ObservedGeneration == s.Generation
		})
		s := e.set("web")
		revs := revisions()
		require.EqualValues(t, 5, revs[s.Status.UpdateRevision], "the 1.14 revision, renumbered")
		require.NotContains(t, revs, first)
	})
}
