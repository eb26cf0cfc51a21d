package harness_test

// The deliberately broken controllers of the package's tests, each with
// its fixed twin. All reconcile parent ConfigMaps (label role=parent)
// and own child ConfigMaps (label parent=<parent's name>).

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/harness"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
)

// loop is a controller: one informer of ConfigMaps and one reconcile
// loop with one worker.
type loop struct {
	inf *informer.Informer[*api.ConfigMap]
	ctl *reconcile.Controller[string]
}

// Run runs the informer and the loop until ctx ends.
func (l *loop) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	wg.Go(func() { _ = l.inf.Run(ctx) })
	err := l.ctl.Run(ctx)
	wg.Wait()
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// parentOf maps a ConfigMap to the parent it concerns.
func parentOf(cm *api.ConfigMap) []string {
	if cm.Labels["role"] == "parent" {
		return []string{api.Key(cm)}
	}
	if p := cm.Labels["parent"]; p != "" {
		return []string{api.NamespacedKey(cm.Namespace, p)}
	}
	return nil
}

// newLoop builds a loop over c whose reconcile is sync, observe (if
// set) seeing every child event before it is mapped.
func newLoop(c client.Client, sync func(ctx context.Context, cms client.Resource[*api.ConfigMap], cache *informer.Informer[*api.ConfigMap], key string) error,
	observe func(cm *api.ConfigMap)) (harness.Runner, error) {
	return newLoopResult(c, func(ctx context.Context, cms client.Resource[*api.ConfigMap], inf *informer.Informer[*api.ConfigMap], key string) (reconcile.Result, error) {
		return reconcile.Result{}, sync(ctx, cms, inf, key)
	}, observe)
}

// newLoopResult is newLoop with a reconcile that returns a Result.
func newLoopResult(c client.Client, sync func(ctx context.Context, cms client.Resource[*api.ConfigMap], cache *informer.Informer[*api.ConfigMap], key string) (reconcile.Result, error),
	observe func(cm *api.ConfigMap)) (harness.Runner, error) {
	cms, err := client.For[*api.ConfigMap](c)
	if err != nil {
		return nil, err
	}
	inf, err := informer.New[*api.ConfigMap](cms, api.Key[*api.ConfigMap], informer.Options[*api.ConfigMap]{})
	if err != nil {
		return nil, err
	}
	ctl, err := reconcile.New("parents", reconcile.Func[string](func(ctx context.Context, key string) (reconcile.Result, error) {
		return sync(ctx, cms, inf, key)
	}), reconcile.Options[string]{Workers: 1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, err
	}
	var src reconcile.EventSource[*api.ConfigMap] = inf
	if observe != nil {
		src = reconcile.Observe(src, informer.HandlerFuncs[*api.ConfigMap]{AddFunc: func(cm *api.ConfigMap, _ bool) { observe(cm) }})
	}
	if _, err := reconcile.Watch(ctl, src, parentOf, reconcile.WatchOptions{}); err != nil {
		return nil, err
	}
	return &loop{inf: inf, ctl: ctl}, nil
}

// children returns the cached children of parent p.
func children(cache informer.Lister[*api.ConfigMap], p *api.ConfigMap) []*api.ConfigMap {
	return cache.Namespace(p.Namespace).List(func(cm *api.ConfigMap) bool { return cm.Labels["parent"] == p.Name })
}

// childOf returns a new child of p named name, or generated from p's
// name when name is "".
func childOf(p *api.ConfigMap, name string) *api.ConfigMap {
	cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: p.Namespace, Name: name, Labels: map[string]string{"parent": p.Name}}}
	if name == "" {
		cm.GenerateName = p.Name + "-"
	}
	return cm
}

// recordChild gives every parent one child and records the child's name
// in the parent's data["child"]. The broken version creates the child
// with generateName and trusts only that record: a crash (or a lost
// reply, or a failed record) between the create and the record makes it
// create a second child. The fixed twin names the child after the
// parent, so that the create after a crash is AlreadyExists.
func recordChild(fixed bool) harness.Controller {
	return func(c client.Client) (harness.Runner, error) {
		return newLoop(c, func(ctx context.Context, cms client.Resource[*api.ConfigMap], inf *informer.Informer[*api.ConfigMap], key string) error {
			cache := inf.Lister()
			p, ok := cache.Get(key)
			if !ok || p.Labels["role"] != "parent" || p.Data["child"] != "" {
				return nil
			}
			name := ""
			if fixed {
				name = p.Name + "-child"
			}
			child := childOf(p, name)
			if _, err := cms.Create(ctx, child); err != nil && !(fixed && client.IsAlreadyExists(err)) {
				return err
			}
			p = p.DeepCopy()
			if p.Data == nil {
				p.Data = map[string]string{}
			}
			p.Data["child"] = child.Name
			rv, err := cms.Update(ctx, p, "")
			if err != nil {
				return err
			}
			// Both wait for the cache to hold their record: acting on a
			// cache older than one's own write is another bug.
			return inf.WaitForResourceVersion(ctx, rv)
		}, nil)
	}
}

// expectations remembers, per parent, the children created and not yet
// seen in the cache.
type expectations struct {
	mu      sync.Mutex
	pending map[string]map[string]bool // parent key → child names
}

func (e *expectations) expect(parent, child string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.pending[parent] == nil {
		e.pending[parent] = map[string]bool{}
	}
	e.pending[parent][child] = true
}

func (e *expectations) lower(parent, child string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.pending[parent], child)
}

func (e *expectations) waiting(parent string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.pending[parent]) > 0
}

// replicate keeps data["replicas"] children named <parent>-0, -1, …
// per parent, with expectations so that it does not create a child
// twice while its cache lags. The broken version does not lower the
// expectation of a create that failed: the parent waits for an event
// that never comes, and its other children are never made. The fixed
// twin lowers it and retries.
func replicate(fixed bool) harness.Controller {
	return func(c client.Client) (harness.Runner, error) {
		exp := &expectations{pending: map[string]map[string]bool{}}
		observe := func(cm *api.ConfigMap) {
			if p := cm.Labels["parent"]; p != "" {
				exp.lower(api.NamespacedKey(cm.Namespace, p), cm.Name)
			}
		}
		return newLoop(c, func(ctx context.Context, cms client.Resource[*api.ConfigMap], inf *informer.Informer[*api.ConfigMap], key string) error {
			cache := inf.Lister()
			p, ok := cache.Get(key)
			if !ok || p.Labels["role"] != "parent" || exp.waiting(key) {
				return nil
			}
			want, _ := strconv.Atoi(p.Data["replicas"])
			have := map[string]bool{}
			for _, cm := range children(cache, p) {
				have[cm.Name] = true
			}
			for i := range want {
				name := fmt.Sprintf("%s-%d", p.Name, i)
				if have[name] {
					continue
				}
				exp.expect(key, name)
				if _, err := cms.Create(ctx, childOf(p, name)); err != nil {
					if fixed {
						exp.lower(key, name)
						if client.IsAlreadyExists(err) {
							continue
						}
					}
					return err
				}
			}
			return nil
		}, observe)
	}
}

// parent returns a parent ConfigMap with data.
func parent(name string, data map[string]string) *api.ConfigMap {
	return &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{"role": "parent"}}, Data: data}
}

// atMostChildren is an invariant: no parent has more than n children (n
// < 0: more than its data["replicas"]).
func atMostChildren(n int) harness.Invariant {
	return harness.Invariant{Name: "children bounded", Check: func(ctx context.Context, c client.Client) error {
		cms, err := client.For[*api.ConfigMap](c)
		if err != nil {
			return err
		}
		l, err := cms.List(ctx, sourceAll)
		if err != nil {
			return err
		}
		count := map[string]int{}
		max := map[string]int{}
		for _, cm := range l.Items {
			if p := cm.Labels["parent"]; p != "" {
				count[api.NamespacedKey(cm.Namespace, p)]++
			}
			if cm.Labels["role"] == "parent" {
				m := n
				if n < 0 {
					m, _ = strconv.Atoi(cm.Data["replicas"])
				}
				max[api.Key(cm)] = m
			}
		}
		for p, k := range count {
			if m, ok := max[p]; ok && k > m {
				return fmt.Errorf("parent %s has %d children, at most %d allowed", p, k, m)
			}
		}
		return nil
	}}
}

// ttlExpectations are expectations that, when ttl > 0, expire ttl after
// they were last raised, as kube-controller-manager's do.
type ttlExpectations struct {
	ttl     time.Duration
	mu      sync.Mutex
	pending map[string]map[string]bool // parent key → child names
	raised  map[string]time.Time       // parent key → when
}

func (e *ttlExpectations) expect(parent, child string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.pending[parent] == nil {
		e.pending[parent] = map[string]bool{}
	}
	e.pending[parent][child] = true
	e.raised[parent] = time.Now()
}

func (e *ttlExpectations) lower(parent, child string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.pending[parent], child)
}

// wait returns how long parent must still wait for its expectations: 0
// when they are met or expired, forever (a negative duration) when they
// never expire.
func (e *ttlExpectations) wait(parent string) time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.pending[parent]) == 0 {
		return 0
	}
	if e.ttl <= 0 {
		return -1
	}
	left := e.ttl - time.Since(e.raised[parent])
	if left <= 0 {
		delete(e.pending, parent)
		return 0
	}
	return left
}

// replicateTTL is replicate as kube-controller-manager's Job controller
// does it: a create that timed out may still have happened, so its
// expectation stays raised (the informer will tell), and every other
// failure lowers it. The broken version's expectations never expire: a
// timed-out create that did not happen leaves the parent waiting for an
// event that never comes. The fixed twin's expire after
// harness.ExpectationsTTL and it requeues itself for then.
func replicateTTL(fixed bool) harness.Controller {
	return func(c client.Client) (harness.Runner, error) {
		exp := &ttlExpectations{pending: map[string]map[string]bool{}, raised: map[string]time.Time{}}
		if fixed {
			exp.ttl = harness.ExpectationsTTL
		}
		observe := func(cm *api.ConfigMap) {
			if p := cm.Labels["parent"]; p != "" {
				exp.lower(api.NamespacedKey(cm.Namespace, p), cm.Name)
			}
		}
		return newLoopResult(c, func(ctx context.Context, cms client.Resource[*api.ConfigMap], inf *informer.Informer[*api.ConfigMap], key string) (reconcile.Result, error) {
			cache := inf.Lister()
			p, ok := cache.Get(key)
			if !ok || p.Labels["role"] != "parent" {
				return reconcile.Result{}, nil
			}
			switch left := exp.wait(key); {
			case left < 0:
				return reconcile.Result{}, nil
			case left > 0:
				return reconcile.Result{RequeueAfter: left}, nil
			}
			want, _ := strconv.Atoi(p.Data["replicas"])
			have := map[string]bool{}
			for _, cm := range children(cache, p) {
				have[cm.Name] = true
			}
			for i := range want {
				name := fmt.Sprintf("%s-%d", p.Name, i)
				if have[name] {
					continue
				}
				exp.expect(key, name)
				if _, err := cms.Create(ctx, childOf(p, name)); err != nil {
					if client.IsServerTimeout(err) {
						// The informer, or the TTL, will tell.
						return reconcile.Result{RequeueAfter: max(exp.wait(key), 0)}, nil
					}
					exp.lower(key, name)
					if client.IsAlreadyExists(err) {
						continue
					}
					return reconcile.Result{}, err
				}
			}
			return reconcile.Result{}, nil
		}, observe)
	}
}
