package deployment_test

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/deployment"
)

// TestAdoptOrphan: an orphan ReplicaSet the selector picks is adopted;
// with the Deployment's template it is the new ReplicaSet, so nothing
// else is created.
func TestAdoptOrphan(t *testing.T) {
	withEnv(t, time.Second, nil, func(e *env) {
		d := newDeployment("web", 2, rolling(1, 0))
		legacy := &api.ReplicaSet{
			ObjectMeta: api.ObjectMeta{Name: "legacy", Namespace: "default", Labels: map[string]string{"app": "web"}},
			Spec: api.ReplicaSetSpec{Replicas: ptr(int32(2)), Selector: d.Spec.Selector.DeepCopy(),
				Template: *d.Spec.Template.DeepCopy()},
		}
		if _, err := e.c.ReplicaSets().Create(t.Context(), legacy); err != nil {
			t.Fatal(err)
		}
		// The orphan is in the controller's cache before the Deployment
		// appears, as for any orphan that existed before it: a Deployment
		// synced before its cache sees the orphan makes a ReplicaSet of its
		// own, in kube-controller-manager too.
		synctest.Wait()
		e.create(d)
		e.waitFor("rolled out", time.Minute, e.complete("web"))
		rss := e.replicaSets()
		if len(rss) != 1 || rss[0].Name != "legacy" {
			t.Fatalf("ReplicaSets %v, want only legacy", names(rss))
		}
		if !api.IsControlledBy(rss[0], e.get("web")) {
			t.Error("legacy was not adopted")
		}
		if revisionOf(rss[0]) != 1 {
			t.Errorf("legacy at revision %d, want 1", revisionOf(rss[0]))
		}
	})
}

// TestReleaseAndCollision: a ReplicaSet relabelled out of the selector is
// released; its name, taken by a ReplicaSet the Deployment no longer
// owns, is a hash collision: collisionCount goes to 1 and the new
// ReplicaSet is named with the hash of (template, 1).
func TestReleaseAndCollision(t *testing.T) {
	withEnv(t, time.Second, nil, func(e *env) {
		e.create(newDeployment("web", 2, rolling(1, 0)))
		e.waitFor("rolled out", time.Minute, e.complete("web"))
		first := e.replicaSets()[0]
		for range 10 {
			rs, _, err := e.c.ReplicaSets().Get(t.Context(), api.Key(first))
			if err != nil {
				t.Fatal(err)
			}
			rs.Labels = map[string]string{"app": "other"}
			if _, err = e.c.ReplicaSets().Update(t.Context(), rs, rs.ResourceVersion); err == nil {
				break
			}
		}
		e.waitFor("a new ReplicaSet", time.Minute, func() bool {
			d := e.get("web")
			return d.Status.CollisionCount != nil && *d.Status.CollisionCount == 1 && e.complete("web")() && len(e.replicaSets()) == 2
		})
		d := e.get("web")
		rss := e.replicaSets()
		if len(rss) != 2 {
			t.Fatalf("ReplicaSets %v, want 2", names(rss))
		}
		if rss[0].ControllerRef() != nil {
			t.Errorf("%s still controlled after relabelling", rss[0].Name)
		}
		if want := "web-" + deployment.PodTemplateHash(&d.Spec.Template, ptr(int32(1))); rss[1].Name != want || !api.IsControlledBy(rss[1], d) {
			t.Errorf("new ReplicaSet %s, want %s controlled by web", rss[1].Name, want)
		}
	})
}

// TestRevisionHistoryLimit: with revisionHistoryLimit 1, rolling v1 → v2
// → v3 keeps v2's empty ReplicaSet and deletes v1's.
func TestRevisionHistoryLimit(t *testing.T) {
	withEnv(t, time.Second, nil, func(e *env) {
		d := newDeployment("web", 2, rolling(1, 0))
		d.Spec.RevisionHistoryLimit = ptr(int32(1))
		e.create(d)
		e.waitFor("v1", time.Minute, e.complete("web"))
		for _, image := range []string{"v2", "v3"} {
			e.change("web", func(d *api.Deployment) { d.Spec.Template.Spec.Containers[0].Image = image })
			e.waitFor(image, time.Minute, e.complete("web"))
		}
		e.waitFor("cleanup", time.Minute, func() bool { return len(e.replicaSets()) == 2 })
		for _, rs := range e.replicaSets() {
			if img := rs.Spec.Template.Spec.Containers[0].Image; img == "v1" {
				t.Errorf("v1's ReplicaSet %s was kept", rs.Name)
			}
		}
	})
}

func names(rss []*api.ReplicaSet) []string {
	var out []string
	for _, rs := range rss {
		out = append(out, rs.Name)
	}
	return out
}

// TestScalingEvents: every scale is recorded as kcm records it.
func TestScalingEvents(t *testing.T) {
	withEnv(t, time.Second, nil, func(e *env) {
		e.create(newDeployment("web", 2, rolling(1, 0)))
		e.waitFor("rolled out", time.Minute, e.complete("web"))
		e.change("web", func(d *api.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "v2" })
		e.waitFor("v2", time.Minute, e.complete("web"))
		rss := e.replicaSets()
		want := []string{
			"Normal ScalingReplicaSet Scaled up replica set " + rss[0].Name + " from 0 to 2",
			"Normal ScalingReplicaSet Scaled up replica set " + rss[1].Name + " from 0 to 1",
			"Normal ScalingReplicaSet Scaled down replica set " + rss[0].Name + " from 2 to 1",
			"Normal ScalingReplicaSet Scaled up replica set " + rss[1].Name + " from 1 to 2",
			"Normal ScalingReplicaSet Scaled down replica set " + rss[0].Name + " from 1 to 0",
		}
		got := e.events.Strings()
		if len(got) != len(want) {
			t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("event %d: %q, want %q", i, got[i], want[i])
			}
		}
	})
}
