package harness_test

import (
	"testing"
	"testing/synctest"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/deployment"
	"github.com/ctrlkit/ctrlkit/controllers/harness"
	"github.com/ctrlkit/ctrlkit/controllers/manager"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/stretchr/testify/require"
)

// BenchmarkExploreDeploymentRollout measures perturbed runs per second:
// the Deployment controller under test (one worker, over the harness's
// client) rolls a Deployment of 1 to a new image beside the ReplicaSet
// controller, the scheduler and a node, each run under one perturbation
// — a crash or a write fault at one of its writes, cycling over the
// reference run's writes — and checked by the oracle against the
// reference run. It reports runs/s and the wall time of 1,000 runs.
func BenchmarkExploreDeploymentRollout(b *testing.B) {
	objs, err := api.Decode([]byte(refSA+refWeb), api.DecodeOptions{})
	require.NoError(b, err)
	objs[1].(*api.Deployment).Spec.Replicas = new(int32(1))
	s := harness.Scenario{
		Name:    "rollout",
		Objects: objs,
		Steps: []harness.Step{refUpdate("new image", "default/web", func(d *api.Deployment) {
			d.Spec.Template.Spec.Containers[0].Image = "nginx:1.28"
		})},
	}
	s.Options.Manager.Controllers = []string{manager.ServiceAccountController, manager.ReplicaSetController}
	s.Options.Manager.Workers = map[string]int{manager.ReplicaSetController: 1}
	ctl := refController(func(c client.Client, f *informer.Factory) (harness.Runner, error) {
		return deployment.New(c, f, deployment.Options{Workers: 1, Logger: refDiscard})
	})
	faults := append([]harness.Fault{harness.Crash}, harness.WriteFaults()...)
	runs := 0
	// synctest.Test takes a *testing.T only: each iteration runs one
	// test (testing.RunTests) whose bubble holds the reference run and a
	// perturbed run at each of its writes, the faults in turn.
	explore := func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ref, err := harness.Replay(t.Context(), s, ctl, nil, nil)
			require.NoError(t, err)
			for k := 1; k <= ref.Writes; k++ {
				o, err := harness.Replay(t.Context(), s, ctl, ref, []harness.Perturbation{{Write: k, Fault: faults[(k+runs)%len(faults)]}})
				require.NoError(t, err)
				require.NotNil(t, o)
				runs++
			}
		})
	}
	all := func(string, string) (bool, error) { return true, nil }
	for b.Loop() {
		if !testing.RunTests(all, []testing.InternalTest{{Name: "ExploreDeploymentRollout", F: explore}}) {
			b.Fatal("the exploration failed")
		}
	}
	if perSec := float64(runs) / b.Elapsed().Seconds(); runs > 0 {
		b.ReportMetric(perSec, "runs/s")
		b.ReportMetric(1000/perSec, "s/1000runs")
	}
}
