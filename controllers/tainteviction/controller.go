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

	mu         sync.Mutex
	dirtyNodes map[string]bool   // guarded by mu; node names to re-evaluate
	dirtyPods  map[string]string // guarded by mu; pod key → node name seen
	wake       chan struct{}     // capacity 1: something is dirty

	// Owned by Run's goroutine:
	tainted map[string][]api.Taint // node → its NoExecute taints
	pending map[string]*pendingPod // pod key → scheduled eviction
	regs    []*informer.Registration
}

type pendingPod struct {
	Pending
	uid api.UID
}

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
		dirtyNodes: map[string]bool{}, dirtyPods: map[string]string{}, wake: make(chan struct{}, 1),
		tainted: map[string][]api.Taint{}, pending: map[string]*pendingPod{}}
	reg, err := pods.AddEventHandler(informer.HandlerFuncs[*api.Pod]{
		AddFunc:    func(p *api.Pod, _ bool) { tc.podUpdated(nil, p) },
		UpdateFunc: func(old, p *api.Pod) { tc.podUpdated(old, p) },
		DeleteFunc: func(p *api.Pod, _ bool) { tc.podUpdated(p, nil) },
	}, informer.HandlerOptions{Name: "tainteviction"})
	if err != nil {
		return nil, fmt.Errorf("tainteviction: %w", err)
	}
	tc.regs = append(tc.regs, reg)
	reg, err = nodes.AddEventHandler(informer.HandlerFuncs[*api.Node]{
		AddFunc:    func(n *api.Node, _ bool) { tc.nodeUpdated(nil, n) },
		UpdateFunc: func(old, n *api.Node) { tc.nodeUpdated(old, n) },
		DeleteFunc: func(n *api.Node, _ bool) { tc.nodeUpdated(n, nil) },
	}, informer.HandlerOptions{Name: "tainteviction"})
	if err != nil {
		return nil, fmt.Errorf("tainteviction: %w", err)
	}
	tc.regs = append(tc.regs, reg)
	return tc, nil
}

// podUpdated queues a pod whose node or tolerations changed, or that came
// or went (kcm's PodUpdated).
func (tc *Controller) podUpdated(old, p *api.Pod) {
	cur := p
	if cur == nil {
		cur = old
	}
	if old != nil && p != nil && old.Spec.NodeName == p.Spec.NodeName &&
		slices.EqualFunc(old.Spec.Tolerations, p.Spec.Tolerations, tolerationEqual) &&
		(old.DeletionTimestamp == nil) == (p.DeletionTimestamp == nil) {
		return
	}
	tc.mu.Lock()
	tc.dirtyPods[api.Key(cur)] = cur.Spec.NodeName
	tc.mu.Unlock()
	tc.signal()
}

// nodeUpdated queues a node whose NoExecute taints changed, or that came
// or went (kcm's NodeUpdated).
func (tc *Controller) nodeUpdated(old, n *api.Node) {
	if old != nil && n != nil && slices.EqualFunc(NoExecuteTaints(old.Spec.Taints), NoExecuteTaints(n.Spec.Taints), taintEqual) {
		return
	}
	name := old
	if n != nil {
		name = n
	}
	tc.mu.Lock()
	tc.dirtyNodes[name.Name] = true
	tc.mu.Unlock()
	tc.signal()
}

func (tc *Controller) signal() {
	select {
	case tc.wake <- struct{}{}:
	default:
	}
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

// Run waits for the caches, then evaluates queued nodes (first) and pods
// and deletes pods whose eviction is due, until ctx ends; it returns
// ctx.Err(). It starts no goroutine: one loop with one timer, for the
// next eviction due, owns the controller's state.
func (tc *Controller) Run(ctx context.Context) error {
	if ctx == nil {
		return errors.New("tainteviction: Run: context is nil")
	}
	synced := []func() bool{tc.pods.HasSynced, tc.nodes.HasSynced}
	for _, r := range tc.regs {
		synced = append(synced, r.HasSynced)
	}
	if !informer.WaitForCacheSync(ctx, synced...) {
		return ctx.Err()
	}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		tc.processQueued(ctx)
		tc.fireDue(ctx)
		next, ok := tc.nextDue()
		if ok {
			timer.Reset(time.Until(next))
		} else {
			timer.Stop()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tc.wake:
		case <-timer.C:
		}
	}
}

// processQueued handles the queued nodes, then the queued pods, as kcm's
// workers prefer node updates so evictions start without waiting for pods.
func (tc *Controller) processQueued(ctx context.Context) {
	tc.mu.Lock()
	nodes, pods := tc.dirtyNodes, tc.dirtyPods
	tc.dirtyNodes, tc.dirtyPods = map[string]bool{}, map[string]string{}
	tc.mu.Unlock()
	now := time.Now()
	for _, name := range sortedKeys(nodes) {
		tc.handleNode(name, now)
	}
	for _, key := range sortedKeys(pods) {
		tc.handlePod(key, pods[key], now)
	}
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
func (tc *Controller) handlePod(key, nodeName string, now time.Time) {
	p, ok := tc.pods.Lister().Get(key)
	if !ok {
		tc.cancel(key)
		return
	}
	if p.Spec.NodeName != nodeName || nodeName == "" {
		return // a newer event about the pod is queued or it is unscheduled
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

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
