package job_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Delayed terminal conditions (kcm v1.31+, the v1.37 default): a success
// policy met while another index's pod still runs writes
// SuccessCriteriaMet at once and deletes that pod; Complete (with
// completionTime) waits until the pod has terminated, status.active
// dropping to 0 and status.terminating counting it meanwhile.
func TestSuccessCriteriaMetWaitsForTerminatingPods(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		j := piJob(t)
		j.Spec.CompletionMode = ptr(api.IndexedCompletion)
		j.Spec.Completions, j.Spec.Parallelism = ptr(int32(2)), ptr(int32(1))
		j.Spec.SuccessPolicy = &api.SuccessPolicy{Rules: []api.SuccessPolicyRule{{SucceededIndexes: ptr("0")}}}
		j.Spec.Template.Annotations = map[string]string{"sim.ctrlkit.io/run-for": "30s", "sim.ctrlkit.io/stop-after": "20s"}
		e.create(j)
		// Index 1 starts 10 s after index 0.
		time.Sleep(10 * time.Second)
		synctest.Wait()
		cur := e.job("pi")
		cur.Spec.Parallelism = ptr(int32(2))
		_, err := e.c.Jobs().Update(e.ctx, cur, "")
		require.NoError(t, err)
		time.Sleep(5 * time.Second)
		synctest.Wait()
		require.EqualValues(t, 2, e.job("pi").Status.Active)

		// Index 0 succeeds at about 31 s; index 1 takes 20 s to stop.
		time.Sleep(20 * time.Second)
		synctest.Wait()
		got := e.job("pi")
		require.Equal(t, "SuccessCriteriaMet(SuccessPolicy) ", conditions(got), "index 1's pod is still terminating")
		require.Nil(t, got.Status.CompletionTime)
		require.EqualValues(t, 0, got.Status.Active)
		require.NotNil(t, got.Status.Terminating)
		require.EqualValues(t, 1, *got.Status.Terminating)
		require.Equal(t, 0, e.count("Completed"))

		time.Sleep(30 * time.Second)
		synctest.Wait()
		got = e.job("pi")
		require.Equal(t, "SuccessCriteriaMet(SuccessPolicy) Complete(SuccessPolicy) ", conditions(got))
		require.NotNil(t, got.Status.CompletionTime)
		require.EqualValues(t, 0, *got.Status.Terminating)
		require.EqualValues(t, 1, got.Status.Succeeded)
		require.Equal(t, "0", got.Status.CompletedIndexes)
		require.Equal(t, 1, e.count("Completed"))
	})
}

// The same for a failure verdict: the active deadline passes with two
// pods running, each taking 20 s to stop; FailureTarget comes at once,
// Failed only when both have terminated (both counted as failed).
func TestFailureTargetWaitsForTerminatingPods(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		j := piJob(t)
		j.Spec.ActiveDeadlineSeconds = ptr(int64(30))
		j.Spec.Parallelism, j.Spec.Completions = ptr(int32(2)), ptr(int32(2))
		j.Spec.Template.Annotations = map[string]string{"sim.ctrlkit.io/run-for": "forever", "sim.ctrlkit.io/stop-after": "20s"}
		e.create(j)
		time.Sleep(35 * time.Second)
		synctest.Wait()
		got := e.job("pi")
		require.Equal(t, "FailureTarget(DeadlineExceeded) ", conditions(got))
		require.EqualValues(t, 0, got.Status.Active)
		require.EqualValues(t, 2, *got.Status.Terminating)
		require.Equal(t, 0, e.count("DeadlineExceeded"))

		time.Sleep(20 * time.Second)
		synctest.Wait()
		got = e.job("pi")
		require.Equal(t, "FailureTarget(DeadlineExceeded) Failed(DeadlineExceeded) ", conditions(got))
		require.EqualValues(t, 0, *got.Status.Terminating)
		require.EqualValues(t, 2, got.Status.Failed)
		require.Nil(t, got.Status.CompletionTime)
		require.Equal(t, 1, e.count("DeadlineExceeded"))
	})
}
