package deployment_test

import (
	"sync"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/deployment"
)

// watermarks records the extremes of what the stand-in's world held,
// from the moment it is armed.
type watermarks struct {
	mu                 sync.Mutex
	armed              bool
	minAvail, maxTotal int32
	steps              int
	overlap            bool // two ReplicaSets had pods at once
}

// Every test here runs inside the testing/synctest bubble that run (in
// standin_test.go) opens, so its sleeps are virtual time.

func (w *watermarks) observe(pods, avail map[string]int32) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.armed {
		return
	}
	var total, av, withPods int32
	for name, n := range pods {
		total += n
		av += avail[name]
		if n > 0 {
			withPods++
		}
	}
	w.minAvail = min(w.minAvail, av)
	w.maxTotal = max(w.maxTotal, total)
	w.steps++
	if withPods > 1 {
		w.overlap = true
	}
}

func (w *watermarks) arm() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.armed, w.minAvail, w.maxTotal = true, 1<<30, 0
}

func (w *watermarks) get() watermarks {
	w.mu.Lock()
	defer w.mu.Unlock()
	return watermarks{minAvail: w.minAvail, maxTotal: w.maxTotal, steps: w.steps, overlap: w.overlap}
}

// TestRollingUpdate: v1 → v2 of 10 replicas with maxSurge 3 and
// maxUnavailable 2 keeps at least 8 pods available and at most 13 pods at
// every instant, in several steps, and ends with one ReplicaSet per
// template named after its hash, at revisions 1 and 2.
func TestRollingUpdate(t *testing.T) {
	var w watermarks
	withEnv(t, 5*time.Second, w.observe, func(e *env) {
		e.create(newDeployment("web", 10, rolling(3, 2)))
		e.waitFor("v1 rolled out", time.Minute, e.complete("web"))

		w.arm()
		e.change("web", func(d *api.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "v2" })
		e.waitFor("v2 rolled out", 5*time.Minute, e.complete("web"))

		got := w.get()
		t.Logf("rollout: %d steps, min available %d, max pods %d", got.steps, got.minAvail, got.maxTotal)
		if got.minAvail < 8 || got.maxTotal > 13 {
			t.Errorf("during the rollout: as few as %d available, as many as %d pods; want ≥ 8 and ≤ 13", got.minAvail, got.maxTotal)
		}
		if got.steps < 4 {
			t.Errorf("the rollout took %d steps, want several", got.steps)
		}
		d := e.get("web")
		rss := e.replicaSets()
		if len(rss) != 2 {
			t.Fatalf("%d ReplicaSets, want 2", len(rss))
		}
		if want := "web-" + deployment.PodTemplateHash(&d.Spec.Template, nil); rss[1].Name != want {
			t.Errorf("new ReplicaSet %s, want %s", rss[1].Name, want)
		}
		for i, rs := range rss {
			hash := rs.Spec.Template.Labels[api.LabelPodTemplateHash]
			if rs.Spec.Selector.MatchLabels[api.LabelPodTemplateHash] != hash || rs.Labels[api.LabelPodTemplateHash] != hash || hash == "" {
				t.Errorf("%s: hash label missing from labels, selector or template", rs.Name)
			}
			if got, want := revisionOf(rs), i+1; got != want {
				t.Errorf("%s: revision %d, want %d", rs.Name, got, want)
			}
			if !api.IsControlledBy(rs, d) {
				t.Errorf("%s is not controlled by the deployment", rs.Name)
			}
		}
		if *rss[0].Spec.Replicas != 0 || *rss[1].Spec.Replicas != 10 {
			t.Errorf("sizes %d and %d, want 0 and 10", *rss[0].Spec.Replicas, *rss[1].Spec.Replicas)
		}
		if d.Annotations[api.AnnotationDeploymentRevision] != "2" {
			t.Errorf("deployment revision %q, want 2", d.Annotations[api.AnnotationDeploymentRevision])
		}
		if c := condition(d, deployment.ConditionAvailable); c == nil || c.Status != api.ConditionTrue {
			t.Errorf("Available condition %+v, want True", c)
		}
		// Settled: another sync would write nothing and wait for nothing.
		p, err := deployment.Decide(d, rss, nil, time.Now())
		if err != nil || p.Create != nil || len(p.Update) > 0 || len(p.Delete) > 0 || p.Status != nil || p.Revision != "" || p.RequeueAfter != 0 {
			t.Errorf("a settled deployment plans %+v, %v; want nothing", p, err)
		}
	})
}

// TestRecreate: the new ReplicaSet gets pods only once the old one has
// none.
func TestRecreate(t *testing.T) {
	var w watermarks
	withEnv(t, 5*time.Second, w.observe, func(e *env) {
		e.create(newDeployment("web", 10, api.DeploymentStrategy{Type: api.RecreateDeploymentStrategyType}))
		e.waitFor("v1 rolled out", time.Minute, e.complete("web"))
		w.arm()
		e.change("web", func(d *api.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "v2" })
		e.waitFor("v2 rolled out", 5*time.Minute, e.complete("web"))
		got := w.get()
		if got.overlap {
			t.Error("old and new ReplicaSets had pods at the same time")
		}
		if got.minAvail != 0 {
			t.Errorf("at least %d pods were always available; Recreate goes through 0", got.minAvail)
		}
		if len(e.replicaSets()) != 2 {
			t.Errorf("%d ReplicaSets, want 2", len(e.replicaSets()))
		}
	})
}

// TestRollback: going back to v1's template reuses v1's ReplicaSet and
// makes it revision 3.
func TestRollback(t *testing.T) {
	withEnv(t, 5*time.Second, nil, func(e *env) {
		e.create(newDeployment("web", 4, rolling(1, 1)))
		e.waitFor("v1 rolled out", time.Minute, e.complete("web"))
		v1 := e.replicaSets()[0]
		e.change("web", func(d *api.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "v2" })
		e.waitFor("v2 rolled out", 5*time.Minute, e.complete("web"))
		e.change("web", func(d *api.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "v1" })
		e.waitFor("back at v1", 5*time.Minute, e.complete("web"))
		rss := e.replicaSets()
		if len(rss) != 2 {
			t.Fatalf("%d ReplicaSets, want 2", len(rss))
		}
		for _, rs := range rss {
			if rs.UID == v1.UID {
				if revisionOf(rs) != 3 || *rs.Spec.Replicas != 4 {
					t.Errorf("v1's ReplicaSet at revision %d with %d replicas, want 3 and 4", revisionOf(rs), *rs.Spec.Replicas)
				}
				return
			}
		}
		t.Errorf("v1's ReplicaSet %s was not reused", v1.Name)
	})
}

// TestPauseThenScale: a paused Deployment mid-rollout does not roll on,
// but scaling it spreads the new replicas over both ReplicaSets in
// proportion to their sizes (kcm's proportional scaling).
func TestPauseThenScale(t *testing.T) {
	withEnv(t, time.Minute, nil, func(e *env) {
		e.create(newDeployment("web", 10, rolling(3, 2)))
		e.waitFor("v1 rolled out", 5*time.Minute, e.complete("web"))
		e.change("web", func(d *api.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "v2" })
		sizes := func() (old, new int32) {
			rss := e.replicaSets()
			if len(rss) != 2 {
				return -1, -1
			}
			return *rss[0].Spec.Replicas, *rss[1].Spec.Replicas
		}
		// The first steps: old 10 → 8, new 0 → 3 → 5 (the room the old one left).
		e.waitFor("first steps", 10*time.Second, func() bool { o, n := sizes(); return o == 8 && n == 5 })
		e.change("web", func(d *api.Deployment) { d.Spec.Paused = true })
		e.waitFor("paused condition", 10*time.Second, func() bool {
			c := condition(e.get("web"), deployment.ConditionProgressing)
			return c != nil && c.Reason == deployment.ReasonDeploymentPaused
		})
		e.change("web", func(d *api.Deployment) { d.Spec.Replicas = ptr(int32(20)) })
		// Capacity 13 → 23: old 8*23/13 = 14.2 → 14, new 5*23/13 = 8.8 → 9,
		// so both grow in proportion; no leftover.
		e.waitFor("proportional scale", 10*time.Second, func() bool { o, n := sizes(); return o == 14 && n == 9 })
		// Paused: pods becoming available do not move the rollout on.
		time.Sleep(5 * time.Minute)
		if o, n := sizes(); o != 14 || n != 9 {
			t.Errorf("while paused the sizes moved to %d and %d", o, n)
		}
		e.change("web", func(d *api.Deployment) { d.Spec.Paused = false })
		e.waitFor("v2 rolled out after resuming", 10*time.Minute, e.complete("web"))
	})
}

// TestProgressDeadlineExceeded: pods that never become available turn
// Progressing False with ProgressDeadlineExceeded once
// progressDeadlineSeconds pass without progress — the controller requeues
// itself for the deadline; nothing else happens meanwhile.
func TestProgressDeadlineExceeded(t *testing.T) {
	withEnv(t, never, nil, func(e *env) {
		d := newDeployment("web", 3, rolling(1, 0))
		d.Spec.ProgressDeadlineSeconds = ptr(int32(30))
		start := time.Now()
		e.create(d)
		exceeded := func() bool {
			c := condition(e.get("web"), deployment.ConditionProgressing)
			return c != nil && c.Reason == deployment.ReasonProgressDeadlineExceeded && c.Status == api.ConditionFalse
		}
		e.waitFor("deadline exceeded", 2*time.Minute, exceeded)
		if took := time.Since(start); took < 30*time.Second || took > 35*time.Second {
			t.Errorf("reported after %v, want just past 30s", took)
		}
		if c := condition(e.get("web"), deployment.ConditionAvailable); c == nil || c.Status != api.ConditionFalse {
			t.Errorf("Available %+v, want False", c)
		}
	})
}

func ptr[T any](v T) *T { return &v }

// TestScaleMidRollout: scaling a Deployment that is not paused in the
// middle of a rollout is a scaling event too: both ReplicaSets grow in
// proportion, then the rollout goes on within the new fenceposts.
func TestScaleMidRollout(t *testing.T) {
	withEnv(t, time.Minute, nil, func(e *env) {
		e.create(newDeployment("web", 10, rolling(3, 2)))
		e.waitFor("v1 rolled out", 5*time.Minute, e.complete("web"))
		e.change("web", func(d *api.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "v2" })
		sizes := func() (old, new int32) {
			rss := e.replicaSets()
			if len(rss) != 2 {
				return -1, -1
			}
			return *rss[0].Spec.Replicas, *rss[1].Spec.Replicas
		}
		e.waitFor("first steps", 10*time.Second, func() bool { o, n := sizes(); return o == 8 && n == 5 })
		e.change("web", func(d *api.Deployment) { d.Spec.Replicas = ptr(int32(20)) })
		e.waitFor("proportional scale", 10*time.Second, func() bool { o, n := sizes(); return o == 14 && n == 9 })
		e.waitFor("v2 rolled out", 10*time.Minute, e.complete("web"))
		if o, n := sizes(); o != 0 || n != 20 {
			t.Errorf("sizes %d and %d, want 0 and 20", o, n)
		}
	})
}
