package job_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
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

// env is a cluster with one simulated kubelet (node-1), the scheduler,
// the garbage collector and the Job controller, in the test's bubble.
type env struct {
	t   *testing.T
	ctx context.Context
	c   *cluster.Cluster
	rec *events.Memory
}

func start(t *testing.T) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c, err := cluster.New(ctx, cluster.Options{})
	require.NoError(t, err)
	f := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
	rec := events.NewMemory()
	jc, err := job.New(c, f, job.Options{Logger: quiet, Recorder: rec})
	require.NoError(t, err)
	gc, err := garbagecollector.New(c, f, garbagecollector.Options{Logger: quiet})
	require.NoError(t, err)
	k, err := kubelet.New(c, kubelet.Options{NodeName: "node-1", PodCIDR: "10.244.1.0/24", Logger: quiet})
	require.NoError(t, err)
	w := scheduler.ClusterWriter{Cluster: c}
	s, err := scheduler.New(scheduler.Options{Pods: c.Pods(), Nodes: c.Nodes(), Binder: w, Status: w, Logger: quiet})
	require.NoError(t, err)
	f.Start(ctx)
	var wg sync.WaitGroup
	for _, r := range []runner{jc, gc, k, s} {
		wg.Go(func() {
			if err := r.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("Run: %v", err)
			}
		})
	}
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		f.Shutdown()
	})
	return &env{t: t, ctx: ctx, c: c, rec: rec}
}

// piJob is the pi Job of Kubernetes' documentation (the shared manifests, read in place).
func piJob(t *testing.T) *api.Job {
	t.Helper()
	objs, err := api.DecodeFile(sharedtest.Manifest(t, "pi-job.yaml"), api.DecodeOptions{})
	require.NoError(t, err)
	j := objs[0].(*api.Job)
	j.Namespace = "default"
	return j
}

func (e *env) create(j *api.Job) *api.Job {
	e.t.Helper()
	_, err := e.c.Jobs().Create(e.ctx, j)
	require.NoError(e.t, err)
	return j
}

func (e *env) job(name string) *api.Job {
	e.t.Helper()
	j, _, err := e.c.Jobs().Get(e.ctx, "default/"+name)
	require.NoError(e.t, err)
	return j
}

func (e *env) pods() []*api.Pod {
	e.t.Helper()
	l, err := e.c.Pods().List(e.ctx, source.ListOptions{})
	require.NoError(e.t, err)
	return l.Items
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

func conditions(j *api.Job) string {
	s := ""
	for _, c := range j.Status.Conditions {
		if c.Status == api.ConditionTrue {
			s += fmt.Sprintf("%s(%s) ", c.Type, c.Reason)
		}
	}
	return s
}
