package job_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/source"
)

// A job created suspended runs nothing; resumed, it runs and completes;
// suspended while running, its pod is deleted without counting a failure.
func TestSuspendResume(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		j := piJob(t)
		j.Spec.Suspend = ptr(true)
		j.Spec.Template.Annotations = map[string]string{"sim.ctrlkit.io/run-for": "30s"}
		e.create(j)
		time.Sleep(time.Minute)
		synctest.Wait()
		got := e.job("pi")
		require.Empty(t, e.pods())
		require.Nil(t, got.Status.StartTime)
		require.Equal(t, "Suspended(JobSuspended) ", conditions(got))

		got.Spec.Suspend = ptr(false)
		_, err := e.c.Jobs().Update(e.ctx, got, "")
		require.NoError(t, err)
		time.Sleep(10 * time.Second)
		synctest.Wait()
		got = e.job("pi")
		require.EqualValues(t, 1, got.Status.Active)
		require.NotNil(t, got.Status.StartTime)
		require.Empty(t, conditions(got), "Suspended is False now")

		got.Spec.Suspend = ptr(true) // suspend again while the pod runs
		_, err = e.c.Jobs().Update(e.ctx, got, "")
		require.NoError(t, err)
		time.Sleep(time.Minute)
		synctest.Wait()
		got = e.job("pi")
		require.EqualValues(t, 0, got.Status.Active)
		require.EqualValues(t, 0, got.Status.Failed, "a pod deleted for a suspension is no failure")
		require.Empty(t, e.pods(), "the pod was deleted, its finalizer released")

		got.Spec.Suspend = ptr(false)
		_, err = e.c.Jobs().Update(e.ctx, got, "")
		require.NoError(t, err)
		time.Sleep(time.Minute)
		synctest.Wait()
		require.Contains(t, conditions(e.job("pi")), "Complete(CompletionsReached)")
	})
}

// activeDeadlineSeconds: a pod that runs forever is stopped at the
// deadline, and the job is Failed (DeadlineExceeded) once it has gone.
func TestActiveDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		j := piJob(t)
		j.Spec.ActiveDeadlineSeconds = ptr(int64(60))
		j.Spec.Template.Annotations = map[string]string{"sim.ctrlkit.io/run-for": "forever", "sim.ctrlkit.io/stop-after": "5s"}
		e.create(j)
		time.Sleep(61 * time.Second)
		synctest.Wait()
		require.Equal(t, "FailureTarget(DeadlineExceeded) ", conditions(e.job("pi")), "the pod is still terminating")
		time.Sleep(10 * time.Second)
		synctest.Wait()
		got := e.job("pi")
		require.Equal(t, "FailureTarget(DeadlineExceeded) Failed(DeadlineExceeded) ", conditions(got))
		require.EqualValues(t, 1, got.Status.Failed, "the deleted pod counts as failed")
		require.Equal(t, 1, e.count("DeadlineExceeded"))
	})
}

// restartPolicy OnFailure: the kubelet restarts the failing container;
// the restarts count toward backoffLimit.
func TestOnFailureRestartsCount(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		j := piJob(t)
		j.Spec.BackoffLimit = ptr(int32(2))
		j.Spec.Template.Spec.RestartPolicy = api.RestartPolicyOnFailure
		j.Spec.Template.Annotations = map[string]string{"sim.ctrlkit.io/exit-code": "1"}
		e.create(j)
		time.Sleep(3 * time.Minute)
		synctest.Wait()
		got := e.job("pi")
		require.Contains(t, conditions(got), "Failed(BackoffLimitExceeded)")
		require.Equal(t, 1, e.count("SuccessfulCreate"), "one pod, restarted in place")
	})
}

// podFailurePolicy FailJob on exit code 42 fails the job at the first
// such failure, whatever backoffLimit says.
func TestPodFailurePolicyFailJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		j := piJob(t)
		j.Spec.PodFailurePolicy = &api.PodFailurePolicy{Rules: []api.PodFailurePolicyRule{{Action: "FailJob",
			OnExitCodes: &api.PodFailurePolicyOnExitCodesRequirement{Operator: "In", Values: []int32{42}}}}}
		j.Spec.Template.Annotations = map[string]string{"sim.ctrlkit.io/exit-code": "42"}
		e.create(j)
		time.Sleep(time.Minute)
		synctest.Wait()
		got := e.job("pi")
		require.Equal(t, "FailureTarget(PodFailurePolicy) Failed(PodFailurePolicy) ", conditions(got))
		require.EqualValues(t, 1, got.Status.Failed)
		require.Contains(t, got.Status.Conditions[0].Message, "failed with exit code 42 matching FailJob rule at index 0")
	})
}

// ttlSecondsAfterFinished is not the job controller's (kcm's
// TTL-after-finished controller deletes the job): alone, the job
// controller keeps the finished job.
func TestTTLIsLeftToItsController(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		j := piJob(t)
		j.Spec.TTLSecondsAfterFinished = ptr(int32(30))
		e.create(j)
		time.Sleep(20 * time.Second)
		synctest.Wait()
		require.Contains(t, conditions(e.job("pi")), "Complete")
		time.Sleep(time.Minute)
		synctest.Wait()
		require.Nil(t, e.job("pi").DeletionTimestamp)
	})
}

// A pod deleted the moment it finished is counted once: its tracking
// finalizer keeps it until the job has recorded it.
func TestPodDeletedRightAfterFinishingCountedOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		w, err := e.c.Pods().Watch(e.ctx, source.WatchOptions{})
		require.NoError(t, err)
		go func() {
			for ev := range w {
				if p := ev.Object; p.Status.Phase != "" && p.Status.Phase != api.PodPending && p.Status.Phase != api.PodRunning && p.DeletionTimestamp == nil {
					_, _ = e.c.Pods().DeleteWith(e.ctx, api.Key(p), cluster.DeleteOptions{GracePeriodSeconds: ptr(int64(0))})
				}
			}
		}()
		j := piJob(t)
		j.Spec.Completions, j.Spec.Parallelism = ptr(int32(3)), ptr(int32(1))
		j.Spec.BackoffLimit = ptr(int32(0))
		e.create(j)
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		got := e.job("pi")
		require.EqualValues(t, 3, got.Status.Succeeded)
		require.EqualValues(t, 0, got.Status.Failed, "a deleted Succeeded pod is a success, not a failure")
		require.Contains(t, conditions(got), "Complete(CompletionsReached)")
		require.Equal(t, 3, e.count("SuccessfulCreate"))
		require.Empty(t, e.pods(), "each was released, then removed")
	})
}
