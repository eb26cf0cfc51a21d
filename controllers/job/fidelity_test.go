package job_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/job"
)

// A job another controller manages (spec.managedBy) is left alone: no
// pod, no status; one naming this controller runs as usual.
func TestManagedByAnotherController(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		other := piJob(t)
		other.Name = "other"
		other.Spec.ManagedBy = ptr("example.com/batch-controller")
		e.create(other)
		ours := piJob(t)
		ours.Spec.ManagedBy = ptr(job.ControllerName)
		e.create(ours)
		time.Sleep(time.Minute)
		synctest.Wait()
		got := e.job("other")
		require.Equal(t, api.JobStatus{}, got.Status, "untouched")
		require.Equal(t, "SuccessCriteriaMet(CompletionsReached) Complete(CompletionsReached) ", conditions(e.job("pi")))
		for _, p := range e.pods() {
			require.NotEqual(t, "other", p.Labels["batch.kubernetes.io/job-name"], "no pod for the other controller's job")
		}
	})
}

// successPolicy: an Indexed job of three completions run one at a time
// whose rule asks for index 0 only is SuccessCriteriaMet, then Complete,
// with reason SuccessPolicy, after its first pod; indexes 1 and 2 never
// run.
func TestSuccessPolicyCompletesEarly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		j := piJob(t)
		j.Spec.CompletionMode = ptr(api.IndexedCompletion)
		j.Spec.Completions, j.Spec.Parallelism = ptr(int32(3)), ptr(int32(1))
		j.Spec.SuccessPolicy = &api.SuccessPolicy{Rules: []api.SuccessPolicyRule{{SucceededIndexes: ptr("0")}}}
		e.create(j)
		time.Sleep(time.Minute)
		synctest.Wait()
		got := e.job("pi")
		require.Equal(t, "SuccessCriteriaMet(SuccessPolicy) Complete(SuccessPolicy) ", conditions(got))
		require.Equal(t, "Matched rules at index 0", got.Status.Conditions[1].Message)
		require.Equal(t, "0", got.Status.CompletedIndexes)
		require.EqualValues(t, 1, got.Status.Succeeded)
		require.NotNil(t, got.Status.CompletionTime)
		require.Len(t, e.pods(), 1)
	})
}

// backoffLimitPerIndex 1: every pod fails, so each of the two indexes
// runs twice (the second pod after the index's own 10 s back-off, with
// job-index-failure-count 1) and fails; the job fails with FailedIndexes,
// FailureTarget first, status.failedIndexes "0,1".
func TestBackoffLimitPerIndex(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		j := piJob(t)
		j.Spec.CompletionMode = ptr(api.IndexedCompletion)
		j.Spec.Completions, j.Spec.Parallelism = ptr(int32(2)), ptr(int32(2))
		j.Spec.BackoffLimit = nil
		j.Spec.BackoffLimitPerIndex = ptr(int32(1))
		j.Spec.Template.Annotations = map[string]string{"sim.ctrlkit.io/exit-code": "1"}
		e.create(j)
		require.EqualValues(t, int32(1<<31-1), *e.job("pi").Spec.BackoffLimit, "kube's default beside backoffLimitPerIndex")
		time.Sleep(5 * time.Second)
		synctest.Wait()
		require.Len(t, e.pods(), 2, "the retries wait for their index's back-off")
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		got := e.job("pi")
		require.Equal(t, "FailureTarget(FailedIndexes) Failed(FailedIndexes) ", conditions(got))
		require.Equal(t, "Job has failed indexes", got.Status.Conditions[1].Message)
		require.NotNil(t, got.Status.FailedIndexes)
		require.Equal(t, "0,1", *got.Status.FailedIndexes)
		require.EqualValues(t, 4, got.Status.Failed)
		pods := e.pods()
		require.Len(t, pods, 4)
		counts := map[string]int{}
		for _, p := range pods {
			require.Empty(t, p.Finalizers)
			counts[p.Annotations[api.LabelJobCompletionIndex]+"/"+p.Annotations[job.AnnotationIndexFailureCount]]++
		}
		require.Equal(t, map[string]int{"0/0": 1, "0/1": 1, "1/0": 1, "1/1": 1}, counts)
	})
}

// maxFailedIndexes 0 with a FailIndex rule: the first failure fails its
// index at once (no retry) and the job with MaxFailedIndexesExceeded.
func TestFailIndexAndMaxFailedIndexes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		j := piJob(t)
		j.Spec.CompletionMode = ptr(api.IndexedCompletion)
		j.Spec.Completions, j.Spec.Parallelism = ptr(int32(3)), ptr(int32(1))
		j.Spec.BackoffLimit = nil
		j.Spec.BackoffLimitPerIndex = ptr(int32(5))
		j.Spec.MaxFailedIndexes = ptr(int32(0))
		j.Spec.PodFailurePolicy = &api.PodFailurePolicy{Rules: []api.PodFailurePolicyRule{{Action: job.ActionFailIndex,
			OnExitCodes: &api.PodFailurePolicyOnExitCodesRequirement{Operator: job.OperatorIn, Values: []int32{3}}}}}
		j.Spec.Template.Annotations = map[string]string{"sim.ctrlkit.io/exit-code": "3"}
		e.create(j)
		time.Sleep(time.Minute)
		synctest.Wait()
		got := e.job("pi")
		require.Equal(t, "FailureTarget(MaxFailedIndexesExceeded) Failed(MaxFailedIndexesExceeded) ", conditions(got))
		require.Equal(t, "Job has exceeded the specified maximal number of failed indexes", got.Status.Conditions[1].Message)
		require.NotNil(t, got.Status.FailedIndexes)
		require.Equal(t, "0", *got.Status.FailedIndexes)
		require.EqualValues(t, 1, got.Status.Failed)
		require.Len(t, e.pods(), 1)
	})
}
