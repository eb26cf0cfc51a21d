package manager_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane"
	"github.com/ctrlkit/ctrlkit/controllers/kubelet"
	"github.com/ctrlkit/ctrlkit/controllers/manager"
	"github.com/ctrlkit/ctrlkit/controllers/scheduler"
	"github.com/ctrlkit/ctrlkit/leader"
	"github.com/ctrlkit/ctrlkit/source"
)

// Two controller managers over one cluster with real kubelets and a
// scheduler. The leader is deposed in the middle of a Deployment's
// rollout; the standby takes over at once (its caches are warm), the
// rollout completes, no pod name is created twice, and the Deployment's
// surge bound holds at every write.
func TestHandoverMidRollout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		var mu sync.Mutex
		creates := map[string]int{}
		var broken []error
		surge := controlplane.DeploymentSurge()
		var c *cluster.Cluster
		watch := func(ctx context.Context, a cluster.Attributes) error {
			if a.Resource == "pods" && a.Operation == cluster.OperationCreate {
				mu.Lock()
				creates[a.Object.GetObjectMeta().Name]++
				mu.Unlock()
			}
			if err := surge.Check(ctx, c, a); err != nil {
				mu.Lock()
				broken = append(broken, err)
				mu.Unlock()
			}
			return nil
		}
		var err error
		c, err = cluster.New(ctx, cluster.Options{Admission: []cluster.AdmissionFunc{watch}})
		require.NoError(t, err)
		var wg sync.WaitGroup
		defer wg.Wait()
		defer cancel()
		run := func(r interface{ Run(context.Context) error }) { wg.Go(func() { _ = r.Run(ctx) }) }
		for _, n := range []string{"node-1", "node-2"} {
			k, err := kubelet.New(c, kubelet.Options{NodeName: n})
			require.NoError(t, err)
			run(k)
		}
		w := scheduler.ClusterWriter{Cluster: c}
		s, err := scheduler.New(scheduler.Options{Pods: c.Pods(), Nodes: c.Nodes(), Binder: w, Status: w})
		require.NoError(t, err)
		run(s)

		elector := leader.NewMemory()
		opts := manager.Options{Controllers: []string{"replicaset", "deployment"}, Elector: elector}
		m1, err := manager.New(c, opts)
		require.NoError(t, err)
		m2, err := manager.New(c, opts)
		require.NoError(t, err)
		errs := make(chan error, 2)
		go func() { errs <- m1.Run(ctx) }()
		time.Sleep(time.Second)
		go func() { errs <- m2.Run(ctx) }()

		d := &api.Deployment{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web"}}
		d.Spec.Replicas = new(int32(4))
		d.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
		d.Spec.Template.Labels = map[string]string{"app": "web"}
		d.Spec.Template.Spec.Containers = []api.Container{{Name: "nginx", Image: "nginx:1.27"}}
		_, err = c.Deployments().Create(ctx, d)
		require.NoError(t, err)
		time.Sleep(time.Minute)
		synctest.Wait()
		require.True(t, m1.Leading())

		d, _, err = c.Deployments().Get(ctx, "default/web")
		require.NoError(t, err)
		d.Spec.Template.Spec.Containers[0].Image = "nginx:1.28"
		_, err = c.Deployments().Update(ctx, d, "")
		require.NoError(t, err)
		time.Sleep(2 * time.Second) // the rollout is under way
		synctest.Wait()
		require.True(t, elector.Depose())
		synctest.Wait()
		require.ErrorIs(t, <-errs, manager.ErrLeadershipLost)
		require.True(t, m2.Leading(), "the standby leads as soon as the old term is resigned")

		time.Sleep(3 * time.Minute)
		synctest.Wait()
		l, err := c.Pods().List(ctx, source.ListOptions{})
		require.NoError(t, err)
		require.Len(t, l.Items, 4)
		for _, p := range l.Items {
			require.Equal(t, "nginx:1.28", p.Spec.Containers[0].Image)
			require.True(t, api.IsPodReady(p))
		}
		mu.Lock()
		defer mu.Unlock()
		require.Len(t, creates, 8, "4 pods, then 4 replacements")
		for name, n := range creates {
			require.Equal(t, 1, n, "pod %s created once", name)
		}
		require.Empty(t, broken)
	})
}
