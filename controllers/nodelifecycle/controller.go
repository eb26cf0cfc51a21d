package nodelifecycle

import (
	"context"
	"errors"
	"fmt"
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

// NamespaceNodeLease is where kubelets keep their Leases, one per node,
// named after it.
const NamespaceNodeLease = "kube-node-lease"

// loopRequest is the one request of the controller's reconcile loop: an
// iteration of its control loop (see the package documentation, Wiring).
const loopRequest = "loop"

// writeRetries bounds the attempts of one write that meets conflicts
// (kcm's NodeHealthUpdateRetry).
const writeRetries = 5

// Controller is the node lifecycle controller. Create it with New, run it
// with Run.
type Controller struct {
	nodeRes client.Resource[*api.Node]
	podRes  client.Resource[*api.Pod]
	nodes   *informer.Informer[*api.Node]
	pods    *informer.Informer[*api.Pod]
	leases  *informer.Informer[*api.Lease]
	opts    Options
	ctl     *reconcile.Controller[string]

	mu         sync.Mutex
	dirtyNodes map[string]bool // guarded by mu: nodes for the NoSchedule pass
	dirtyPods  map[string]bool // guarded by mu: pods newly bound to a node

	// Owned by the reconcile loop's one worker:
	known       map[string]bool        // kcm's knownNodeSet
	health      map[string]*Health     // kcm's nodeHealthMap
	zoneStates  map[string]ZoneState   // per zone key
	queues      map[string]*taintQueue // per zone key; never removed
	retry       map[string]bool        // kcm's nodesToRetry (MarkPodsNotReady)
	nextMonitor time.Time              // when the next health pass is due; zero: at once
	nextTaint   time.Time              // when the zones' queues may be tried next
}

// New returns a Controller over the client c, with the shared informers
// of nodes, pods and leases of f (named by resource). It starts nothing:
// the caller starts f and calls Run.
func New(c client.Client, f *informer.Factory, opts Options) (*Controller, error) {
	switch {
	case c == nil:
		return nil, errors.New("nodelifecycle: client is nil")
	case f == nil:
		return nil, errors.New("nodelifecycle: factory is nil")
	}
	opts, err := opts.validate()
	if err != nil {
		return nil, err
	}
	nodes, err := client.For[*api.Node](c)
	if err != nil {
		return nil, fmt.Errorf("nodelifecycle: %w", err)
	}
	pods, err := client.For[*api.Pod](c)
	if err != nil {
		return nil, fmt.Errorf("nodelifecycle: %w", err)
	}
	leases, err := client.For[*api.Lease](c)
	if err != nil {
		return nil, fmt.Errorf("nodelifecycle: %w", err)
	}
	nc := &Controller{nodeRes: nodes, podRes: pods, opts: opts, dirtyNodes: map[string]bool{}, dirtyPods: map[string]bool{},
		known: map[string]bool{}, health: map[string]*Health{},
		zoneStates: map[string]ZoneState{}, queues: map[string]*taintQueue{}, retry: map[string]bool{}}
	if nc.nodes, err = informer.Shared(f, nodes.Resource(), source.ListWatcher[*api.Node](nodes), api.Key[*api.Node], informer.Options[*api.Node]{Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("nodelifecycle: %w", err)
	}
	if nc.pods, err = informer.Shared(f, pods.Resource(), source.ListWatcher[*api.Pod](pods), api.Key[*api.Pod], informer.Options[*api.Pod]{Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("nodelifecycle: %w", err)
	}
	if nc.leases, err = informer.Shared(f, leases.Resource(), source.ListWatcher[*api.Lease](leases), api.Key[*api.Lease], informer.Options[*api.Lease]{Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("nodelifecycle: %w", err)
	}
	if nc.ctl, err = reconcile.New("node-lifecycle-controller", reconcile.Func[string](nc.reconcile), reconcile.Options[string]{Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("nodelifecycle: %w", err)
	}
	if err := nc.watch(); err != nil {
		return nil, fmt.Errorf("nodelifecycle: %w", err)
	}
	if err := nc.ctl.AddSyncCheck(nc.leases.HasSynced); err != nil { // read, not watched
		return nil, fmt.Errorf("nodelifecycle: %w", err)
	}
	nc.ctl.Enqueue(loopRequest) // the first iteration, as soon as the caches have synced
	return nc, nil
}

// watch wires the informers: every node event but a delete (the
// NoSchedule pass of kcm's doNodeProcessingPassWorker) and a pod's
// binding to a node (kcm's doPodProcessingWorker) record the object for
// the loop's next iteration and request it.
func (nc *Controller) watch() error {
	opts := reconcile.WatchOptions{Handler: informer.HandlerOptions{Name: nc.ctl.Name()}}
	if _, err := reconcile.WatchEvents(nc.ctl, nc.nodes, reconcile.Events[*api.Node, string]{
		Create: func(n *api.Node) []string { nc.markNode(n.Name); return []string{loopRequest} },
		Update: func(_, n *api.Node) []string { nc.markNode(n.Name); return []string{loopRequest} },
	}, opts); err != nil {
		return err
	}
	_, err := reconcile.WatchEvents(nc.ctl, nc.pods, reconcile.Events[*api.Pod, string]{
		Create: func(p *api.Pod) []string {
			if p.Spec.NodeName == "" {
				return nil
			}
			nc.markPod(api.Key(p))
			return []string{loopRequest}
		},
		Update: func(old, p *api.Pod) []string {
			if p.Spec.NodeName == "" || p.Spec.NodeName == old.Spec.NodeName {
				return nil
			}
			nc.markPod(api.Key(p))
			return []string{loopRequest}
		},
	}, opts)
	return err
}

func (nc *Controller) markNode(name string) {
	nc.mu.Lock()
	nc.dirtyNodes[name] = true
	nc.mu.Unlock()
}

func (nc *Controller) markPod(key string) {
	nc.mu.Lock()
	nc.dirtyPods[key] = true
	nc.mu.Unlock()
}

// Run waits for the caches (an error wrapping
// reconcile.ErrCacheSyncTimeout if they have not synced within
// reconcile.DefaultCacheSyncTimeout), then monitors node health every
// Options.MonitorPeriod (the first pass at once), tries the zones'
// tainting queues every NodeEvictionPeriod while they hold nodes, and
// handles node and pod events in between, until ctx ends. It returns once
// the iteration in flight, if any, has finished: ctx.Err() after a clean
// drain, or the reconcile loop's drain error — it wraps
// reconcile.ErrShutdownTimeout when the iteration outlasted
// reconcile.DefaultShutdownTimeout and had its context cancelled, or
// workqueue.ErrDrainAborted. Run may be called once.
func (nc *Controller) Run(ctx context.Context) error {
	if ctx == nil {
		return errors.New("nodelifecycle: Run: context is nil")
	}
	return nc.ctl.Run(ctx)
}

// reconcile is one iteration of the control loop: the NoSchedule pass
// over the nodes that changed and the pods newly bound, then the health
// pass when it is due, then the zones' tainting queues when they hold
// nodes and are due. The request comes back when the next pass is due.
func (nc *Controller) reconcile(ctx context.Context, _ string) (reconcile.Result, error) {
	nc.processEvents(ctx)
	now := time.Now()
	if !now.Before(nc.nextMonitor) {
		nc.monitor(ctx, now)
		nc.nextMonitor = now.Add(nc.opts.MonitorPeriod)
		nc.nextTaint = now // try the queues right after the pass
	}
	if nc.queued() && !now.Before(nc.nextTaint) {
		nc.taintingPass(ctx, time.Now())
		nc.nextTaint = now.Add(NodeEvictionPeriod)
	}
	next := nc.nextMonitor
	if nc.queued() && nc.nextTaint.Before(next) {
		next = nc.nextTaint
	}
	// A pass that took longer than the period is due again at once.
	return reconcile.Result{RequeueAfter: max(time.Until(next), time.Nanosecond)}, nil
}

func (nc *Controller) queued() bool {
	for _, q := range nc.queues {
		if len(q.items) > 0 {
			return true
		}
	}
	return false
}

func (nc *Controller) queue(zone string) *taintQueue {
	q, ok := nc.queues[zone]
	if !ok {
		q = newTaintQueue(nc.opts.rates().Eviction)
		nc.queues[zone] = q
	}
	return q
}

// processEvents runs the NoSchedule pass over the nodes that changed and
// marks pods newly bound to a node that is not ready (kcm's
// doNodeProcessingPassWorker and doPodProcessingWorker).
func (nc *Controller) processEvents(ctx context.Context) {
	nc.mu.Lock()
	nodes, pods := nc.dirtyNodes, nc.dirtyPods
	nc.dirtyNodes, nc.dirtyPods = map[string]bool{}, map[string]bool{}
	nc.mu.Unlock()
	for _, name := range sortedKeys(nodes) {
		n, ok := nc.nodes.Lister().Get(name)
		if !ok {
			continue
		}
		if add, remove := NoScheduleTaints(n); len(add)+len(remove) > 0 {
			if !nc.swapTaints(ctx, n, add, remove) {
				nc.opts.Logger.Warn("nodelifecycle: cannot update NoSchedule taints", "node", name)
			}
		}
	}
	for _, key := range sortedKeys(pods) {
		p, ok := nc.pods.Lister().Get(key)
		if !ok {
			continue
		}
		h := nc.health[p.Spec.NodeName]
		if _, nodeOK := nc.nodes.Lister().Get(p.Spec.NodeName); h == nil || !nodeOK || h.Ready == nil {
			continue // the next monitor pass handles it
		}
		if h.Ready.Status != api.ConditionTrue {
			if err := nc.markPodsNotReady(ctx, []*api.Pod{p}, p.Spec.NodeName); err != nil {
				nc.opts.Logger.Warn("nodelifecycle: cannot mark pod not ready", "pod", key, "err", err)
				nc.markPod(key)
				nc.ctl.Enqueue(loopRequest)
			}
		}
	}
}

// monitor is kcm's monitorNodeHealth.
func (nc *Controller) monitor(ctx context.Context, now time.Time) {
	nodes := nc.nodes.Lister().List(nil)
	slices.SortFunc(nodes, func(a, b *api.Node) int { return cmpString(a.Name, b.Name) })
	present := map[string]bool{}
	for _, n := range nodes {
		present[n.Name] = true
		if !nc.known[n.Name] {
			nc.known[n.Name] = true
			nc.nodeEvent(n, events.Normal, "RegisteredNode", fmt.Sprintf("Registered Node %s in Controller", n.Name))
			nc.queue(ZoneKey(n))
			nc.markReachable(ctx, n)
		}
	}
	for name := range nc.known {
		if !present[name] {
			delete(nc.known, name)
			delete(nc.health, name)
			delete(nc.retry, name)
			nc.nodeEvent(&api.Node{ObjectMeta: api.ObjectMeta{Name: name}}, events.Normal, "RemovingNode", fmt.Sprintf("Removing Node %s from Controller", name))
		}
	}
	// The pods by node, grouped on the first need: a pass over healthy
	// nodes reads no pod (100,000 pods grouped and sorted every 5 s were
	// 5 % of a 100,000-pod run's CPU), as kcm lists a node's pods only
	// when it marks them.
	var byNode map[string][]*api.Pod
	podsOn := func(node string) []*api.Pod {
		if byNode == nil {
			byNode = map[string][]*api.Pod{}
			for _, p := range nc.pods.Lister().List(func(p *api.Pod) bool { return p.Spec.NodeName != "" }) {
				byNode[p.Spec.NodeName] = append(byNode[p.Spec.NodeName], p)
			}
		}
		p := byNode[node]
		slices.SortFunc(p, func(a, b *api.Pod) int { return cmpString(api.Key(a), api.Key(b)) })
		return p
	}
	zones := map[string][]*api.NodeCondition{}
	for _, n := range nodes {
		obs, node, ok := nc.updateHealth(ctx, n, now)
		if !ok {
			continue // "no pods will be evicted"
		}
		if _, excluded := node.Labels[api.LabelNodeExcludeDisruption]; !excluded {
			zones[ZoneKey(node)] = append(zones[ZoneKey(node)], obs.Current)
		}
		if obs.Current == nil {
			delete(nc.retry, node.Name)
			continue
		}
		nc.taintBasedEviction(ctx, node, obs.Observed.Status, now)
		becameNotReady := obs.Current.Status != api.ConditionTrue && obs.Observed.Status == api.ConditionTrue
		if becameNotReady {
			nc.nodeEvent(node, events.Normal, "NodeNotReady", fmt.Sprintf("Node %s status is now: NodeNotReady", node.Name))
		}
		if becameNotReady || (nc.retry[node.Name] && obs.Observed.Status != api.ConditionTrue) {
			if err := nc.markPodsNotReady(ctx, podsOn(node.Name), node.Name); err != nil {
				nc.opts.Logger.Warn("nodelifecycle: cannot mark pods not ready; will retry", "node", node.Name, "err", err)
				nc.retry[node.Name] = true
				continue
			}
		}
		delete(nc.retry, node.Name)
	}
	nc.handleDisruption(ctx, zones, nodes, now)
}

// updateHealth observes one node and writes its Unknown conditions when it
// is stale, re-reading the node on a conflict (kcm's retry around
// tryUpdateNodeHealth). It returns the node as written.
func (nc *Controller) updateHealth(ctx context.Context, n *api.Node, now time.Time) (Observation, *api.Node, bool) {
	lease, _ := nc.leases.Lister().Get(api.NamespacedKey(NamespaceNodeLease, n.Name))
	g := Graces{Monitor: nc.opts.MonitorGracePeriod, Startup: nc.opts.StartupGracePeriod}
	for range writeRetries {
		obs := ObserveHealth(n, lease, nc.health[n.Name], g, now)
		h := obs.Health
		nc.health[n.Name] = &h
		if obs.Status == nil {
			return obs, n, true
		}
		cp := n.DeepCopy()
		cp.Status = *obs.Status
		_, err := nc.nodeRes.UpdateStatus(ctx, cp)
		if err == nil {
			after := obs.AfterWrite
			nc.health[n.Name] = &after
			cur, _ := cp.Status.GetCondition(api.NodeReady)
			obs.Current = cur
			return obs, cp, true
		}
		nc.opts.Logger.Warn("nodelifecycle: cannot update node status", "node", n.Name, "err", err)
		if n, _, err = nc.nodeRes.Get(ctx, n.Name); err != nil {
			return Observation{}, nil, false
		}
	}
	return Observation{}, nil, false
}

// taintBasedEviction is kcm's processTaintBaseEviction.
func (nc *Controller) taintBasedEviction(ctx context.Context, n *api.Node, observed api.ConditionStatus, now time.Time) {
	q := nc.queue(ZoneKey(n))
	switch NoExecuteDecision(observed, n.Spec.Taints) {
	case SwapToNotReady:
		nc.swapTaints(ctx, n, []api.Taint{NotReadyTaint}, []api.Taint{UnreachableTaint})
	case SwapToUnreachable:
		nc.swapTaints(ctx, n, []api.Taint{UnreachableTaint}, []api.Taint{NotReadyTaint})
	case QueueNotReady:
		if !taintExists(n.Spec.Taints, &NotReadyTaint) {
			q.remove(n.Name)
		}
		q.add(n.Name, string(n.UID), now)
	case QueueUnreachable:
		if !taintExists(n.Spec.Taints, &UnreachableTaint) {
			q.remove(n.Name)
		}
		q.add(n.Name, string(n.UID), now)
	case MarkReachable:
		nc.markReachable(ctx, n)
	}
}

// markReachable removes both NoExecute taints and drops the node from its
// zone's queue.
func (nc *Controller) markReachable(ctx context.Context, n *api.Node) {
	if !nc.swapTaints(ctx, n, nil, []api.Taint{UnreachableTaint, NotReadyTaint}) {
		nc.opts.Logger.Warn("nodelifecycle: cannot remove NoExecute taints", "node", n.Name)
		return
	}
	nc.queue(ZoneKey(n)).remove(n.Name)
}

// taintingPass is kcm's doNoExecuteTaintingPass: each zone's queue taints
// its due nodes, as its rate allows.
func (nc *Controller) taintingPass(ctx context.Context, now time.Time) {
	for _, zone := range sortedKeys(nc.queues) {
		nc.queues[zone].try(now, func(name, _ string) (bool, time.Duration) {
			n, ok := nc.nodes.Lister().Get(name)
			if !ok {
				return true, 0
			}
			c, ok := n.Status.GetCondition(api.NodeReady)
			if !ok {
				return false, 50 * time.Millisecond
			}
			add, remove, ok := TaintForReady(c.Status)
			if !ok {
				return true, 0 // ready again
			}
			return nc.swapTaints(ctx, n, []api.Taint{add}, []api.Taint{remove}), 0
		})
	}
}

// handleDisruption applies Disruption's verdict.
func (nc *Controller) handleDisruption(ctx context.Context, zones map[string][]*api.NodeCondition, nodes []*api.Node, now time.Time) {
	res := Disruption(nc.zoneStates, zones, nc.opts.UnhealthyZoneThreshold, nc.opts.rates())
	for _, zone := range sortedKeys(res.States) {
		if s := res.States[zone]; s != nc.zoneStates[zone] {
			nc.opts.Logger.Info("nodelifecycle: zone changed state", "zone", zone, "state", string(s))
		}
	}
	if res.MarkAllReachable {
		nc.opts.Logger.Info("nodelifecycle: every node is not ready; entering full disruption mode: no evictions")
		for _, n := range nodes {
			if cur, ok := nc.nodes.Lister().Get(n.Name); ok {
				nc.markReachable(ctx, cur)
			}
		}
	}
	if res.ResetProbes {
		nc.opts.Logger.Info("nodelifecycle: some nodes are ready; leaving full disruption mode")
		for _, n := range nodes {
			if h := nc.health[n.Name]; h != nil {
				h.ProbeTime, h.ReadyTransitionTime = now, now
			}
		}
	}
	for zone, r := range res.Rates {
		nc.queue(zone).setRate(r, now)
	}
	nc.zoneStates = res.States
}

// swapTaints adds and removes taints of n in one update (the cached node
// first, a live read after a conflict), so the unreachable and not-ready
// taints are swapped atomically. It reports whether the node now carries
// the result.
func (nc *Controller) swapTaints(ctx context.Context, n *api.Node, add, remove []api.Taint) bool {
	node := n.DeepCopy()
	for range writeRetries {
		taints, changed := applyTaints(node.Spec.Taints, add, remove, api.NewTime(time.Now()))
		if !changed {
			return true
		}
		node.Spec.Taints = taints
		_, err := nc.nodeRes.Update(ctx, node, "")
		if err == nil {
			return true
		}
		if !errors.Is(err, source.ErrConflict) {
			nc.opts.Logger.Warn("nodelifecycle: cannot update node taints", "node", n.Name, "err", err)
			return false
		}
		if node, _, err = nc.nodeRes.Get(ctx, n.Name); err != nil {
			return false
		}
	}
	return false
}

// markPodsNotReady sets the Ready condition of the pods on nodeName to
// False (kcm's MarkPodsNotReady); a pod gone meanwhile is skipped.
func (nc *Controller) markPodsNotReady(ctx context.Context, pods []*api.Pod, nodeName string) error {
	var errs []error
	for _, p := range pods {
		if p.Spec.NodeName != nodeName {
			continue
		}
		c, ok := p.Status.GetCondition(api.PodReady)
		if !ok || c.Status == api.ConditionFalse {
			continue
		}
		cp := p.DeepCopy()
		c, _ = cp.Status.GetCondition(api.PodReady)
		c.Status, c.LastTransitionTime = api.ConditionFalse, api.NewTime(time.Now())
		if _, err := nc.podRes.UpdateStatus(ctx, cp); err != nil {
			if errors.Is(err, source.ErrNotFound) {
				continue
			}
			errs = append(errs, fmt.Errorf("pod %s: %w", api.Key(p), err))
			continue
		}
		if nc.opts.Recorder != nil {
			nc.opts.Recorder.Event(events.Ref{APIVersion: "v1", Kind: "Pod", Namespace: p.Namespace, Name: p.Name, UID: string(p.UID)},
				events.Warning, "NodeNotReady", "Node is not ready")
		}
	}
	return errors.Join(errs...)
}

func (nc *Controller) nodeEvent(n *api.Node, typ events.Type, reason, msg string) {
	if nc.opts.Recorder != nil {
		nc.opts.Recorder.Event(events.Ref{APIVersion: "v1", Kind: "Node", Name: n.Name, UID: string(n.UID)}, typ, reason, msg)
	}
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
