package replicaset_test

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
	"github.com/ctrlkit/ctrlkit/controllers/replicaset"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

var quiet = slog.New(slog.DiscardHandler)

// envOptions describe one end-to-end scenario.
type envOptions struct {
	rc        bool                    // run the ReplicationController manager
	admission []cluster.AdmissionFunc // the cluster's admission plugins
	lag       time.Duration           // delay every watch event of the controller's pod cache
	cutEvery  int                     // with lag: end the pod watch after this many events
	readyIn   time.Duration           // kubelet: a bound pod turns Running and Ready after this; default 2s
	stopIn    time.Duration           // kubelet: a terminating pod is removed after this; default 3s
}

// env is a cluster, the controller over a factory's informers, and a
// kubelet, all in the test's synctest bubble.
type env struct {
	t   *testing.T
	ctx context.Context
	c   *cluster.Cluster
	rec *events.Memory
}

func start(t *testing.T, o envOptions) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c, err := cluster.New(ctx, cluster.Options{Admission: o.admission})
	require.NoError(t, err)
	f := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
	if o.lag > 0 {
		// Registered first under the controller's name: the controller
		// shares this lagging cache.
		_, err := informer.Shared(f, "pods", source.ListWatcher[*api.Pod](&laggingLW{inner: c.Pods(), lag: o.lag, cutEvery: o.cutEvery}),
			api.Key[*api.Pod], informer.Options[*api.Pod]{Logger: quiet})
		require.NoError(t, err)
	}
	rec := events.NewMemory()
	newCtl := replicaset.New
	if o.rc {
		newCtl = replicaset.NewReplicationManager
	}
	ctl, err := newCtl(c, f, replicaset.Options{Logger: quiet, Recorder: rec})
	require.NoError(t, err)
	f.Start(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := ctl.Run(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("Run: %v", err)
		}
	})
	k := &kubelet{c: c, readyIn: o.readyIn, stopIn: o.stopIn}
	if k.readyIn == 0 {
		k.readyIn = 2 * time.Second
	}
	if k.stopIn == 0 {
		k.stopIn = 3 * time.Second
	}
	pods, err := c.Pods().Watch(ctx, source.WatchOptions{})
	require.NoError(t, err)
	wg.Go(func() { k.run(ctx, pods) })
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		k.wg.Wait()
		f.Shutdown()
	})
	return &env{t: t, ctx: ctx, c: c, rec: rec}
}

// kubelet plays the node's part for every pod: it binds a new pod to
// node-1, marks it Running and Ready readyIn later, and removes a
// terminating pod stopIn after its deletion timestamp appeared (a delete
// with grace period 0, as a kubelet confirms).
type kubelet struct {
	c               *cluster.Cluster
	readyIn, stopIn time.Duration
	wg              sync.WaitGroup
}

func (k *kubelet) run(ctx context.Context, ch <-chan source.Event[*api.Pod]) {
	started, stopping := map[api.UID]bool{}, map[api.UID]bool{}
	for ev := range ch {
		p := ev.Object
		switch {
		case ev.Type != source.Added && ev.Type != source.Modified:
		case p.DeletionTimestamp != nil:
			if !stopping[p.UID] {
				stopping[p.UID] = true
				k.after(ctx, k.stopIn, func() {
					zero := int64(0)
					_, _ = k.c.Pods().DeleteWith(ctx, api.Key(p), cluster.DeleteOptions{GracePeriodSeconds: &zero,
						Preconditions: cluster.Preconditions{UID: p.UID}})
				})
			}
		case p.Spec.NodeName == "":
			_, _ = k.c.Bind(ctx, p.Namespace, p.Name, "node-1")
		case !started[p.UID]:
			started[p.UID] = true
			k.after(ctx, k.readyIn, func() { k.markReady(ctx, api.Key(p)) })
		}
	}
}

func (k *kubelet) after(ctx context.Context, d time.Duration, fn func()) {
	k.wg.Go(func() {
		select {
		case <-time.After(d):
			fn()
		case <-ctx.Done():
		}
	})
}

func (k *kubelet) markReady(ctx context.Context, key string) {
	for range 5 {
		p, _, err := k.c.Pods().Get(ctx, key)
		if err != nil || p.DeletionTimestamp != nil {
			return
		}
		p.Status.Phase = api.PodRunning
		p.Status.Conditions = append(p.Status.Conditions, api.PodCondition{Type: api.PodReady, Status: api.ConditionTrue,
			LastTransitionTime: api.NewTime(time.Now())})
		if _, err := k.c.Pods().UpdateStatus(ctx, p); !errors.Is(err, source.ErrConflict) {
			return
		}
	}
}

// laggingLW delays every watch event by lag, and ends each watch after
// cutEvery events (0: never), so that the reflector watches again.
type laggingLW struct {
	inner    *cluster.Store[*api.Pod]
	lag      time.Duration
	cutEvery int
}

func (l *laggingLW) List(ctx context.Context, opts source.ListOptions) (source.List[*api.Pod], error) {
	return l.inner.List(ctx, opts)
}

func (l *laggingLW) CompareResourceVersions(a, b string) (int, error) {
	return l.inner.CompareResourceVersions(a, b)
}

func (l *laggingLW) Watch(ctx context.Context, opts source.WatchOptions) (<-chan source.Event[*api.Pod], error) {
	ctx, cancel := context.WithCancel(ctx)
	in, err := l.inner.Watch(ctx, opts)
	if err != nil {
		cancel()
		return nil, err
	}
	type timed struct {
		ev source.Event[*api.Pod]
		at time.Time
	}
	buf := make(chan timed, 4096)
	out := make(chan source.Event[*api.Pod])
	go func() {
		defer close(buf)
		for ev := range in {
			select {
			case buf <- timed{ev, time.Now()}:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		defer close(out)
		defer cancel()
		n := 0
		for te := range buf {
			select {
			case <-time.After(time.Until(te.at.Add(l.lag))):
			case <-ctx.Done():
				return
			}
			select {
			case out <- te.ev:
			case <-ctx.Done():
				return
			}
			if n++; l.cutEvery > 0 && n%l.cutEvery == 0 {
				return
			}
		}
	}()
	return out, nil
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

// pods lists the store's pods (never the cache) with label app=app.
func (e *env) pods(app string) []*api.Pod {
	e.t.Helper()
	l, err := e.c.Pods().List(e.ctx, source.ListOptions{})
	require.NoError(e.t, err)
	var out []*api.Pod
	for _, p := range l.Items {
		if p.Labels["app"] == app {
			out = append(out, p)
		}
	}
	return out
}

// live counts the pods that are replicas: not terminating, not terminal.
func live(pods []*api.Pod) int {
	n := 0
	for _, p := range pods {
		if p.DeletionTimestamp == nil && p.Status.Phase != api.PodSucceeded && p.Status.Phase != api.PodFailed {
			n++
		}
	}
	return n
}

func replicaSet(name string, replicas int32) *api.ReplicaSet {
	return &api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
		Spec: api.ReplicaSetSpec{
			Replicas: &replicas,
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: template(name),
		},
	}
}

func template(app string) api.PodTemplateSpec {
	return api.PodTemplateSpec{
		ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": app}},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx"}}},
	}
}

func (e *env) createRS(rs *api.ReplicaSet) *api.ReplicaSet {
	e.t.Helper()
	_, err := e.c.ReplicaSets().Create(e.ctx, rs)
	require.NoError(e.t, err)
	return rs
}

func (e *env) getRS(name string) *api.ReplicaSet {
	e.t.Helper()
	rs, _, err := e.c.ReplicaSets().Get(e.ctx, "default/"+name)
	require.NoError(e.t, err)
	return rs
}

func (e *env) scaleRS(name string, replicas int32) {
	e.t.Helper()
	// The bubble idle first, so that no write of the controller (a
	// status update after a settle) comes between the read and the update.
	synctest.Wait()
	rs := e.getRS(name)
	rs.Spec.Replicas = &replicas
	_, err := e.c.ReplicaSets().Update(e.ctx, rs, "")
	require.NoError(e.t, err)
}

// settled reports whether name has n live pods in the store, none
// terminating, and a status that says so for its generation.
func (e *env) settled(name string, n int) bool {
	ps := e.pods(name)
	rs := e.getRS(name)
	return live(ps) == n && len(ps) == n && rs.Status.Replicas == int32(n) && rs.Status.ReadyReplicas == int32(n) &&
		rs.Status.ObservedGeneration == rs.Generation
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
