package podgc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/source"
)

// The defaults, as kube-controller-manager's.
const (
	// DefaultTerminatedPodThreshold is --terminated-pod-gc-threshold.
	DefaultTerminatedPodThreshold = 12500
	// DefaultPeriod is gcCheckPeriod.
	DefaultPeriod = 20 * time.Second
	// DefaultQuarantine is how long a node must be missing before its
	// pods are collected (quarantineTime).
	DefaultQuarantine = 40 * time.Second
)

// passRequest is the one request of the collector's reconcile loop: a
// pass over every pod.
const passRequest = "pass"

// ReasonDeletionByPodGC is the reason of the DisruptionTarget condition
// set on a pod the collector deletes before it is terminal.
const ReasonDeletionByPodGC = "DeletionByPodGC"

// Options configures a Collector. The zero value is valid.
type Options struct {
	// TerminatedPodThreshold is how many terminated pods may remain.
	// Default (0) DefaultTerminatedPodThreshold; negative disables the
	// collection of terminated pods.
	TerminatedPodThreshold int
	// Period is the time between passes. Default DefaultPeriod.
	Period time.Duration
	// Quarantine is how long a node must be missing before its pods go.
	// Default DefaultQuarantine.
	Quarantine time.Duration
	// Logger receives a record per deleted pod. Default slog.Default().
	Logger *slog.Logger
}

// Collector is the pod garbage collector. Create it with New, run it with
// Run.
type Collector struct {
	podRes  client.Resource[*api.Pod]
	nodeRes client.Resource[*api.Node]
	pods    *informer.Informer[*api.Pod]
	nodes   *informer.Informer[*api.Node]
	opts    Options
	ctl     *reconcile.Controller[string]

	// Owned by the reconcile loop's one worker:
	// quarantined is when each missing node was first seen missing;
	quarantined map[string]time.Time
	// scheduled is set once the first pass has been scheduled.
	scheduled bool
}

// New returns a Collector over the client c, with the shared informers
// "pods" and "nodes" of f. It starts nothing: the caller starts f and
// calls Run.
func New(c client.Client, f *informer.Factory, opts Options) (*Collector, error) {
	switch {
	case c == nil:
		return nil, errors.New("podgc: client is nil")
	case f == nil:
		return nil, errors.New("podgc: factory is nil")
	case opts.Period < 0 || opts.Quarantine < 0:
		return nil, fmt.Errorf("podgc: negative Period (%v) or Quarantine (%v)", opts.Period, opts.Quarantine)
	}
	if opts.TerminatedPodThreshold == 0 {
		opts.TerminatedPodThreshold = DefaultTerminatedPodThreshold
	}
	if opts.Period == 0 {
		opts.Period = DefaultPeriod
	}
	if opts.Quarantine == 0 {
		opts.Quarantine = DefaultQuarantine
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	podRes, err := client.For[*api.Pod](c)
	if err != nil {
		return nil, fmt.Errorf("podgc: %w", err)
	}
	nodeRes, err := client.For[*api.Node](c)
	if err != nil {
		return nil, fmt.Errorf("podgc: %w", err)
	}
	pods, err := informer.Shared(f, podRes.Resource(), source.ListWatcher[*api.Pod](podRes), api.Key[*api.Pod], informer.Options[*api.Pod]{})
	if err != nil {
		return nil, fmt.Errorf("podgc: %w", err)
	}
	nodes, err := informer.Shared(f, nodeRes.Resource(), source.ListWatcher[*api.Node](nodeRes), api.Key[*api.Node], informer.Options[*api.Node]{})
	if err != nil {
		return nil, fmt.Errorf("podgc: %w", err)
	}
	g := &Collector{podRes: podRes, nodeRes: nodeRes, pods: pods, nodes: nodes, opts: opts, quarantined: map[string]time.Time{}}
	if g.ctl, err = reconcile.New("pod-garbage-collector", reconcile.Func[string](g.reconcile), reconcile.Options[string]{Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("podgc: %w", err)
	}
	// No handler: a pass reads the caches, it is not driven by their
	// events. Run waits for them all the same.
	for _, synced := range []func() bool{pods.HasSynced, nodes.HasSynced} {
		if err := g.ctl.AddSyncCheck(synced); err != nil {
			return nil, fmt.Errorf("podgc: %w", err)
		}
	}
	g.ctl.Enqueue(passRequest)
	return g, nil
}

// Run waits for the caches (an error wrapping
// reconcile.ErrCacheSyncTimeout if they have not synced within
// reconcile.DefaultCacheSyncTimeout), then makes a pass every
// Options.Period, the first one Period after the caches synced, until ctx
// ends. It returns once a pass in flight has finished: ctx.Err() after a
// clean drain, or the reconcile loop's drain error — it wraps
// reconcile.ErrShutdownTimeout when the pass outlasted
// reconcile.DefaultShutdownTimeout and had its context cancelled, or
// workqueue.ErrDrainAborted. Run may be called once.
func (g *Collector) Run(ctx context.Context) error {
	if ctx == nil {
		return errors.New("podgc: Run: context is nil")
	}
	return g.ctl.Run(ctx)
}

// reconcile is the loop's Reconciler of its one request: the first call,
// as soon as the caches have synced, only schedules the first pass; each
// later call makes a pass. Either way the request comes back after
// Options.Period.
func (g *Collector) reconcile(ctx context.Context, _ string) (reconcile.Result, error) {
	if g.scheduled {
		g.pass(ctx)
	}
	g.scheduled = true
	return reconcile.Result{RequeueAfter: g.opts.Period}, nil
}

// pass decides and acts once.
func (g *Collector) pass(ctx context.Context) {
	now := time.Now()
	pods := g.pods.Lister().List(nil)
	nodes := g.nodes.Lister()
	exists := func(name string) bool { _, ok := nodes.Get(name); return ok }
	for n := range g.quarantined {
		if exists(n) {
			delete(g.quarantined, n)
		}
	}
	d := Decide(pods, exists, g.quarantined, g.opts.TerminatedPodThreshold, g.opts.Quarantine, now)
	for _, n := range d.Quarantine {
		g.quarantined[n] = now
	}
	for _, n := range d.Confirm {
		_, _, err := g.nodeRes.Get(ctx, n)
		switch {
		case errors.Is(err, source.ErrNotFound):
			for _, p := range OnNode(pods, n) {
				d.Delete = append(d.Delete, Deletion{p, Orphaned})
			}
			delete(g.quarantined, n)
		case err == nil:
			delete(g.quarantined, n) // the cache was behind
		default:
			g.opts.Logger.Warn("podgc: cannot read node", "node", n, "err", err)
		}
	}
	for _, del := range d.Delete {
		g.delete(ctx, del)
	}
}

// delete marks a pod that is not terminal Failed with a DisruptionTarget
// condition, then deletes it with grace 0 and its UID as precondition.
func (g *Collector) delete(ctx context.Context, del Deletion) {
	p, key := del.Pod, api.Key(del.Pod)
	if !terminal(p) {
		cp := p.DeepCopy()
		cp.Status.Phase = api.PodFailed
		setCondition(&cp.Status, api.PodCondition{Type: "DisruptionTarget", Status: api.ConditionTrue,
			Reason: ReasonDeletionByPodGC, Message: "PodGC: " + string(del.Reason), LastTransitionTime: api.NewTime(time.Now())})
		if _, err := g.podRes.UpdateStatus(ctx, cp); err != nil && !errors.Is(err, source.ErrNotFound) {
			g.opts.Logger.Warn("podgc: cannot mark pod failed; deleting it anyway", "pod", key, "err", err)
		}
	}
	zero := int64(0)
	_, err := g.podRes.DeleteWith(ctx, key, client.DeleteOptions{
		GracePeriodSeconds: &zero, Preconditions: client.Preconditions{UID: p.UID}})
	switch {
	case err == nil:
		g.opts.Logger.Info("podgc: deleted pod", "pod", key, "reason", string(del.Reason))
	case errors.Is(err, source.ErrNotFound), errors.Is(err, source.ErrConflict):
		// gone, or re-created under the same name: not ours to delete
	default:
		g.opts.Logger.Warn("podgc: cannot delete pod", "pod", key, "err", err)
	}
}

func setCondition(s *api.PodStatus, c api.PodCondition) {
	for i := range s.Conditions {
		if s.Conditions[i].Type == c.Type {
			s.Conditions[i] = c
			return
		}
	}
	s.Conditions = append(s.Conditions, c)
}
