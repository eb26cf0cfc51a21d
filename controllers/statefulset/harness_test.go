package statefulset_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/garbagecollector"
	"github.com/ctrlkit/ctrlkit/controllers/kubelet"
	"github.com/ctrlkit/ctrlkit/controllers/persistentvolume"
	"github.com/ctrlkit/ctrlkit/controllers/scheduler"
	"github.com/ctrlkit/ctrlkit/controllers/statefulset"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/internal/sharedtest"
	"github.com/ctrlkit/ctrlkit/source"
)

var quiet = slog.New(slog.DiscardHandler)

// env is a cluster with two simulated kubelets, the scheduler, the
// StatefulSet controller, the volume binder and the garbage collector,
// all in the test's synctest bubble.
type env struct {
	t   *testing.T
	ctx context.Context
	c   *cluster.Cluster
	rec *events.Memory
}

type runner interface{ Run(context.Context) error }

func start(t *testing.T) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c, err := cluster.New(ctx, cluster.Options{})
	require.NoError(t, err)
	f := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
	rec := events.NewMemory()
	var runners []runner
	for i := 1; i <= 2; i++ {
		k, err := kubelet.New(c, kubelet.Options{NodeName: fmt.Sprintf("node-%d", i), PodCIDR: fmt.Sprintf("10.244.%d.0/24", i), Logger: quiet})
		require.NoError(t, err)
		runners = append(runners, k)
	}
	w := scheduler.ClusterWriter{Cluster: c}
	s, err := scheduler.New(scheduler.Options{Pods: c.Pods(), Nodes: c.Nodes(), Binder: w, Status: w, Logger: quiet})
	require.NoError(t, err)
	sts, err := statefulset.New(c, f, statefulset.Options{Logger: quiet, Recorder: rec})
	require.NoError(t, err)
	vol, err := persistentvolume.New(c, f, persistentvolume.Options{Logger: quiet, Recorder: rec})
	require.NoError(t, err)
	gc, err := garbagecollector.New(c, f, garbagecollector.Options{Logger: quiet})
	require.NoError(t, err)
	runners = append(runners, s, sts, vol, gc)
	f.Start(ctx)
	var wg sync.WaitGroup
	for _, r := range runners {
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

// eventually waits in virtual time (the tests run in testing/synctest
// bubbles), a second at a time, for cond.
func (e *env) eventually(what string, cond func() bool) {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			e.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Second)
	}
}

func (e *env) apply(objs ...api.Object) {
	e.t.Helper()
	for _, o := range objs {
		_, err := e.c.CreateObject(e.ctx, o)
		require.NoError(e.t, err)
	}
}

func (e *env) manifests(files ...string) []api.Object {
	e.t.Helper()
	var out []api.Object
	for _, f := range files {
		objs, err := api.DecodeFile(sharedtest.Manifest(e.t, f), api.DecodeOptions{})
		require.NoError(e.t, err)
		out = append(out, objs...)
	}
	return out
}

func (e *env) set(name string) *api.StatefulSet {
	e.t.Helper()
	s, _, err := e.c.StatefulSets().Get(e.ctx, "default/"+name)
	require.NoError(e.t, err)
	return s
}

func (e *env) update(name string, mut func(*api.StatefulSet)) {
	e.t.Helper()
	for {
		s := e.set(name)
		mut(s)
		_, err := e.c.StatefulSets().Update(e.ctx, s, "")
		if !errors.Is(err, source.ErrConflict) {
			require.NoError(e.t, err)
			return
		}
	}
}

// pod returns the pod of that name in default, if any.
func (e *env) pod(name string) (*api.Pod, bool) {
	p, _, err := e.c.Pods().Get(e.ctx, "default/"+name)
	if errors.Is(err, source.ErrNotFound) {
		return nil, false
	}
	require.NoError(e.t, err)
	return p, true
}

func (e *env) pods() []*api.Pod {
	l, err := e.c.Pods().List(e.ctx, source.ListOptions{})
	require.NoError(e.t, err)
	return l.Items
}

func (e *env) claim(name string) (*api.PersistentVolumeClaim, bool) {
	c, _, err := e.c.PersistentVolumeClaims().Get(e.ctx, "default/"+name)
	if errors.Is(err, source.ErrNotFound) {
		return nil, false
	}
	require.NoError(e.t, err)
	return c, true
}

// settled: n pods, all running and ready, none terminating, and a status
// that says so for the set's generation with the rollout done.
func (e *env) settled(name string, n int) bool {
	s := e.set(name)
	ready := 0
	for _, p := range e.pods() {
		if p.DeletionTimestamp == nil && api.IsPodReady(p) && p.Labels["app"] == s.Spec.Selector.MatchLabels["app"] {
			ready++
		}
	}
	st := s.Status
	return ready == n && len(e.pods()) == n && st.ObservedGeneration == s.Generation && st.Replicas == int32(n) &&
		st.ReadyReplicas == int32(n) && st.AvailableReplicas == int32(n)
}

// imageOf returns pod's first container image.
func imageOf(p *api.Pod) string { return p.Spec.Containers[0].Image }

// watchPods records every pod event, in order, for the assertions on
// ordering.
type podLog struct {
	mu  sync.Mutex
	evs []podEvent
}

type podEvent struct {
	typ  source.EventType
	pod  *api.Pod
	when time.Time
}

func (e *env) watchPods() *podLog {
	ch, err := e.c.Pods().Watch(e.ctx, source.WatchOptions{})
	require.NoError(e.t, err)
	l := &podLog{}
	go func() {
		for ev := range ch {
			l.mu.Lock()
			l.evs = append(l.evs, podEvent{ev.Type, ev.Object, time.Now()})
			l.mu.Unlock()
		}
	}()
	return l
}

func (l *podLog) events() []podEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]podEvent(nil), l.evs...)
}

// firstIndex returns the index of the first event matching fn, -1 if none.
func (l *podLog) firstIndex(fn func(podEvent) bool) int {
	for i, ev := range l.events() {
		if fn(ev) {
			return i
		}
	}
	return -1
}

func added(name string) func(podEvent) bool {
	return func(ev podEvent) bool { return ev.typ == source.Added && ev.pod.Name == name }
}

func readyEv(name string) func(podEvent) bool {
	return func(ev podEvent) bool { return ev.pod.Name == name && api.IsPodReady(ev.pod) }
}

func terminatingEv(name string) func(podEvent) bool {
	return func(ev podEvent) bool { return ev.pod.Name == name && ev.pod.DeletionTimestamp != nil }
}

func goneEv(name string) func(podEvent) bool {
	return func(ev podEvent) bool { return ev.typ == source.Deleted && ev.pod.Name == name }
}

func defaultClass() *api.StorageClass {
	return &api.StorageClass{
		ObjectMeta:  api.ObjectMeta{Name: "standard", Annotations: map[string]string{persistentvolume.AnnDefaultStorageClass: "true"}},
		Provisioner: "sim.ctrlkit.io/hostpath",
	}
}

func withClaims(s *api.StatefulSet) *api.StatefulSet {
	s.Spec.VolumeClaimTemplates = []api.PersistentVolumeClaim{{
		ObjectMeta: api.ObjectMeta{Name: "www"},
		Spec: api.PersistentVolumeClaimSpec{AccessModes: []api.PersistentVolumeAccessMode{"ReadWriteOnce"},
			Resources: api.VolumeResourceRequirements{Requests: api.ResourceList{api.ResourceStorage: api.MustParse("1Gi")}}},
	}}
	return s
}
