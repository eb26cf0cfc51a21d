// Command quickstart runs a small control plane in one process on the
// in-memory source: a ReplicaSet-style controller keeps, for every "set", as
// many "pods" as the set asks for. It uses every layer of ctrlkit — the
// fake source, informers with an index, the reconcile loop over a
// rate-limited work queue, expectations and the read-your-writes gate — and
// then injects faults into the source (cut watches, expired history, missed
// events, failed lists) to show that the caches converge again.
//
//	go run ./examples/quickstart
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/expectations"
	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/indexer"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/source"
)

// Set asks for Replicas pods.
type Set struct {
	Name     string
	Replicas int
	RV       string
}

// GetResourceVersion implements source.Versioned.
func (s *Set) GetResourceVersion() string { return s.RV }

// SetResourceVersion implements source.VersionSetter.
func (s *Set) SetResourceVersion(rv string) { s.RV = rv }

// Pod belongs to the Set named by Owner.
type Pod struct {
	Name  string
	Owner string
	RV    string
}

// GetResourceVersion implements source.Versioned.
func (p *Pod) GetResourceVersion() string { return p.RV }

// SetResourceVersion implements source.VersionSetter.
func (p *Pod) SetResourceVersion(rv string) { p.RV = rv }

func setKey(s *Set) string { return s.Name }
func podKey(p *Pod) string { return p.Name }

// setController is the reconciler: it reads only from the caches, writes to
// the source, and guards itself with expectations and the consistency gate.
type setController struct {
	sets  informer.Lister[*Set]
	pods  informer.Lister[*Pod]
	src   *fake.Source[*Pod]
	exp   *expectations.Expectations
	gate  *reconcile.Consistency[string]
	quiet bool

	mu    sync.Mutex
	wrote int // pod creates and deletes that succeeded
	stale int // writes refused because they acted on a stale cache
}

func (c *setController) Reconcile(ctx context.Context, name string) (reconcile.Result, error) {
	set, ok := c.sets.Get(name)
	want := 0
	if ok {
		want = set.Replicas
	} else {
		c.exp.Delete(name)
	}
	if d, waiting := c.exp.Remaining(name); waiting {
		// The events we wait for enqueue name again; if they were lost,
		// the expiry of the record does.
		return reconcile.Result{RequeueAfter: d}, nil
	}
	pods, err := c.pods.ByIndex("owner", name)
	if err != nil {
		return reconcile.Result{}, reconcile.Terminal(err)
	}
	switch diff := want - len(pods); {
	case diff > 0:
		names := freeNames(name, pods, diff)
		c.exp.ExpectCreationsOf(name, names) // before the creates, never after
		for _, pod := range names {
			rv, err := c.src.Create(ctx, &Pod{Name: pod, Owner: name})
			if err != nil {
				c.exp.CreationObservedOf(name, pod) // no event will come for this one
				if errors.Is(err, source.ErrAlreadyExists) {
					c.count(&c.stale) // the cache was behind; the event is on its way
					continue
				}
				return reconcile.Result{}, err
			}
			c.count(&c.wrote)
			if err := c.gate.WroteAt(name, rv); err != nil {
				return reconcile.Result{}, err
			}
		}
	case diff < 0:
		c.exp.ExpectDeletions(name, -diff)
		for _, pod := range pods[len(pods)+diff:] {
			rv, err := c.src.Delete(ctx, pod.Name, "")
			if err != nil {
				c.exp.DeletionObserved(name)
				if errors.Is(err, source.ErrNotFound) {
					c.count(&c.stale)
					continue
				}
				return reconcile.Result{}, err
			}
			c.count(&c.wrote)
			if err := c.gate.WroteAt(name, rv); err != nil {
				return reconcile.Result{}, err
			}
		}
	}
	return reconcile.Result{}, nil
}

func (c *setController) writes() (wrote, stale int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.wrote, c.stale
}

func (c *setController) count(n *int) {
	c.mu.Lock()
	*n++
	c.mu.Unlock()
}

// freeNames returns the n lowest unused pod names of a set.
func freeNames(set string, pods []*Pod, n int) []string {
	taken := make(map[string]bool, len(pods))
	for _, p := range pods {
		taken[p.Name] = true
	}
	var names []string
	for i := 0; len(names) < n; i++ {
		name := set + "-" + strconv.Itoa(i)
		if !taken[name] {
			names = append(names, name)
		}
	}
	return names
}

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// run plays the demo and writes its story to out, in four steps: build
// the sources, caches and controller; wire the events to the controller;
// start everything; play the scenario.
func run(out io.Writer) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	d, err := newDemo(out)
	if err != nil {
		return err
	}
	if err := d.wire(); err != nil {
		return err
	}
	stop := d.start(ctx)
	defer stop()
	return d.play(ctx)
}

// demo is the whole program: two sources, their informers, the controller
// and what the scenario wants.
type demo struct {
	out    io.Writer
	sets   *fake.Source[*Set]
	pods   *fake.Source[*Pod]
	setInf *informer.Informer[*Set]
	podInf *informer.Informer[*Pod]
	exp    *expectations.Expectations
	ctrl   *setController
	ctl    *reconcile.Controller[string]
	want   map[string]int // replicas per set, as the scenario last asked
}

// newDemo builds the sources, the informers (pods indexed by owner), the
// expectations, the read-your-writes gate and the controller. It starts
// nothing.
func newDemo(out io.Writer) (*demo, error) {
	logger := slog.New(slog.DiscardHandler) // the demo prints its own story
	d := &demo{out: out, want: map[string]int{}}
	var err error
	if d.sets, err = fake.NewSource(setKey, fake.Options[*Set]{
		Copy: func(s *Set) *Set { c := *s; return &c },
	}); err != nil {
		return nil, err
	}
	if d.pods, err = fake.NewSource(podKey, fake.Options[*Pod]{HistorySize: 200}); err != nil {
		return nil, err
	}
	if d.setInf, err = informer.New(d.sets, setKey, informer.Options[*Set]{Logger: logger}); err != nil {
		return nil, err
	}
	if d.podInf, err = informer.New(d.pods, podKey, informer.Options[*Pod]{
		Logger: logger,
		Indexers: indexer.Indexers[*Pod]{
			"owner": func(p *Pod) ([]string, error) { return []string{p.Owner}, nil },
		},
	}); err != nil {
		return nil, err
	}
	if d.exp, err = expectations.New(expectations.Options{Name: "sets", Logger: logger}); err != nil {
		return nil, err
	}
	gate, err := reconcile.NewConsistency[string](d.podInf, d.pods)
	if err != nil {
		return nil, err
	}
	d.ctrl = &setController{sets: d.setInf.Lister(), pods: d.podInf.Lister(), src: d.pods, exp: d.exp, gate: gate}
	d.ctl, err = reconcile.New("sets", d.ctrl, reconcile.Options[string]{
		Workers:     4,
		Logger:      logger,
		Consistency: []*reconcile.Consistency[string]{gate},
	})
	return d, err
}

// wire connects the informers to the controller: a set is reconciled by
// its own key; a pod's events lower its owner's expectations and then
// enqueue the owner. The controller waits for both registrations to sync.
func (d *demo) wire() error {
	if _, err := reconcile.Watch(d.ctl, d.setInf, reconcile.ByKey(setKey), reconcile.WatchOptions{}); err != nil {
		return err
	}
	reg, err := d.podInf.AddEventHandler(informer.HandlerFuncs[*Pod]{
		AddFunc: func(p *Pod, _ bool) {
			d.exp.CreationObservedOf(p.Owner, p.Name)
			d.ctl.Enqueue(p.Owner)
		},
		UpdateFunc: func(_, p *Pod) { d.ctl.Enqueue(p.Owner) },
		DeleteFunc: func(p *Pod, _ bool) {
			d.exp.CreationObservedOf(p.Owner, p.Name) // its add may have coalesced away
			d.exp.DeletionObserved(p.Owner)
			d.ctl.Enqueue(p.Owner)
		},
	}, informer.HandlerOptions{})
	if err != nil {
		return err
	}
	return d.ctl.AddSyncCheck(reg.HasSynced)
}

// start runs the informers and the controller, each on its own goroutine.
// The function it returns cancels them and waits until every goroutine
// has exited.
func (d *demo) start(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { _ = d.setInf.Run(ctx) })
	wg.Go(func() { _ = d.podInf.Run(ctx) })
	wg.Go(func() { _ = d.ctl.Run(ctx) })
	return func() {
		cancel()
		wg.Wait()
		fmt.Fprintln(d.out, "shut down: every goroutine has exited")
	}
}

// play runs the scenario: create and scale sets, then inject faults into
// the pod source, waiting after each step until the pods match and the
// cache equals the source. It ends with what the controller did.
func (d *demo) play(ctx context.Context) error {
	fmt.Fprintln(d.out, "ctrlkit quickstart: a ReplicaSet-style controller on the in-memory source")
	steps := []struct {
		title  string
		change func() error
	}{
		{"create sets web=3, api=2, batch=5", func() error {
			return errors.Join(d.apply(ctx, "web", 3), d.apply(ctx, "api", 2), d.apply(ctx, "batch", 5))
		}},
		{"scale web to 6, batch to 1", func() error {
			return errors.Join(d.apply(ctx, "web", 6), d.apply(ctx, "batch", 1))
		}},
		{"fault: cut every pod watch, and scale api to 4 meanwhile", func() error {
			n := d.pods.CutWatches(nil)
			fmt.Fprintf(d.out, "  cut %d watch(es); the reflector resumes from its last resourceVersion\n", n)
			return d.apply(ctx, "api", 4)
		}},
		{"fault: a pod is deleted behind the controller's back, and its event is lost", func() error {
			return d.loseDelete(ctx, "web-0")
		}},
		{"delete set batch (scale to 0)", func() error {
			return d.apply(ctx, "batch", 0)
		}},
	}
	for _, st := range steps {
		fmt.Fprintln(d.out, "\n"+st.title)
		if err := st.change(); err != nil {
			return err
		}
		if err := settle(ctx, d.out, d.pods, d.podInf, d.want); err != nil {
			return err
		}
	}
	wrote, stale := d.ctrl.writes()
	fmt.Fprintf(d.out, "\npods in the source: %d; creates and deletes by the controller: %d\n", d.pods.Len(), wrote)
	fmt.Fprintf(d.out, "writes refused because the controller acted on a stale cache: %d\n", stale)
	fmt.Fprintf(d.out, "pod watches opened: %d, pod lists: %d\n", d.pods.WatchCalls(), d.pods.ListCalls())
	return nil
}

// apply creates or updates the set name to ask for replicas pods.
func (d *demo) apply(ctx context.Context, name string, replicas int) error {
	d.want[name] = replicas
	_, _, err := d.sets.Get(ctx, name)
	switch {
	case errors.Is(err, source.ErrNotFound):
		_, err = d.sets.Create(ctx, &Set{Name: name, Replicas: replicas})
	case err == nil:
		_, err = d.sets.Update(ctx, &Set{Name: name, Replicas: replicas}, "")
	}
	return err
}

// loseDelete deletes pod with its event lost, then compacts the history,
// expires the watches and fails two lists, so that only a relist after a
// backoff can find the delete.
func (d *demo) loseDelete(ctx context.Context, pod string) error {
	d.pods.MissNextEvents(1)
	if _, err := d.pods.Delete(ctx, pod, ""); err != nil {
		return err
	}
	fmt.Fprintf(d.out, "  deleted %s silently; the watch never reports it\n", pod)
	d.pods.Compact()
	d.pods.FailLists(2, errors.New("injected list failure"))
	n := d.pods.CutWatches(fmt.Errorf("injected: %w", source.ErrExpired))
	fmt.Fprintf(d.out, "  compacted the history, expired %d watch(es), failed the next 2 lists\n", n)
	fmt.Fprintf(d.out, "  the reflector backs off, relists, infers the delete, and the controller replaces %s\n", pod)
	return nil
}

// settle waits until the source holds exactly the pods that want asks for
// and the pod cache equals the source, then prints the pods per set.
func settle(ctx context.Context, out io.Writer, src *fake.Source[*Pod], inf *informer.Informer[*Pod], want map[string]int) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		have := map[string]int{}
		for _, p := range src.Items() {
			have[p.Owner]++
		}
		done := true
		for name, n := range want {
			if have[name] != n {
				done = false
			}
		}
		if done && inf.WaitForResourceVersion(ctx, src.ResourceVersion()) == nil &&
			inf.Lister().Len() == src.Len() {
			for _, name := range slices.Sorted(maps.Keys(want)) {
				fmt.Fprintf(out, "  %-5s %d/%d pods\n", name, have[name], want[name])
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("did not converge: want %v, have %v", want, have)
		case <-time.After(5 * time.Millisecond):
		}
	}
}
