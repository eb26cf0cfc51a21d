package reconcile_test

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/expectations"
	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/indexer"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/source"
)

// pattern is one way to write the expectations part of a parent/children
// controller: the way the expectations package doc teaches, or the way it
// taught before.
type pattern struct {
	exp *expectations.Expectations
	// taught: Remaining + RequeueAfter, creations by name; otherwise the
	// old pattern: Satisfied with nothing scheduled, creations by count.
	taught bool
}

// wait is the first step of the reconcile: whether (and for how long) to
// wait for the awaited events.
func (p pattern) wait(key string) (reconcile.Result, bool) {
	if p.taught {
		if d, waiting := p.exp.Remaining(key); waiting {
			return reconcile.Result{RequeueAfter: d}, true
		}
		return reconcile.Result{}, false
	}
	if !p.exp.Satisfied(key) {
		return reconcile.Result{}, true // the awaited events requeue key
	}
	return reconcile.Result{}, false
}

func (p pattern) expect(key string, names []string) {
	if p.taught {
		p.exp.ExpectCreationsOf(key, names)
	} else {
		p.exp.ExpectCreations(key, len(names))
	}
}

// observed is called for a failed create, and by the handlers for an
// added child (and, taught, for a deleted one).
func (p pattern) observed(key, name string) {
	if p.taught {
		p.exp.CreationObservedOf(key, name)
	} else {
		p.exp.CreationObserved(key)
	}
}

// childScaler keeps Parent.Replicas children "parent-i" per parent,
// exactly as the expectations doc's calling pattern shows.
type childScaler struct {
	p        pattern
	parents  informer.Lister[*Parent]
	children informer.Lister[*Child]
	src      *fake.Source[*Child]
}

func (s *childScaler) Reconcile(ctx context.Context, key string) (reconcile.Result, error) {
	parent, ok := s.parents.Get(key)
	if !ok {
		return reconcile.Result{}, nil
	}
	if res, waiting := s.p.wait(key); waiting {
		return res, nil
	}
	var missing []string
	for i := range parent.Replicas {
		name := key + "-" + strconv.Itoa(i)
		if _, ok := s.children.Get(name); !ok {
			missing = append(missing, name)
		}
	}
	if len(missing) == 0 {
		return reconcile.Result{}, nil
	}
	s.p.expect(key, missing) // before the creates
	for _, name := range missing {
		_, err := s.src.Create(ctx, &Child{Name: name, Parent: key})
		switch {
		case errors.Is(err, source.ErrAlreadyExists):
			s.p.observed(key, name) // it exists: the cache lags
		case err != nil:
			s.p.observed(key, name) // no event will come for it
			return reconcile.Result{}, err
		}
	}
	return reconcile.Result{}, nil
}

// TestTaughtPatternConvergesAfterLostEvents builds a small parent/children
// controller exactly as the expectations doc teaches, loses the events of
// some of its creates (fake.Source.MissNextEvents), scales the parents up
// while their expectations wait, and checks that after a quiet period
// every parent has its children. The controller written the way the doc
// taught before (Satisfied, then return with nothing scheduled) never
// does: nothing enqueues a waiting parent again once its expectations
// expire. Virtual time (synctest); no relist and no resync repair the
// cache meanwhile.
func TestTaughtPatternConvergesAfterLostEvents(t *testing.T) {
	for _, tc := range []struct {
		name   string
		taught bool
	}{{"taught", true}, {"old pattern stalls", false}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				before, present, want := runScaler(t, tc.taught)
				require.Less(t, before, want, "the lost events stall some parents until the TTL")
				if tc.taught {
					require.Equal(t, want, present, "children present after quiet")
				} else {
					require.Less(t, present, want, "the old pattern was expected to stall")
				}
			})
		})
	}
}

// runScaler runs the scenario and returns the children present in the
// source before and after the quiet period, and the number desired.
func runScaler(t *testing.T, taught bool) (before, present, want int) {
	quiet := slog.New(slog.DiscardHandler)
	ctx, cancel := context.WithCancel(t.Context())
	parents, err := fake.NewSource(func(p *Parent) string { return p.Name }, fake.Options[*Parent]{})
	require.NoError(t, err)
	children, err := fake.NewSource(func(c *Child) string { return c.Name }, fake.Options[*Child]{})
	require.NoError(t, err)
	parentInf, err := informer.New(parents, func(p *Parent) string { return p.Name }, informer.Options[*Parent]{Logger: quiet})
	require.NoError(t, err)
	childInf, err := informer.New(children, func(c *Child) string { return c.Name }, informer.Options[*Child]{
		Logger:   quiet,
		Indexers: indexer.Indexers[*Child]{"parent": func(c *Child) ([]string, error) { return []string{c.Parent}, nil }},
	})
	require.NoError(t, err)
	exp, err := expectations.New(expectations.Options{Logger: quiet})
	require.NoError(t, err)
	p := pattern{exp: exp, taught: taught}
	ctl, err := reconcile.New("scaler", &childScaler{
		p: p, parents: parentInf.Lister(), children: childInf.Lister(), src: children,
	}, reconcile.Options[string]{Workers: 2, Logger: quiet})
	require.NoError(t, err)
	_, err = reconcile.Watch(ctl, parentInf, reconcile.ByKey(func(p *Parent) string { return p.Name }), reconcile.WatchOptions{})
	require.NoError(t, err)
	reg, err := childInf.AddEventHandler(informer.HandlerFuncs[*Child]{
		AddFunc: func(c *Child, _ bool) {
			p.observed(c.Parent, c.Name)
			ctl.Enqueue(c.Parent)
		},
		UpdateFunc: func(_, c *Child) { ctl.Enqueue(c.Parent) },
		DeleteFunc: func(c *Child, _ bool) {
			if taught {
				p.observed(c.Parent, c.Name) // a created child never seen added
			}
			ctl.Enqueue(c.Parent)
		},
	}, informer.HandlerOptions{})
	require.NoError(t, err)
	require.NoError(t, ctl.AddSyncCheck(reg.HasSynced))

	var wg sync.WaitGroup
	wg.Go(func() { _ = parentInf.Run(ctx) })
	wg.Go(func() { _ = childInf.Run(ctx) })
	wg.Go(func() { _ = ctl.Run(ctx) })
	defer func() {
		cancel()
		wg.Wait()
	}()

	const nParents, first, second = 4, 3, 6
	children.MissNextEvents(5) // the first creates are never delivered
	for i := range nParents {
		_, err := parents.Create(ctx, &Parent{Name: "p" + strconv.Itoa(i), Replicas: first})
		require.NoError(t, err)
	}
	time.Sleep(time.Second)
	synctest.Wait()
	// Scale up while some expectations wait for the lost events.
	for i := range nParents {
		_, err := parents.Update(ctx, &Parent{Name: "p" + strconv.Itoa(i), Replicas: second}, "")
		require.NoError(t, err)
	}
	time.Sleep(time.Second)
	synctest.Wait()
	before = children.Len()
	// Quiet: nothing is written; only the controller itself may act.
	time.Sleep(expectations.DefaultTTL + time.Minute)
	synctest.Wait()
	return before, children.Len(), nParents * second
}
