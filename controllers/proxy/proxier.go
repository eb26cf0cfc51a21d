package proxy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/source"
)

// Defaults of Options: kube-proxy's iptables mode.
const (
	// DefaultMinSyncPeriod is kube-proxy's --iptables-min-sync-period
	// default, 1s: changes closer together are applied in one sync.
	DefaultMinSyncPeriod = time.Second
	// DefaultSyncPeriod is kube-proxy's --iptables-sync-period default,
	// 30s: the rules are rebuilt in full this often even without a change.
	DefaultSyncPeriod = 30 * time.Second
)

// Options configure New. The zero value is valid: a rules table with
// round-robin choice and no userspace proxy.
type Options struct {
	// Mode is how Lookup picks an endpoint. Default RoundRobin.
	Mode Mode
	// MinSyncPeriod is the least time between two syncs; changes within
	// it are coalesced into the next sync. Default DefaultMinSyncPeriod;
	// negative is an error.
	MinSyncPeriod time.Duration
	// SyncPeriod is the time after which the table is rebuilt in full
	// without any change. Default DefaultSyncPeriod; it must not be
	// below MinSyncPeriod.
	SyncPeriod time.Duration
	// Userspace, if set, makes Run also proxy TCP for real: a listener on
	// a loopback address per TCP service port, splicing connections to
	// the endpoints (see Proxier.ServiceAddr and Proxier.DialContext).
	Userspace bool
	// Resolver, if set, lets DialContext take service DNS names
	// ("web.default.svc.cluster.local:80"); a *dns.Resolver is one.
	// Default: none, DialContext takes IP addresses only.
	Resolver HostResolver
	// Logger receives the proxy's logs. Default slog.Default().
	Logger *slog.Logger
}

// HostResolver resolves a fully qualified name to addresses, as
// controllers/dns's Resolver does.
type HostResolver interface {
	LookupHost(name string) ([]netip.Addr, error)
}

func (o *Options) validate() error {
	switch {
	case o.MinSyncPeriod < 0:
		return fmt.Errorf("proxy: MinSyncPeriod %v is negative", o.MinSyncPeriod)
	case o.SyncPeriod < 0:
		return fmt.Errorf("proxy: SyncPeriod %v is negative", o.SyncPeriod)
	case o.Mode != RoundRobin && o.Mode != Random:
		return fmt.Errorf("proxy: unknown Mode %d", o.Mode)
	}
	if o.MinSyncPeriod == 0 {
		o.MinSyncPeriod = DefaultMinSyncPeriod
	}
	if o.SyncPeriod == 0 {
		o.SyncPeriod = max(DefaultSyncPeriod, o.MinSyncPeriod)
	}
	if o.SyncPeriod < o.MinSyncPeriod {
		return fmt.Errorf("proxy: SyncPeriod %v is below MinSyncPeriod %v", o.SyncPeriod, o.MinSyncPeriod)
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return nil
}

// Proxier is kube-proxy for one node: see the package documentation. Its
// methods are safe for concurrent use.
type Proxier struct {
	opts      Options
	log       *slog.Logger
	services  *informer.Informer[*api.Service]
	endpoints *informer.Informer[*api.Endpoints]
	// ctl runs the syncs: one request, the table, enqueued by every
	// change of either informer (see Run).
	ctl     *reconcile.Controller[struct{}]
	dirty   atomic.Bool // a change is not applied yet; set before the request is enqueued
	started atomic.Bool // Run was called

	// Owned by the sync (the controller's one worker).
	last  time.Time       // when the last sync ran; zero before the first
	runCx context.Context // Run's ctx: the userspace goroutines end with it
	runWG *sync.WaitGroup // Run's: it waits for the userspace goroutines

	table      atomic.Pointer[table] // the applied rules; nil before the first sync
	generation atomic.Uint64

	mu      sync.Mutex
	applied chan struct{} // closed and replaced by each sync; guarded by mu

	us *userspace // nil without Options.Userspace
}

// New returns the proxy of the cluster that c serves, over the shared
// informers of f ("services", "endpoints"). Start f after New, then Run.
func New(c client.Client, f *informer.Factory, opts Options) (*Proxier, error) {
	if c == nil || f == nil {
		return nil, errors.New("proxy: client and factory are required")
	}
	if err := opts.validate(); err != nil {
		return nil, err
	}
	services, err := client.For[*api.Service](c)
	if err != nil {
		return nil, fmt.Errorf("proxy: %w", err)
	}
	endpoints, err := client.For[*api.Endpoints](c)
	if err != nil {
		return nil, fmt.Errorf("proxy: %w", err)
	}
	p := &Proxier{opts: opts, log: opts.Logger.With("component", "kube-proxy"), applied: make(chan struct{})}
	p.dirty.Store(true) // the first sync is due at once
	if p.ctl, err = reconcile.New("kube-proxy", reconcile.Func[struct{}](p.reconcile), reconcile.Options[struct{}]{
		Logger: opts.Logger,
		// kube-proxy waits for its caches as long as it takes.
		CacheSyncTimeout: forever,
	}); err != nil {
		return nil, fmt.Errorf("proxy: %w", err)
	}
	if p.services, err = informer.Shared(f, services.Resource(), source.ListWatcher[*api.Service](services), api.Key[*api.Service], informer.Options[*api.Service]{Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("proxy: %w", err)
	}
	if p.endpoints, err = informer.Shared(f, endpoints.Resource(), source.ListWatcher[*api.Endpoints](endpoints), api.Key[*api.Endpoints], informer.Options[*api.Endpoints]{Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("proxy: %w", err)
	}
	if err := register(p, p.services); err != nil {
		return nil, err
	}
	if err := register(p, p.endpoints); err != nil {
		return nil, err
	}
	if opts.Userspace {
		p.us = newUserspace(p)
	}
	return p, nil
}

// forever is a cache sync timeout that never runs out.
const forever = time.Duration(math.MaxInt64)

// syncTable is the one request of the proxy's controller: "sync the table".
var syncTable = struct{}{}

// register wires inf to the controller: every change marks the table
// dirty (reconcile.Observe, so the mark precedes the request) and
// enqueues the one request.
func register[T api.Object](p *Proxier, inf *informer.Informer[T]) error {
	mark := informer.HandlerFuncs[T]{
		AddFunc:    func(T, bool) { p.dirty.Store(true) },
		UpdateFunc: func(T, T) { p.dirty.Store(true) },
		DeleteFunc: func(T, bool) { p.dirty.Store(true) },
	}
	_, err := reconcile.Watch(p.ctl, reconcile.Observe(inf, informer.Handler[T](mark)),
		func(T) []struct{} { return []struct{}{syncTable} },
		reconcile.WatchOptions{Handler: informer.HandlerOptions{Name: "kube-proxy"}})
	if err != nil {
		return fmt.Errorf("proxy: %w", err)
	}
	return nil
}

// Run waits for the caches, then applies the rules — at once, then at
// most once per MinSyncPeriod after changes, and every SyncPeriod in full
// — until ctx ends; with Options.Userspace it also proxies. It returns
// after every goroutine it started has exited, with the error of the
// controller's drain (reconcile.Controller.Run): ctx.Err() after a clean
// one. A second call returns an error.
func (p *Proxier) Run(ctx context.Context) error {
	if ctx == nil {
		return errors.New("proxy: Run: context is nil")
	}
	if !p.started.CompareAndSwap(false, true) {
		return errors.New("proxy: Run called twice")
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	if p.us != nil {
		defer p.us.closeAll()
	}
	p.runCx, p.runWG = ctx, &wg // read by the sync, which starts after this
	p.ctl.Enqueue(syncTable)    // the first sync at once, even over empty caches
	return p.ctl.Run(ctx)
}

// reconcile is the controller's one request: a sync if a change is
// pending and MinSyncPeriod has passed since the last one, or if
// SyncPeriod has; otherwise a requeue for when one is due. Each sync
// requeues the request after SyncPeriod, the full resync.
func (p *Proxier) reconcile(context.Context, struct{}) (reconcile.Result, error) {
	now := time.Now()
	if !p.last.IsZero() {
		if !p.dirty.Load() {
			if wait := p.last.Add(p.opts.SyncPeriod).Sub(now); wait > 0 {
				return reconcile.Result{RequeueAfter: wait}, nil
			}
		} else if wait := p.last.Add(p.opts.MinSyncPeriod).Sub(now); wait > 0 {
			// Coalesce: the next sync no earlier than MinSyncPeriod
			// after the last one.
			return reconcile.Result{RequeueAfter: wait}, nil
		}
	}
	p.dirty.Store(false) // before the caches are read: a later change syncs again
	p.sync(p.runCx, p.runWG)
	p.last = now
	return reconcile.Result{RequeueAfter: p.opts.SyncPeriod}, nil
}

// sync builds the table from the caches and applies it: from now on
// Lookup answers from it.
func (p *Proxier) sync(ctx context.Context, wg *sync.WaitGroup) {
	services := p.services.Lister().List(nil)
	eps := map[string]*api.Endpoints{}
	for k, e := range p.endpoints.Lister().All() {
		eps[k] = e
	}
	t := buildTable(services, eps, p.opts.Mode, p.table.Load())
	p.table.Store(t)
	if p.us != nil {
		p.us.apply(ctx, t, wg)
	}
	gen := p.generation.Add(1)
	p.log.Debug("synced rules", "generation", gen, "rules", len(t.rules))
	p.mu.Lock()
	close(p.applied)
	p.applied = make(chan struct{})
	p.mu.Unlock()
}

// Generation counts the syncs applied so far.
func (p *Proxier) Generation() uint64 { return p.generation.Load() }

// Applied returns a channel closed by the next sync: take it, check a
// condition, and wait on it if the condition does not hold yet.
func (p *Proxier) Applied() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.applied
}

// Rules returns the applied rules, sorted by service port; nil before the
// first sync.
func (p *Proxier) Rules() []Rule {
	t := p.table.Load()
	if t == nil {
		return nil
	}
	return slices.Clone(t.rules)
}

// Lookup routes a TCP connection from client to dst as the applied rules
// do: dst is a service's cluster IP or external IP and port, or any other
// address with a service's node port; the answer is one of the service
// port's ready endpoints, chosen by Options.Mode, or the endpoint of the
// client's session with sessionAffinity ClientIP. It returns
// ErrNoService when no rule matches and ErrNoEndpoints when the service
// has no ready endpoint. A change of the cluster is seen only once a sync
// applied it.
func (p *Proxier) Lookup(dst netip.AddrPort, client netip.Addr) (netip.AddrPort, error) {
	t := p.table.Load()
	if t == nil {
		return netip.AddrPort{}, fmt.Errorf("%w: %s (no rules applied yet)", ErrNoService, dst)
	}
	b, ok := t.lookup(dst, api.ProtocolTCP)
	if !ok {
		return netip.AddrPort{}, fmt.Errorf("%w: %s", ErrNoService, dst)
	}
	return b.pick(client, time.Now(), false)
}
