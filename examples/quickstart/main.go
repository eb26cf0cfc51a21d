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
	if !c.exp.Satisfied(name) {
		return reconcile.Result{}, nil // the events we wait for enqueue name again
	}
	pods, err := c.pods.ByIndex("owner", name)
	if err != nil {
		return reconcile.Result{}, reconcile.Terminal(err)
	}
	switch diff := want - len(pods); {
	case diff > 0:
		c.exp.ExpectCreations(name, diff)
		for _, pod := range freeNames(name, pods, diff) {
			rv, err := c.src.Create(ctx, &Pod{Name: pod, Owner: name})
			if err != nil {
				c.exp.CreationObserved(name) // no event will come for this one
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

// run plays the demo and writes its story to out.
func run(out io.Writer) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logger := slog.New(slog.DiscardHandler) // the demo prints its own story

	sets, err := fake.NewSource(setKey, fake.Options[*Set]{
		Copy: func(s *Set) *Set { c := *s; return &c },
	})
	if err != nil {
		return err
	}
	pods, err := fake.NewSource(podKey, fake.Options[*Pod]{HistorySize: 200})
	if err != nil {
		return err
	}
	setInf, err := informer.New(sets, setKey, informer.Options[*Set]{Logger: logger})
	if err != nil {
		return err
	}
	podInf, err := informer.New(pods, podKey, informer.Options[*Pod]{
		Logger: logger,
		Indexers: indexer.Indexers[*Pod]{
			"owner": func(p *Pod) ([]string, error) { return []string{p.Owner}, nil },
		},
	})
	if err != nil {
		return err
	}
	exp, err := expectations.New(expectations.Options{Logger: logger})
	if err != nil {
		return err
	}
	gate, err := reconcile.NewConsistency[string](podInf, pods)
	if err != nil {
		return err
	}
	ctrl := &setController{sets: setInf.Lister(), pods: podInf.Lister(), src: pods, exp: exp, gate: gate}
	ctl, err := reconcile.New("sets", ctrl, reconcile.Options[string]{
		Workers:     4,
		Logger:      logger,
		Consistency: []*reconcile.Consistency[string]{gate},
	})
	if err != nil {
		return err
	}
	// A set is reconciled by its own key; a pod's events lower its owner's
	// expectations and then enqueue the owner.
	if _, err := reconcile.Watch(ctl, setInf, reconcile.ByKey(setKey), reconcile.WatchOptions{}); err != nil {
		return err
	}
	reg, err := podInf.AddEventHandler(informer.HandlerFuncs[*Pod]{
		AddFunc: func(p *Pod, _ bool) {
			exp.CreationObserved(p.Owner)
			ctl.Enqueue(p.Owner)
		},
		UpdateFunc: func(_, p *Pod) { ctl.Enqueue(p.Owner) },
		DeleteFunc: func(p *Pod, _ bool) {
			exp.DeletionObserved(p.Owner)
			ctl.Enqueue(p.Owner)
		},
	}, informer.HandlerOptions{})
	if err != nil {
		return err
	}
	if err := ctl.AddSyncCheck(reg.HasSynced); err != nil {
		return err
	}

	var wg sync.WaitGroup
	wg.Go(func() { _ = setInf.Run(ctx) })
	wg.Go(func() { _ = podInf.Run(ctx) })
	wg.Go(func() { _ = ctl.Run(ctx) })
	defer func() {
		cancel()
		wg.Wait()
		fmt.Fprintln(out, "shut down: every goroutine has exited")
	}()

	fmt.Fprintln(out, "ctrlkit quickstart: a ReplicaSet-style controller on the in-memory source")
	want := map[string]int{}
	apply := func(name string, replicas int) error {
		want[name] = replicas
		_, _, err := sets.Get(ctx, name)
		switch {
		case errors.Is(err, source.ErrNotFound):
			_, err = sets.Create(ctx, &Set{Name: name, Replicas: replicas})
		case err == nil:
			_, err = sets.Update(ctx, &Set{Name: name, Replicas: replicas}, "")
		}
		return err
	}

	step := func(title string, change func() error) error {
		fmt.Fprintln(out, "\n"+title)
		if err := change(); err != nil {
			return err
		}
		return settle(ctx, out, pods, podInf, want)
	}

	if err := step("create sets web=3, api=2, batch=5", func() error {
		return errors.Join(apply("web", 3), apply("api", 2), apply("batch", 5))
	}); err != nil {
		return err
	}
	if err := step("scale web to 6, batch to 1", func() error {
		return errors.Join(apply("web", 6), apply("batch", 1))
	}); err != nil {
		return err
	}
	if err := step("fault: cut every pod watch, and scale api to 4 meanwhile", func() error {
		n := pods.CutWatches(nil)
		fmt.Fprintf(out, "  cut %d watch(es); the reflector resumes from its last resourceVersion\n", n)
		return apply("api", 4)
	}); err != nil {
		return err
	}
	if err := step("fault: a pod is deleted behind the controller's back, and its event is lost", func() error {
		pods.MissNextEvents(1)
		_, err := pods.Delete(ctx, "web-0", "")
		fmt.Fprintln(out, "  deleted web-0 silently; the watch never reports it")
		if err != nil {
			return err
		}
		pods.Compact()
		pods.FailLists(2, errors.New("injected list failure"))
		n := pods.CutWatches(fmt.Errorf("injected: %w", source.ErrExpired))
		fmt.Fprintf(out, "  compacted the history, expired %d watch(es), failed the next 2 lists\n", n)
		fmt.Fprintln(out, "  the reflector backs off, relists, infers the delete, and the controller replaces web-0")
		return nil
	}); err != nil {
		return err
	}
	if err := step("delete set batch (scale to 0)", func() error {
		return apply("batch", 0)
	}); err != nil {
		return err
	}

	wrote, stale := ctrl.writes()
	fmt.Fprintf(out, "\npods in the source: %d; creates and deletes by the controller: %d\n", pods.Len(), wrote)
	fmt.Fprintf(out, "writes refused because the controller acted on a stale cache: %d\n", stale)
	fmt.Fprintf(out, "pod watches opened: %d, pod lists: %d\n", pods.WatchCalls(), pods.ListCalls())
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
