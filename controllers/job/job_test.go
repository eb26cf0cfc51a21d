package job_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

func ptr[T any](v T) *T { return &v }

// The pi Job of Kubernetes' documentation with a pod that fails (exit code 1, restartPolicy
// Never) and backoffLimit 4: five pods fail, each after the back-off of
// 10 s, 20 s, 40 s, 80 s, and then the job is Failed with
// BackoffLimitExceeded, FailureTarget first.
func TestPiJobBackoffLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		j := piJob(t)
		j.Spec.Template.Annotations = map[string]string{"sim.ctrlkit.io/exit-code": "1"}
		e.create(j)
		time.Sleep(100 * time.Second)
		synctest.Wait()
		require.EqualValues(t, 4, e.job("pi").Status.Failed, "four failures after 100 s (back-offs 10+20+40 s)")
		require.Empty(t, conditions(e.job("pi")))

		time.Sleep(5 * time.Minute)
		synctest.Wait()
		got := e.job("pi")
		require.EqualValues(t, 5, got.Status.Failed)
		require.EqualValues(t, 0, got.Status.Active)
		require.Equal(t, "FailureTarget(BackoffLimitExceeded) Failed(BackoffLimitExceeded) ", conditions(got))
		require.Nil(t, got.Status.CompletionTime)
		pods := e.pods()
		require.Len(t, pods, 5, "exactly five pods")
		for _, p := range pods {
			require.Equal(t, api.PodFailed, p.Status.Phase)
			require.Empty(t, p.Finalizers, "counted, so the tracking finalizer is gone")
			require.Equal(t, "pi", p.Labels["batch.kubernetes.io/job-name"])
			require.Equal(t, string(got.UID), p.Labels["controller-uid"])
		}
		require.Equal(t, 5, e.count("SuccessfulCreate"))
		require.Equal(t, 1, e.count("BackoffLimitExceeded"))
	})
}

// The pi Job as Kubernetes' documentation runs it: the pod succeeds, the job is Complete.
func TestPiJobComplete(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		e.create(piJob(t))
		time.Sleep(time.Minute)
		synctest.Wait()
		got := e.job("pi")
		require.EqualValues(t, 1, got.Status.Succeeded)
		require.EqualValues(t, 0, got.Status.Failed)
		require.Equal(t, "SuccessCriteriaMet(CompletionsReached) Complete(CompletionsReached) ", conditions(got))
		require.NotNil(t, got.Status.StartTime)
		require.NotNil(t, got.Status.CompletionTime)
		require.Equal(t, 1, e.count("Completed"))
		require.Len(t, e.pods(), 1)
	})
}

// The arithmetic of Kubernetes' Job documentation: completions 4, parallelism 2 → two pods, then
// two more when they succeed — two waves.
func TestCompletionsInWaves(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		j := piJob(t)
		j.Spec.Completions, j.Spec.Parallelism = ptr(int32(4)), ptr(int32(2))
		e.create(j)
		time.Sleep(3 * time.Second)
		synctest.Wait()
		got := e.job("pi")
		require.EqualValues(t, 2, got.Status.Active, "min(parallelism 2, completions 4 − succeeded 0)")
		require.Len(t, e.pods(), 2)

		time.Sleep(6 * time.Second) // the first wave exits 0 after 5 s
		synctest.Wait()
		got = e.job("pi")
		require.EqualValues(t, 2, got.Status.Succeeded)
		require.EqualValues(t, 2, got.Status.Active, "the second wave")
		require.Len(t, e.pods(), 4)

		time.Sleep(time.Minute)
		synctest.Wait()
		got = e.job("pi")
		require.EqualValues(t, 4, got.Status.Succeeded)
		require.EqualValues(t, 0, got.Status.Active)
		require.Contains(t, conditions(got), "Complete(CompletionsReached)")
		require.Len(t, e.pods(), 4, "no fifth pod")
	})
}

// Indexed mode: a pod per index with its annotation, label and hostname;
// completedIndexes "0-2".
func TestIndexedJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		j := piJob(t)
		j.Spec.Completions, j.Spec.Parallelism = ptr(int32(3)), ptr(int32(3))
		j.Spec.CompletionMode = ptr(api.IndexedCompletion)
		e.create(j)
		time.Sleep(time.Minute)
		synctest.Wait()
		got := e.job("pi")
		require.Equal(t, "0-2", got.Status.CompletedIndexes)
		require.EqualValues(t, 3, got.Status.Succeeded)
		require.Contains(t, conditions(got), "Complete(CompletionsReached)")
		hosts := map[string]bool{}
		for _, p := range e.pods() {
			ix := p.Annotations[api.LabelJobCompletionIndex]
			require.Equal(t, ix, p.Labels[api.LabelJobCompletionIndex])
			require.Equal(t, "pi-"+ix, p.Spec.Hostname)
			hosts[p.Spec.Hostname] = true
		}
		require.Equal(t, map[string]bool{"pi-0": true, "pi-1": true, "pi-2": true}, hosts)
	})
}
