package kubelet

import (
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func at(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }

func testPod(policy api.RestartPolicy, ann map[string]string, ctrs ...api.Container) *api.Pod {
	p := &api.Pod{}
	p.Namespace, p.Name, p.UID = "default", "p", "uid-1234-5678"
	p.Annotations = ann
	p.Spec.RestartPolicy = policy
	if len(ctrs) == 0 {
		ctrs = []api.Container{{Name: "c", Image: "nginx"}}
	}
	p.Spec.Containers = ctrs
	return p
}

func admit(t *testing.T, p *api.Pod) *podState {
	t.Helper()
	s, err := newPodState(p, t0, DefaultStages(), nil, "10.244.0.2", "192.168.0.1")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The kubelet's crash-loop back-off: immediate first restart, then 10 s
// doubling to 5 min, reset after a run of more than 10 min. The cases
// follow client-go's flowcontrol/backoff_test.go (TestSlowBackoff,
// TestBackoffReset) as kuberuntime's doBackOff drives it.
func TestBackOff(t *testing.T) {
	var b backOff
	exit := t0
	want := []time.Duration{0, 10, 20, 40, 80, 160, 300, 300}
	for i, w := range want {
		got := b.delay(exit)
		if got != w*time.Second {
			t.Fatalf("exit %d: delay %v, want %v", i, got, w*time.Second)
		}
		exit = exit.Add(got + time.Second) // restarted, runs for 1 s
	}
	// A run of more than 2×5 min since the last restart starts over.
	exit = b.restart.Add(2*maxBackOff + time.Second)
	if got := b.delay(exit); got != 0 {
		t.Fatalf("after a long run: delay %v, want 0", got)
	}
	if got := b.delay(exit.Add(time.Second)); got != initialBackOff {
		t.Fatalf("after reset: delay %v, want %v", got, initialBackOff)
	}
}

func TestProbeOutcome(t *testing.T) {
	for _, tc := range []struct {
		o       ProbeOutcome
		elapsed int
		want    bool
	}{
		{ProbeOutcome{}, 0, true},
		{ProbeOutcome{Never: true}, 100, false},
		{ProbeOutcome{PassAfter: 20 * time.Second}, 19, false},
		{ProbeOutcome{PassAfter: 20 * time.Second}, 20, true},
		{ProbeOutcome{FailAfter: 30 * time.Second}, 29, true},
		{ProbeOutcome{FailAfter: 30 * time.Second}, 30, false},
	} {
		if got := tc.o.passes(time.Duration(tc.elapsed) * time.Second); got != tc.want {
			t.Errorf("%+v at %ds: %v, want %v", tc.o, tc.elapsed, got, tc.want)
		}
	}
}

func TestResolve(t *testing.T) {
	for _, tc := range []struct {
		name   string
		policy api.RestartPolicy
		ann    map[string]string
		init   bool
		want   behaviour
	}{
		{name: "server", policy: api.RestartPolicyAlways, want: behaviour{start: time.Second, exit: Exit{Never: true}}},
		{name: "job", policy: api.RestartPolicyNever, want: behaviour{start: time.Second, exit: Exit{After: Delay{Duration: 5 * time.Second}}}},
		{name: "init", policy: api.RestartPolicyAlways, init: true, want: behaviour{start: time.Second, exit: Exit{After: Delay{Duration: time.Second}}}},
		{name: "exit-code on a server", policy: api.RestartPolicyAlways, ann: map[string]string{AnnotationExitCode: "2"},
			want: behaviour{start: time.Second, exit: Exit{After: Delay{Duration: time.Second}, Code: 2}}},
		{name: "exit-code on a job", policy: api.RestartPolicyOnFailure, ann: map[string]string{AnnotationExitCode: "1", AnnotationRunFor: "30s"},
			want: behaviour{start: time.Second, exit: Exit{After: Delay{Duration: 30 * time.Second}, Code: 1}}},
		{name: "job forever", policy: api.RestartPolicyNever, ann: map[string]string{AnnotationRunFor: "forever"}, want: behaviour{start: time.Second, exit: Exit{Never: true}}},
		{name: "per container wins", policy: api.RestartPolicyAlways, ann: map[string]string{AnnotationReady: "never", AnnotationReady + ".c": "20s"},
			want: behaviour{start: time.Second, exit: Exit{Never: true}, readiness: ProbeOutcome{PassAfter: 20 * time.Second}}},
		{name: "other container's annotation", policy: api.RestartPolicyAlways, ann: map[string]string{AnnotationReady + ".sidecar": "never"},
			want: behaviour{start: time.Second, exit: Exit{Never: true}}},
		{name: "probes", policy: api.RestartPolicyAlways, ann: map[string]string{AnnotationLiveFor: "0s", AnnotationStarted: "never", AnnotationStopAfter: "2s", AnnotationStartAfter: "0s"},
			want: behaviour{exit: Exit{Never: true}, liveness: ProbeOutcome{Never: true}, startup: ProbeOutcome{Never: true}, stop: 2 * time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := testPod(tc.policy, tc.ann)
			got, err := resolve(DefaultStages(), p, &p.Spec.Containers[0], tc.init, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
	p := testPod(api.RestartPolicyAlways, map[string]string{AnnotationRunFor: "soon"})
	if _, err := resolve(DefaultStages(), p, &p.Spec.Containers[0], false, nil); err == nil {
		t.Error("bad run-for: no error")
	}
}

func TestMatch(t *testing.T) {
	p := testPod(api.RestartPolicyOnFailure, map[string]string{"a": "1"})
	p.Labels = map[string]string{"app": "web"}
	p.OwnerReferences = []api.OwnerReference{{Kind: "Job", Name: "j", Controller: new(true)}}
	c := &p.Spec.Containers[0]
	for _, tc := range []struct {
		m    Match
		init bool
		want bool
	}{
		{Match{}, false, true},
		{Match{Labels: map[string]string{"app": "web"}}, false, true},
		{Match{Labels: map[string]string{"app": "db"}}, false, false},
		{Match{Annotations: map[string]string{"a": "1"}}, false, true},
		{Match{Annotations: map[string]string{"b": "1"}}, false, false},
		{Match{RestartPolicies: []api.RestartPolicy{api.RestartPolicyAlways}}, false, false},
		{Match{OwnerKinds: []string{"Job"}}, false, true},
		{Match{OwnerKinds: []string{""}}, false, false},
		{Match{Containers: []string{"c"}}, false, true},
		{Match{Containers: []string{"d"}}, false, false},
		{Match{Kind: InitContainer}, false, false},
		{Match{Kind: InitContainer}, true, true},
		{Match{Kind: AppContainer}, true, false},
		{Match{Kind: SidecarContainer}, true, false},
	} {
		if got := tc.m.matches(p, c, tc.init); got != tc.want {
			t.Errorf("%+v init=%v: %v, want %v", tc.m, tc.init, got, tc.want)
		}
	}
}

func condStatus(st api.PodStatus, ct api.PodConditionType) api.ConditionStatus {
	for _, c := range st.Conditions {
		if c.Type == ct {
			return c.Status
		}
	}
	return ""
}

// A server pod: ContainerCreating for the start delay, then Running and
// Ready; the phase, the conditions, and the container status at each instant.
func TestServerPod(t *testing.T) {
	p := testPod(api.RestartPolicyAlways, nil)
	s := admit(t, p)
	st := s.status(p, t0)
	if st.Phase != api.PodPending || st.ContainerStatuses[0].State.Waiting.Reason != reasonCreating || condStatus(st, api.PodReady) != api.ConditionFalse {
		t.Fatalf("at admission: %+v", st)
	}
	if condStatus(st, api.PodInitialized) != api.ConditionTrue {
		t.Errorf("no init containers: Initialized %s", condStatus(st, api.PodInitialized))
	}
	if got := s.next(); !got.Equal(at(1)) {
		t.Fatalf("next %v, want %v", got, at(1))
	}
	s.advance(at(1))
	st = s.status(p, at(1))
	cs := st.ContainerStatuses[0]
	if st.Phase != api.PodRunning || cs.State.Running == nil || !cs.Ready || !*cs.Started || condStatus(st, api.PodReady) != api.ConditionTrue {
		t.Fatalf("at 1s: %+v", st)
	}
	if st.PodIP != "10.244.0.2" || st.HostIP != "192.168.0.1" || !st.StartTime.Time.Equal(t0) {
		t.Errorf("addresses %s %s, start %v", st.PodIP, st.HostIP, st.StartTime)
	}
	if !s.next().IsZero() {
		t.Errorf("a server has nothing due; next %v", s.next())
	}
}

// Init containers run one after the other, each to completion, then
// the app containers.
func TestInitContainers(t *testing.T) {
	p := testPod(api.RestartPolicyAlways, nil)
	p.Spec.InitContainers = []api.Container{{Name: "i1", Image: "busybox"}, {Name: "i2", Image: "busybox"}}
	s := admit(t, p)
	// i1: created 0-1, runs 1-2; i2: 2-3, 3-4; c: 4-5, runs from 5.
	steps := []struct {
		at           int
		i1, i2, c    ctrPhase
		phase        api.PodPhase
		initialized  api.ConditionStatus
		wantNextSecs int
	}{
		{0, waiting, waiting, waiting, api.PodPending, api.ConditionFalse, 1},
		{1, running, waiting, waiting, api.PodPending, api.ConditionFalse, 2},
		{2, terminated, waiting, waiting, api.PodPending, api.ConditionFalse, 3},
		{3, terminated, running, waiting, api.PodPending, api.ConditionFalse, 4},
		{4, terminated, terminated, waiting, api.PodPending, api.ConditionTrue, 5},
		{5, terminated, terminated, running, api.PodRunning, api.ConditionTrue, -1},
	}
	for _, step := range steps {
		s.advance(at(step.at))
		st := s.status(p, at(step.at))
		if s.initCtrs()[0].phase != step.i1 || s.initCtrs()[1].phase != step.i2 || s.appCtrs()[0].phase != step.c || st.Phase != step.phase || condStatus(st, api.PodInitialized) != step.initialized {
			t.Fatalf("at %ds: i1 %d i2 %d c %d phase %s initialized %s", step.at, s.initCtrs()[0].phase, s.initCtrs()[1].phase, s.appCtrs()[0].phase, st.Phase, condStatus(st, api.PodInitialized))
		}
		if step.wantNextSecs >= 0 && !s.next().Equal(at(step.wantNextSecs)) {
			t.Fatalf("at %ds: next %v", step.at, s.next())
		}
	}
}

// A failing init container fails a Never pod and is retried with
// back-off otherwise.
func TestInitContainerFails(t *testing.T) {
	for _, tc := range []struct {
		policy api.RestartPolicy
		phase  api.PodPhase
	}{{api.RestartPolicyNever, api.PodFailed}, {api.RestartPolicyAlways, api.PodPending}} {
		p := testPod(tc.policy, map[string]string{AnnotationExitCode + ".i": "1"})
		p.Spec.InitContainers = []api.Container{{Name: "i", Image: "busybox"}}
		s := admit(t, p)
		s.advance(at(60))
		if s.phase != tc.phase || s.appCtrs()[0].phase != waiting || s.appCtrs()[0].runs != 0 {
			t.Errorf("%s: phase %s, app %d runs %d", tc.policy, s.phase, s.appCtrs()[0].phase, s.appCtrs()[0].runs)
		}
	}
}

// Job-style pods complete; a failing one fails under Never and
// restarts with back-off under OnFailure.
func TestRunToCompletion(t *testing.T) {
	for _, tc := range []struct {
		name     string
		policy   api.RestartPolicy
		ann      map[string]string
		at       int
		phase    api.PodPhase
		restarts int32
	}{
		{"job succeeds", api.RestartPolicyNever, nil, 6, api.PodSucceeded, 0},
		{"job running", api.RestartPolicyNever, nil, 5, api.PodRunning, 0},
		{"onfailure succeeds", api.RestartPolicyOnFailure, nil, 6, api.PodSucceeded, 0},
		{"never fails", api.RestartPolicyNever, map[string]string{AnnotationExitCode: "3"}, 60, api.PodFailed, 0},
		// Exits at 6 (restarted at once), 11 (back-off 10 s: restarted at 21),
		// 26 (20 s: 46), 51 (40 s: 91).
		{"onfailure restarts", api.RestartPolicyOnFailure, map[string]string{AnnotationExitCode: "3"}, 60, api.PodRunning, 3},
		{"always restarts a success", api.RestartPolicyAlways, map[string]string{AnnotationRunFor: "5s"}, 60, api.PodRunning, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := testPod(tc.policy, tc.ann)
			s := admit(t, p)
			s.advance(at(tc.at))
			st := s.status(p, at(tc.at))
			if st.Phase != tc.phase || st.ContainerStatuses[0].RestartCount != tc.restarts {
				t.Fatalf("phase %s restarts %d, want %s %d", st.Phase, st.ContainerStatuses[0].RestartCount, tc.phase, tc.restarts)
			}
			if tc.phase == api.PodSucceeded && (condStatus(st, api.PodReady) != api.ConditionFalse || st.ContainerStatuses[0].State.Terminated.Reason != reasonCompleted) {
				t.Errorf("succeeded: %+v", st)
			}
		})
	}
}

// A crash loop: CrashLoopBackOff while waiting, lastState the previous exit.
func TestCrashLoopStatus(t *testing.T) {
	p := testPod(api.RestartPolicyAlways, map[string]string{AnnotationExitCode: "1"})
	s := admit(t, p)
	s.advance(at(3)) // started 1, exited 2 and restarted, exited 3: back-off until 13
	cs := s.status(p, at(3)).ContainerStatuses[0]
	if cs.State.Waiting == nil || cs.State.Waiting.Reason != reasonCrashLoop || cs.LastTerminationState.Terminated == nil ||
		cs.LastTerminationState.Terminated.ExitCode != 1 || cs.RestartCount != 1 {
		t.Fatalf("%+v", cs)
	}
	if !s.next().Equal(at(13)) {
		t.Errorf("next %v, want 13s", s.next())
	}
}

func probeSpec(initial, period, success, failure int32) *api.Probe {
	return &api.Probe{InitialDelaySeconds: initial, PeriodSeconds: period, SuccessThreshold: success, FailureThreshold: failure}
}

// Readiness follows the probe's thresholds.
func TestReadiness(t *testing.T) {
	for _, tc := range []struct {
		name  string
		probe *api.Probe
		ann   map[string]string
		at    int
		ready bool
	}{
		// started at 1, first probe at 1+5.
		{"before initial delay", probeSpec(5, 10, 1, 3), nil, 5, false},
		{"first probe", probeSpec(5, 10, 1, 3), nil, 6, true},
		{"success threshold 2", probeSpec(5, 10, 2, 3), nil, 6, false},
		{"second success", probeSpec(5, 10, 2, 3), nil, 16, true},
		{"never", probeSpec(0, 10, 1, 3), map[string]string{AnnotationReady: "never"}, 3600, false},
		{"passes after 30s", probeSpec(0, 10, 1, 3), map[string]string{AnnotationReady: "30s"}, 30, false},
		{"passed after 30s", probeSpec(0, 10, 1, 3), map[string]string{AnnotationReady: "30s"}, 31, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := testPod(api.RestartPolicyAlways, tc.ann, api.Container{Name: "c", Image: "nginx", ReadinessProbe: tc.probe})
			s := admit(t, p)
			s.advance(at(tc.at))
			st := s.status(p, at(tc.at))
			if st.ContainerStatuses[0].Ready != tc.ready || (condStatus(st, api.PodReady) == api.ConditionTrue) != tc.ready {
				t.Fatalf("ready %v, want %v: %+v", st.ContainerStatuses[0].Ready, tc.ready, st)
			}
		})
	}
}

// Liveness: failureThreshold failures in a row kill the container, which
// restarts with the crash-loop back-off.
func TestLiveness(t *testing.T) {
	p := testPod(api.RestartPolicyAlways, map[string]string{AnnotationLiveFor: "0s"},
		api.Container{Name: "c", Image: "nginx", LivenessProbe: probeSpec(0, 10, 1, 3)})
	s := admit(t, p)
	// Run 1 starts at 1; probes fail at 1, 11, 21: killed at 21, restarted at once.
	// Run 2: fails 21, 31, 41: killed at 41, back-off 10 s: starts 51.
	// Run 3: killed at 71, back-off 20 s: starts 91; run 4: killed at 111, back-off 40 s: starts 151.
	wantStarts := []int{1, 21, 51, 91, 151}
	for i, w := range wantStarts {
		s.advance(at(w))
		c := s.appCtrs()[0]
		if c.phase != running || !c.startedAt.Equal(at(w)) || c.restarts() != int32(i) {
			t.Fatalf("run %d: phase %d started %v restarts %d, want start %ds", i+1, c.phase, c.startedAt.Sub(t0), c.restarts(), w)
		}
		if i > 0 && (c.last.ExitCode != exitKilled || c.last.Message == "") {
			t.Errorf("run %d: last %+v", i+1, c.last)
		}
	}
}

// A startup probe holds back readiness and liveness until it passes, and
// kills the container when it fails failureThreshold times.
func TestStartupProbe(t *testing.T) {
	p := testPod(api.RestartPolicyAlways, map[string]string{AnnotationStarted: "25s", AnnotationLiveFor: "0s"},
		api.Container{Name: "c", Image: "nginx", StartupProbe: probeSpec(0, 10, 1, 5), LivenessProbe: probeSpec(0, 10, 1, 1)})
	s := admit(t, p)
	s.advance(at(21)) // startup probes at 1, 11, 21 fail; liveness held back
	if c := s.appCtrs()[0]; c.started || c.phase != running || c.runs != 1 {
		t.Fatalf("at 21s: started %v phase %d runs %d", c.started, c.phase, c.runs)
	}
	s.advance(at(31)) // passes at 31 (elapsed 30 ≥ 25); liveness fails at once: killed
	if c := s.appCtrs()[0]; c.runs != 2 {
		t.Fatalf("at 31s: runs %d, want a restart after liveness", c.runs)
	}

	p = testPod(api.RestartPolicyAlways, map[string]string{AnnotationStarted: "never"},
		api.Container{Name: "c", Image: "nginx", StartupProbe: probeSpec(0, 10, 1, 3)})
	s = admit(t, p)
	s.advance(at(21))
	if c := s.appCtrs()[0]; c.runs != 2 || c.last == nil || c.ready {
		t.Fatalf("startup never passes: runs %d last %+v", c.runs, c.last)
	}
}

// Graceful termination: containers exit at once on SIGTERM by default,
// after their own stop delay if they have one, or use the whole grace
// period when they ask to; then the pod is done with its final phase.
func TestTerminate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ann    map[string]string
		doneAt int
		phase  api.PodPhase
	}{
		{"prompt on SIGTERM by default", nil, 2, api.PodSucceeded},
		{"whole grace period when asked", map[string]string{AnnotationStopAfter: "grace"}, 32, api.PodSucceeded},
		{"stops early", map[string]string{AnnotationStopAfter: "3s"}, 5, api.PodSucceeded},
		{"killed at the deadline", map[string]string{AnnotationStopAfter: "1m"}, 32, api.PodFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := testPod(api.RestartPolicyAlways, tc.ann)
			s := admit(t, p)
			s.advance(at(2))
			s.terminate(at(2), 30*time.Second)
			if tc.doneAt > 2 {
				s.advance(at(tc.doneAt - 1))
			}
			if tc.doneAt > 2 && s.done {
				t.Fatalf("done before %ds", tc.doneAt)
			}
			s.advance(at(tc.doneAt))
			if !s.done || s.phase != tc.phase {
				t.Fatalf("at %ds: done %v phase %s", tc.doneAt, s.done, s.phase)
			}
		})
	}
	// A pod deleted before its containers start is done at once.
	s := admit(t, testPod(api.RestartPolicyAlways, nil))
	s.terminate(t0, 30*time.Second)
	if !s.done {
		t.Error("pending pod: not done")
	}
}

func TestActiveDeadline(t *testing.T) {
	p := testPod(api.RestartPolicyAlways, nil)
	p.Spec.ActiveDeadlineSeconds = new(int64(30))
	s := admit(t, p)
	s.advance(at(30))
	st := s.status(p, at(30))
	if st.Phase != api.PodFailed || st.Reason != reasonDeadline || st.Message != "Pod was active on the node longer than the specified deadline" || s.appCtrs()[0].phase != terminated {
		t.Fatalf("phase %s reason %s message %q", st.Phase, st.Reason, st.Message)
	}
}

// Phases from container states: kubelet_pods_test.go TestPodPhaseWithRestart*.
func TestComputePhase(t *testing.T) {
	runningC := func() *container { return &container{phase: running} }
	succeededC := func() *container {
		return &container{phase: terminated, term: &api.ContainerStateTerminated{ExitCode: 0}}
	}
	failedC := func() *container {
		return &container{phase: terminated, term: &api.ContainerStateTerminated{ExitCode: 1}}
	}
	waitingC := func() *container { return &container{phase: waiting} }
	restartingC := func() *container {
		return &container{phase: waiting, last: &api.ContainerStateTerminated{ExitCode: 1}}
	}
	for _, tc := range []struct {
		name   string
		policy api.RestartPolicy
		app    []*container
		want   api.PodPhase
	}{
		{"all running", api.RestartPolicyAlways, []*container{runningC(), runningC()}, api.PodRunning},
		{"all stopped, always", api.RestartPolicyAlways, []*container{succeededC(), succeededC()}, api.PodRunning},
		{"mixed, always", api.RestartPolicyAlways, []*container{runningC(), succeededC()}, api.PodRunning},
		{"waiting", api.RestartPolicyAlways, []*container{runningC(), waitingC()}, api.PodPending},
		{"restarting", api.RestartPolicyAlways, []*container{runningC(), restartingC()}, api.PodRunning},
		{"all succeeded, never", api.RestartPolicyNever, []*container{succeededC(), succeededC()}, api.PodSucceeded},
		{"one failed, never", api.RestartPolicyNever, []*container{succeededC(), failedC()}, api.PodFailed},
		{"one running, never", api.RestartPolicyNever, []*container{runningC(), failedC()}, api.PodRunning},
		{"all succeeded, onfailure", api.RestartPolicyOnFailure, []*container{succeededC(), succeededC()}, api.PodSucceeded},
		{"restarting, onfailure", api.RestartPolicyOnFailure, []*container{succeededC(), restartingC()}, api.PodRunning},
	} {
		s := &podState{policy: policyOf(tc.policy), ctrs: tc.app}
		if got := s.computePhase(); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

// A native sidecar (an init container with restartPolicy Always) starts
// in order, lets the next init container run once started, keeps running
// and restarting whatever the pod's policy, counts for readiness, and is
// stopped when the app containers are done.
func TestSidecar(t *testing.T) {
	always := api.ContainerRestartPolicy("Always")
	p := testPod(api.RestartPolicyNever, map[string]string{AnnotationRunFor + ".proxy": "30s", AnnotationExitCode + ".proxy": "1", AnnotationRunFor + ".c": "20s"})
	p.Spec.InitContainers = []api.Container{
		{Name: "proxy", Image: "envoy", RestartPolicy: &always, ReadinessProbe: probeSpec(2, 10, 1, 3)},
		{Name: "migrate", Image: "busybox"},
	}
	s := admit(t, p)
	// proxy: created 0-1, runs from 1, ready at 3; migrate: 1-2, runs 2-3;
	// c: 3-4, runs 4-24; proxy exits 31 with 1 and restarts at once.
	s.advance(at(2))
	if s.initCtrs()[0].phase != running || s.initCtrs()[1].phase != running || s.appCtrs()[0].phase != waiting {
		t.Fatalf("at 2s: proxy %d migrate %d c %d", s.initCtrs()[0].phase, s.initCtrs()[1].phase, s.appCtrs()[0].phase)
	}
	st := s.status(p, at(2))
	if condStatus(st, api.PodInitialized) != api.ConditionFalse || st.InitContainerStatuses[0].Started == nil || !*st.InitContainerStatuses[0].Started {
		t.Fatalf("at 2s: %+v", st)
	}
	s.advance(at(4))
	st = s.status(p, at(4))
	if st.Phase != api.PodRunning || condStatus(st, api.PodInitialized) != api.ConditionTrue || condStatus(st, api.PodReady) != api.ConditionTrue {
		t.Fatalf("at 4s: %+v", st)
	}
	s.advance(at(24))
	if s.phase != api.PodSucceeded || s.initCtrs()[0].phase != terminated || s.initCtrs()[0].term.ExitCode != 0 {
		t.Fatalf("at 24s: phase %s proxy %d %+v", s.phase, s.initCtrs()[0].phase, s.initCtrs()[0].term)
	}

	// A crashing sidecar under Never restarts.
	p = testPod(api.RestartPolicyNever, map[string]string{AnnotationExitCode + ".proxy": "1", AnnotationRunFor + ".c": "forever"})
	p.Spec.InitContainers = []api.Container{{Name: "proxy", Image: "envoy", RestartPolicy: &always}}
	s = admit(t, p)
	s.advance(at(60))
	if s.phase != api.PodRunning || s.initCtrs()[0].restarts() < 2 || s.appCtrs()[0].phase != running {
		t.Fatalf("crashing sidecar: phase %s restarts %d", s.phase, s.initCtrs()[0].restarts())
	}
}

// Readiness gates: Ready waits for the gate's condition, which others
// write (pkg/kubelet/status generatePodReadyCondition).
func TestReadinessGates(t *testing.T) {
	p := testPod(api.RestartPolicyAlways, nil)
	p.Spec.ReadinessGates = []api.PodReadinessGate{{ConditionType: "example.com/lb"}}
	s := admit(t, p)
	s.advance(at(1))
	ready := func() api.PodCondition {
		for _, c := range s.status(p, at(1)).Conditions {
			if c.Type == api.PodReady {
				return c
			}
		}
		return api.PodCondition{}
	}
	if c := ready(); c.Status != api.ConditionFalse || c.Reason != reasonGatesReady || c.Message != `corresponding condition of pod readiness gate "example.com/lb" does not exist.` {
		t.Fatalf("no gate condition: %+v", c)
	}
	p.Status.Conditions = append(p.Status.Conditions, api.PodCondition{Type: "example.com/lb", Status: api.ConditionFalse})
	if c := ready(); c.Status != api.ConditionFalse || c.Message != `the status of pod readiness gate "example.com/lb" is not "True", but False` {
		t.Fatalf("gate False: %+v", c)
	}
	p.Status.Conditions[len(p.Status.Conditions)-1].Status = api.ConditionTrue
	if c := ready(); c.Status != api.ConditionTrue {
		t.Fatalf("gate True: %+v", c)
	}
	if st := s.status(p, at(1)); condStatus(st, "example.com/lb") != api.ConditionTrue {
		t.Error("the gate's condition was dropped")
	}
}

// Issue 31: the kubelet's status manager gives a terminal pod's
// ContainersReady and Ready conditions the reason of its phase:
// PodCompleted for Succeeded (Initialized too), PodFailed for Failed.
// Cases after pkg/kubelet/status/generate_test.go
// (TestGenerateContainersReadyCondition, TestGeneratePodReadyCondition,
// TestGeneratePodInitializedCondition: the Succeeded and Failed phases).
func TestTerminalConditionReasons(t *testing.T) {
	for _, tc := range []struct {
		name                         string
		ann                          map[string]string
		phase                        api.PodPhase
		initialized, containers, pod string // reasons
	}{
		{"succeeded", nil, api.PodSucceeded, reasonPodDone, reasonPodDone, reasonPodDone},
		{"failed", map[string]string{AnnotationExitCode: "3"}, api.PodFailed, "", reasonPodFailed, reasonPodFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := testPod(api.RestartPolicyNever, tc.ann)
			s := admit(t, p)
			s.advance(at(60))
			st := s.status(p, at(60))
			if st.Phase != tc.phase {
				t.Fatalf("phase %s", st.Phase)
			}
			for typ, want := range map[api.PodConditionType]struct {
				status api.ConditionStatus
				reason string
			}{
				api.PodInitialized:  {api.ConditionTrue, tc.initialized},
				api.ContainersReady: {api.ConditionFalse, tc.containers},
				api.PodReady:        {api.ConditionFalse, tc.pod},
			} {
				c, ok := st.GetCondition(typ)
				if !ok || c.Status != want.status || c.Reason != want.reason || c.Message != "" {
					t.Errorf("%s: %+v, want %s %q", typ, c, want.status, want.reason)
				}
			}
		})
	}
}

// Issue 31: a restartable init container (sidecar) counts in readiness
// as kube counts it: one sidecar and one app container, both ready, make
// ContainersReady True and READY 2/2 in the table (kubectl's printPod);
// the sidecar not ready names it in the message.
func TestSidecarCountsForReadiness(t *testing.T) {
	always := api.ContainerRestartPolicy("Always")
	p := testPod(api.RestartPolicyAlways, map[string]string{AnnotationReady + ".proxy": "20s"})
	p.Spec.InitContainers = []api.Container{{Name: "proxy", Image: "envoy", RestartPolicy: &always, ReadinessProbe: probeSpec(0, 10, 1, 3)}}
	s := admit(t, p)
	s.advance(at(15))
	st := s.status(p, at(15))
	c, _ := st.GetCondition(api.ContainersReady)
	if c.Status != api.ConditionFalse || c.Reason != reasonNotReady || c.Message != "containers with unready status: [proxy]" {
		t.Fatalf("at 15s: %+v", c)
	}
	info, _ := api.InfoFor[*api.Pod]()
	pod := p.DeepCopy()
	pod.Status = st
	if cells := info.Cells(pod, at(15)); cells[1] != "1/2" || cells[2] != "Running" {
		t.Fatalf("table row at 15s %v, want READY 1/2 Running", cells)
	}
	s.advance(at(40))
	st = s.status(p, at(40))
	for _, typ := range []api.PodConditionType{api.ContainersReady, api.PodReady} {
		if c, _ := st.GetCondition(typ); c.Status != api.ConditionTrue {
			t.Fatalf("at 40s %s: %+v", typ, c)
		}
	}
	pod.Status = st
	if cells := info.Cells(pod, at(40)); cells[1] != "2/2" || cells[2] != "Running" {
		t.Fatalf("table row at 40s %v, want READY 2/2 Running", cells)
	}
}
