package deployment

import (
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

func ptr[T any](v T) *T { return &v }

func intstr(i int32) *api.IntOrString { v := api.FromInt32(i); return &v }
func pct(s string) *api.IntOrString   { v := api.FromString(s); return &v }

// Ported from kube-controller-manager
// pkg/controller/deployment/util/deployment_util_test.go, TestResolveFenceposts.
func TestResolveFenceposts(t *testing.T) {
	tests := []struct {
		maxSurge, maxUnavailable *string
		desired                  int32
		wantSurge, wantUnavail   int32
		wantErr                  bool
	}{
		{ptr("0%"), ptr("0%"), 0, 0, 1, false},
		{ptr("39%"), ptr("39%"), 10, 4, 3, false},
		{ptr("oops"), ptr("39%"), 10, 0, 0, true},
		{ptr("55%"), ptr("urg"), 10, 0, 0, true},
		{nil, ptr("39%"), 10, 0, 3, false},
		{ptr("39%"), nil, 10, 4, 0, false},
		{nil, nil, 10, 0, 1, false},
	}
	for i, tt := range tests {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			var s, u *api.IntOrString
			if tt.maxSurge != nil {
				s = pct(*tt.maxSurge)
			}
			if tt.maxUnavailable != nil {
				u = pct(*tt.maxUnavailable)
			}
			surge, unavail, err := ResolveFenceposts(s, u, tt.desired)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if surge != tt.wantSurge || unavail != tt.wantUnavail {
				t.Errorf("got %d:%d, want %d:%d", surge, unavail, tt.wantSurge, tt.wantUnavail)
			}
		})
	}
}

// rollingDeployment mirrors kcm's newDeployment test helper
// (deployment_controller_test.go): a rolling update with maxSurge and
// maxUnavailable 0 unless given.
func rollingDeployment(replicas int32, surge, unavail *api.IntOrString) *api.Deployment {
	d := &api.Deployment{
		ObjectMeta: api.ObjectMeta{Name: "foo", Namespace: "default", UID: "d-uid", Annotations: map[string]string{}},
		Spec: api.DeploymentSpec{
			Replicas: ptr(replicas),
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"foo": "bar"}},
			Template: api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"foo": "bar"}}},
			Strategy: api.DeploymentStrategy{
				Type:          api.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &api.RollingUpdateDeployment{MaxSurge: intstr(0), MaxUnavailable: intstr(0)},
			},
		},
	}
	if surge != nil {
		d.Spec.Strategy.RollingUpdate.MaxSurge = surge
	}
	if unavail != nil {
		d.Spec.Strategy.RollingUpdate.MaxUnavailable = unavail
	}
	return d
}

// Ported from kube-controller-manager
// pkg/controller/deployment/util/deployment_util_test.go, TestMaxUnavailable.
func TestMaxUnavailable(t *testing.T) {
	d := func(replicas int32, mu *api.IntOrString) *api.Deployment {
		return rollingDeployment(replicas, intstr(1), mu)
	}
	tests := []struct {
		name string
		d    *api.Deployment
		want int32
	}{
		{"maxUnavailable less than replicas", d(10, intstr(5)), 5},
		{"maxUnavailable equal replicas", d(10, intstr(10)), 10},
		{"maxUnavailable greater than replicas", d(5, intstr(10)), 5},
		{"maxUnavailable with replicas is 0", d(0, intstr(10)), 0},
		{"maxUnavailable with Recreate deployment strategy", &api.Deployment{Spec: api.DeploymentSpec{Strategy: api.DeploymentStrategy{Type: api.RecreateDeploymentStrategyType}}}, 0},
		{"maxUnavailable less than replicas with percents", d(10, pct("50%")), 5},
		{"maxUnavailable equal replicas with percents", d(10, pct("100%")), 10},
		{"maxUnavailable greater than replicas with percents", d(5, pct("100%")), 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := maxUnavailable(tt.d); got != tt.want {
				t.Errorf("maxUnavailable = %d, want %d", got, tt.want)
			}
		})
	}
}

// Ported from kube-controller-manager
// pkg/controller/deployment/util/deployment_util_test.go, TestMinAvailable.
func TestMinAvailable(t *testing.T) {
	d := func(replicas int32, mu *api.IntOrString) *api.Deployment {
		return rollingDeployment(replicas, intstr(1), mu)
	}
	tests := []struct {
		name string
		d    *api.Deployment
		want int32
	}{
		{"replicas greater than maxUnavailable", d(10, intstr(5)), 5},
		{"replicas equal maxUnavailable", d(10, intstr(10)), 0},
		{"replicas less than maxUnavailable", d(5, intstr(10)), 0},
		{"replicas is 0", d(0, intstr(10)), 0},
		{"minAvailable with Recreate deployment strategy", &api.Deployment{Spec: api.DeploymentSpec{Replicas: ptr(int32(10)), Strategy: api.DeploymentStrategy{Type: api.RecreateDeploymentStrategyType}}}, 0},
		{"replicas greater than maxUnavailable with percents", d(10, pct("60%")), 4},
		{"replicas equal maxUnavailable with percents", d(10, pct("100%")), 0},
		{"replicas less than maxUnavailable with percents", d(5, pct("100%")), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := minAvailable(tt.d); got != tt.want {
				t.Errorf("minAvailable = %d, want %d", got, tt.want)
			}
		})
	}
}

// Ported from kube-controller-manager
// pkg/controller/deployment/util/deployment_util_test.go, TestNewRSNewReplicas.
func TestNewRSNewReplicas(t *testing.T) {
	tests := []struct {
		name                   string
		strategy               api.DeploymentStrategyType
		depReplicas, newRSSize int32
		surge, want            int32
	}{
		{"can not scale up - to newRSReplicas", api.RollingUpdateDeploymentStrategyType, 1, 5, 1, 5},
		{"scale up - to depReplicas", api.RollingUpdateDeploymentStrategyType, 6, 2, 10, 6},
		{"recreate - to depReplicas", api.RecreateDeploymentStrategyType, 3, 1, 1, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := rollingDeployment(tt.depReplicas, intstr(tt.surge), intstr(1))
			d.Spec.Strategy.Type = tt.strategy
			rs5 := &api.ReplicaSet{Spec: api.ReplicaSetSpec{Replicas: ptr(int32(5))}}
			newRS := &api.ReplicaSet{Spec: api.ReplicaSetSpec{Replicas: ptr(tt.newRSSize)}}
			if got := newRSNewReplicas(d, []*api.ReplicaSet{rs5}, newRS); got != tt.want {
				t.Errorf("newRSNewReplicas = %d, want %d", got, tt.want)
			}
		})
	}
}

// Ported from kube-controller-manager
// pkg/controller/deployment/util/deployment_util_test.go, TestGetReplicaSetFraction.
func TestGetReplicaSetFraction(t *testing.T) {
	tests := []struct {
		name                                  string
		dReplicas, dStatusReplicas, dMaxSurge int32
		rsReplicas                            int32
		annotations                           map[string]string
		want                                  int32
	}{
		{"empty deployment always scales to 0", 0, 0, 0, 10, nil, -10},
		{"unsynced deployment does not scale when max-replicas annotation is missing", 10, 0, 0, 5, nil, 0},
		{"unsynced deployment does not scale when max-replicas annotation is 0", 10, 0, 0, 5, map[string]string{api.AnnotationMaxReplicas: "0"}, 0},
		{"scale up by 1/5 when max-replicas annotation is missing", 120, 100, 0, 50, nil, 10},
		{"scale up by 1/5 when max-replicas annotation is 0", 120, 100, 0, 50, map[string]string{api.AnnotationMaxReplicas: "0"}, 10},
		{"scale up by 1/5 should increase RS replicas by 1/5", 120, 0, 0, 50, map[string]string{api.AnnotationMaxReplicas: "100"}, 10},
		{"scale up with maxSurge by 1/5 should increase RS replicas approximately by 1/5", 120, 0, 10, 50, map[string]string{api.AnnotationMaxReplicas: "110"}, 9},
		{"scale down by 1/6 should decrease RS replicas by 1/6", 10, 0, 0, 6, map[string]string{api.AnnotationMaxReplicas: "12"}, -1},
		{"scale down with maxSurge by 1/6 should decrease RS replicas approximately by 1/6", 100, 0, 10, 50, map[string]string{api.AnnotationMaxReplicas: "130"}, -8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := rollingDeployment(tt.dReplicas, intstr(tt.dMaxSurge), intstr(1))
			d.Status.Replicas = tt.dStatusReplicas
			rs := &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Annotations: tt.annotations}, Spec: api.ReplicaSetSpec{Replicas: ptr(tt.rsReplicas)}}
			if got := replicaSetFraction(rs, d); got != tt.want {
				t.Errorf("fraction = %d, want %d", got, tt.want)
			}
		})
	}
}

// testRS mirrors kcm's rs test helper (sync_test.go).
func testRS(name string, replicas int32, created time.Time) *api.ReplicaSet {
	return &api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: api.UID(name + "-uid"), CreationTimestamp: api.NewTime(created)},
		Spec:       api.ReplicaSetSpec{Replicas: ptr(replicas), Selector: &api.LabelSelector{MatchLabels: map[string]string{"foo": "bar"}}},
	}
}

// Ported from kube-controller-manager pkg/controller/deployment/sync_test.go,
// TestScale (proportional scaling); its "failed rs update" case needs a
// failing API and is left out: Decide is pure.
func TestScale(t *testing.T) {
	newer := time.Date(2016, 5, 20, 2, 0, 0, 0, time.UTC)
	old := time.Date(2016, 5, 20, 1, 0, 0, 0, time.UTC)
	older := time.Date(2016, 5, 20, 0, 0, 0, 0, time.UTC)
	dep := func(n int32) *api.Deployment { return rollingDeployment(n, nil, nil) }
	updated := func(n int32) *api.Deployment {
		d := dep(n)
		d.Spec.Template.Labels["another"] = "label"
		return d
	}
	type sized struct {
		name string
		n    int32
		at   time.Time
	}
	tests := []struct {
		name         string
		d, oldD      *api.Deployment
		newRS        *sized
		oldRSs       []sized
		wantNew      int32
		wantOld      []int32
		newAvailable *int32
	}{
		{"normal scaling event: 10 -> 12", dep(12), dep(10), &sized{"foo-v1", 10, newer}, nil, 12, nil, nil},
		{"normal scaling event: 10 -> 5", dep(5), dep(10), &sized{"foo-v1", 10, newer}, nil, 5, nil, nil},
		{"proportional scaling: 5 -> 10", dep(10), dep(5), &sized{"foo-v2", 2, newer}, []sized{{"foo-v1", 3, old}}, 4, []int32{6}, nil},
		{"proportional scaling: 5 -> 3", dep(3), dep(5), &sized{"foo-v2", 2, newer}, []sized{{"foo-v1", 3, old}}, 1, []int32{2}, nil},
		{"proportional scaling: 9 -> 4", dep(4), dep(9), &sized{"foo-v2", 8, newer}, []sized{{"foo-v1", 1, old}}, 4, []int32{0}, nil},
		{"proportional scaling: 7 -> 10", dep(10), dep(7), &sized{"foo-v3", 2, newer}, []sized{{"foo-v2", 3, old}, {"foo-v1", 2, older}}, 3, []int32{4, 3}, nil},
		{"proportional scaling: 13 -> 8", dep(8), dep(13), &sized{"foo-v3", 2, newer}, []sized{{"foo-v2", 8, old}, {"foo-v1", 3, older}}, 1, []int32{5, 2}, nil},
		{"leftover distribution: 3 -> 4", dep(4), dep(3), &sized{"foo-v3", 1, newer}, []sized{{"foo-v2", 1, old}, {"foo-v1", 1, older}}, 2, []int32{1, 1}, nil},
		{"leftover distribution: 3 -> 2", dep(2), dep(3), &sized{"foo-v3", 1, newer}, []sized{{"foo-v2", 1, old}, {"foo-v1", 1, older}}, 1, []int32{1, 0}, nil},
		{"proportional scaling (no new rs): 4 -> 5", dep(5), dep(4), nil, []sized{{"foo-v2", 2, old}, {"foo-v1", 2, older}}, 0, []int32{3, 2}, nil},
		{"proportional scaling: 6 -> 0", dep(0), dep(6), &sized{"foo-v3", 3, newer}, []sized{{"foo-v2", 2, old}, {"foo-v1", 1, older}}, 0, []int32{0, 0}, nil},
		{"proportional scaling: 0 -> 6", dep(6), dep(6), &sized{"foo-v3", 0, newer}, []sized{{"foo-v2", 0, old}, {"foo-v1", 0, older}}, 6, []int32{0, 0}, nil},
		{"deployment with surge pods", rollingDeployment(20, intstr(2), nil), rollingDeployment(10, intstr(2), nil), &sized{"foo-v2", 6, newer}, []sized{{"foo-v1", 6, old}}, 11, []int32{11}, nil},
		{"change both surge and size", rollingDeployment(50, intstr(6), nil), rollingDeployment(10, intstr(3), nil), &sized{"foo-v2", 5, newer}, []sized{{"foo-v1", 8, old}}, 22, []int32{34}, nil},
		{"change both size and template", updated(14), dep(10), nil, []sized{{"foo-v2", 7, newer}, {"foo-v1", 3, old}}, 0, []int32{10, 4}, nil},
		{"saturated but broken new replica set does not affect old pods", rollingDeployment(2, intstr(1), intstr(1)), rollingDeployment(2, intstr(1), intstr(1)), &sized{"foo-v2", 2, newer}, []sized{{"foo-v1", 1, old}}, 2, []int32{1}, ptr(int32(0))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &state{now: newer, d: tt.d, orig: tt.d, changed: map[*api.ReplicaSet]bool{}}
			desired, maxR := replicas(tt.oldD), replicas(tt.oldD)+maxSurge(tt.oldD)
			var newRS *api.ReplicaSet
			if tt.newRS != nil {
				newRS = testRS(tt.newRS.name, tt.newRS.n, tt.newRS.at)
				setReplicasAnnotations(newRS, desired, maxR)
				if tt.newAvailable != nil {
					newRS.Status.AvailableReplicas = *tt.newAvailable
				}
			}
			var olds []*api.ReplicaSet
			for _, o := range tt.oldRSs {
				rs := testRS(o.name, o.n, o.at)
				setReplicasAnnotations(rs, desired, maxR)
				olds = append(olds, rs)
			}
			s.scale(newRS, olds)
			if newRS != nil && rsReplicas(newRS) != tt.wantNew {
				t.Errorf("new replicas = %d, want %d", rsReplicas(newRS), tt.wantNew)
			}
			for i, rs := range olds {
				if rsReplicas(rs) != tt.wantOld[i] {
					t.Errorf("old %s replicas = %d, want %d", rs.Name, rsReplicas(rs), tt.wantOld[i])
				}
			}
		})
	}
}

// Ported from kube-controller-manager pkg/controller/deployment/sync_test.go,
// TestDeploymentController_cleanupDeployment.
func TestCleanupDeployment(t *testing.T) {
	rs := func(name string, spec, status int32) *api.ReplicaSet {
		r := testRS(name, spec, time.Unix(0, 0))
		r.Status.Replicas = status
		return r
	}
	deleted := rs("foo-1", 0, 0)
	deleted.DeletionTimestamp = ptr(api.NewTime(time.Unix(1, 0)))
	tests := []struct {
		old   []*api.ReplicaSet
		limit int32
		want  int
	}{
		{[]*api.ReplicaSet{rs("foo-1", 0, 0), rs("foo-2", 0, 0), rs("foo-3", 0, 0)}, 1, 2},
		{[]*api.ReplicaSet{rs("foo-1", 0, 0), rs("foo-2", 0, 1), rs("foo-3", 1, 0), rs("foo-4", 1, 1)}, 0, 1},
		{[]*api.ReplicaSet{rs("foo-1", 0, 0), rs("foo-2", 0, 0)}, 0, 2},
		{[]*api.ReplicaSet{rs("foo-1", 1, 1), rs("foo-2", 1, 1)}, 0, 0},
		{[]*api.ReplicaSet{deleted}, 0, 0},
		{[]*api.ReplicaSet{rs("foo-1", 0, 0), rs("foo-2", 0, 0), rs("foo-3", 0, 0)}, math.MaxInt32, 0},
	}
	for i, tt := range tests {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			d := rollingDeployment(1, nil, nil)
			d.Spec.RevisionHistoryLimit = ptr(tt.limit)
			s := &state{d: d, orig: d, changed: map[*api.ReplicaSet]bool{}}
			s.cleanup(tt.old)
			if len(s.deleted) != tt.want {
				t.Errorf("deleted %d, want %d", len(s.deleted), tt.want)
			}
		})
	}
}

// Ported from kube-controller-manager
// pkg/controller/deployment/util/deployment_util_test.go, TestDeploymentComplete.
func TestDeploymentComplete(t *testing.T) {
	d := func(desired, current, updated, available, mu, ms int32) *api.Deployment {
		dd := rollingDeployment(desired, intstr(ms), intstr(mu))
		dd.Status = api.DeploymentStatus{Replicas: current, UpdatedReplicas: updated, AvailableReplicas: available}
		return dd
	}
	tests := []struct {
		name string
		d    *api.Deployment
		want bool
	}{
		{"not complete: min but not all pods become available", d(5, 5, 5, 4, 1, 0), false},
		{"not complete: min availability is not honored", d(5, 5, 5, 3, 1, 0), false},
		{"complete", d(5, 5, 5, 5, 0, 0), true},
		{"not complete: all pods are available but not updated", d(5, 5, 4, 5, 0, 0), false},
		{"not complete: still running old pods", d(1, 2, 1, 1, 0, 1), false},
		{"not complete: one replica deployment never comes up", d(1, 1, 1, 0, 1, 1), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := deploymentComplete(tt.d, &tt.d.Status); got != tt.want {
				t.Errorf("complete = %v, want %v", got, tt.want)
			}
		})
	}
}

// Ported from kube-controller-manager
// pkg/controller/deployment/util/deployment_util_test.go, TestDeploymentProgressing.
func TestDeploymentProgressing(t *testing.T) {
	st := func(current, updated, ready, available int32) api.DeploymentStatus {
		return api.DeploymentStatus{Replicas: current, UpdatedReplicas: updated, ReadyReplicas: ready, AvailableReplicas: available}
	}
	tests := []struct {
		name     string
		old, new api.DeploymentStatus
		want     bool
	}{
		{"progressing: updated pods", st(10, 4, 4, 4), st(10, 6, 4, 4), true},
		{"not progressing", st(10, 4, 4, 4), st(10, 4, 4, 4), false},
		{"progressing: old pods removed", st(10, 4, 6, 6), st(8, 4, 6, 6), true},
		{"not progressing: less new pods", st(10, 7, 3, 3), st(10, 6, 3, 3), false},
		{"progressing: less overall but more new pods", st(10, 4, 7, 7), st(8, 8, 5, 5), true},
		{"progressing: more ready pods", st(10, 10, 9, 8), st(10, 10, 10, 8), true},
		{"progressing: more available pods", st(10, 10, 10, 9), st(10, 10, 10, 10), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &api.Deployment{Status: tt.old}
			if got := deploymentProgressing(d, &tt.new); got != tt.want {
				t.Errorf("progressing = %v, want %v", got, tt.want)
			}
		})
	}
}

// Ported from kube-controller-manager
// pkg/controller/deployment/util/deployment_util_test.go, TestDeploymentTimedOut.
func TestDeploymentTimedOut(t *testing.T) {
	at := func(min, sec int) time.Time { return time.Date(2016, 1, 1, 0, min, sec, 0, time.UTC) }
	d := func(reason string, pds *int32, from time.Time) *api.Deployment {
		return &api.Deployment{
			Spec:   api.DeploymentSpec{ProgressDeadlineSeconds: pds},
			Status: api.DeploymentStatus{Conditions: []api.DeploymentCondition{{Type: ConditionProgressing, Status: api.ConditionTrue, Reason: reason, LastUpdateTime: api.NewTime(from)}}},
		}
	}
	tests := []struct {
		name string
		d    *api.Deployment
		now  time.Time
		want bool
	}{
		{"nil progressDeadlineSeconds specified - no timeout", d("", nil, at(1, 9)), at(1, 20), false},
		{"infinite progressDeadlineSeconds specified - no timeout", d("", ptr(int32(math.MaxInt32)), at(1, 9)), at(1, 20), false},
		{"progressDeadlineSeconds: 10s, now - started => 11s", d("", ptr(int32(10)), at(1, 9)), at(1, 20), true},
		{"progressDeadlineSeconds: 10s, now - started => 9s", d("", ptr(int32(10)), at(1, 11)), at(1, 20), false},
		{"previous status was a complete deployment", d(ReasonNewReplicaSetAvailable, nil, time.Time{}), time.Time{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := deploymentTimedOut(tt.d, &tt.d.Status, tt.now); got != tt.want {
				t.Errorf("timed out = %v, want %v", got, tt.want)
			}
		})
	}
}
