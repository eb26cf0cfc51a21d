package harness_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/harness"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/leader"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/stretchr/testify/require"
)

// The controllers of the Resync and Handover faults, each with its fixed
// twin.

// auditUpdates records each change of a parent's data["v"] as an audit
// child (generateName "<parent>-audit-", data from and to), from its
// Update events. The broken version records every Update event, and a
// resync is an Update event of an unchanged object: it records a change
// that never happened. The fixed twin compares the two states (their
// resourceVersions, as kube-controller-manager's handlers do) and
// ignores a resync.
func auditUpdates(fixed bool) harness.Controller {
	return func(c client.Client) (harness.Runner, error) {
		cms, err := client.For[*api.ConfigMap](c)
		if err != nil {
			return nil, err
		}
		inf, err := informer.New[*api.ConfigMap](cms, api.Key[*api.ConfigMap], informer.Options[*api.ConfigMap]{})
		if err != nil {
			return nil, err
		}
		// A request is "namespace name from to".
		ctl, err := reconcile.New("audit", reconcile.Func[string](func(ctx context.Context, req string) (reconcile.Result, error) {
			ch := strings.Split(req, " ")
			a := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: ch[0], GenerateName: ch[1] + "-audit-", Labels: map[string]string{"parent": ch[1]}},
				Data: map[string]string{"from": ch[2], "to": ch[3]}}
			_, err := cms.Create(ctx, a)
			return reconcile.Result{}, err
		}), reconcile.Options[string]{Workers: 1, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			return nil, err
		}
		if _, err := inf.AddEventHandler(informer.HandlerFuncs[*api.ConfigMap]{UpdateFunc: func(old, cm *api.ConfigMap) {
			if cm.Labels["role"] != "parent" || (fixed && old.ResourceVersion == cm.ResourceVersion) {
				return
			}
			ctl.Enqueue(strings.Join([]string{cm.Namespace, cm.Name, old.Data["v"], cm.Data["v"]}, " "))
		}}, informer.HandlerOptions{}); err != nil {
			return nil, err
		}
		return &loop{inf: inf, ctl: ctl}, nil
	}
}

// setAuditV is a step setting parent web's data["v"].
func setAuditV(v string) harness.Step {
	return harness.Step{Name: "v=" + v, Do: func(ctx context.Context, c client.Client) error {
		cms, err := client.For[*api.ConfigMap](c)
		if err != nil {
			return err
		}
		p, _, err := cms.Get(ctx, "default/web")
		if err != nil {
			return err
		}
		p.Data["v"] = v
		_, err = cms.Update(ctx, p, "")
		return err
	}}
}

func auditScenario() harness.Scenario {
	return harness.Scenario{
		Name:    "audit",
		Objects: []api.Object{parent("web", map[string]string{"v": "1"})},
		Steps:   []harness.Step{setAuditV("2"), setAuditV("3")},
		Kinds:   []harness.Kind{harness.KindOf[*api.ConfigMap]()},
	}
}

// The broken auditUpdates records a change at every resync: the Resync
// fault at its first write (the first run of TimeFaults but Expire)
// finds a duplicate audit record.
func TestResyncFindsNonIdempotentUpdateHandler(t *testing.T) {
	res := explore(t, auditScenario(), auditUpdates(false), harness.Options{Faults: []harness.Fault{harness.Resync}, Replays: 2})
	require.Equal(t, 2, res.Reference.Writes)
	require.Len(t, res.Failures, 1)
	f := res.Failures[0]
	require.Equal(t, 1, f.Found)
	require.Equal(t, 2, f.Reproduced)
	require.Equal(t, []harness.Perturbation{{Write: 1, Fault: harness.Resync}}, f.Outcome.Perturbations)
	require.Contains(t, f.Error(), "duplicate create: 3 live ConfigMap default/web-audit-* where the reference run has 2")
	require.Contains(t, f.Error(), "[resync]")
	t.Log(f)
}

// The fixed twin survives a resync (and an Expire) at every write, and
// random runs of both.
func TestFixedAuditSurvivesResync(t *testing.T) {
	res := explore(t, auditScenario(), auditUpdates(true), harness.Options{
		Faults: harness.TimeFaults(), All: true, Random: randomRuns(t), Seed: 1,
		RandomFaults: []harness.Fault{harness.Resync, harness.Expire},
	})
	for _, f := range res.Failures {
		t.Error(f)
	}
	require.Equal(t, 2*2+randomRuns(t), res.Runs, "Expire and Resync at each of 2 writes; no Handover without Election")
}

// announce gives every parent one child (generateName "<parent>-")
// unless its cache holds one, and waits for its cache to hold the child
// it created. It runs as one of two replicas under leader election: its
// informer runs all along (a warm standby) and its reconcile loop only
// while it leads. The broken version runs the loop it starts when it
// first leads under its process's context, not the term's: once its
// term has ended its create held by the partition still goes out, after
// the new leader created the child. The fixed twin
// runs the loop under the term's context (leader.Run's), which ends
// with the term, and ends the action in flight with it too (reconcile
// lets it finish otherwise).
func announce(fixed bool) harness.Controller {
	return harness.Elected(func(c client.Client, e leader.Elector) (harness.Runner, error) {
		cms, err := client.For[*api.ConfigMap](c)
		if err != nil {
			return nil, err
		}
		inf, err := informer.New[*api.ConfigMap](cms, api.Key[*api.ConfigMap], informer.Options[*api.ConfigMap]{})
		if err != nil {
			return nil, err
		}
		return &elected{inf: inf, e: e, fixed: fixed, sync: func(ctx context.Context, key string) (reconcile.Result, error) {
			cache := inf.Lister()
			p, ok := cache.Get(key)
			if !ok || p.Labels["role"] != "parent" || len(children(cache, p)) > 0 {
				return reconcile.Result{}, nil
			}
			rv, err := cms.Create(ctx, childOf(p, ""))
			if err != nil {
				return reconcile.Result{}, err
			}
			return reconcile.Result{}, inf.WaitForResourceVersion(ctx, rv)
		}}, nil
	})
}

// elected is announce's Runner.
type elected struct {
	inf   *informer.Informer[*api.ConfigMap]
	e     leader.Elector
	fixed bool
	sync  func(ctx context.Context, key string) (reconcile.Result, error)
}

// Run runs the informer until ctx ends and, while leading, a reconcile
// loop (a new one each term).
func (r *elected) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { _ = r.inf.Run(ctx) })
	err := leader.Run(ctx, r.e, func(term context.Context) error {
		sync := r.sync
		if r.fixed {
			// Every action ends with the term: reconcile lets the one
			// in flight finish when its Run's context ends.
			sync = func(ctx context.Context, key string) (reconcile.Result, error) {
				ctx, cancel := context.WithCancel(ctx)
				defer cancel()
				defer context.AfterFunc(term, cancel)()
				return r.sync(ctx, key)
			}
		}
		ctl, err := reconcile.New("announce", reconcile.Func[string](sync), reconcile.Options[string]{Workers: 1, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			return err
		}
		if _, err := reconcile.Watch(ctl, reconcile.EventSource[*api.ConfigMap](r.inf), parentOf, reconcile.WatchOptions{}); err != nil {
			return err
		}
		if r.fixed {
			return ignoreCanceled(ctl.Run(term))
		}
		wg.Go(func() { _ = ctl.Run(ctx) }) // the bug: not the term's context
		<-term.Done()
		return nil
	})
	return ignoreCanceled(err)
}

// ignoreCanceled drops a cancellation.
func ignoreCanceled(err error) error {
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// createParent is a step creating a parent.
func createParent(name string) harness.Step {
	return harness.Step{Name: "create " + name, Do: func(ctx context.Context, c client.Client) error {
		cms, err := client.For[*api.ConfigMap](c)
		if err != nil {
			return err
		}
		_, err = cms.Create(ctx, parent(name, map[string]string{}))
		return err
	}}
}

func announceScenario() harness.Scenario {
	return harness.Scenario{
		Name:       "announce",
		Objects:    []api.Object{parent("web", map[string]string{})},
		Steps:      []harness.Step{createParent("api"), createParent("db")},
		Kinds:      []harness.Kind{harness.KindOf[*api.ConfigMap]()},
		Invariants: []harness.Invariant{atMostChildren(1)},
		Election:   &harness.Election{},
	}
}

// The broken announce keeps acting after its term ended: the Handover
// at its first write (the first run) holds the leader's create of web's
// child, the standby takes over and creates web's child, and once the
// partition heals the old leader's create — decided on its last view,
// ten seconds after its term ended — goes out too.
func TestHandoverFindsAnOldLeaderStillActing(t *testing.T) {
	res := explore(t, announceScenario(), announce(false), harness.Options{Faults: []harness.Fault{harness.Handover}, Replays: 2})
	require.Equal(t, 3, res.Reference.Writes)
	require.Len(t, res.Failures, 1)
	f := res.Failures[0]
	require.Equal(t, 1, f.Found)
	require.Equal(t, 2, f.Reproduced)
	require.Equal(t, []harness.Perturbation{{Write: 1, Fault: harness.Handover}}, f.Outcome.Perturbations)
	report := f.Error()
	require.Contains(t, report, "duplicate create: 2 live ConfigMap default/web-*")
	require.Contains(t, report, "[handover]")
	require.Contains(t, report, "inc=a0")
	require.Contains(t, report, "inc=b0")
	t.Log(report)
}

// The fixed twin stops when its term ends: it passes every time fault
// at every write, and random runs mixing Handover, Resync and Crash.
func TestFixedAnnounceSurvivesHandover(t *testing.T) {
	res := explore(t, announceScenario(), announce(true), harness.Options{
		Faults: harness.TimeFaults(), All: true, Random: randomRuns(t), Seed: 1,
		RandomFaults: []harness.Fault{harness.Handover, harness.Resync, harness.Crash},
	})
	for _, f := range res.Failures {
		t.Error(f)
	}
	require.Equal(t, 3*3+randomRuns(t), res.Runs)
	for _, e := range res.Reference.Timeline {
		require.Equal(t, "a", e.Replica, "replica a leads the reference run")
		require.True(t, strings.HasPrefix(e.String(), "#"))
	}
}

// A Handover needs two replicas: Replay refuses it without Election.
func TestHandoverNeedsElection(t *testing.T) {
	s := announceScenario()
	s.Election = nil
	_, err := harness.Replay(t.Context(), s, announce(true), nil, []harness.Perturbation{{Write: 1, Fault: harness.Handover}})
	require.ErrorContains(t, err, "needs Scenario.Election")
}
