package nodelifecycle_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/kubelet"
	"github.com/ctrlkit/ctrlkit/controllers/nodelifecycle"
	"github.com/ctrlkit/ctrlkit/controllers/replicaset"
	"github.com/ctrlkit/ctrlkit/controllers/scheduler"
	"github.com/ctrlkit/ctrlkit/controllers/tainteviction"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

var discard = slog.New(slog.DiscardHandler)

// node describes one simulated node of a harness.
type node struct {
	name, zone string
}

// harness is a small control plane inside a synctest bubble: the store,
// a kubelet per node, the scheduler, the ReplicaSet controller, the node
// lifecycle controller and the taint eviction controller.
type harness struct {
	t        *testing.T
	ctx      context.Context
	c        *cluster.Cluster
	kubelets map[string]*kubelet.Kubelet
	rec      *events.Memory
}

// start runs the harness until the test ends. Call it inside
// synctest.Test.
func start(t *testing.T, nodes []node, opts nodelifecycle.Options) *harness {
	ctx, cancel := context.WithCancel(t.Context())
	c, err := cluster.New(ctx, cluster.Options{})
	require.NoError(t, err)
	f := informer.NewFactory(informer.FactoryOptions{Logger: discard})
	h := &harness{t: t, ctx: ctx, c: c, kubelets: map[string]*kubelet.Kubelet{}, rec: events.NewMemory()}
	var runners []interface{ Run(context.Context) error }
	for _, n := range nodes {
		var labels map[string]string
		if n.zone != "" {
			labels = map[string]string{api.LabelTopologyZone: n.zone}
		}
		k, err := kubelet.New(c, kubelet.Options{NodeName: n.name, Labels: labels, Logger: discard})
		require.NoError(t, err)
		h.kubelets[n.name] = k
		runners = append(runners, k)
	}
	w := scheduler.ClusterWriter{Cluster: c}
	s, err := scheduler.New(scheduler.Options{Pods: c.Pods(), Nodes: c.Nodes(), Binder: w, Status: w, Logger: discard})
	require.NoError(t, err)
	rs, err := replicaset.New(c, f, replicaset.Options{Logger: discard, Recorder: h.rec})
	require.NoError(t, err)
	opts.Logger, opts.Recorder = discard, h.rec
	nlc, err := nodelifecycle.New(c, f, opts)
	require.NoError(t, err)
	te, err := tainteviction.New(c, f, tainteviction.Options{Logger: discard, Recorder: h.rec})
	require.NoError(t, err)
	runners = append(runners, s, rs, nlc, te)
	f.Start(ctx)
	var wg sync.WaitGroup
	for _, r := range runners {
		wg.Go(func() {
			if err := r.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("run: %v", err)
			}
		})
	}
	t.Cleanup(func() { cancel(); wg.Wait(); f.Shutdown() })
	return h
}

func (h *harness) node(name string) *api.Node {
	n, _, err := h.c.Nodes().Get(h.ctx, name)
	require.NoError(h.t, err)
	return n
}

func (h *harness) pods() []*api.Pod {
	l, err := h.c.Pods().List(h.ctx, source.ListOptions{})
	require.NoError(h.t, err)
	return l.Items
}

func (h *harness) podsOn(name string) []*api.Pod {
	var out []*api.Pod
	for _, p := range h.pods() {
		if p.Spec.NodeName == name {
			out = append(out, p)
		}
	}
	return out
}

func (h *harness) replicaSet(name string, replicas int32) {
	rs := &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name}}
	rs.Spec.Replicas = &replicas
	rs.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"app": name}}
	rs.Spec.Template.Labels = map[string]string{"app": name}
	rs.Spec.Template.Spec.Containers = []api.Container{{Name: "nginx", Image: "nginx:1.27"}}
	_, err := h.c.ReplicaSets().Create(h.ctx, rs)
	require.NoError(h.t, err)
}

func taint(n *api.Node, key string, effect api.TaintEffect) (api.Taint, bool) {
	for _, t := range n.Spec.Taints {
		if t.Key == key && t.Effect == effect {
			return t, true
		}
	}
	return api.Taint{}, false
}

func condition(n *api.Node, t api.NodeConditionType) api.NodeCondition {
	c, ok := n.Status.GetCondition(t)
	if !ok {
		return api.NodeCondition{}
	}
	return *c
}
