package deployment

import (
	"errors"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// stepDeployment is 10 replicas at image v2, maxSurge 3, maxUnavailable 2.
func stepDeployment(strategy api.DeploymentStrategyType) *api.Deployment {
	d := rollingDeployment(10, intstr(3), intstr(2))
	d.Generation = 2
	d.Spec.Strategy.Type = strategy
	d.Spec.ProgressDeadlineSeconds = ptr(int32(600))
	d.Spec.RevisionHistoryLimit = ptr(int32(10))
	d.Spec.Template.Spec.Containers = []api.Container{{Name: "app", Image: "v2"}}
	return d
}

// stepRS is a ReplicaSet of d at image with spec and available replicas.
func stepRS(d *api.Deployment, image string, spec, avail int32, created time.Time, rev string) *api.ReplicaSet {
	tmpl := d.Spec.Template.DeepCopy()
	tmpl.Spec.Containers[0].Image = image
	hash := PodTemplateHash(tmpl, nil)
	tmpl.Labels[api.LabelPodTemplateHash] = hash
	rs := testRS(d.Name+"-"+hash, spec, created)
	rs.Spec.Template = *tmpl
	rs.Annotations = map[string]string{api.AnnotationDeploymentRevision: rev, api.AnnotationDesiredReplicas: "10", api.AnnotationMaxReplicas: "13"}
	rs.Status = api.ReplicaSetStatus{Replicas: spec, ReadyReplicas: avail, AvailableReplicas: avail}
	return rs
}

// sizes returns the planned size of every ReplicaSet written, by image.
func sizes(p Plan) map[string]int32 {
	out := map[string]int32{}
	if p.Create != nil {
		out["create "+p.Create.Spec.Template.Spec.Containers[0].Image] = rsReplicas(p.Create)
	}
	for _, rs := range p.Update {
		out[rs.Spec.Template.Spec.Containers[0].Image] = rsReplicas(rs)
	}
	return out
}

// TestRollingStep: how far one sync of a rolling update (10 replicas,
// maxSurge 3, maxUnavailable 2) scales the new ReplicaSet up and the old
// one down, given what is available — kcm's reconcileNewReplicaSet, then
// cleanupUnhealthyReplicas and scaleDownOldReplicaSetsForRollingUpdate.
func TestRollingStep(t *testing.T) {
	type rs struct{ spec, avail int32 }
	tests := []struct {
		name string
		old  rs
		new  *rs
		want map[string]int32
	}{
		// Create the new one at the surge (13-10), and take the old one down
		// to minAvailable (8) at once: the 3 new are not available yet.
		{"start", rs{10, 10}, nil, map[string]int32{"create v2": 3, "v1": 8}},
		// The old one went down by 2: the new one takes the room at once,
		// available or not.
		{"room left by the old one", rs{8, 8}, &rs{3, 0}, map[string]int32{"v2": 5}},
		// Three new available: the total is 11, so the new one grows by 2.
		{"new available, room to surge", rs{8, 8}, &rs{3, 3}, map[string]int32{"v2": 5}},
		// Total at 13: scale the old one down by available - minAvailable.
		{"at surge, some new available", rs{8, 8}, &rs{5, 3}, map[string]int32{"v1": 5}},
		{"at surge, none new available", rs{8, 8}, &rs{5, 0}, map[string]int32{}},
		// Unavailable old pods go first (2), then available ones down to 8.
		{"unhealthy old pods", rs{8, 6}, &rs{5, 5}, map[string]int32{"v1": 3}},
		// The old one was just scaled down to 8 and its status still
		// reports 10 available: only 8 of them count (a deliberate
		// difference from kcm, which would count 10 and go down to 3,
		// leaving 6 available once the ReplicaSet catches up).
		{"stale status of a scaled-down old one", rs{8, 10}, &rs{5, 3}, map[string]int32{"v1": 5}},
		// The last old ones go once the new ones are available.
		{"finish", rs{2, 2}, &rs{10, 10}, map[string]int32{"v1": 0}},
		{"done", rs{0, 0}, &rs{10, 10}, map[string]int32{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := stepDeployment(api.RollingUpdateDeploymentStrategyType)
			rss := []*api.ReplicaSet{stepRS(d, "v1", tt.old.spec, tt.old.avail, t0, "1")}
			if tt.new != nil {
				rss = append(rss, stepRS(d, "v2", tt.new.spec, tt.new.avail, t0.Add(time.Minute), "2"))
			}
			p, err := Decide(d, rss, nil, t0.Add(time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			got := sizes(p)
			if len(got) != len(tt.want) {
				t.Fatalf("writes %v, want %v", got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("writes %v, want %v", got, tt.want)
				}
			}
			// Every step keeps within the fenceposts as far as the
			// ReplicaSets' statuses tell: at most 13 pods asked for, and
			// the old ones never taken below what keeps 8 available.
			var spec, avail int32
			for _, rs := range rss {
				n := rsReplicas(rs)
				for _, u := range p.Update {
					if u.Name == rs.Name {
						n = rsReplicas(u)
					}
				}
				spec += n
				avail += min(n, rs.Status.AvailableReplicas)
			}
			if p.Create != nil {
				spec += rsReplicas(p.Create)
			}
			if spec > 13 || avail < 8 {
				t.Errorf("after the step: %d pods asked for, %d available", spec, avail)
			}
		})
	}
}

// TestRecreateStep: Recreate scales old ReplicaSets to 0, waits until
// their pods are gone, and only then creates the new one at full size.
func TestRecreateStep(t *testing.T) {
	d := stepDeployment(api.RecreateDeploymentStrategyType)
	d.Spec.Strategy.RollingUpdate = nil
	old := func(spec, status int32) *api.ReplicaSet {
		rs := stepRS(d, "v1", spec, 0, t0, "1")
		rs.Status.Replicas = status
		return rs
	}
	running := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", OwnerReferences: []api.OwnerReference{{Kind: "ReplicaSet", Name: "x", UID: old(0, 0).UID, Controller: ptr(true)}}},
		Status: api.PodStatus{Phase: api.PodRunning}}
	done := running.DeepCopy()
	done.Status.Phase = api.PodSucceeded
	tests := []struct {
		name string
		old  *api.ReplicaSet
		pods []*api.Pod
		want map[string]int32
	}{
		{"scale old down", old(10, 10), nil, map[string]int32{"v1": 0}},
		{"old pods still reported", old(0, 2), nil, map[string]int32{}},
		{"old pod still running", old(0, 0), []*api.Pod{running}, map[string]int32{}},
		{"old pods gone", old(0, 0), []*api.Pod{done}, map[string]int32{"create v2": 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Decide(d, []*api.ReplicaSet{tt.old}, tt.pods, t0)
			if err != nil {
				t.Fatal(err)
			}
			got := sizes(p)
			if len(got) != len(tt.want) {
				t.Fatalf("writes %v, want %v", got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("writes %v, want %v", got, tt.want)
				}
			}
		})
	}
}

// TestDecideRollback: going back to an old template reuses its
// ReplicaSet and gives it the next revision.
func TestDecideRollback(t *testing.T) {
	d := stepDeployment(api.RollingUpdateDeploymentStrategyType)
	d.Spec.Template.Spec.Containers[0].Image = "v1"
	v1 := stepRS(d, "v1", 0, 0, t0, "1")
	v2 := stepRS(d, "v2", 10, 10, t0.Add(time.Minute), "2")
	p, err := Decide(d, []*api.ReplicaSet{v1, v2}, nil, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if p.Create != nil {
		t.Fatalf("created %s, want the old ReplicaSet reused", p.Create.Name)
	}
	var got *api.ReplicaSet
	for _, rs := range p.Update {
		if rs.Name == v1.Name {
			got = rs
		}
	}
	if got == nil || got.Annotations[api.AnnotationDeploymentRevision] != "3" || rsReplicas(got) != 3 {
		t.Fatalf("updates %v: want %s at revision 3 scaled to 3", p.Update, v1.Name)
	}
	if p.Revision != "3" {
		t.Errorf("deployment revision %q, want 3", p.Revision)
	}
}

// TestDecideProgressDeadline: no progress for progressDeadlineSeconds
// turns Progressing False; before that, Decide asks to be called again
// when the deadline passes.
func TestDecideProgressDeadline(t *testing.T) {
	d := stepDeployment(api.RollingUpdateDeploymentStrategyType)
	d.Spec.ProgressDeadlineSeconds = ptr(int32(30))
	v2 := stepRS(d, "v2", 10, 0, t0, "1")
	d.Status = api.DeploymentStatus{ObservedGeneration: 2, Replicas: 10, UpdatedReplicas: 10, UnavailableReplicas: 10,
		Conditions: []api.DeploymentCondition{
			newCondition(ConditionAvailable, api.ConditionFalse, ReasonMinimumReplicasUnavailable, "Deployment does not have minimum availability.", t0),
			newCondition(ConditionProgressing, api.ConditionTrue, ReasonNewReplicaSetCreated, "created", t0),
		}}
	p, err := Decide(d, []*api.ReplicaSet{v2}, nil, t0.Add(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if p.Status != nil || p.RequeueAfter != 21*time.Second {
		t.Fatalf("at 10s: status %v, requeue %v; want no write and a requeue after 21s", p.Status, p.RequeueAfter)
	}
	p, err = Decide(d, []*api.ReplicaSet{v2}, nil, t0.Add(31*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if p.Status == nil {
		t.Fatal("at 31s: no status written")
	}
	c := getCondition(p.Status, ConditionProgressing)
	if c.Status != api.ConditionFalse || c.Reason != ReasonProgressDeadlineExceeded {
		t.Errorf("at 31s: Progressing %s %s, want False %s", c.Status, c.Reason, ReasonProgressDeadlineExceeded)
	}
	if p.RequeueAfter != 0 {
		t.Errorf("requeue after %v once timed out, want none", p.RequeueAfter)
	}
}

// TestDecideInvalidStrategy: maxSurge and maxUnavailable both 0 are
// rejected, as kube-apiserver's validation does.
func TestDecideInvalidStrategy(t *testing.T) {
	for _, v := range []*api.IntOrString{intstr(0), pct("0%")} {
		d := stepDeployment(api.RollingUpdateDeploymentStrategyType)
		d.Spec.Strategy.RollingUpdate = &api.RollingUpdateDeployment{MaxSurge: v, MaxUnavailable: v}
		if _, err := Decide(d, nil, nil, t0); !errors.Is(err, ErrInvalidStrategy) {
			t.Errorf("%v: err = %v, want ErrInvalidStrategy", v, err)
		}
	}
}

// TestPodTemplateHash: stable, ignores an existing hash label, and moves
// with the collision count.
func TestPodTemplateHash(t *testing.T) {
	d := stepDeployment(api.RollingUpdateDeploymentStrategyType)
	h := PodTemplateHash(&d.Spec.Template, nil)
	labeled := d.Spec.Template.DeepCopy()
	labeled.Labels[api.LabelPodTemplateHash] = "x"
	if got := PodTemplateHash(labeled, nil); got != h {
		t.Errorf("hash with a hash label %q, want %q", got, h)
	}
	if got := PodTemplateHash(&d.Spec.Template, ptr(int32(1))); got == h {
		t.Errorf("collision count 1 gives the same hash %q", got)
	}
	for _, c := range h {
		if !containsRune(safeAlphabet, c) {
			t.Errorf("hash %q has %q outside the safe alphabet", h, c)
		}
	}
}

func containsRune(s string, r rune) bool {
	for _, c := range s {
		if c == r {
			return true
		}
	}
	return false
}
