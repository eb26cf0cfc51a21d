package daemonset_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/daemonset"
	"github.com/ctrlkit/ctrlkit/controllers/kubelet"
	"github.com/ctrlkit/ctrlkit/controllers/podgc"
	"github.com/ctrlkit/ctrlkit/controllers/scheduler"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/internal/sharedtest"
	"github.com/ctrlkit/ctrlkit/source"
)

var quiet = slog.New(slog.DiscardHandler)

const masterTaint = "node-role.kubernetes.io/master"

// env is a cluster with the DaemonSet controller, the scheduler, the pod
// garbage collector and real (simulated) kubelets, in a synctest bubble.
type env struct {
	t        *testing.T
	ctx      context.Context
	c        *cluster.Cluster
	rec      *events.Memory
	wg       sync.WaitGroup
	kubelets map[string]context.CancelFunc
}

func start(t *testing.T, nodes ...kubelet.Options) *env { return startLagging(t, 0, nodes...) }

// startLagging is start with the controller's pod cache delaying every
// event by lag (0: none).
func startLagging(t *testing.T, lag time.Duration, nodes ...kubelet.Options) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c, err := cluster.New(ctx, cluster.Options{})
	require.NoError(t, err)
	e := &env{t: t, ctx: ctx, c: c, rec: events.NewMemory(), kubelets: map[string]context.CancelFunc{}}
	f := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
	if lag > 0 {
		// Registered first under the controller's name: it shares this cache.
		_, err := informer.Shared(f, "pods", source.ListWatcher[*api.Pod](&laggingLW{inner: c.Pods(), lag: lag}),
			api.Key[*api.Pod], informer.Options[*api.Pod]{Logger: quiet})
		require.NoError(t, err)
	}
	ds, err := daemonset.New(c, f, daemonset.Options{Logger: quiet, Recorder: e.rec})
	require.NoError(t, err)
	gc, err := podgc.New(c, f, podgc.Options{Logger: quiet})
	require.NoError(t, err)
	w := scheduler.ClusterWriter{Cluster: c}
	s, err := scheduler.New(scheduler.Options{Pods: c.Pods(), Nodes: c.Nodes(), Binder: w, Status: w, Logger: quiet})
	require.NoError(t, err)
	f.Start(ctx)
	for _, r := range []interface{ Run(context.Context) error }{ds, gc, s} {
		e.wg.Go(func() {
			if err := r.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("Run: %v", err)
			}
		})
	}
	for _, n := range nodes {
		e.addNode(n)
	}
	t.Cleanup(func() {
		cancel()
		e.wg.Wait()
		f.Shutdown()
	})
	return e
}

// addNode starts a kubelet, which registers its node.
func (e *env) addNode(o kubelet.Options) {
	o.Logger = quiet
	k, err := kubelet.New(e.c, o)
	require.NoError(e.t, err)
	ctx, cancel := context.WithCancel(e.ctx)
	e.kubelets[o.NodeName] = cancel
	e.wg.Go(func() { _ = k.Run(ctx) })
}

// removeNode stops a node's kubelet and deletes its Node, as when a
// machine is taken out of the cluster.
func (e *env) removeNode(name string) {
	e.kubelets[name]()
	_, err := e.c.Nodes().Delete(e.ctx, name, "")
	require.NoError(e.t, err)
}

func (e *env) settle(d time.Duration) {
	time.Sleep(d)
	synctest.Wait()
}

func (e *env) pods() []*api.Pod {
	l, err := e.c.Pods().List(e.ctx, source.ListOptions{})
	require.NoError(e.t, err)
	return l.Items
}

// podsPerNode counts the live (not terminating) pods per node and
// requires each to be Running and Ready.
func (e *env) podsPerNode() map[string]int {
	out := map[string]int{}
	for _, p := range e.pods() {
		if p.DeletionTimestamp != nil {
			continue
		}
		require.True(e.t, api.IsPodReady(p), "%s on %s is ready", p.Name, p.Spec.NodeName)
		out[p.Spec.NodeName]++
	}
	return out
}

func (e *env) fluentd() *api.DaemonSet {
	ds, _, err := e.c.DaemonSets().Get(e.ctx, "kube-system/fluentd-elasticsearch")
	require.NoError(e.t, err)
	return ds
}

func fluentdManifest(t *testing.T) *api.DaemonSet {
	objs, err := api.DecodeFile(sharedtest.Manifest(t, "fluentd-daemonset.yaml"), api.DecodeOptions{})
	require.NoError(t, err)
	require.Len(t, objs, 1)
	return objs[0].(*api.DaemonSet)
}

// The fluentd-elasticsearch DaemonSet of Kubernetes' documentation, unchanged, on three nodes,
// one a master with the node-role.kubernetes.io/master:NoSchedule taint
// that fluentd tolerates: a pod on every node; a node added gets one; a
// node removed loses its pod (the pod garbage collector deletes pods
// bound to a node that is gone, as in Kubernetes); a duplicate pod is
// deleted, the older kept; a new image rolls out one node at a time
// (maxUnavailable 1), leaving two ControllerRevisions.
func TestFluentdEndToEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t,
			kubelet.Options{NodeName: "master", PodCIDR: "10.244.0.0/24",
				Labels: map[string]string{masterTaint: ""},
				Taints: []api.Taint{{Key: masterTaint, Effect: api.TaintEffectNoSchedule}}},
			kubelet.Options{NodeName: "node-1", PodCIDR: "10.244.1.0/24"},
			kubelet.Options{NodeName: "node-2", PodCIDR: "10.244.2.0/24"},
		)
		e.settle(time.Second)
		// Its containers drain for the whole grace period when stopped
		// (the simulated kubelet's default is to exit at once on SIGTERM),
		// which makes the rolling update below measurable.
		fluentd := fluentdManifest(t)
		if fluentd.Spec.Template.Annotations == nil {
			fluentd.Spec.Template.Annotations = map[string]string{}
		}
		fluentd.Spec.Template.Annotations[kubelet.AnnotationStopAfter] = "grace"
		_, err := e.c.CreateObject(e.ctx, fluentd)
		require.NoError(t, err)
		e.settle(time.Minute)

		require.Equal(t, map[string]int{"master": 1, "node-1": 1, "node-2": 1}, e.podsPerNode(), "a pod per node, the master included")
		for _, p := range e.pods() {
			require.Equal(t, "fluentd-elasticsearch-", p.GenerateName)
			require.True(t, api.TolerationsTolerateTaint(p.Spec.Tolerations,
				&api.Taint{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoExecute}), "daemon tolerations added")
			terms := p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
			require.Equal(t, []string{p.Spec.NodeName}, terms[0].MatchFields[0].Values, "pinned by node affinity, placed by the scheduler")
		}
		ds := e.fluentd()
		require.Equal(t, api.DaemonSetStatus{DesiredNumberScheduled: 3, CurrentNumberScheduled: 3, NumberReady: 3,
			NumberAvailable: 3, UpdatedNumberScheduled: 3, ObservedGeneration: ds.Generation}, ds.Status)

		// A node joins.
		e.addNode(kubelet.Options{NodeName: "node-3", PodCIDR: "10.244.3.0/24"})
		e.settle(time.Minute)
		require.Equal(t, map[string]int{"master": 1, "node-1": 1, "node-2": 1, "node-3": 1}, e.podsPerNode())
		require.EqualValues(t, 4, e.fluentd().Status.NumberReady)

		// A node leaves.
		e.removeNode("node-2")
		e.settle(2 * time.Minute)
		require.Equal(t, map[string]int{"master": 1, "node-1": 1, "node-3": 1}, e.podsPerNode())
		require.EqualValues(t, 3, e.fluentd().Status.DesiredNumberScheduled)

		// A duplicate pod on node-1: the newer one goes.
		var orig *api.Pod
		for _, p := range e.pods() {
			if p.Spec.NodeName == "node-1" {
				orig = p
			}
		}
		dup := orig.DeepCopy()
		dup.ObjectMeta = api.ObjectMeta{Namespace: orig.Namespace, Name: "fluentd-duplicate", Labels: orig.Labels,
			OwnerReferences: orig.OwnerReferences}
		dup.Status = api.PodStatus{}
		_, err = e.c.Pods().Create(e.ctx, dup)
		require.NoError(t, err)
		e.settle(time.Minute)
		require.Equal(t, map[string]int{"master": 1, "node-1": 1, "node-3": 1}, e.podsPerNode())
		_, _, err = e.c.Pods().Get(e.ctx, api.Key(orig))
		require.NoError(t, err, "the older pod stays")
		_, _, err = e.c.Pods().Get(e.ctx, "kube-system/fluentd-duplicate")
		require.ErrorIs(t, err, source.ErrNotFound)

		// A rolling update of the image, maxUnavailable 1 (the default):
		// at every instant at most one node lacks a ready pod.
		ds = e.fluentd()
		ds.Spec.Template.Spec.Containers[0].Image = "xianchao/fluentd:v2.5.2"
		_, err = e.c.DaemonSets().Update(e.ctx, ds, "")
		require.NoError(t, err)
		degraded := 0 // seconds with one node unavailable
		for range 300 {
			e.settle(time.Second)
			readyNodes := 0
			for n, c := range readyPerNode(e.pods()) {
				if c > 0 && n != "" {
					readyNodes++
				}
			}
			require.GreaterOrEqual(t, readyNodes, 2, "at most one of three nodes unavailable")
			if readyNodes == 2 {
				degraded++
			}
		}
		// Each node drains its old pod for the 30 s grace period before
		// the new one starts: three such windows, one after the other.
		require.GreaterOrEqual(t, degraded, 3*30, "the nodes were updated one at a time")
		require.Equal(t, map[string]int{"master": 1, "node-1": 1, "node-3": 1}, e.podsPerNode())
		for _, p := range e.pods() {
			require.Equal(t, "xianchao/fluentd:v2.5.2", p.Spec.Containers[0].Image)
		}
		ds = e.fluentd()
		require.EqualValues(t, 3, ds.Status.UpdatedNumberScheduled)
		require.EqualValues(t, 3, ds.Status.NumberAvailable)

		// kubectl get controllerrevision -n kube-system -l name=fluentd
		sel, err := e.c.ControllerRevisions().Select(cluster.SelectOptions{LabelSelector: "name=fluentd", FieldSelector: "metadata.namespace=kube-system"})
		require.NoError(t, err)
		revs, err := sel.List(e.ctx, source.ListOptions{})
		require.NoError(t, err)
		require.Len(t, revs.Items, 2)
		byRev := map[int64]string{}
		for _, r := range revs.Items {
			byRev[r.Revision] = r.Labels[api.LabelControllerRevisionHash]
			require.Equal(t, "fluentd-elasticsearch-"+r.Labels[api.LabelControllerRevisionHash], r.Name)
		}
		require.Len(t, byRev, 2)
		for _, p := range e.pods() {
			require.Equal(t, byRev[2], p.Labels[api.LabelControllerRevisionHash], "pods run revision 2")
		}
	})
}

// readyPerNode counts the ready pods not being deleted on each node.
func readyPerNode(pods []*api.Pod) map[string]int {
	out := map[string]int{}
	for _, p := range pods {
		if p.DeletionTimestamp == nil && api.IsPodReady(p) {
			out[p.Spec.NodeName]++
		}
	}
	return out
}
