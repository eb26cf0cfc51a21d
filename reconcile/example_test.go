package reconcile_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ctrlkit/ctrlkit/expectations"
	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/indexer"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
)

// Parent wants Replicas children.
type Parent struct {
	Name     string
	Replicas int
	RV       string
}

func (p *Parent) GetResourceVersion() string   { return p.RV }
func (p *Parent) SetResourceVersion(rv string) { p.RV = rv }

// Child belongs to the Parent it names.
type Child struct {
	Name   string
	Parent string
	RV     string
}

func (c *Child) GetResourceVersion() string   { return c.RV }
func (c *Child) SetResourceVersion(rv string) { c.RV = rv }

// scaler keeps each parent's number of children: a tiny ReplicaSet
// controller. Expectations keep it from acting on a cache that has not
// seen the events of its writes yet; the consistency gate makes sure its
// next reconcile reads a cache that has them.
type scaler struct {
	parents  informer.Lister[*Parent]
	children informer.Lister[*Child]
	src      *fake.Source[*Child]
	exp      *expectations.Expectations
	gate     *reconcile.Consistency[string]
	settled  chan<- string // "name count" when a parent needs nothing
}

func (s *scaler) Reconcile(ctx context.Context, key string) (reconcile.Result, error) {
	p, ok := s.parents.Get(key)
	if !ok {
		return reconcile.Result{}, nil // deleted: nothing to keep
	}
	if d, waiting := s.exp.Remaining(key); waiting {
		// The awaited child events enqueue key again; if they are lost,
		// this requeue notices the expiry.
		return reconcile.Result{RequeueAfter: d}, nil
	}
	kids, err := s.children.ByIndex("parent", key)
	if err != nil {
		return reconcile.Result{}, reconcile.Terminal(err) // a bug: retrying will not help
	}
	switch diff := p.Replicas - len(kids); {
	case diff > 0:
		names := freeNames(key, kids, diff)
		s.exp.ExpectCreationsOf(key, names) // before the writes
		for _, name := range names {
			rv, err := s.src.Create(ctx, &Child{Name: name, Parent: key})
			if err != nil {
				s.exp.CreationObservedOf(key, name) // no event will come for it
				return reconcile.Result{}, err
			}
			fmt.Println("create", name)
			if err := s.gate.WroteAt(key, rv); err != nil {
				return reconcile.Result{}, err
			}
		}
	case diff < 0:
		s.exp.ExpectDeletions(key, -diff)
		for _, c := range slices.Backward(kids[len(kids)+diff:]) {
			rv, err := s.src.Delete(ctx, c.Name, "")
			if err != nil {
				s.exp.DeletionObserved(key)
				return reconcile.Result{}, err
			}
			fmt.Println("delete", c.Name)
			if err := s.gate.WroteAt(key, rv); err != nil {
				return reconcile.Result{}, err
			}
		}
	default:
		select {
		case s.settled <- key + " " + strconv.Itoa(len(kids)):
		case <-ctx.Done():
		}
	}
	return reconcile.Result{}, nil
}

// freeNames returns the n lowest unused names "key-i".
func freeNames(key string, kids []*Child, n int) []string {
	var names []string
	for i := 0; len(names) < n; i++ {
		name := key + "-" + strconv.Itoa(i)
		if !slices.ContainsFunc(kids, func(c *Child) bool { return c.Name == name }) {
			names = append(names, name)
		}
	}
	return names
}

// A controller over fake sources that keeps a desired count of children
// per parent, with expectations, the consistency gate and the reconcile
// loop.
func Example() {
	quiet := slog.New(slog.DiscardHandler)
	ctx, cancel := context.WithCancel(context.Background())
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}

	parents, err := fake.NewSource(func(p *Parent) string { return p.Name }, fake.Options[*Parent]{})
	must(err)
	children, err := fake.NewSource(func(c *Child) string { return c.Name }, fake.Options[*Child]{})
	must(err)
	parentInf, err := informer.New(parents, func(p *Parent) string { return p.Name }, informer.Options[*Parent]{Logger: quiet})
	must(err)
	childInf, err := informer.New(children, func(c *Child) string { return c.Name }, informer.Options[*Child]{
		Logger: quiet,
		Indexers: indexer.Indexers[*Child]{
			"parent": func(c *Child) ([]string, error) { return []string{c.Parent}, nil },
		},
	})
	must(err)

	exp, err := expectations.New(expectations.Options{Logger: quiet})
	must(err)
	gate, err := reconcile.NewConsistency[string](childInf, children)
	must(err)
	settled := make(chan string, 64)
	s := &scaler{
		parents:  parentInf.Lister(),
		children: childInf.Lister(),
		src:      children,
		exp:      exp,
		gate:     gate,
		settled:  settled,
	}
	ctl, err := reconcile.New("scaler", s, reconcile.Options[string]{
		Workers:     2,
		Logger:      quiet,
		Consistency: []*reconcile.Consistency[string]{gate},
	})
	must(err)

	// Parents are reconciled by their own key.
	_, err = reconcile.Watch(ctl, parentInf, reconcile.ByKey(func(p *Parent) string { return p.Name }), reconcile.WatchOptions{})
	must(err)
	// A child's events lower its parent's expectations, then enqueue the
	// parent: one handler, so the observation always precedes the enqueue.
	reg, err := childInf.AddEventHandler(informer.HandlerFuncs[*Child]{
		AddFunc: func(c *Child, _ bool) {
			exp.CreationObservedOf(c.Parent, c.Name)
			ctl.Enqueue(c.Parent)
		},
		UpdateFunc: func(_, c *Child) { ctl.Enqueue(c.Parent) },
		DeleteFunc: func(c *Child, _ bool) {
			exp.CreationObservedOf(c.Parent, c.Name) // in case its add never came
			exp.DeletionObserved(c.Parent)
			ctl.Enqueue(c.Parent)
		},
	}, informer.HandlerOptions{})
	must(err)
	must(ctl.AddSyncCheck(reg.HasSynced))

	var wg sync.WaitGroup
	wg.Go(func() { _ = parentInf.Run(ctx) })
	wg.Go(func() { _ = childInf.Run(ctx) })
	wg.Go(func() {
		if err := ctl.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
			fmt.Println("run:", err)
		}
	})
	waitFor := func(want string) {
		for got := range settled {
			if got == want {
				fmt.Println("settled:", got)
				return
			}
		}
	}

	_, err = parents.Create(ctx, &Parent{Name: "web", Replicas: 3})
	must(err)
	waitFor("web 3")

	_, err = parents.Update(ctx, &Parent{Name: "web", Replicas: 1}, "")
	must(err)
	waitFor("web 1")

	var names []string
	for name := range children.Items() {
		names = append(names, name)
	}
	fmt.Println("children:", strings.Join(names, ", "))

	cancel()
	wg.Wait()
	// Output:
	// create web-0
	// create web-1
	// create web-2
	// settled: web 3
	// delete web-2
	// delete web-1
	// settled: web 1
	// children: web-0
}

// A Terminal error is not retried; errors.Is finds it through wrapping.
func ExampleTerminal() {
	errInvalid := errors.New("spec.replicas is negative")
	err := fmt.Errorf("reconcile default/web: %w", reconcile.Terminal(errInvalid))
	fmt.Println(err)
	fmt.Println(errors.Is(err, reconcile.ErrTerminal), errors.Is(err, errInvalid))
	// Output:
	// reconcile default/web: terminal error: spec.replicas is negative
	// true true
}
