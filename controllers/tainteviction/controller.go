package tainteviction

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/source"
)

// The DisruptionTarget condition the controller sets on a pod before
// deleting it, as kcm's addConditionAndDeletePod.
const (
	// ConditionDisruptionTarget is the pod condition type.
	ConditionDisruptionTarget api.PodConditionType = "DisruptionTarget"
	// ReasonDeletionByTaintManager is its reason.
	ReasonDeletionByTaintManager = "DeletionByTaintManager"
	// MessageDeletionByTaintManager is its message.
	MessageDeletionByTaintManager = "Taint manager: deleting due to NoExecute taint"
	// ReasonTaintManagerEviction is the reason of the events recorded when
	// an eviction is scheduled ("Marking for deletion Pod ns/name") and
	// cancelled ("Cancelling deletion of Pod ns/name").
	ReasonTaintManagerEviction = "TaintManagerEviction"
)

// Options configures a Controller. The zero value is valid.
type Options struct {
	// Recorder receives the TaintManagerEviction events. Default: none.
	Recorder events.Recorder
	// Logger receives a record per deleted pod. Default slog.Default().
	Logger *slog.Logger
}

// Controller is the taint eviction controller. Create it with New, run it
// with Run.
type Controller struct {
	podRes client.Resource[*api.Pod]
	pods   *informer.Informer[*api.Pod]
	nodes  *informer.Informer[*api.Node]
	opts   Options
	ctl    *reconcile.Controller[request]

	// mu guards the state below, which only the reconcile loop's one
	// worker touches.
	mu      sync.Mutex
	tainted map[string][]api.Taint // node → its NoExecute taints
	pending map[string]*pendingPod // pod key → scheduled eviction
}

type pendingPod struct {
	Pending
	uid api.UID
}

// request is what the controller's queue holds: a node whose NoExecute
// taints changed (Node), a pod to re-decide (Pod), or the deletion of the
// evictions that are due (Fire).
type request struct {
	Node string // a node's name
	Pod  string // a pod's key
	Fire bool
}

// nodePriority is the priority of live node events: above the pods'
// (the queue's default), so evictions start without waiting for pod
// events, as kcm's workers prefer node updates.
const nodePriority = 1

// New returns a Controller over the client c, with the shared informers
// of pods and nodes of f (named by resource, "pods" and "nodes"). It
// starts nothing: the caller starts f and calls Run.
func New(c client.Client, f *informer.Factory, opts Options) (*Controller, error) {
	switch {
	case c == nil:
		return nil, errors.New("tainteviction: client is nil")
	case f == nil:
		return nil, errors.New("tainteviction: factory is nil")
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	podRes, err := client.For[*api.Pod](c)
	if err != nil {
		return nil, fmt.Errorf("tainteviction: %w", err)
	}
	nodeRes, err := client.For[*api.Node](c)
	if err != nil {
		return nil, fmt.Errorf("tainteviction: %w", err)
	}
	pods, err := informer.Shared(f, podRes.Resource(), source.ListWatcher[*api.Pod](podRes), api.Key[*api.Pod], informer.Options[*api.Pod]{Logger: opts.Logger})
	if err != nil {
		return nil, fmt.Errorf("tainteviction: %w", err)
	}
	nodes, err := informer.Shared(f, nodeRes.Resource(), source.ListWatcher[*api.Node](nodeRes), api.Key[*api.Node], informer.Options[*api.Node]{Logger: opts.Logger})
	if err != nil {
		return nil, fmt.Errorf("tainteviction: %w", err)
	}
	tc := &Controller{podRes: podRes, pods: pods, nodes: nodes, opts: opts,
		tainted: map[string][]api.Taint{}, pending: map[string]*pendingPod{}}
	if tc.ctl, err = reconcile.New("taint-eviction-controller", reconcile.Func[request](tc.reconcile), reconcile.Options[request]{Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("tainteviction: %w", err)
	}
	if err := tc.watch(); err != nil {
		return nil, fmt.Errorf("tainteviction: %w", err)
	}
	return tc, nil
}

// watch wires the informers: a pod is re-decided when it comes or goes
// or its node, tolerations or deletion changed (kcm's PodUpdated); a node
// when it comes or goes or its NoExecute taints changed (kcm's
// NodeUpdated), at nodePriority.
func (tc *Controller) watch() error {
	podReq := func(p *api.Pod) []request { return []request{{Pod: api.Key(p)}} }
	opts := reconcile.WatchOptions{Handler: informer.HandlerOptions{Name: tc.ctl.Name()}}
	if _, err := reconcile.WatchEvents(tc.ctl, tc.pods, reconcile.Events[*api.Pod, request]{
		Map: podReq,
		Update: func(old, p *api.Pod) []request {
			if old.Spec.NodeName == p.Spec.NodeName &&
				slices.EqualFunc(old.Spec.Tolerations, p.Spec.Tolerations, tolerationEqual) &&
				(old.DeletionTimestamp == nil) == (p.DeletionTimestamp == nil) {
				return nil
			}
			return podReq(p)
		},
	}, opts); err != nil {
		return err
	}
	nodeReq := func(n *api.Node) []request { return []request{{Node: n.Name}} }
	opts.Priority = nodePriority
	_, err := reconcile.WatchEvents(tc.ctl, tc.nodes, reconcile.Events[*api.Node, request]{
		Map: nodeReq,
		Update: func(old, n *api.Node) []request {
			if slices.EqualFunc(NoExecuteTaints(old.Spec.Taints), NoExecuteTaints(n.Spec.Taints), taintEqual) {
				return nil
			}
			return nodeReq(n)
		},
	}, opts)
	return err
}

func taintEqual(a, b api.Taint) bool {
	return a.Key == b.Key && a.Value == b.Value && a.Effect == b.Effect &&
		(a.TimeAdded == nil) == (b.TimeAdded == nil) && (a.TimeAdded == nil || a.TimeAdded.Equal(b.TimeAdded.Time))
}

func tolerationEqual(a, b api.Toleration) bool {
	return a.Key == b.Key && a.Operator == b.Operator && a.Value == b.Value && a.Effect == b.Effect &&
		(a.TolerationSeconds == nil) == (b.TolerationSeconds == nil) &&
		(a.TolerationSeconds == nil || *a.TolerationSeconds == *b.TolerationSeconds)
}

// Run waits for the caches (an error wrapping
// reconcile.ErrCacheSyncTimeout if they have not synced within
// reconcile.DefaultCacheSyncTimeout), then handles node and pod events and
// deletes pods whose eviction is due, until ctx ends. It returns once the
// reconcile in flight, if any, has finished: ctx.Err() after a clean
// drain, or the reconcile loop's drain error — it wraps
// reconcile.ErrShutdownTimeout when the reconcile outlasted
// reconcile.DefaultShutdownTimeout and had its context cancelled, or
// workqueue.ErrDrainAborted. Run may be called once.
func (tc *Controller) Run(ctx context.Context) error {
	if ctx == nil {
		return errors.New("tainteviction: Run: context is nil")
	}
	return tc.ctl.Run(ctx)
}

// reconcile handles one request, then deletes the pods whose eviction is
// due and makes sure a Fire request waits for the next one.
func (tc *Controller) reconcile(ctx context.Context, req request) (reconcile.Result, error) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	now := time.Now()
	switch {
	case req.Node != "":
		tc.handleNode(req.Node, now)
	case req.Pod != "":
		tc.handlePod(req.Pod, now)
	}
	tc.fireDue(ctx)
	if next, ok := tc.nextDue(); ok {
		// A Fire request already waiting keeps the earlier time; one
		// that comes early finds nothing due and waits again.
		tc.ctl.Queue().AddAfter(request{Fire: true}, time.Until(next))
	}
	return reconcile.Result{}, nil
}

// handleNode is kcm's handleNodeUpdate: record the node's NoExecute
// taints and re-decide every pod on it.
func (tc *Controller) handleNode(name string, now time.Time) {
	n, ok := tc.nodes.Lister().Get(name)
	if !ok {
		delete(tc.tainted, name)
		return
	}
	taints := NoExecuteTaints(n.Spec.Taints)
	if len(taints) == 0 {
		delete(tc.tainted, name)
	} else {
		tc.tainted[name] = taints
	}
	for _, p := range tc.pods.Lister().List(func(p *api.Pod) bool { return p.Spec.NodeName == name }) {
		tc.apply(p, taints, now)
	}
}

// handlePod is kcm's handlePodUpdate.
func (tc *Controller) handlePod(key string, now time.Time) {
	p, ok := tc.pods.Lister().Get(key)
	if !ok {
		tc.cancel(key)
		return
	}
	nodeName := p.Spec.NodeName
	if nodeName == "" {
		return // unscheduled
	}
	taints, ok := tc.tainted[nodeName]
	if !ok {
		tc.cancel(key)
		return
	}
	tc.apply(p, taints, now)
}

func (tc *Controller) apply(p *api.Pod, taints []api.Taint, now time.Time) {
	key := api.Key(p)
	var pend *Pending
	if pp, ok := tc.pending[key]; ok && pp.uid == p.UID {
		pend = &pp.Pending
	}
	d := Decide(p, taints, pend, now)
	if d.Cancel {
		tc.cancel(key)
	}
	if d.Schedule != nil {
		tc.pending[key] = &pendingPod{Pending: *d.Schedule, uid: p.UID}
	}
}

func (tc *Controller) cancel(key string) {
	if _, ok := tc.pending[key]; !ok {
		return
	}
	delete(tc.pending, key)
	tc.event(key, "Cancelling deletion of Pod "+key)
}

func (tc *Controller) event(key, msg string) {
	if tc.opts.Recorder == nil {
		return
	}
	ns, name, _ := api.SplitKey(key)
	tc.opts.Recorder.Event(events.Ref{APIVersion: "v1", Kind: "Pod", Namespace: ns, Name: name},
		events.Normal, ReasonTaintManagerEviction, msg)
}

func (tc *Controller) nextDue() (time.Time, bool) {
	var next time.Time
	for _, p := range tc.pending {
		if next.IsZero() || p.FireAt.Before(next) {
			next = p.FireAt
		}
	}
	return next, !next.IsZero()
}

// fireDue deletes every pod whose eviction is due.
func (tc *Controller) fireDue(ctx context.Context) {
	now := time.Now()
	var due []string
	for key, p := range tc.pending {
		if !p.FireAt.After(now) {
			due = append(due, key)
		}
	}
	slices.Sort(due)
	for _, key := range due {
		uid := tc.pending[key].uid
		delete(tc.pending, key)
		tc.event(key, "Marking for deletion Pod "+key)
		tc.evict(ctx, key, uid)
	}
}

// evict is kcm's addConditionAndDeletePod: a live read, the
// DisruptionTarget condition, then a delete with the pod's own grace
// period and its uid as precondition.
func (tc *Controller) evict(ctx context.Context, key string, uid api.UID) {
	p, _, err := tc.podRes.Get(ctx, key)
	if err != nil || p.UID != uid {
		return // gone, or another pod under the same name
	}
	if c, ok := p.Status.GetCondition(ConditionDisruptionTarget); !ok || c.Status != api.ConditionTrue || c.Reason != ReasonDeletionByTaintManager {
		cond := api.PodCondition{Type: ConditionDisruptionTarget, Status: api.ConditionTrue,
			Reason: ReasonDeletionByTaintManager, Message: MessageDeletionByTaintManager, LastTransitionTime: api.NewTime(time.Now())}
		if ok {
			*c = cond
		} else {
			p.Status.Conditions = append(p.Status.Conditions, cond)
		}
		if _, err := tc.podRes.UpdateStatus(ctx, p); err != nil && !errors.Is(err, source.ErrNotFound) {
			tc.opts.Logger.Warn("tainteviction: cannot set DisruptionTarget; deleting anyway", "pod", key, "err", err)
		}
	}
	_, err = tc.podRes.DeleteWith(ctx, key, client.DeleteOptions{Preconditions: client.Preconditions{UID: uid}})
	switch {
	case err == nil:
		tc.opts.Logger.Info("tainteviction: deleted pod", "pod", key)
	case errors.Is(err, source.ErrNotFound), errors.Is(err, source.ErrConflict):
	default:
		tc.opts.Logger.Warn("tainteviction: cannot delete pod", "pod", key, "err", err)
	}
}
