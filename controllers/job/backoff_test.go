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
			got := newBackoffRecord(tc.old, tc.newSucceeded, tc.newFailed)
			if got.failuresAfterLastSuccess != tc.want.failuresAfterLastSuccess ||
				(got.lastFailureTime == nil) != (tc.want.lastFailureTime == nil) ||
				(got.lastFailureTime != nil && !got.lastFailureTime.Equal(*tc.want.lastFailureTime)) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func ptrTime(t time.Time) *time.Time { return &t }

// Ported from kcm's pkg/controller/job/backoff_utils_test.go
// (TestGetFinishedTime), plus the sidecar rules of getFinishTimeFromContainers.
func TestGetFinishedTime(t *testing.T) {
	tt := defaultTestTime
	minus30s := tt.Add(-30 * time.Second)
	term := func(at time.Time) api.ContainerStatus {
		return api.ContainerStatus{State: api.ContainerState{Terminated: &api.ContainerStateTerminated{FinishedAt: api.Time{Time: at}}}}
	}
	named := func(name string, cs api.ContainerStatus) api.ContainerStatus { cs.Name = name; return cs }
	running := api.ContainerStatus{State: api.ContainerState{Running: &api.ContainerStateRunning{}}}
	terminatedNoTime := api.ContainerStatus{State: api.ContainerState{Terminated: &api.ContainerStateTerminated{}}}
	always := api.ContainerRestartPolicy("Always")
	pod := func(f func(p *api.Pod)) *api.Pod { p := &api.Pod{}; f(p); return p }
	tests := map[string]struct {
		pod  *api.Pod
		want time.Time
	}{
		"Pod with multiple containers and all containers terminated": {pod: pod(func(p *api.Pod) {
			p.Status.ContainerStatuses = []api.ContainerStatus{term(tt.Add(-time.Second)), term(tt), term(tt.Add(-2 * time.Second))}
		}), want: tt},
		"Pod with multiple containers; two containers in terminated state and one in running state; fallback to deletionTimestamp": {pod: pod(func(p *api.Pod) {
			p.Status.ContainerStatuses = []api.ContainerStatus{term(tt.Add(-time.Second)), running, term(tt.Add(-2 * time.Second))}
			p.DeletionTimestamp = &api.Time{Time: tt}
		}), want: tt},
		"fallback to deletionTimestamp": {pod: pod(func(p *api.Pod) {
			p.Status.ContainerStatuses = []api.ContainerStatus{running}
			p.DeletionTimestamp = &api.Time{Time: tt}
		}), want: tt},
		"fallback to deletionTimestamp, decremented by grace period": {pod: pod(func(p *api.Pod) {
			p.Status.ContainerStatuses = []api.ContainerStatus{running}
			p.DeletionTimestamp = &api.Time{Time: tt}
			p.DeletionGracePeriodSeconds = ptr(int64(30))
		}), want: minus30s},
		"fallback to PodReady.LastTransitionTime when status of the condition is False": {pod: pod(func(p *api.Pod) {
			p.Status.ContainerStatuses = []api.ContainerStatus{terminatedNoTime}
			p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionFalse, Reason: "PodFailed", LastTransitionTime: api.Time{Time: tt}}}
		}), want: tt},
		"skip fallback to PodReady.LastTransitionTime when status of the condition is True": {pod: pod(func(p *api.Pod) {
			p.Status.ContainerStatuses = []api.ContainerStatus{terminatedNoTime}
			p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.Time{Time: minus30s}}}
			p.DeletionTimestamp = &api.Time{Time: tt}
		}), want: tt},
		"fallback to creationTimestamp": {pod: pod(func(p *api.Pod) {
			p.Status.ContainerStatuses = []api.ContainerStatus{terminatedNoTime}
			p.CreationTimestamp = api.Time{Time: tt}
		}), want: tt},
		// A sidecar (restartable init container) stops after the regular
		// containers: its finish is the pod's.
		"Pod with a sidecar init container and all containers terminated": {pod: pod(func(p *api.Pod) {
			p.Spec.InitContainers = []api.Container{{Name: "sidecar", RestartPolicy: &always}}
			p.Status.ContainerStatuses = []api.ContainerStatus{named("main", term(tt.Add(-time.Second)))}
			p.Status.InitContainerStatuses = []api.ContainerStatus{named("sidecar", term(tt))}
		}), want: tt},
		"a classic init container's finish is not the pod's": {pod: pod(func(p *api.Pod) {
			p.Spec.InitContainers = []api.Container{{Name: "init"}}
			p.Status.ContainerStatuses = []api.ContainerStatus{named("main", term(tt.Add(-time.Second)))}
			p.Status.InitContainerStatuses = []api.ContainerStatus{named("init", term(tt))}
		}), want: tt.Add(-time.Second)},
		"a sidecar still running: fallback to deletionTimestamp": {pod: pod(func(p *api.Pod) {
			p.Spec.InitContainers = []api.Container{{Name: "sidecar", RestartPolicy: &always}}
			p.Status.ContainerStatuses = []api.ContainerStatus{named("main", term(tt.Add(-time.Minute)))}
			p.Status.InitContainerStatuses = []api.ContainerStatus{named("sidecar", running)}
			p.DeletionTimestamp = &api.Time{Time: tt}
		}), want: tt},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := finishedTime(tc.pod); !got.Equal(tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
