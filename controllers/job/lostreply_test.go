package job_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/harness"
	"github.com/ctrlkit/ctrlkit/controllers/job"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

// jobRunner runs the Job controller over its own factory.
type jobRunner struct {
	f   *informer.Factory
	ctl *job.Controller
}

func (r *jobRunner) Run(ctx context.Context) error {
	defer r.f.Shutdown()
	r.f.Start(ctx)
	if !r.f.WaitForCacheSync(ctx) {
		return nil
	}
	if err := r.ctl.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// TestCreateWhoseReplyWasLostIsNotRepeated: the first pod create of a
// Job (parallelism 1) is written but its reply lost (a server timeout).
// The controller must not create a second pod before its cache shows
// whether the first exists. Before the fix the status write that
// followed the failed create re-enqueued the Job at once, the gate held
// nothing (the create returned no resourceVersion to wait for) and the
// next sync created a second pod: 2 active pods for parallelism 1.
// Found by the harness's Job scenario, timeout-written@1
// (controllers/harness/reference_test.go).
func TestCreateWhoseReplyWasLostIsNotRepeated(t *testing.T) {
	objs, err := api.Decode([]byte(`
apiVersion: v1
kind: ServiceAccount
metadata: {name: default, namespace: default}
---
apiVersion: batch/v1
kind: Job
metadata: {name: once, namespace: default}
spec:
  completions: 1
  parallelism: 1
  template:
    spec:
      restartPolicy: Never
      containers: [{name: work, image: "busybox:1"}]
`), api.DecodeOptions{})
	require.NoError(t, err)
	s := harness.Scenario{Objects: objs, Invariants: []harness.Invariant{{Name: "parallelism 1", Check: func(ctx context.Context, c client.Client) error {
		pods, err := client.For[*api.Pod](c)
		if err != nil {
			return err
		}
		l, err := pods.List(ctx, source.ListOptions{})
		if err != nil {
			return err
		}
		if len(l.Items) > 1 {
			return fmt.Errorf("%d pods", len(l.Items))
		}
		return nil
	}}}}
	ctl := func(c client.Client) (harness.Runner, error) {
		f := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
		jc, err := job.New(c, f, job.Options{Workers: 1, Logger: quiet})
		return &jobRunner{f: f, ctl: jc}, err
	}
	synctest.Test(t, func(t *testing.T) {
		failed := 0
		for range 10 {
			o, err := harness.Replay(t.Context(), s, ctl, nil, []harness.Perturbation{{Write: 1, Fault: harness.TimeoutWritten}})
			require.NoError(t, err)
			if o.Failed() {
				failed++
				t.Log(o.Problems)
			}
			time.Sleep(time.Second)
		}
		require.Zero(t, failed, "runs of 10 with a second pod")
	})
}
