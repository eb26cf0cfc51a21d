package cronjob_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/cronjob"
	"github.com/ctrlkit/ctrlkit/controllers/garbagecollector"
	"github.com/ctrlkit/ctrlkit/controllers/job"
	"github.com/ctrlkit/ctrlkit/controllers/kubelet"
	"github.com/ctrlkit/ctrlkit/controllers/scheduler"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/internal/sharedtest"
	"github.com/ctrlkit/ctrlkit/source"
)

var quiet = slog.New(slog.DiscardHandler)

type runner interface{ Run(context.Context) error }

// env is a cluster (with cronjob.Admission) and one simulated kubelet,
// the scheduler, the garbage collector and the Job controller, plus the
// CronJob controller on a factory of its own so that a test can pause it.
type env struct {
	t    *testing.T
	ctx  context.Context
	c    *cluster.Cluster
	rec  *events.Memory
	wg   sync.WaitGroup
	stop func() // stops the CronJob controller
}

func start(t *testing.T) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c, err := cluster.New(ctx, cluster.Options{Admission: []cluster.AdmissionFunc{cronjob.Admission}})
	require.NoError(t, err)
	f := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
	jc, err := job.New(c, f, job.Options{Logger: quiet, Recorder: events.NewMemory()})
	require.NoError(t, err)
	gc, err := garbagecollector.New(c, f, garbagecollector.Options{Logger: quiet})
	require.NoError(t, err)
	k, err := kubelet.New(c, kubelet.Options{NodeName: "node-1", PodCIDR: "10.244.1.0/24", Logger: quiet})
	require.NoError(t, err)
	w := scheduler.ClusterWriter{Cluster: c}
	s, err := scheduler.New(scheduler.Options{Pods: c.Pods(), Nodes: c.Nodes(), Binder: w, Status: w, Logger: quiet})
	require.NoError(t, err)
	f.Start(ctx)
	e := &env{t: t, ctx: ctx, c: c, rec: events.NewMemory()}
	for _, r := range []runner{jc, gc, k, s} {
		e.wg.Go(func() {
			if err := r.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("Run: %v", err)
			}
		})
	}
	e.resume()
	t.Cleanup(func() {
		e.stop()
		cancel()
		e.wg.Wait()
		f.Shutdown()
	})
	return e
}

// resume starts a CronJob controller (a fresh one, as after a restart).
func (e *env) resume() { e.resumeWith(e.c) }

// resumeWith starts a CronJob controller writing and reading through c.
func (e *env) resumeWith(c client.Client) {
	ctx, cancel := context.WithCancel(e.ctx)
	f := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
	ctl, err := cronjob.New(c, f, cronjob.Options{Logger: quiet, Recorder: e.rec})
	require.NoError(e.t, err)
	f.Start(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := ctl.Run(ctx); !errors.Is(err, context.Canceled) {
			e.t.Errorf("Run: %v", err)
		}
	})
	e.stop = func() {
		cancel()
		wg.Wait()
		f.Shutdown()
		e.stop = func() {}
	}
}

// hello is the hello CronJob of Kubernetes' documentation (batch/v1beta1 in the manifest).
func hello(t *testing.T) *api.CronJob {
	t.Helper()
	objs, err := api.DecodeFile(sharedtest.Manifest(t, "hello-cronjob.yaml"), api.DecodeOptions{})
	require.NoError(t, err)
	cj := objs[0].(*api.CronJob)
	cj.Namespace = "default"
	return cj
}

func (e *env) jobs() []*api.Job {
	e.t.Helper()
	l, err := e.c.Jobs().List(e.ctx, source.ListOptions{})
	require.NoError(e.t, err)
	return l.Items
}

func (e *env) cronJob() *api.CronJob {
	e.t.Helper()
	cj, _, err := e.c.CronJobs().Get(e.ctx, "default/hello")
	require.NoError(e.t, err)
	return cj
}

func (e *env) count(reason string) int {
	n := 0
	for _, ev := range e.rec.Events() {
		if ev.Reason == reason {
			n++
		}
	}
	return n
}
