package deployment_test

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/deployment"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

// standIn plays the ReplicaSet controller and the kubelet for these
// tests, until the real ones can run next to this controller: it keeps,
// per ReplicaSet, a list of simulated pods (just the instant each becomes
// available) sized to spec.replicas, and writes the ReplicaSet's status
// from them. A new pod becomes available delay after it is "created"
// (never, with a negative delay); a scale-down removes the pods that are
// not available first, then the newest, as the ReplicaSet controller's
// ranking does. It creates no pod objects: the Deployment controller only
// looks at pods for Recreate, and there the old ReplicaSets' status
// (replicas 0) is what it waits for.
//
// After every change it calls observe with what the simulated world holds
// at that instant, per ReplicaSet name: pods and available pods.
type standIn struct {
	store   *cluster.Store[*api.ReplicaSet]
	delay   time.Duration
	observe func(pods, avail map[string]int32)

	mu   sync.Mutex
	pods map[api.UID][]time.Time // available-at of each simulated pod, ascending
}

const never = -1

func (s *standIn) run(ctx context.Context, inf *informer.Informer[*api.ReplicaSet]) {
	poke := make(chan struct{}, 1)
	kick := func() {
		select {
		case poke <- struct{}{}:
		default:
		}
	}
	reg, _ := inf.AddEventHandler(informer.HandlerFuncs[*api.ReplicaSet]{
		AddFunc:    func(*api.ReplicaSet, bool) { kick() },
		UpdateFunc: func(_, _ *api.ReplicaSet) { kick() },
		DeleteFunc: func(*api.ReplicaSet, bool) { kick() },
	}, informer.HandlerOptions{})
	defer inf.RemoveEventHandler(reg)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		next, retry := s.step(ctx, inf.Lister())
		timer.Stop()
		switch {
		case retry:
			timer.Reset(10 * time.Millisecond)
		case !next.IsZero():
			timer.Reset(time.Until(next))
		}
		select {
		case <-ctx.Done():
			return
		case <-poke:
		case <-timer.C:
		}
	}
}

// step brings every ReplicaSet's simulated pods and status up to date and
// returns when a pod next becomes available.
func (s *standIn) step(ctx context.Context, l informer.Lister[*api.ReplicaSet]) (next time.Time, retry bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if s.pods == nil {
		s.pods = map[api.UID][]time.Time{}
	}
	seen := map[api.UID]bool{}
	podsBy, availBy := map[string]int32{}, map[string]int32{}
	for _, rs := range l.List(nil) {
		seen[rs.UID] = true
		want := int(*rs.Spec.Replicas)
		pods := s.pods[rs.UID]
		if len(pods) > want {
			pods = pods[:want] // the last ones become available last
		}
		for len(pods) < want {
			at := now.Add(s.delay)
			if s.delay < 0 {
				at = now.Add(1000 * time.Hour)
			}
			pods = append(pods, at)
		}
		slices.SortFunc(pods, func(a, b time.Time) int { return a.Compare(b) })
		s.pods[rs.UID] = pods
		var avail int32
		for _, at := range pods {
			if !at.After(now) {
				avail++
			} else if s.delay >= 0 && (next.IsZero() || at.Before(next)) {
				next = at
			}
		}
		podsBy[rs.Name], availBy[rs.Name] = int32(len(pods)), avail
		st := api.ReplicaSetStatus{
			Replicas:             int32(len(pods)),
			FullyLabeledReplicas: int32(len(pods)),
			ReadyReplicas:        avail,
			AvailableReplicas:    avail,
			ObservedGeneration:   rs.Generation,
		}
		if st.Replicas != rs.Status.Replicas || st.AvailableReplicas != rs.Status.AvailableReplicas ||
			st.ReadyReplicas != rs.Status.ReadyReplicas || st.ObservedGeneration != rs.Status.ObservedGeneration ||
			st.FullyLabeledReplicas != rs.Status.FullyLabeledReplicas {
			cp := rs.DeepCopy()
			cp.Status = st
			if _, err := s.store.UpdateStatus(ctx, cp); err != nil {
				retry = true // a stale cache: the next event or the retry fixes it
			}
		}
	}
	for uid := range s.pods {
		if !seen[uid] {
			delete(s.pods, uid)
		}
	}
	if s.observe != nil {
		s.observe(podsBy, availBy)
	}
	return next, retry
}

// env is one test's world: a cluster, the Deployment controller, the
// stand-in, all in the test's synctest bubble.
type env struct {
	t      *testing.T
	c      *cluster.Cluster
	events *events.Memory // what the controller recorded
}

// withEnv runs fn in a bubble with a running controller and stand-in.
func withEnv(t *testing.T, delay time.Duration, observe func(pods, avail map[string]int32), fn func(e *env)) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		quiet := slog.New(slog.DiscardHandler)
		c, err := cluster.New(ctx, cluster.Options{})
		if err != nil {
			t.Fatal(err)
		}
		f := informer.NewFactory(informer.FactoryOptions{})
		rec := events.NewMemory()
		dc, err := deployment.New(c, f, deployment.Options{Logger: quiet, Recorder: rec})
		if err != nil {
			t.Fatal(err)
		}
		rsInf, err := informer.New(c.ReplicaSets(), api.Key[*api.ReplicaSet], informer.Options[*api.ReplicaSet]{Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		si := &standIn{store: c.ReplicaSets(), delay: delay, observe: observe}
		var wg sync.WaitGroup
		f.Start(ctx)
		wg.Go(func() { _ = rsInf.Run(ctx) })
		wg.Go(func() { si.run(ctx, rsInf) })
		wg.Go(func() {
			if err := dc.Run(ctx); err != nil && ctx.Err() == nil {
				t.Errorf("Run: %v", err)
			}
		})
		defer func() {
			cancel()
			wg.Wait()
			f.Shutdown()
		}()
		fn(&env{t: t, c: c, events: rec})
	})
}

func newDeployment(name string, replicas int32, strategy api.DeploymentStrategy) *api.Deployment {
	labels := map[string]string{"app": name}
	return &api.Deployment{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
		Spec: api.DeploymentSpec{
			Replicas: &replicas,
			Selector: &api.LabelSelector{MatchLabels: labels},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: labels},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "v1"}}},
			},
			Strategy: strategy,
		},
	}
}

func rolling(surge, unavail int32) api.DeploymentStrategy {
	s, u := api.FromInt32(surge), api.FromInt32(unavail)
	return api.DeploymentStrategy{Type: api.RollingUpdateDeploymentStrategyType,
		RollingUpdate: &api.RollingUpdateDeployment{MaxSurge: &s, MaxUnavailable: &u}}
}

func (e *env) create(d *api.Deployment) {
	e.t.Helper()
	if _, err := e.c.Deployments().Create(e.t.Context(), d); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) get(name string) *api.Deployment {
	e.t.Helper()
	d, _, err := e.c.Deployments().Get(e.t.Context(), "default/"+name)
	if err != nil {
		e.t.Fatal(err)
	}
	return d
}

// change applies fn to the stored Deployment, retrying conflicts.
func (e *env) change(name string, fn func(d *api.Deployment)) {
	e.t.Helper()
	for range 10 {
		d := e.get(name)
		fn(d)
		if _, err := e.c.Deployments().Update(e.t.Context(), d, d.ResourceVersion); err == nil {
			return
		}
	}
	e.t.Fatalf("could not update %s", name)
}

// replicaSets returns the ReplicaSets of the namespace, oldest first.
func (e *env) replicaSets() []*api.ReplicaSet {
	e.t.Helper()
	l, err := e.c.ReplicaSets().List(e.t.Context(), source.ListOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	out := slices.Clone(l.Items)
	slices.SortFunc(out, func(a, b *api.ReplicaSet) int {
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return revisionOf(a) - revisionOf(b)
	})
	return out
}

func revisionOf(rs *api.ReplicaSet) int {
	n := 0
	for _, c := range rs.Annotations[api.AnnotationDeploymentRevision] {
		n = n*10 + int(c-'0')
	}
	return n
}

// waitFor polls cond in virtual time until it holds or limit passes.
func (e *env) waitFor(what string, limit time.Duration, cond func() bool) {
	e.t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			e.t.Fatalf("timed out after %v waiting for %s", limit, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// complete: the rollout of the current generation is done.
func (e *env) complete(name string) func() bool {
	return func() bool {
		d := e.get(name)
		n := *d.Spec.Replicas
		st := d.Status
		c := condition(d, deployment.ConditionProgressing)
		return st.ObservedGeneration == d.Generation && st.UpdatedReplicas == n && st.Replicas == n &&
			st.AvailableReplicas == n && c != nil && c.Reason == deployment.ReasonNewReplicaSetAvailable
	}
}

func condition(d *api.Deployment, typ string) *api.DeploymentCondition {
	for i := range d.Status.Conditions {
		if d.Status.Conditions[i].Type == typ {
			return &d.Status.Conditions[i]
		}
	}
	return nil
}
