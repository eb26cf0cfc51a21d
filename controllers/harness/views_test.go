package harness_test

// The bug classes the view perturbations (Stale, Cut) find, each a
// deliberately broken controller with its fixed twin, over the parent
// and child ConfigMaps of controllers_test.go.

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/harness"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/stretchr/testify/require"
)

// syncFunc reconciles the parent under key.
type syncFunc func(ctx context.Context, cms client.Resource[*api.ConfigMap], inf *informer.Informer[*api.ConfigMap], key string) (reconcile.Result, error)

// newViewLoop is newLoop with a reconcile result and a handler h (if
// set) seeing every event before it is mapped to a parent.
func newViewLoop(c client.Client, sync syncFunc, h informer.Handler[*api.ConfigMap]) (harness.Runner, error) {
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
	if h != nil {
		src = reconcile.Observe(src, h)
	}
	if _, err := reconcile.Watch(ctl, src, parentOf, reconcile.WatchOptions{}); err != nil {
		return nil, err
	}
	return &loop{inf: inf, ctl: ctl}, nil
}

// parentKey returns the cached parent under key, if it is one.
func parentKey(inf *informer.Informer[*api.ConfigMap], key string) (*api.ConfigMap, bool) {
	p, ok := inf.Lister().Get(key)
	return p, ok && p.Labels["role"] == "parent"
}

// child returns a user's child of parent p named name.
func child(p, name string) *api.ConfigMap {
	return &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{"parent": p}}}
}

// configMaps returns the ConfigMaps of c.
func configMaps(c client.Client) client.Resource[*api.ConfigMap] {
	cms, err := client.For[*api.ConfigMap](c)
	if err != nil {
		panic(err) // the control plane serves ConfigMaps
	}
	return cms
}

// (a) prune deletes the children its parent does not list in
// data["children"]. The broken version deletes by name: restarted on a
// stale view (the parent not yet listing a child that was since
// deleted and created anew, adopted), it deletes the live child. The
// fixed twin deletes with a UID precondition: the stale child's delete
// is a conflict, retried once its cache has caught up, and the live
// child stays.
func prune(fixed bool) harness.Controller {
	return func(c client.Client) (harness.Runner, error) {
		return newViewLoop(c, func(ctx context.Context, cms client.Resource[*api.ConfigMap], inf *informer.Informer[*api.ConfigMap], key string) (reconcile.Result, error) {
			p, ok := parentKey(inf, key)
			if !ok {
				return reconcile.Result{}, nil
			}
			listed := strings.Split(p.Data["children"], ",")
			for _, cm := range children(inf.Lister(), p) {
				if slices.Contains(listed, cm.Name) {
					continue
				}
				var err error
				if fixed {
					_, err = cms.DeleteWith(ctx, api.Key(cm), client.DeleteOptions{Preconditions: client.Preconditions{UID: cm.UID}})
					if client.IsNotFound(err) {
						err = nil
					}
					// A conflict: not the child it saw; retried, on a
					// cache that has caught up.
				} else {
					_, err = cms.Delete(ctx, api.Key(cm), "")
					if client.IsNotFound(err) {
						err = nil
					}
				}
				if err != nil {
					return reconcile.Result{}, err
				}
			}
			return reconcile.Result{}, nil
		}, nil)
	}
}

// pruneScenario: web lists web-a; web-x is pruned; then the user lists
// web-x and creates it again.
func pruneScenario() harness.Scenario {
	return harness.Scenario{
		Name:    "prune",
		Objects: []api.Object{parent("web", map[string]string{"children": "web-a"}), child("web", "web-a"), child("web", "web-x")},
		Kinds:   []harness.Kind{harness.KindOf[*api.ConfigMap]()},
		Steps: []harness.Step{{Name: "adopt web-x", Do: func(ctx context.Context, c client.Client) error {
			cms := configMaps(c)
			p, _, err := cms.Get(ctx, "default/web")
			if err != nil {
				return err
			}
			p.Data["children"] = "web-a,web-x"
			if _, err := cms.Update(ctx, p, ""); err != nil {
				return err
			}
			_, err = cms.Create(ctx, child("web", "web-x"))
			return err
		}}},
	}
}

// (b) cleanup gives each parent a child <parent>-child and deletes it
// when the parent is deleted. The broken version deletes it only when it
// was told of the parent's deletion with its final state, and drops a
// relist's delete (finalStateUnknown, client-go's DeletedFinalStateUnknown
// a type assertion drops): a watch cut across the deletion leaks the
// child. The fixed twin deletes the children of any parent missing from
// its cache.
func cleanup(fixed bool) harness.Controller {
	return func(c client.Client) (harness.Runner, error) {
		var mu sync.Mutex
		deleted := map[string]bool{}
		h := informer.HandlerFuncs[*api.ConfigMap]{DeleteFunc: func(cm *api.ConfigMap, finalStateUnknown bool) {
			if cm.Labels["role"] == "parent" && !finalStateUnknown {
				mu.Lock()
				deleted[api.Key(cm)] = true
				mu.Unlock()
			}
		}}
		return newViewLoop(c, func(ctx context.Context, cms client.Resource[*api.ConfigMap], inf *informer.Informer[*api.ConfigMap], key string) (reconcile.Result, error) {
			p, ok := parentKey(inf, key)
			if ok {
				_, err := cms.Create(ctx, childOf(p, p.Name+"-child"))
				if client.IsAlreadyExists(err) {
					err = nil
				}
				return reconcile.Result{}, err
			}
			mu.Lock()
			told := deleted[key]
			mu.Unlock()
			if !fixed && !told {
				return reconcile.Result{}, nil
			}
			ns, name, _ := api.SplitKey(key)
			for _, cm := range children(inf.Lister(), &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name}}) {
				if _, err := cms.Delete(ctx, api.Key(cm), ""); err != nil && !client.IsNotFound(err) {
					return reconcile.Result{}, err
				}
			}
			return reconcile.Result{}, nil
		}, h)
	}
}

// deleteWeb is a step deleting the parent web.
func deleteWeb() harness.Step {
	return harness.Step{Name: "delete web", Do: func(ctx context.Context, c client.Client) error {
		_, err := configMaps(c).Delete(ctx, "default/web", "")
		return err
	}}
}

// cleanupScenario: web, then its deletion.
func cleanupScenario() harness.Scenario {
	return harness.Scenario{
		Name:    "cleanup",
		Objects: []api.Object{parent("web", nil)},
		Kinds:   []harness.Kind{harness.KindOf[*api.ConfigMap]()},
		Steps:   []harness.Step{deleteWeb()},
	}
}

// (c) observe records, as the annotation "observed", the parent's
// data["v"] it first saw. The broken version writes the whole object from its cached
// copy without a precondition (resourceVersion cleared "so that it never
// conflicts"): from a stale copy it writes back an old data["v"] over the
// user's change. The fixed twin keeps the cached resourceVersion as the
// precondition and retries on conflict (for a kind with a status
// subresource: UpdateStatus, which cannot touch the spec).
func observe(fixed bool) harness.Controller {
	return func(c client.Client) (harness.Runner, error) {
		return newViewLoop(c, func(ctx context.Context, cms client.Resource[*api.ConfigMap], inf *informer.Informer[*api.ConfigMap], key string) (reconcile.Result, error) {
			p, ok := parentKey(inf, key)
			if !ok || p.Annotations["observed"] != "" {
				return reconcile.Result{}, nil
			}
			p = p.DeepCopy()
			if p.Annotations == nil {
				p.Annotations = map[string]string{}
			}
			p.Annotations["observed"] = p.Data["v"]
			if !fixed {
				p.ResourceVersion = ""
			}
			_, err := cms.Update(ctx, p, "")
			return reconcile.Result{}, err
		}, nil)
	}
}

// observeScenario: web at v=1, then v=2.
func observeScenario() harness.Scenario {
	return harness.Scenario{
		Name:    "observe",
		Objects: []api.Object{parent("web", map[string]string{"v": "1"})},
		Kinds:   []harness.Kind{harness.KindOf[*api.ConfigMap]()},
		Steps: []harness.Step{{Name: "set v=2", Do: func(ctx context.Context, c client.Client) error {
			cms := configMaps(c)
			p, _, err := cms.Get(ctx, "default/web")
			if err != nil {
				return err
			}
			p.Data["v"] = "2"
			_, err = cms.Update(ctx, p, "")
			return err
		}}},
	}
}

// finalizer is the finalize controller's finalizer.
const finalizer = "example.com/children"

// (d) finalize creates a parent's child in steps — its finalizer, the
// child, then the annotation phase=ready — and on the parent's deletion
// deletes the child and removes the finalizer. The broken version's
// deletion path waits for phase=ready ("creation first"): a parent
// deleted mid-creation keeps its finalizer for ever. The fixed twin
// cleans up whatever the phase.
func finalize(fixed bool) harness.Controller {
	return func(c client.Client) (harness.Runner, error) {
		return newViewLoop(c, func(ctx context.Context, cms client.Resource[*api.ConfigMap], inf *informer.Informer[*api.ConfigMap], key string) (reconcile.Result, error) {
			p, ok := parentKey(inf, key)
			if !ok {
				return reconcile.Result{}, nil
			}
			p = p.DeepCopy()
			name := p.Name + "-child"
			_, hasChild := inf.Lister().Get(api.NamespacedKey(p.Namespace, name))
			ready := p.Annotations["phase"] == "ready"
			switch {
			case p.DeletionTimestamp != nil:
				if !slices.Contains(p.Finalizers, finalizer) || (!fixed && !ready) {
					return reconcile.Result{}, nil
				}
				if _, err := cms.Delete(ctx, api.NamespacedKey(p.Namespace, name), ""); err != nil && !client.IsNotFound(err) {
					return reconcile.Result{}, err
				}
				p.Finalizers = slices.DeleteFunc(p.Finalizers, func(f string) bool { return f == finalizer })
			case !slices.Contains(p.Finalizers, finalizer):
				p.Finalizers = append(p.Finalizers, finalizer)
			case !hasChild && !ready:
				_, err := cms.Create(ctx, childOf(p, name))
				if client.IsAlreadyExists(err) {
					err = nil
				}
				return reconcile.Result{}, err
			case !ready:
				if p.Annotations == nil {
					p.Annotations = map[string]string{}
				}
				p.Annotations["phase"] = "ready"
			default:
				return reconcile.Result{}, nil
			}
			rv, err := cms.Update(ctx, p, "")
			if err != nil {
				return reconcile.Result{}, err
			}
			// Both wait for their cache to hold the write (acting on
			// an older one is bug class e).
			if err := inf.WaitForResourceVersion(ctx, rv); err != nil && !errors.Is(err, context.Canceled) {
				return reconcile.Result{}, err
			}
			return reconcile.Result{}, nil
		}, nil)
	}
}

// finalizeScenario: web, then its deletion.
func finalizeScenario() harness.Scenario {
	return harness.Scenario{
		Name:     "finalize",
		Objects:  []api.Object{parent("web", nil)},
		Kinds:    []harness.Kind{harness.KindOf[*api.ConfigMap]()},
		Steps:    []harness.Step{deleteWeb()},
		Converge: time.Minute,
	}
}

// (e) grow gives each parent data["replicas"] children named by
// generateName, one per reconcile, and comes back a second later. The
// broken version counts the children in its cache, which may be older
// than its own last create: with the watch cut, it creates a child every
// second. The fixed twin waits, after each create, for its cache to hold
// it (informer.WaitForResourceVersion); it also names its children
// <parent>-<n>, as a restart on a stale view needs (see recordChild).
func grow(fixed bool) harness.Controller {
	return func(c client.Client) (harness.Runner, error) {
		return newViewLoop(c, func(ctx context.Context, cms client.Resource[*api.ConfigMap], inf *informer.Informer[*api.ConfigMap], key string) (reconcile.Result, error) {
			p, ok := parentKey(inf, key)
			if !ok {
				return reconcile.Result{}, nil
			}
			want, _ := strconv.Atoi(p.Data["replicas"])
			if len(children(inf.Lister(), p)) >= want {
				return reconcile.Result{}, nil
			}
			name := ""
			if fixed { // a stale view after a restart would duplicate a generated name
				name = p.Name + "-" + strconv.Itoa(len(children(inf.Lister(), p)))
			}
			rv, err := cms.Create(ctx, childOf(p, name))
			if fixed && client.IsAlreadyExists(err) {
				return reconcile.Result{RequeueAfter: time.Second}, nil
			}
			if err != nil {
				return reconcile.Result{}, err
			}
			if fixed {
				if err := inf.WaitForResourceVersion(ctx, rv); err != nil && !errors.Is(err, context.Canceled) {
					return reconcile.Result{}, err
				}
			}
			return reconcile.Result{RequeueAfter: time.Second}, nil
		}, nil)
	}
}

// growScenario: web wants 2 children; a runaway is stopped after a
// minute.
func growScenario() harness.Scenario {
	return harness.Scenario{
		Name:       "grow",
		Objects:    []api.Object{parent("web", map[string]string{"replicas": "2"})},
		Kinds:      []harness.Kind{harness.KindOf[*api.ConfigMap]()},
		Invariants: []harness.Invariant{atMostChildren(-1)},
		Converge:   time.Minute,
	}
}

// allFaults are every fault, the view faults included.
func allFaults() []harness.Fault {
	return slices.Concat([]harness.Fault{harness.Crash}, harness.WriteFaults(), harness.ViewFaults())
}

// Each broken controller is found by the view perturbation named, at
// the run stated (exploring ViewFaults: stale@1 is run 1, cut@1 run 2;
// the last, exploring Cut alone, is found by stale@1 too),
// with the problem stated; each fixed twin survives every fault at every
// write, and random runs.
func TestViewFaultsFindBugClasses(t *testing.T) {
	for _, tc := range []struct {
		class    string
		s        harness.Scenario
		ctl      func(fixed bool) harness.Controller
		found    int
		p        harness.Perturbation
		problem  string
		refWrite int
		faults   []harness.Fault // explored on the broken one; ViewFaults if nil
	}{
		{"deleting a live object after a stale read on restart", pruneScenario(), prune, 1,
			harness.Perturbation{Write: 1, Fault: harness.Stale}, "wrongly deleted: ConfigMap default/web-x by the controller's write #", 1, nil},
		{"a child leaked when the owner's deletion was not observed", cleanupScenario(), cleanup, 2,
			harness.Perturbation{Write: 1, Fault: harness.Cut}, "extra: ConfigMap default/web-child", 3, nil},
		{"a status write clobbering a concurrent spec change", observeScenario(), observe, 1,
			harness.Perturbation{Write: 1, Fault: harness.Stale}, "differs: ConfigMap default/web", 1, nil},
		{"a finalizer never removed when the object is deleted mid-creation", finalizeScenario(), finalize, 2,
			harness.Perturbation{Write: 1, Fault: harness.Cut}, "extra: ConfigMap default/web", 5, nil},
		{"acting on a cache older than one's own last write", growScenario(), grow, 1,
			harness.Perturbation{Write: 1, Fault: harness.Cut}, "duplicate create", 2, []harness.Fault{harness.Cut}},
	} {
		t.Run(tc.s.Name, func(t *testing.T) {
			faults := tc.faults
			if faults == nil {
				faults = harness.ViewFaults()
			}
			res := explore(t, tc.s, tc.ctl(false), harness.Options{Faults: faults})
			require.Equal(t, tc.refWrite, res.Reference.Writes)
			require.Len(t, res.Failures, 1, tc.class)
			f := res.Failures[0]
			require.Equal(t, tc.found, f.Found, tc.class)
			require.Equal(t, []harness.Perturbation{tc.p}, f.Outcome.Perturbations)
			require.Contains(t, f.Error(), tc.problem)

			res = explore(t, tc.s, tc.ctl(true), harness.Options{Faults: allFaults(), RandomFaults: allFaults(), All: true, Random: randomRuns(t), Seed: 1})
			for _, f := range res.Failures {
				t.Error(f)
			}
			require.Equal(t, tc.refWrite*len(allFaults())+randomRuns(t), res.Runs)
		})
	}
}

// watcher records, per incarnation, the parent's data["v"] as its
// informer saw it, and whether its initial list held its marker; it
// writes once, the marker.
type watcher struct {
	c    client.Client
	n    int
	mu   *sync.Mutex
	seen map[int][]string
	mark map[int]bool
}

func (w *watcher) Run(ctx context.Context) error {
	cms := configMaps(w.c)
	inf, err := informer.New[*api.ConfigMap](cms, api.Key[*api.ConfigMap], informer.Options[*api.ConfigMap]{})
	if err != nil {
		return err
	}
	record := func(cm *api.ConfigMap, initial bool) {
		w.mu.Lock()
		defer w.mu.Unlock()
		if cm.Name == "marker" && initial {
			w.mark[w.n] = true
		}
		if cm.Name == "web" {
			w.seen[w.n] = append(w.seen[w.n], cm.Data["v"])
		}
	}
	if _, err := inf.AddEventHandler(informer.HandlerFuncs[*api.ConfigMap]{
		AddFunc:    record,
		UpdateFunc: func(_, cm *api.ConfigMap) { record(cm, false) },
	}, informer.HandlerOptions{}); err != nil {
		return err
	}
	var wg sync.WaitGroup
	wg.Go(func() { _ = inf.Run(ctx) })
	defer wg.Wait()
	if !informer.WaitForCacheSync(ctx, inf.HasSynced) {
		return nil
	}
	if _, ok := inf.Lister().Get("default/marker"); !ok {
		_, err := cms.Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "marker"}})
		if err != nil && !client.IsAlreadyExists(err) && ctx.Err() == nil {
			return err
		}
	}
	<-ctx.Done()
	return nil
}

// setV is a step setting web's data["v"].
func setV(v string) harness.Step {
	return harness.Step{Name: "set v=" + v, Do: func(ctx context.Context, c client.Client) error {
		cms := configMaps(c)
		p, _, err := cms.Get(ctx, "default/web")
		if err != nil {
			return err
		}
		p.Data["v"] = v
		_, err = cms.Update(ctx, p, "")
		return err
	}}
}

// After a Stale restart the new incarnation's informer starts from the
// state before the stale write (v=1, its marker not yet made), then
// catches up through every state in order (v=2, then v=3), never back.
func TestStaleViewIsOlderThenCatchesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		seen, mark := map[int][]string{}, map[int]bool{}
		n := 0
		ctl := func(c client.Client) (harness.Runner, error) {
			mu.Lock()
			defer mu.Unlock()
			w := &watcher{c: c, n: n, mu: &mu, seen: seen, mark: mark}
			n++
			return w, nil
		}
		s := harness.Scenario{
			Objects: []api.Object{parent("web", map[string]string{"v": "1"})},
			Kinds:   []harness.Kind{harness.KindOf[*api.ConfigMap]()},
			Steps:   []harness.Step{setV("2"), setV("3")},
		}
		o, err := harness.Replay(t.Context(), s, ctl, nil, []harness.Perturbation{{Write: 1, Fault: harness.Stale}})
		require.NoError(t, err)
		require.Empty(t, o.Problems)
		mu.Lock()
		defer mu.Unlock()
		require.Equal(t, 2, n, "one restart")
		// Restarted right after set v=2: the first incarnation saw v=1, and
		// may or may not have seen v=2's event before it was stopped (two
		// goroutines runnable at one instant), never v=3.
		require.NotEmpty(t, seen[0])
		require.Equal(t, "1", seen[0][0])
		require.NotContains(t, seen[0], "3", "stopped before set v=3")
		require.False(t, mark[1], "the stale initial list is older than the marker")
		require.Equal(t, []string{"1", "2", "3"}, seen[1])
		// It acted on the stale view: made its marker again.
		require.Equal(t, 2, o.Writes)
		require.Equal(t, 1, o.Timeline[1].Incarnation)
		require.Contains(t, o.Timeline[1].Result, "already exists")
	})
}
