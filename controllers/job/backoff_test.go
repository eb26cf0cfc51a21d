package job

import (
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

var defaultTestTime = time.Date(2009, time.November, 10, 23, 0, 0, 0, time.UTC)

// Ported from kcm's pkg/controller/job/backoff_utils_test.go
// (TestGetRemainingBackoffTime).
func TestGetRemainingBackoffTime(t *testing.T) {
	tt := defaultTestTime
	tests := map[string]struct {
		rec            backoffRecord
		now            time.Time
		maxBackoff     time.Duration
		defaultBackoff time.Duration
		want           time.Duration
	}{
		"no failures": {rec: backoffRecord{}, now: tt, defaultBackoff: 5 * time.Second, maxBackoff: 700 * time.Second, want: 0},
		"one failure; current time and failure time are same": {
			rec: backoffRecord{1, &tt}, now: tt, defaultBackoff: 5 * time.Second, maxBackoff: 700 * time.Second, want: 5 * time.Second},
		"one failure; current time == 1 second + failure time": {
			rec: backoffRecord{1, &tt}, now: tt.Add(time.Second), defaultBackoff: 5 * time.Second, maxBackoff: 700 * time.Second, want: 4 * time.Second},
		"one failure; current time == expected backoff time": {
			rec: backoffRecord{1, &tt}, now: tt.Add(5 * time.Second), defaultBackoff: 5 * time.Second, maxBackoff: 700 * time.Second, want: 0},
		"one failure; current time == expected backoff time + 1 Second": {
			rec: backoffRecord{1, &tt}, now: tt.Add(6 * time.Second), defaultBackoff: 5 * time.Second, maxBackoff: 700 * time.Second, want: 0},
		"three failures; current time and failure time are same": {
			rec: backoffRecord{3, &tt}, now: tt, defaultBackoff: 5 * time.Second, maxBackoff: 700 * time.Second, want: 20 * time.Second},
		"eight failures; current time and failure time are same; backoff not exceeding maxBackoff": {
			rec: backoffRecord{8, &tt}, now: tt, defaultBackoff: 5 * time.Second, maxBackoff: 700 * time.Second, want: 640 * time.Second},
		"nine failures; current time and failure time are same; backoff exceeding maxBackoff": {
			rec: backoffRecord{9, &tt}, now: tt, defaultBackoff: 5 * time.Second, maxBackoff: 700 * time.Second, want: 700 * time.Second},
		"nine failures; current time == maxBackoff + 1 Second": {
			rec: backoffRecord{9, &tt}, now: tt.Add(701 * time.Second), defaultBackoff: 5 * time.Second, maxBackoff: 700 * time.Second, want: 0},
		// The defaults this controller uses (kcm v1.37): 10 s doubling, capped at 10 min.
		"kcm defaults: fourth failure waits 80 s": {
			rec: backoffRecord{4, &tt}, now: tt, defaultBackoff: DefaultBackoff, maxBackoff: MaxBackoff, want: 80 * time.Second},
		"kcm defaults: capped at 10 min": {
			rec: backoffRecord{12, &tt}, now: tt, defaultBackoff: DefaultBackoff, maxBackoff: MaxBackoff, want: 10 * time.Minute},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := tc.rec.remaining(tc.now, tc.defaultBackoff, tc.maxBackoff); got != tc.want {
				t.Errorf("remaining = %v, want %v", got, tc.want)
			}
		})
	}
}

func finishedPod(phase api.PodPhase, finished time.Time) *api.Pod {
	p := &api.Pod{}
	p.Status.Phase = phase
	p.Status.ContainerStatuses = []api.ContainerStatus{{Name: "c", State: api.ContainerState{
		Terminated: &api.ContainerStateTerminated{FinishedAt: api.Time{Time: finished}}}}}
	return p
}

// Ported from kcm's backoff_utils_test.go (TestNewBackoffRecord).
func TestNewBackoffRecord(t *testing.T) {
	tt := defaultTestTime
	at := func(s int) time.Time { return tt.Add(time.Duration(s) * time.Second) }
	tests := map[string]struct {
		old          backoffRecord
		newSucceeded []*api.Pod
		newFailed    []*api.Pod
		want         backoffRecord
	}{
		"Empty backoff record": {want: backoffRecord{}},
		"Only new succeeded pods": {
			newSucceeded: []*api.Pod{finishedPod(api.PodSucceeded, at(1)), finishedPod(api.PodSucceeded, at(2))},
			want:         backoffRecord{},
		},
		"Only new failed pods": {
			newFailed: []*api.Pod{finishedPod(api.PodFailed, at(1)), finishedPod(api.PodFailed, at(2)), finishedPod(api.PodFailed, at(3))},
			want:      backoffRecord{3, ptrTime(at(3))},
		},
		"Add failed pods to an existing record": {
			old:       backoffRecord{3, ptrTime(at(3))},
			newFailed: []*api.Pod{finishedPod(api.PodFailed, at(4)), finishedPod(api.PodFailed, at(5))},
			want:      backoffRecord{5, ptrTime(at(5))},
		},
		"Succeeded pod resets the count, failures before it forgotten": {
			old:          backoffRecord{3, ptrTime(at(3))},
			newSucceeded: []*api.Pod{finishedPod(api.PodSucceeded, at(10))},
			newFailed:    []*api.Pod{finishedPod(api.PodFailed, at(4)), finishedPod(api.PodFailed, at(5))},
			want:         backoffRecord{},
		},
		"Failures after the last success are kept": {
			old:          backoffRecord{3, ptrTime(at(3))},
			newSucceeded: []*api.Pod{finishedPod(api.PodSucceeded, at(5))},
			newFailed:    []*api.Pod{finishedPod(api.PodFailed, at(4)), finishedPod(api.PodFailed, at(7)), finishedPod(api.PodFailed, at(6))},
			want:         backoffRecord{2, ptrTime(at(7))},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := newBackoffRecord(tc.old, tc.newSucceeded, tc.newFailed, tt)
			if got.failuresAfterLastSuccess != tc.want.failuresAfterLastSuccess ||
				(got.lastFailureTime == nil) != (tc.want.lastFailureTime == nil) ||
				(got.lastFailureTime != nil && !got.lastFailureTime.Equal(*tc.want.lastFailureTime)) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func ptrTime(t time.Time) *time.Time { return &t }

// Ported from kcm's backoff_utils_test.go (TestGetFinishedTime).
func TestGetFinishedTime(t *testing.T) {
	tt := defaultTestTime
	ready := &api.Pod{}
	ready.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionFalse, LastTransitionTime: api.Time{Time: tt.Add(2 * time.Second)}}}
	deleted := &api.Pod{}
	deleted.DeletionTimestamp = &api.Time{Time: tt.Add(3 * time.Second)}
	tests := map[string]struct {
		pod  *api.Pod
		want time.Time
	}{
		"Pod with multiple containers and all containers terminated": {pod: func() *api.Pod {
			p := finishedPod(api.PodFailed, tt.Add(-1*time.Second))
			p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, api.ContainerStatus{Name: "d",
				State: api.ContainerState{Terminated: &api.ContainerStateTerminated{FinishedAt: api.Time{Time: tt}}}})
			return p
		}(), want: tt},
		"Pod with Ready condition False":              {pod: ready, want: tt.Add(2 * time.Second)},
		"Pod with no terminated containers, deleted":  {pod: deleted, want: tt.Add(3 * time.Second)},
		"Pod with nothing: the current time is taken": {pod: &api.Pod{}, want: tt.Add(time.Hour)},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := finishedTime(tc.pod, tt.Add(time.Hour)); !got.Equal(tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
