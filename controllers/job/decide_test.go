package job

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

var now = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func ago(d time.Duration) time.Time { return now.Add(-d) }
func ptr[T any](v T) *T             { return &v }

func newJob(mod ...func(*api.Job)) *api.Job {
	j := &api.Job{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "pi", UID: "job-uid"}}
	j.Spec.Parallelism, j.Spec.Completions, j.Spec.BackoffLimit = ptr(int32(1)), ptr(int32(1)), ptr(int32(4))
	j.Spec.Template.Spec.RestartPolicy = api.RestartPolicyNever
	j.Spec.Template.Spec.Containers = []api.Container{{Name: "pi", Image: "perl"}}
	j.Status.StartTime = &api.Time{Time: ago(time.Minute)}
	for _, m := range mod {
		m(j)
	}
	return j
}

type podOpt func(*api.Pod)

func pod(uid string, phase api.PodPhase, opts ...podOpt) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "pi-" + uid, UID: api.UID(uid),
		Finalizers: []string{FinalizerTracking}}}
	p.Status.Phase = phase
	if phase == api.PodSucceeded || phase == api.PodFailed {
		code := int32(0)
		if phase == api.PodFailed {
			code = 1
		}
		p.Status.ContainerStatuses = []api.ContainerStatus{{Name: "pi", State: api.ContainerState{Terminated: &api.ContainerStateTerminated{
			ExitCode: code, FinishedAt: api.Time{Time: ago(time.Second)}}}}}
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func noFinalizer(p *api.Pod) { p.Finalizers = nil }
func deleting(p *api.Pod)    { p.DeletionTimestamp = &api.Time{Time: ago(time.Second)} }
func index(i int) podOpt {
	return func(p *api.Pod) { p.Annotations = map[string]string{api.LabelJobCompletionIndex: fmt.Sprint(i)} }
}
func exitCode(c int32) podOpt {
	return func(p *api.Pod) { p.Status.ContainerStatuses[0].State.Terminated.ExitCode = c }
}
func restarts(n int32) podOpt {
	return func(p *api.Pod) { p.Status.ContainerStatuses = []api.ContainerStatus{{Name: "pi", RestartCount: n}} }
}
func podCondition(t api.PodConditionType) podOpt {
	return func(p *api.Pod) {
		p.Status.Conditions = append(p.Status.Conditions, api.PodCondition{Type: t, Status: api.ConditionTrue})
	}
}

func uncounted(succ, fail []api.UID) func(*api.Job) {
	return func(j *api.Job) {
		j.Status.UncountedTerminatedPods = &api.UncountedTerminatedPods{Succeeded: succ, Failed: fail}
	}
}

func condString(st api.JobStatus) string {
	var s []string
	for _, c := range st.Conditions {
		s = append(s, fmt.Sprintf("%s=%s(%s)", c.Type, c.Status, c.Reason))
	}
	return strings.Join(s, " ")
}

// The decision over explicit instants: the cases of kcm's
// TestControllerSyncJob and TestTrackJobStatusAndRemoveFinalizers
// (job_controller_test.go), rewritten as rows over our plan.
func TestDecide(t *testing.T) {
	tests := []struct {
		name    string
		job     *api.Job
		pods    []*api.Pod
		rec     backoffRecord
		creates int
		deletes int
		rmFin   int
		flush   bool
		// the final status
		active, succeeded, failed int32
		conds                     string
		completedIndexes          string
		requeue                   time.Duration
	}{
		{name: "new job: min(parallelism, completions) pods",
			job: newJob(func(j *api.Job) {
				j.Spec.Parallelism, j.Spec.Completions, j.Status.StartTime = ptr(int32(2)), ptr(int32(5)), nil
			}),
			creates: 2, active: 2},
		{name: "second wave: completions 4, parallelism 2, 2 succeeded",
			job: newJob(func(j *api.Job) {
				j.Spec.Parallelism, j.Spec.Completions, j.Status.Succeeded = ptr(int32(2)), ptr(int32(4)), 2
			}),
			creates: 2, active: 2, succeeded: 2},
		{name: "last completion: one pod for the one remaining",
			job: newJob(func(j *api.Job) {
				j.Spec.Parallelism, j.Spec.Completions, j.Status.Succeeded = ptr(int32(2)), ptr(int32(4)), 3
			}),
			creates: 1, active: 1, succeeded: 3},
		{name: "a succeeded pod is flushed as uncounted, then counted",
			job: newJob(), pods: []*api.Pod{pod("a", api.PodSucceeded)}, flush: true, rmFin: 1, succeeded: 1,
			conds: "SuccessCriteriaMet=True(CompletionsReached) Complete=True(CompletionsReached)"},
		{name: "an uncounted pod that kept its finalizer: removed and counted, no new flush",
			job: newJob(uncounted(nil, []api.UID{"a"})), pods: []*api.Pod{pod("a", api.PodFailed)}, rmFin: 1, failed: 1,
			rec: backoffRecord{1, ptrTime(ago(time.Second))}, requeue: 9 * time.Second},
		{name: "an uncounted pod already gone is counted",
			job: newJob(uncounted(nil, []api.UID{"gone"})), failed: 1, creates: 1, active: 1},
		{name: "a finished pod without the finalizer was counted: not again",
			job:  newJob(func(j *api.Job) { j.Status.Failed = 1 }),
			pods: []*api.Pod{pod("a", api.PodFailed, noFinalizer)}, failed: 1, creates: 1, active: 1},
		{name: "failure within the back-off: no pod yet, requeue for the rest",
			job: newJob(), pods: []*api.Pod{pod("a", api.PodFailed)}, flush: true, rmFin: 1, failed: 1, requeue: 9 * time.Second},
		{name: "back-off passed: a new pod",
			job: newJob(func(j *api.Job) { j.Status.Failed = 1 }), rec: backoffRecord{1, ptrTime(ago(11 * time.Second))},
			failed: 1, creates: 1, active: 1},
		{name: "third failure waits 40 s",
			job: newJob(func(j *api.Job) { j.Status.Failed = 2 }), rec: backoffRecord{2, ptrTime(ago(time.Minute))},
			pods: []*api.Pod{pod("c", api.PodFailed)}, flush: true, rmFin: 1, failed: 3, requeue: 39 * time.Second},
		{name: "fifth failure with backoffLimit 4: FailureTarget, then Failed (no pod runs)",
			job: newJob(func(j *api.Job) { j.Status.Failed = 4 }), pods: []*api.Pod{pod("e", api.PodFailed)}, flush: true, rmFin: 1, failed: 5,
			conds: "FailureTarget=True(BackoffLimitExceeded) Failed=True(BackoffLimitExceeded)"},
		{name: "limit exceeded with a pod still running: it is deleted, Failed waits",
			job: newJob(func(j *api.Job) {
				j.Status.Failed = 4
				j.Spec.Parallelism = ptr(int32(2))
				j.Spec.Completions = ptr(int32(2))
			}),
			pods: []*api.Pod{pod("e", api.PodFailed), pod("r", api.PodRunning)}, flush: true, rmFin: 1, failed: 5, deletes: 1,
			conds: "FailureTarget=True(BackoffLimitExceeded)"},
		{name: "the deleted pod terminates: counted as failed, Failed once none remain",
			job:  newJob(func(j *api.Job) { j.Status.Failed = 5 }, withCond(api.JobFailureTarget, ReasonBackoffLimitExceeded)),
			pods: []*api.Pod{pod("r", api.PodFailed)}, flush: true, rmFin: 1, failed: 6,
			conds: "FailureTarget=True(BackoffLimitExceeded) Failed=True(BackoffLimitExceeded)"},
		{name: "restartPolicy OnFailure: restarts count toward the limit",
			job:  newJob(func(j *api.Job) { j.Spec.Template.Spec.RestartPolicy = api.RestartPolicyOnFailure }),
			pods: []*api.Pod{pod("a", api.PodRunning, restarts(4))}, deletes: 1,
			conds: "FailureTarget=True(BackoffLimitExceeded)"},
		{name: "restartPolicy OnFailure under the limit",
			job:  newJob(func(j *api.Job) { j.Spec.Template.Spec.RestartPolicy = api.RestartPolicyOnFailure }),
			pods: []*api.Pod{pod("a", api.PodRunning, restarts(3))}, active: 1},
		{name: "activeDeadlineSeconds passed",
			job:  newJob(func(j *api.Job) { j.Spec.ActiveDeadlineSeconds = ptr(int64(30)) }),
			pods: []*api.Pod{pod("a", api.PodRunning)}, deletes: 1, conds: "FailureTarget=True(DeadlineExceeded)"},
		{name: "activeDeadlineSeconds not yet: requeue at it",
			job:  newJob(func(j *api.Job) { j.Spec.ActiveDeadlineSeconds = ptr(int64(90)) }),
			pods: []*api.Pod{pod("a", api.PodRunning)}, active: 1, requeue: 30 * time.Second},
		{name: "suspend deletes the running pods",
			job:  newJob(func(j *api.Job) { j.Spec.Suspend = ptr(true) }),
			pods: []*api.Pod{pod("a", api.PodRunning)}, deletes: 1, conds: "Suspended=True(JobSuspended)"},
		{name: "a pod deleted for the suspension is no failure",
			job:  newJob(func(j *api.Job) { j.Spec.Suspend = ptr(true) }, withCond(api.JobSuspended, "JobSuspended")),
			pods: []*api.Pod{pod("a", api.PodRunning, deleting)}, rmFin: 1, conds: "Suspended=True(JobSuspended)"},
		{name: "resume: pods again, Suspended False",
			job:     newJob(withCond(api.JobSuspended, "JobSuspended")),
			creates: 1, active: 1, conds: "Suspended=False(JobResumed)"},
		{name: "podFailurePolicy FailJob on exit code 42",
			job:  newJob(failurePolicy(api.PodFailurePolicyRule{Action: ActionFailJob, OnExitCodes: &api.PodFailurePolicyOnExitCodesRequirement{Operator: "In", Values: []int32{42}}})),
			pods: []*api.Pod{pod("a", api.PodFailed, exitCode(42))}, flush: true, rmFin: 1, failed: 1,
			conds: "FailureTarget=True(PodFailurePolicy) Failed=True(PodFailurePolicy)"},
		{name: "podFailurePolicy Ignore on DisruptionTarget: not counted, replaced at once",
			job:  newJob(failurePolicy(api.PodFailurePolicyRule{Action: ActionIgnore, OnPodConditions: []api.PodFailurePolicyOnPodConditionsPattern{{Type: "DisruptionTarget", Status: api.ConditionTrue}}})),
			pods: []*api.Pod{pod("a", api.PodFailed, podCondition("DisruptionTarget"))}, rmFin: 1, creates: 1, active: 1},
		{name: "podFailurePolicy Count: counted as usual",
			job:  newJob(failurePolicy(api.PodFailurePolicyRule{Action: ActionCount, OnExitCodes: &api.PodFailurePolicyOnExitCodesRequirement{Operator: "NotIn", Values: []int32{42}}})),
			pods: []*api.Pod{pod("a", api.PodFailed)}, flush: true, rmFin: 1, failed: 1, requeue: 9 * time.Second},
		{name: "podFailurePolicy: a terminating pod waits for its Failed phase",
			job:  newJob(failurePolicy(api.PodFailurePolicyRule{Action: ActionCount, OnExitCodes: &api.PodFailurePolicyOnExitCodesRequirement{Operator: "In", Values: []int32{1}}})),
			pods: []*api.Pod{pod("a", api.PodRunning, deleting)}},
		{name: "parallelism lowered: the extra pods go",
			job:  newJob(func(j *api.Job) { j.Spec.Completions = ptr(int32(5)) }),
			pods: []*api.Pod{pod("a", api.PodRunning), pod("b", api.PodRunning)}, deletes: 1, active: 1},
		{name: "no completions: parallelism pods until one succeeds",
			job:     newJob(func(j *api.Job) { j.Spec.Completions = nil; j.Spec.Parallelism = ptr(int32(3)) }),
			creates: 3, active: 3},
		{name: "no completions: one succeeded, the others run on, no new pod",
			job:  newJob(func(j *api.Job) { j.Spec.Completions = nil; j.Spec.Parallelism = ptr(int32(3)) }),
			pods: []*api.Pod{pod("a", api.PodSucceeded), pod("b", api.PodRunning), pod("c", api.PodFailed)}, flush: true, rmFin: 2,
			succeeded: 1, failed: 1, active: 1},
		{name: "no completions: the last one done → complete",
			job:  newJob(func(j *api.Job) { j.Spec.Completions = nil; j.Spec.Parallelism = ptr(int32(3)); j.Status.Succeeded = 1 }),
			pods: []*api.Pod{pod("b", api.PodSucceeded)}, flush: true, rmFin: 1, succeeded: 2,
			conds: "SuccessCriteriaMet=True(CompletionsReached) Complete=True(CompletionsReached)"},
		{name: "indexed: a success completes its index",
			job:  newJob(indexedJob(3, 3), func(j *api.Job) { j.Status.CompletedIndexes = "0"; j.Status.Succeeded = 1 }),
			pods: []*api.Pod{pod("b", api.PodSucceeded, index(1)), pod("c", api.PodRunning, index(2))}, flush: true, rmFin: 1,
			succeeded: 2, active: 1, completedIndexes: "0,1"},
		{name: "indexed: a second success of a completed index is not counted",
			job:  newJob(indexedJob(3, 1), func(j *api.Job) { j.Status.CompletedIndexes = "0"; j.Status.Succeeded = 1 }),
			pods: []*api.Pod{pod("b", api.PodSucceeded, index(0))}, rmFin: 1, succeeded: 1, creates: 1, active: 1, completedIndexes: "0"},
		{name: "indexed: missing indexes get pods, the lowest first",
			job:  newJob(indexedJob(4, 2), func(j *api.Job) { j.Status.CompletedIndexes = "0"; j.Status.Succeeded = 1 }),
			pods: []*api.Pod{pod("c", api.PodRunning, index(2))}, creates: 1, active: 2, succeeded: 1, completedIndexes: "0"},
		{name: "indexed: a duplicate index is deleted",
			job:  newJob(indexedJob(2, 2)),
			pods: []*api.Pod{pod("a", api.PodRunning, index(0)), pod("b", api.PodRunning, index(0))}, deletes: 1, creates: 1, active: 2},
		{name: "finished job: finalizers go, nothing else",
			job:  newJob(withCond(api.JobComplete, ReasonCompletionsReached), func(j *api.Job) { j.Status.Succeeded = 1 }),
			pods: []*api.Pod{pod("x", api.PodRunning)}, rmFin: 1, succeeded: 1, conds: "Complete=True(CompletionsReached)"},
		{name: "ttlSecondsAfterFinished is the TTL controller's: no requeue for it",
			job: newJob(withCond(api.JobComplete, ReasonCompletionsReached), func(j *api.Job) {
				j.Spec.TTLSecondsAfterFinished = ptr(int32(200))
				j.Status.CompletionTime = &api.Time{Time: ago(100 * time.Second)}
			}), conds: "Complete=True(CompletionsReached)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := decide(tc.job, tc.pods, tc.rec, now, backoffs{DefaultBackoff, MaxBackoff})
			st := p.status
			if len(p.creates) != tc.creates || len(p.deletes) != tc.deletes || len(p.removeFinalizers) != tc.rmFin || (p.flush != nil) != tc.flush {
				t.Errorf("creates %d deletes %d removeFinalizers %d flush %v; want %d %d %d %v",
					len(p.creates), len(p.deletes), len(p.removeFinalizers), p.flush != nil, tc.creates, tc.deletes, tc.rmFin, tc.flush)
			}
			if st.Active != tc.active || st.Succeeded != tc.succeeded || st.Failed != tc.failed {
				t.Errorf("active %d succeeded %d failed %d; want %d %d %d", st.Active, st.Succeeded, st.Failed, tc.active, tc.succeeded, tc.failed)
			}
			if u := st.UncountedTerminatedPods; u == nil || len(u.Succeeded)+len(u.Failed) != 0 {
				t.Errorf("uncounted after counting = %+v", u)
			}
			if got := condString(st); got != tc.conds {
				t.Errorf("conditions %q, want %q", got, tc.conds)
			}
			if st.CompletedIndexes != tc.completedIndexes {
				t.Errorf("completedIndexes %q, want %q", st.CompletedIndexes, tc.completedIndexes)
			}
			if p.requeueAfter != tc.requeue {
				t.Errorf("requeueAfter %v, want %v", p.requeueAfter, tc.requeue)
			}
			for _, c := range p.creates {
				if c.Finalizers[0] != FinalizerTracking || c.ControllerRef() == nil || c.ControllerRef().UID != "job-uid" {
					t.Errorf("created pod %+v lacks the finalizer or controller reference", c.ObjectMeta)
				}
			}
			if p.flush != nil {
				// The flush records the newly finished pods before any finalizer goes.
				u := p.flush.UncountedTerminatedPods
				if len(u.Succeeded)+len(u.Failed) == 0 && p.flush.CompletedIndexes == tc.job.Status.CompletedIndexes {
					t.Errorf("flush records nothing: %+v", p.flush)
				}
			}
		})
	}
}

func withCond(typ api.JobConditionType, reason string) func(*api.Job) {
	return func(j *api.Job) {
		j.Status.Conditions = append(j.Status.Conditions, api.JobCondition{Type: typ, Status: api.ConditionTrue, Reason: reason})
	}
}

func failurePolicy(rules ...api.PodFailurePolicyRule) func(*api.Job) {
	return func(j *api.Job) { j.Spec.PodFailurePolicy = &api.PodFailurePolicy{Rules: rules} }
}

func indexedJob(completions, parallelism int32) func(*api.Job) {
	return func(j *api.Job) {
		j.Spec.CompletionMode = ptr(api.IndexedCompletion)
		j.Spec.Completions, j.Spec.Parallelism = &completions, &parallelism
	}
}

// kcm's orderedIntervals: a run of two prints as two indexes
// (indexed_job_utils.go, String).
func TestIndexesRoundTrip(t *testing.T) {
	for in, want := range map[string]string{"": "", "0": "0", "1,3-5,7,8": "1,3-5,7,8", "0-1": "0,1", "0-2,1,9": "0-2,9", "5-3,x,2": "2"} {
		if got := formatIndexes(parseIndexes(in, 10)); got != want {
			t.Errorf("%q → %q, want %q", in, got, want)
		}
	}
}
