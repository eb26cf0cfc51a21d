package manager

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/eventsink"
	"github.com/ctrlkit/ctrlkit/controllers/hpa"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/leader"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// ErrLeadershipLost is what Run returns when its term ended before ctx
// did, once the controllers had started: they were stopped, and the
// manager cannot lead again (kube-controller-manager exits in this case
// and is restarted). A term that ends before the controllers start (its
// catch-up still running) is not lost leadership: Run campaigns again.
var ErrLeadershipLost = errors.New("manager: leadership lost")

// Runner is a controller as the manager runs it: Run returns once ctx
// ends and every goroutine it started has exited.
type Runner interface {
	Run(ctx context.Context) error
}

// Context is what a Descriptor's New gets.
type Context struct {
	// Client is the client contract the controller reads and writes
	// through (the manager's, as New got it).
	Client client.Client
	// Factory hands out the informers every controller shares.
	Factory *informer.Factory
	// Logger carries the attribute controller=<name>.
	Logger *slog.Logger
	// Recorder records the controller's events, as the component
	// named after it.
	Recorder events.Recorder
	// Workers is the controller's worker count: Options.Workers for its
	// name, or the Descriptor's default.
	Workers int
	// PodMetrics reports pods' resource usage to the horizontal pod
	// autoscaler: Options.PodMetrics.
	PodMetrics hpa.MetricsClient
	// RootCA is the CA bundle the root CA publisher puts in every
	// namespace: Options.RootCA.
	RootCA []byte
	// ReconcileMetrics is Options.ReconcileMetrics (nil when unset).
	ReconcileMetrics reconcile.MetricsProvider
	// QueueMetrics meters the controller's work queues: the manager's
	// counts for Stats, then Options.QueueMetrics. Never nil.
	QueueMetrics workqueue.MetricsProvider
}

// Descriptor describes a controller the manager can run.
type Descriptor struct {
	// Name is the controller's name in Options.Controllers, in logs
	// and as the events' component unless EventComponent is set.
	Name string
	// EventComponent is the component its events are recorded as, when
	// kube-controller-manager's controller records under a name other
	// than Name (the node lifecycle controller's "node-controller").
	// Default Name.
	EventComponent string
	// Aliases are other names Options.Controllers accepts for it.
	Aliases []string
	// DisabledByDefault leaves the controller out of "*": it runs only
	// when named (kube-controller-manager's bootstrapsigner is one).
	DisabledByDefault bool
	// Workers is the default worker count; 0 lets the controller
	// choose.
	Workers int
	// New builds the controller. It runs in manager.New, before any
	// informer starts, so that the informers it registers are synced
	// (on a standby replica too) before it leads.
	New func(Context) (Runner, error)
}

// Options configure a Manager. The zero value runs every controller of
// Descriptors, leading at once.
type Options struct {
	// Controllers selects the controllers as kube-controller-manager's
	// --controllers flag does: "*" is every controller not disabled by
	// default, "foo" enables foo, "-foo" disables it. Default {"*"}. An
	// unknown name is an error.
	Controllers []string
	// Workers overrides the worker count per controller name.
	Workers map[string]int
	// Descriptors are the controllers known. Default Descriptors(); a
	// caller adds its own with append(manager.Descriptors(), …).
	Descriptors []Descriptor
	// Elector elects the replica whose controllers act. Default: a
	// leader.Memory of this manager alone, which leads at once. Give
	// replicas one Memory (in one process) or an etcd.Elector.
	Elector leader.Elector
	// Factory is the informer factory the controllers share. Default: a
	// new one. Run starts it.
	Factory *informer.Factory
	// Recorder returns the event recorder of the named controller.
	// Default: an events.Broadcaster per controller writing Event
	// objects into the cluster, run by Run.
	Recorder func(controller string) events.Recorder
	// Logger receives the manager's and controllers' logs. Default:
	// discarded.
	Logger *slog.Logger
	// RootCA is the PEM bundle of the API server's CA that the root CA
	// publisher puts in every namespace's kube-root-ca.crt ConfigMap
	// (kube-controller-manager's --root-ca-file). Default: none (an empty
	// bundle is published).
	RootCA []byte
	// PodMetrics is the horizontal pod autoscaler's metrics source.
	// Default: an hpa.Load over the cluster's pods, every pod at 0%.
	PodMetrics hpa.MetricsClient
	// ReconcileMetrics and QueueMetrics meter every controller's
	// reconciles and work queues (the prometheus module's Provider is
	// both, under controller-runtime's and client-go's names). Default:
	// none; the manager counts queue depths and finished items for Stats
	// either way.
	ReconcileMetrics reconcile.MetricsProvider
	QueueMetrics     workqueue.MetricsProvider
}

// Manager runs a set of controllers over one cluster, one informer
// factory and one leader election. See the package documentation.
type Manager struct {
	client  client.Client
	opts    Options
	factory *informer.Factory
	logger  *slog.Logger
	names   []string
	runners []Runner
	brokers []*events.Broadcaster
	stats   []*controllerStats
	started atomic.Bool
	synced  atomic.Bool
	leading atomic.Bool
}

// New builds the selected controllers (registering their informers) but
// starts nothing. It fails on an unknown or duplicate controller name, a
// negative worker count, or a controller whose New fails.
func New(c client.Client, opts Options) (*Manager, error) {
	if c == nil {
		return nil, errors.New("manager: New: client is nil")
	}
	if opts.Descriptors == nil {
		opts.Descriptors = Descriptors()
	}
	if opts.Controllers == nil {
		opts.Controllers = []string{"*"}
	}
	if opts.Elector == nil {
		opts.Elector = leader.NewMemory()
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	factory := opts.Factory
	if factory == nil {
		factory = informer.NewFactory(informer.FactoryOptions{Logger: logger})
	}
	enabled, err := Select(opts.Descriptors, opts.Controllers)
	if err != nil {
		return nil, err
	}
	for name, n := range opts.Workers {
		if n < 0 {
			return nil, fmt.Errorf("manager: Options.Workers[%q] is negative (%d)", name, n)
		}
		if _, ok := lookup(opts.Descriptors, name); !ok {
			return nil, fmt.Errorf("manager: Options.Workers names unknown controller %q", name)
		}
	}
	m := &Manager{client: c, opts: opts, factory: factory, logger: logger}
	var eventsRes client.Resource[*api.Event]
	if opts.Recorder == nil {
		if eventsRes, err = client.For[*api.Event](c); err != nil {
			return nil, fmt.Errorf("manager: events: %w", err)
		}
	}
	for _, d := range enabled {
		workers := d.Workers
		if n, ok := workersFor(opts.Workers, d); ok {
			workers = n
		}
		var rec events.Recorder
		if opts.Recorder != nil {
			rec = opts.Recorder(d.Name)
		} else {
			component := d.EventComponent
			if component == "" {
				component = d.Name
			}
			b, err := events.NewBroadcaster(eventsink.New(eventsRes), events.Options{Component: component})
			if err != nil {
				return nil, fmt.Errorf("manager: %s: events: %w", d.Name, err)
			}
			m.brokers = append(m.brokers, b)
			rec = b
		}
		st := &controllerStats{name: d.Name, queue: opts.QueueMetrics}
		r, err := d.New(Context{
			Client: c, Factory: factory, Logger: logger.With("controller", d.Name), Recorder: rec, Workers: workers,
			PodMetrics: opts.PodMetrics, RootCA: opts.RootCA, ReconcileMetrics: opts.ReconcileMetrics, QueueMetrics: st,
		})
		if err != nil {
			return nil, fmt.Errorf("manager: %s: %w", d.Name, err)
		}
		if r == nil {
			return nil, fmt.Errorf("manager: %s: New returned no controller", d.Name)
		}
		m.names = append(m.names, d.Name)
		m.stats = append(m.stats, st)
		m.runners = append(m.runners, r)
	}
	return m, nil
}

func workersFor(w map[string]int, d Descriptor) (int, bool) {
	if n, ok := w[d.Name]; ok {
		return n, true
	}
	for _, a := range d.Aliases {
		if n, ok := w[a]; ok {
			return n, true
		}
	}
	return 0, false
}

func lookup(ds []Descriptor, name string) (Descriptor, bool) {
	for _, d := range ds {
		if d.Name == name || slices.Contains(d.Aliases, name) {
			return d, true
		}
	}
	return Descriptor{}, false
}

// Select returns the descriptors a --controllers list enables, in the
// order of ds. Entries are trimmed; an empty entry, an unknown name or
// a descriptor list with a duplicate name is an error.
func Select(ds []Descriptor, controllers []string) ([]Descriptor, error) {
	seen := map[string]bool{}
	for _, d := range ds {
		if d.Name == "" || d.New == nil {
			return nil, fmt.Errorf("manager: descriptor %q needs a name and New", d.Name)
		}
		for _, n := range append([]string{d.Name}, d.Aliases...) {
			if seen[n] {
				return nil, fmt.Errorf("manager: two descriptors are named %q", n)
			}
			seen[n] = true
		}
	}
	star := false
	on, off := map[string]bool{}, map[string]bool{}
	for _, raw := range controllers {
		s := strings.TrimSpace(raw)
		switch {
		case s == "*":
			star = true
			continue
		case s == "" || s == "-":
			return nil, fmt.Errorf("manager: empty controller name in %q", strings.Join(controllers, ","))
		}
		neg := strings.HasPrefix(s, "-")
		name := strings.TrimPrefix(s, "-")
		d, ok := lookup(ds, name)
		if !ok {
			return nil, fmt.Errorf("manager: unknown controller %q (known: %s)", name, strings.Join(Names(ds), ", "))
		}
		if neg {
			off[d.Name] = true
		} else {
			on[d.Name] = true
		}
	}
	var out []Descriptor
	for _, d := range ds {
		if off[d.Name] {
			continue
		}
		if on[d.Name] || (star && !d.DisabledByDefault) {
			out = append(out, d)
		}
	}
	return out, nil
}

// Names returns the names of ds, in order.
func Names(ds []Descriptor) []string {
	names := make([]string, len(ds))
	for i, d := range ds {
		names[i] = d.Name
	}
	return names
}

// Controllers returns the names of the controllers this manager runs, in
// start order.
func (m *Manager) Controllers() []string { return slices.Clone(m.names) }

// Factory returns the informer factory the controllers share.
func (m *Manager) Factory() *informer.Factory { return m.factory }

// Synced reports whether every informer of the controllers has synced.
func (m *Manager) Synced() bool { return m.synced.Load() }

// Leading reports whether this manager's controllers are running.
func (m *Manager) Leading() bool { return m.leading.Load() }

// Run starts the informers (so a standby replica keeps warm caches),
// waits until they have synced, campaigns for leadership and, once it
// leads and its caches have caught up with the store, runs every
// controller until ctx ends or the term does. It returns nil when ctx
// ended, ErrLeadershipLost when the term ended first (once the
// controllers had started), and the errors of
// controllers that stopped by themselves (one stopping stops the
// others). Every controller has returned before Run resigns its term, so
// another replica's controllers never start while this one's still run
// (with a distributed elector, see package leader on what that
// guarantees). Run may be called once.
//
// Until its controllers start, nothing transient ends Run: a Campaign
// error, or a catch-up that fails (a List of the store) or whose term
// ends first, is logged, the term (if any) is resigned so that another
// replica can lead, and Run campaigns again: at once if the term was
// taken away, else after a back-off of 1 s doubling at each failure up
// to 30 s, less a random part of up to half. Only a nil Term, a broken
// Elector, ends Run with an error before it leads.
func (m *Manager) Run(ctx context.Context) error {
	if ctx == nil {
		return errors.New("manager: Run: context is nil")
	}
	if !m.started.CompareAndSwap(false, true) {
		return errors.New("manager: Run called twice")
	}
	var bwg sync.WaitGroup
	bctx, bcancel := context.WithCancel(context.WithoutCancel(ctx))
	defer func() { bcancel(); bwg.Wait() }()
	for _, b := range m.brokers {
		bwg.Go(func() { _ = b.Run(bctx) })
	}

	m.factory.Start(ctx)
	if !m.factory.WaitForCacheSync(ctx) {
		return nil
	}
	m.synced.Store(true)
	m.logger.Info("caches synced; campaigning", "controllers", len(m.runners))
	term, err := m.campaign(ctx)
	if err != nil || term == nil {
		return err
	}
	m.logger.Info("leading; starting controllers", "controllers", m.names)
	tctx, cancel := withTerm(ctx, term)
	defer cancel()
	m.leading.Store(true)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for i, r := range m.runners {
		wg.Go(func() {
			err := r.Run(tctx)
			byItself := tctx.Err() == nil
			if byItself && err == nil {
				err = errors.New("stopped by itself")
			}
			if err != nil && !errors.Is(err, context.Canceled) {
				mu.Lock()
				errs = append(errs, fmt.Errorf("manager: %s: %w", m.names[i], err))
				mu.Unlock()
			}
			if byItself {
				// A controller that stops by itself stops them all.
				m.logger.Error("controller stopped; stopping the others", "controller", m.names[i], "err", err)
				cancel()
			}
		})
	}
	if len(m.runners) == 0 {
		<-tctx.Done() // nothing to run: lead until the term or ctx ends, as kcm does
	}
	wg.Wait()
	cancel()
	m.leading.Store(false)
	// Resign only now that the controllers have stopped.
	lost := ended(term)
	if err := resign(ctx, term); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if lost && ctx.Err() == nil {
		return ErrLeadershipLost
	}
	return nil
}

// campaign returns a live term once this replica leads and every cache
// holds what the store held when it began to lead (Factory.WaitForLatest:
// a warm cache may lag, and the previous leader's last writes must be in
// it before anything acts). A failed Campaign or catch-up is retried as
// Run's documentation says. It returns nil, nil once ctx ends, and an
// error only for a nil Term.
func (m *Manager) campaign(ctx context.Context) (leader.Term, error) {
	for failures := 0; ; {
		term, err := m.opts.Elector.Campaign(ctx)
		if ctx.Err() != nil {
			if err == nil && term != nil {
				_ = resign(ctx, term)
			}
			return nil, nil
		}
		if err == nil && term == nil {
			return nil, errors.New("manager: the elector returned no term")
		}
		if err == nil {
			cctx, stop := withTerm(ctx, term)
			err = m.factory.WaitForLatest(cctx)
			stop()
			if err == nil && !ended(term) {
				return term, nil
			}
			taken := ended(term)
			if rerr := resign(ctx, term); rerr != nil {
				m.logger.Warn("resign after a failed catch-up", "err", rerr)
			}
			if ctx.Err() != nil {
				return nil, nil
			}
			if taken {
				// Lost before the controllers started: nothing acted, so
				// this replica may lead again. The elector paces this.
				m.logger.Warn("term ended before the controllers started; campaigning again")
				continue
			}
			err = fmt.Errorf("catch up before leading: %w", err)
		} else {
			err = fmt.Errorf("campaign: %w", err)
		}
		failures++
		d := retryDelay(failures, rand.Float64())
		m.logger.Error("not leading; campaigning again after a back-off", "err", err, "failures", failures, "backoff", d)
		if !sleep(ctx, d) {
			return nil, nil
		}
	}
}

// The back-off of retryDelay.
const (
	// retryBase is the back-off after the first failure.
	retryBase = time.Second
	// retryMax bounds the back-off.
	retryMax = 30 * time.Second
)

// retryDelay is how long Run waits before it campaigns again after its
// n-th failure (n ≥ 1) to campaign or to catch up: retryBase doubled at
// each failure up to retryMax, of which a random half is taken off
// (jitter ∈ [0, 1), so the delay is in (d/2, d] for d the doubled value),
// so that replicas failing together do not campaign in step. These are
// the reflector's back-off (0.8 s doubling to 30 s, jittered) in round
// numbers.
func retryDelay(n int, jitter float64) time.Duration {
	d := retryBase
	for i := 1; i < n && d < retryMax; i++ {
		d *= 2
	}
	d = min(d, retryMax)
	jitter = min(max(jitter, 0), 1)
	return d - time.Duration(jitter*float64(d/2))
}

// sleep waits d or until ctx ends, and reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// ended reports whether term has ended.
func ended(term leader.Term) bool {
	select {
	case <-term.Done():
		return true
	default:
		return false
	}
}

// withTerm returns a context derived from parent that also ends when
// term does; its cancel returns once the goroutine watching the term has
// exited.
func withTerm(parent context.Context, term leader.Term) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case <-term.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() { cancel(); <-done }
}

// resign gives term up with a context that outlives ctx (a graceful
// hand-over) but not the term, so that a resign against an unreachable
// backend is bounded by the term's own lifetime.
func resign(ctx context.Context, term leader.Term) error {
	rctx, cancel := withTerm(context.WithoutCancel(ctx), term)
	defer cancel()
	if err := term.Resign(rctx); err != nil {
		return fmt.Errorf("manager: resign: %w", err)
	}
	return nil
}
