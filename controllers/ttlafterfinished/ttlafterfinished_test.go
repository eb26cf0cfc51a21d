package ttlafterfinished_test

import (
	"context"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/ttlafterfinished"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

func ptr[T any](v T) *T { return &v }

func finishedJob(name string, completed, failed time.Time, ttl *int32) *api.Job {
	j := &api.Job{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name}, Spec: api.JobSpec{TTLSecondsAfterFinished: ttl}}
	if !completed.IsZero() {
		j.Status.Conditions = append(j.Status.Conditions, api.JobCondition{Type: api.JobComplete, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(completed)})
	}
	if !failed.IsZero() {
		j.Status.Conditions = append(j.Status.Conditions, api.JobCondition{Type: api.JobFailed, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(failed)})
	}
	return j
}

// Cases from kube's pkg/controller/ttlafterfinished/
// ttlafterfinished_controller_test.go (TestTimeLeft), as expiry times.
func TestExpireAt(t *testing.T) {
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name              string
		completed, failed time.Time
		ttl               *int32
		err               string
		want              time.Time
	}{
		{name: "Job unfinished", ttl: ptr[int32](100), err: "should not be cleaned up"},
		{name: "Job completed now, no TTL", completed: now, err: "should not be cleaned up"},
		{name: "Job completed now, 0s TTL", completed: now, ttl: ptr[int32](0), want: now},
		{name: "Job completed now, 10s TTL", completed: now, ttl: ptr[int32](10), want: now.Add(10 * time.Second)},
		{name: "Job completed 10s ago, 15s TTL", completed: now.Add(-10 * time.Second), ttl: ptr[int32](15), want: now.Add(5 * time.Second)},
		{name: "Job failed now, no TTL", failed: now, err: "should not be cleaned up"},
		{name: "Job failed now, 0s TTL", failed: now, ttl: ptr[int32](0), want: now},
		{name: "Job failed now, 10s TTL", failed: now, ttl: ptr[int32](10), want: now.Add(10 * time.Second)},
		{name: "Job failed 10s ago, 15s TTL", failed: now.Add(-10 * time.Second), ttl: ptr[int32](15), want: now.Add(5 * time.Second)},
	}
	for _, tt := range tests {
		j := finishedJob("j", tt.completed, tt.failed, tt.ttl)
		got, err := ttlafterfinished.ExpireAt(j)
		if tt.err != "" {
			require.ErrorContains(t, err, tt.err, tt.name)
			require.False(t, ttlafterfinished.NeedsCleanup(j), tt.name)
			continue
		}
		require.NoError(t, err, tt.name)
		require.True(t, ttlafterfinished.NeedsCleanup(j), tt.name)
		require.True(t, tt.want.Equal(got), "%s: %v, want %v", tt.name, got, tt.want)
	}
	j := finishedJob("j", now, time.Time{}, ptr[int32](1))
	j.Status.Conditions[0].Status = api.ConditionFalse
	require.False(t, ttlafterfinished.NeedsCleanup(j), "a False condition is not finished")
}

// A finished job with a TTL is deleted (foreground, so its pods go
// first) when the TTL has passed and not before; a job without one, or
// not finished, stays; a TTL raised before it ran out is honoured.
func TestDeletesAfterTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		logger := slog.New(slog.DiscardHandler)
		c, err := cluster.New(ctx, cluster.Options{})
		require.NoError(t, err)
		f := informer.NewFactory(informer.FactoryOptions{Logger: logger})
		tc, err := ttlafterfinished.New(c, f, ttlafterfinished.Options{Logger: logger})
		require.NoError(t, err)
		f.Start(ctx)
		done := make(chan error, 1)
		go func() { done <- tc.Run(ctx) }()
		defer func() { cancel(); <-done }()
		// The controller starts its workers once its informers have
		// synced, which it polls for: let virtual time pass.
		time.Sleep(time.Second)
		synctest.Wait()

		create := func(j *api.Job) {
			t.Helper()
			j.Spec.Template.Spec.Containers = []api.Container{{Name: "c", Image: "busybox"}}
			j.Spec.Template.Spec.RestartPolicy = api.RestartPolicyNever
			status := j.Status
			_, err := c.Jobs().Create(ctx, j) // a create drops the status, as kube's
			require.NoError(t, err)
			j.Status = status
			_, err = c.Jobs().UpdateStatus(ctx, j)
			require.NoError(t, err)
		}
		now := time.Now()
		create(finishedJob("short", now, time.Time{}, ptr[int32](10)))
		create(finishedJob("failed", time.Time{}, now, ptr[int32](0)))
		create(finishedJob("forever", now, time.Time{}, nil))
		create(finishedJob("running", time.Time{}, time.Time{}, ptr[int32](1)))
		create(finishedJob("raised", now, time.Time{}, ptr[int32](20)))
		// exists: not deleted. A foreground deletion leaves the job with
		// a deletionTimestamp and the foregroundDeletion finalizer for the
		// garbage collector (not running here) to finish.
		exists := func(name string) bool {
			j, _, err := c.Jobs().Get(ctx, "default/"+name)
			if err != nil {
				require.ErrorIs(t, err, source.ErrNotFound)
				return false
			}
			if j.DeletionTimestamp != nil {
				require.Contains(t, j.Finalizers, "foregroundDeletion")
				return false
			}
			return true
		}
		synctest.Wait()
		require.False(t, exists("failed"), "a 0 s TTL deletes at once")
		require.True(t, exists("short"))
		time.Sleep(5 * time.Second)
		// Raise "raised" to a minute before it runs out.
		j, _, err := c.Jobs().Get(ctx, "default/raised")
		require.NoError(t, err)
		j.Spec.TTLSecondsAfterFinished = ptr[int32](60)
		_, err = c.Jobs().Update(ctx, j, j.ResourceVersion)
		require.NoError(t, err)
		time.Sleep(5*time.Second + time.Millisecond)
		synctest.Wait()
		require.False(t, exists("short"), "deleted once 10 s passed")
		time.Sleep(15 * time.Second)
		synctest.Wait()
		require.True(t, exists("raised"), "its raised TTL has not run out")
		time.Sleep(40 * time.Second)
		synctest.Wait()
		require.False(t, exists("raised"))
		time.Sleep(time.Hour)
		synctest.Wait()
		require.True(t, exists("forever"), "no TTL: kept")
		require.True(t, exists("running"), "not finished: kept")
	})
}

func TestNewChecksItsArguments(t *testing.T) {
	f := informer.NewFactory(informer.FactoryOptions{})
	_, err := ttlafterfinished.New(nil, f, ttlafterfinished.Options{})
	require.Error(t, err)
	c, err := cluster.New(t.Context(), cluster.Options{})
	require.NoError(t, err)
	_, err = ttlafterfinished.New(c, f, ttlafterfinished.Options{Workers: -1})
	require.ErrorContains(t, err, "negative")
}
