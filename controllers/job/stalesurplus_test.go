package job_test

import (
	"context"
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
)

// TestSurplusPodIsNotCountedAsFailed: restarted on a stale view (the
// harness's Stale fault at the first pod create), the controller sees no
// pod and creates a second one (kcm's would too: its expectations start
// empty); once its watch catches up it deletes the surplus pod. kcm's
// manageJob deletes a surplus pod through deleteJobPods, which takes the
// tracking finalizer off first, so the pod is never counted; before the
// fix the controller deleted it with the finalizer on and then counted
// it as a failure (status.failed 1, a step towards backoffLimit for a
// job none of whose pods failed). Found by the harness's Job scenario,
// subtest views, stale@1 (controllers/harness/reference_test.go).
func TestSurplusPodIsNotCountedAsFailed(t *testing.T) {
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
    metadata: {annotations: {sim.ctrlkit.io/run-for: 10s}}
    spec:
      restartPolicy: Never
      containers: [{name: work, image: "busybox:1"}]
`), api.DecodeOptions{})
	require.NoError(t, err)
	s := harness.Scenario{
		Objects: objs,
		Steps:   []harness.Step{{Name: "a minute", Sleep: time.Minute}},
		Invariants: []harness.Invariant{{Name: "no pod failed", Check: func(ctx context.Context, c client.Client) error {
			jobs, err := client.For[*api.Job](c)
			if err != nil {
				return err
			}
			j, _, err := jobs.Get(ctx, "default/once")
			if err != nil {
				return err
			}
			if j.Status.Failed != 0 {
				return fmt.Errorf("status.failed %d", j.Status.Failed)
			}
			return nil
		}}},
	}
	ctl := func(c client.Client) (harness.Runner, error) {
		f := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
		jc, err := job.New(c, f, job.Options{Workers: 1, Logger: quiet})
		return &jobRunner{f: f, ctl: jc}, err
	}
	synctest.Test(t, func(t *testing.T) {
		o, err := harness.Replay(t.Context(), s, ctl, nil, []harness.Perturbation{{Write: 1, Fault: harness.Stale}})
		require.NoError(t, err)
		require.Empty(t, o.Problems)
		creates, deletes := 0, 0
		for _, e := range o.Timeline {
			switch {
			case e.Verb == "create" && e.Resource == "pods":
				creates++
			case e.Verb == "delete" && e.Resource == "pods":
				deletes++
			}
		}
		require.Equal(t, 2, creates, "the stale restart creates a surplus pod")
		require.Equal(t, 1, deletes, "and deletes it once it sees it")
	})
}
