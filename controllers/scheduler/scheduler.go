package scheduler

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/source"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// DefaultSchedulerName is the spec.schedulerName the scheduler serves by
// default (an empty schedulerName counts as it, as the API server
// defaults it).
const DefaultSchedulerName = "default-scheduler"

// Options configure a Scheduler. Pods, Nodes and Binder are required.
type Options struct {
	// Pods lists and watches the pods: every pod, or (as kube-scheduler
	// asks its API server) the non-terminated ones through the field
	// selector status.phase!=Succeeded,status.phase!=Failed — bound pods
	// included. Bound pods fill the snapshot; unbound ones (spec.nodeName
	// "", kube-scheduler's old server-side filter spec.nodeName=) are queued. One
	// informer over both keeps the two views consistent (see the package
	// doc, "Sources").
	Pods source.ListWatcher[*api.Pod]
	// Nodes lists and watches the nodes.
	Nodes source.ListWatcher[*api.Node]
	// Binder binds pods (PodWriter over a source.Writer is one).
	Binder Binder
	// Status, if set, receives the PodScheduled=False condition of
	// unschedulable pods. Default: none (Explain still tells).
	Status StatusWriter

	// Claims, if set, looks up PersistentVolumeClaims (a lister; called
	// under the scheduler's lock, so it must not block) for the
	// VolumeRestrictions filter — a pod mounting a ReadWriteOncePod claim
	// that another pod uses fits nowhere — and VolumeBinding's PreFilter:
	// a pod with a claim that is missing, Lost, being deleted or not
	// bound (unless of delayed binding, see StorageClasses) fits
	// nowhere, and is retried on its backoff (there is no claim watch;
	// see the package doc). Default: none (no claim is checked).
	Claims ClaimLookup
	// Volumes, if set with Claims, looks up PersistentVolumes by name (a
	// lister; must not block) for VolumeBinding's Filter: a bound claim's
	// volume with spec.nodeAffinity.required admits only the nodes whose
	// labels match it, and a missing volume admits none. Default: none
	// (bound claims fit on every node).
	Volumes VolumeLookup
	// StorageClasses, if set, looks up StorageClasses (a lister; must
	// not block) for VolumeBinding's delayed binding: an unbound claim
	// whose class has volumeBindingMode WaitForFirstConsumer no longer
	// holds the pod; the Filter admits a node where an available volume
	// matching the claim has node affinity admitting it, or where the
	// class's provisioner can provision, and the chosen node's volumes
	// are pre-bound (or the claims annotated AnnSelectedNode) before the
	// pod is bound (see the package doc, "Delayed binding"). It needs
	// Claims, Volumes, VolumeList and VolumeWriter. Default: none (every
	// claim counts as of Immediate binding).
	StorageClasses StorageClassLookup
	// VolumeList lists every PersistentVolume (a lister; must not
	// block), with StorageClasses: the volumes a delayed claim may take.
	VolumeList VolumeLister
	// VolumeWriter, with StorageClasses, makes VolumeBinding's PreBind
	// writes. ClusterWriter is one.
	VolumeWriter VolumeWriter
	// BindTimeout bounds how long VolumeBinding's PreBind waits for the
	// claims it bound or had provisioned to be bound (kube-scheduler's
	// VolumeBindingArgs bindTimeoutSeconds). Default DefaultBindTimeout
	// (600 s).
	BindTimeout time.Duration
	// CSINodes, if set with Claims and Volumes, looks up a node's CSINode
	// (a lister; must not block) for NodeVolumeLimits: a node holds at
	// most its drivers' allocatable.count of CSI volumes each. Default:
	// none (no volume limit).
	CSINodes CSINodeLookup
	// Namespaces, if set, looks up a namespace's labels (a lister; must
	// not block) for the namespaceSelector of pod (anti-)affinity terms.
	// Default: none (every namespace is taken to have no labels, so a
	// non-empty namespaceSelector matches only through NotIn and
	// DoesNotExist; an empty one matches every namespace all the same).
	Namespaces NamespaceLookup
	// Preempt, if set, makes the scheduler preempt as kube-scheduler's
	// DefaultPreemption: a pod that fits nowhere, unless its
	// preemptionPolicy is Never, evicts lower-priority pods from the
	// node where that makes it fit (see the package doc, "Preemption").
	// Default: none — no pod is evicted, and the FailedScheduling
	// message counts every node preemption might help as holding no
	// victims (PreemptionMessage). ClusterWriter and PodWriter are
	// PreemptWriters.
	Preempt PreemptWriter
	// PDBs, if set with Preempt, looks up a namespace's
	// PodDisruptionBudgets (a lister; must not block): preemption
	// prefers victims whose eviction violates none. Default: none (no
	// victim violates a budget).
	PDBs PDBLookup
	// TaintTolerationComparisonOperators is kube's feature gate of that
	// name (alpha since v1.35, off by default in v1.37): on, a
	// toleration with operator Gt or Lt tolerates a taint whose value,
	// a decimal integer, is greater or less than its own; off (the
	// default), such a toleration tolerates no taint, as
	// kube-scheduler's TaintToleration (and PodTopologySpread's
	// nodeTaintsPolicy) with the gate off.
	TaintTolerationComparisonOperators bool
	// NodeAffinityArgs are the NodeAffinity plugin's arguments in the
	// profile: AddedAffinity, a node affinity enforced on every pod (see
	// NodeAffinityArgs). A malformed one is an error of New. Default:
	// none.
	NodeAffinityArgs NodeAffinityArgs
	// Synced are more HasSynced functions Run waits for before its first
	// attempt: those of the informers behind Claims and Volumes, so that
	// a claim not listed yet does not hold a pod for a backoff. A nil
	// one is an error of New. Default: none.
	Synced []func() bool

	// SchedulerName is the spec.schedulerName served. Default
	// DefaultSchedulerName.
	SchedulerName string
	// Weights weigh the score plugins (see Weights for the defaults).
	Weights Weights
	// Seed seeds the random choice among equally scored nodes. The zero
	// value is a valid seed: runs with the same inputs choose alike.
	Seed uint64
	// AssumeTTL is how long an assumed pod counts after its bind
	// returned without the bound pod being observed. Default 30s;
	// negative never expires.
	AssumeTTL time.Duration
	// InitialBackoff and MaxBackoff bound the retry delay of a pod that
	// did not fit or failed to bind: InitialBackoff doubled per attempt
	// up to MaxBackoff (kube-scheduler's podInitialBackoffSeconds 1 and
	// podMaxBackoffSeconds 10). Defaults 1s and 10s.
	InitialBackoff, MaxBackoff time.Duration
	// UnschedulableTimeout is how long an unschedulable pod waits for a
	// node or pod change before it is retried anyway (kube-scheduler's
	// podMaxInUnschedulablePodsDuration). Default 5m.
	UnschedulableTimeout time.Duration
	// PercentageOfNodesToScore is kube-scheduler's option of that name:
	// an attempt stops filtering once it has found
	// NumFeasibleNodesToFind(PercentageOfNodesToScore, nodes) feasible
	// nodes, starting where the previous attempt stopped; the nodes it
	// did not reach are Skipped in Explain. Default 0: adaptive (all
	// nodes below 100, 10% of 5,000); 100 evaluates every node.
	PercentageOfNodesToScore int
	// ExplainHistory is how many pods' last attempts Explain keeps, most
	// recently attempted first; each costs O(nodes) memory. Default 1024;
	// negative keeps none.
	ExplainHistory int
	// ExplainBytes bounds the memory of the attempts Explain keeps, as
	// well as ExplainHistory bounds their number: past it the oldest are
	// dropped, the latest attempt being always kept. An attempt counts
	// its per-node verdicts (4 bytes per node it evaluated), its scores
	// (a byte per feasible node and scorer), its message and a fixed
	// overhead (see decisionBytes): about 6 KB for a pod scheduled among
	// 5,000 nodes, 20 KB for an unschedulable one. Default 1 MiB, which
	// at 5,000 nodes keeps about 170 scheduled pods' attempts, and all
	// 1,024 up to about 50 nodes; negative: no byte bound.
	ExplainBytes int
	// Recorder, if set, receives the scheduler's events about pods:
	// Scheduled and FailedScheduling, as kube-scheduler records them
	// (see the package doc, "Events"). Default: none.
	Recorder events.Recorder
	// Logger receives the scheduler's logs. Default slog.Default().
	Logger *slog.Logger
	// QueueMetrics, if set, meters the scheduling queue (workqueue_*
	// named scheduler). Default: none.
	QueueMetrics workqueue.MetricsProvider
}

func (o Options) validate() (Options, error) {
	if o.Pods == nil || o.Nodes == nil || o.Binder == nil {
		return o, errors.New("scheduler: Options.Pods, Nodes and Binder are required")
	}
	if err := o.NodeAffinityArgs.validate(); err != nil {
		return o, err
	}
	if o.StorageClasses != nil && (o.Claims == nil || o.Volumes == nil || o.VolumeList == nil || o.VolumeWriter == nil) {
		return o, errNoVolumeWriter
	}
	if o.BindTimeout <= 0 {
		o.BindTimeout = DefaultBindTimeout
	}
	if o.SchedulerName == "" {
		o.SchedulerName = DefaultSchedulerName
	}
	if o.AssumeTTL == 0 {
		o.AssumeTTL = 30 * time.Second
	} else if o.AssumeTTL < 0 {
		o.AssumeTTL = 0
	}
	if o.InitialBackoff <= 0 {
		o.InitialBackoff = time.Second
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 10 * time.Second
	}
	if o.UnschedulableTimeout <= 0 {
		o.UnschedulableTimeout = 5 * time.Minute
	}
	if o.ExplainHistory == 0 {
		o.ExplainHistory = 1024
	}
	if o.ExplainBytes == 0 {
		o.ExplainBytes = DefaultExplainBytes
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o, nil
}

// pending is an unbound pod the scheduler is responsible for.
type pending struct {
	pod           *api.Pod
	attempts      int       // failed attempts (no fit, or bind failed)
	backoffUntil  time.Time // no retry before this
	unschedulable bool      // parked until a node or pod change (or the timeout)
	noFit         bool      // the last attempt found no node
	// podWait: PodTopologySpread or InterPodAffinity rejected a node in
	// the last attempt, so a pod placed or relabelled may make room.
	podWait bool
	// nominated is the node preemption made room on ("" for none), and
	// info the pod as it counts there for other pods.
	nominated string
	info      *PodInfo
}

// Scheduler assigns unbound pods to nodes; see the package doc. Create
// one with New and start it with Run.
type Scheduler struct {
	opts Options
	// attempts counts scheduling attempts by result (Attempts).
	attempts [3]atomic.Int64
	podInf   *informer.Informer[*api.Pod]
	nodeInf  *informer.Informer[*api.Node]
	queue    *workqueue.Queue[string] // the scheduling queue
	// ctl runs the scheduling loop: one worker taking pod keys from
	// queue (see Run and the package doc, "Wiring").
	ctl  *reconcile.Controller[string]
	kick chan struct{} // wakes the expiry loop; buffered 1

	// Set by Run before ctl starts: the binds run with Run's ctx, and
	// Run waits for them.
	runCtx context.Context
	runWG  *sync.WaitGroup

	mu      sync.Mutex
	cache   *Cache              // guarded by mu
	pending map[string]*pending // unbound pods by key; guarded by mu
	// podWaiters are the keys of the pending pods parked with podWait
	// (some may have left or been retried since), so that a pod event
	// walks them instead of every pending pod; guarded by mu.
	podWaiters map[string]struct{}
	rng        *rand.Rand // guarded by mu
	explain    map[string]*list.Element
	history    *list.List // of *decision, most recent first; with explain, guarded by mu
	// historyBytes is the sum of the decisionBytes of history; guarded
	// by mu.
	historyBytes int
	scorers      []scorer
	scratch      scratch // Decide's buffers; guarded by mu
	next         int     // the node index the next attempt starts at; guarded by mu
	// nominated are the pending pods nominated to each node; guarded
	// by mu.
	nominated map[string][]*PodInfo
	running   bool // guarded by mu
	// added is Options.NodeAffinityArgs.AddedAffinity, read-only.
	added *addedAffinity
	// assumedPVs are the volumes pre-bound by PreBinds in flight (volume
	// name → claim key); guarded by mu.
	assumedPVs map[string]string
}

// New returns a scheduler; it starts nothing.
func New(opts Options) (*Scheduler, error) {
	opts, err := opts.validate()
	if err != nil {
		return nil, err
	}
	s := &Scheduler{
		opts:       opts,
		cache:      NewCache(opts.AssumeTTL),
		pending:    make(map[string]*pending),
		podWaiters: make(map[string]struct{}),
		rng:        rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15)),
		explain:    make(map[string]*list.Element),
		nominated:  make(map[string][]*PodInfo),
		history:    list.New(),
		scorers:    opts.Weights.scorers(),
		kick:       make(chan struct{}, 1),
		added:      newAddedAffinity(opts.NodeAffinityArgs),
		assumedPVs: make(map[string]string),
		// Strict priorities (no aging): pod priority, then FIFO by the
		// time a pod became ready, as kube-scheduler's PrioritySort.
		queue: workqueue.New(workqueue.Options[string]{Name: "scheduler", AgingInterval: -1, Metrics: opts.QueueMetrics}),
	}
	if s.podInf, err = informer.New(opts.Pods, api.Key[*api.Pod], informer.Options[*api.Pod]{Name: "scheduler-pods", Logger: opts.Logger}); err != nil {
		return nil, err
	}
	if s.nodeInf, err = informer.New(opts.Nodes, api.Key[*api.Node], informer.Options[*api.Node]{Name: "scheduler-nodes", Logger: opts.Logger}); err != nil {
		return nil, err
	}
	if s.ctl, err = reconcile.New("scheduler", reconcile.Func[string](s.reconcile), reconcile.Options[string]{
		Queue:  s.queue,
		Logger: opts.Logger,
		// kube-scheduler waits for its caches as long as it takes.
		CacheSyncTimeout: forever,
	}); err != nil {
		return nil, err
	}
	// The intake observes each event (reconcile.Observe) and puts the
	// pods it concerns into the scheduling queue itself, each with its
	// priority and backoff; the map function adds nothing more.
	watch := reconcile.WatchOptions{Handler: informer.HandlerOptions{Name: "scheduler"}}
	if _, err = reconcile.Watch(s.ctl, reconcile.Observe(s.podInf, informer.Handler[*api.Pod](podIntake{s})), intakeOnly[*api.Pod], watch); err != nil {
		return nil, err
	}
	if _, err = reconcile.Watch(s.ctl, reconcile.Observe(s.nodeInf, informer.Handler[*api.Node](nodeIntake{s})), intakeOnly[*api.Node], watch); err != nil {
		return nil, err
	}
	for _, synced := range opts.Synced {
		if err := s.ctl.AddSyncCheck(synced); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// forever is a cache sync timeout that never runs out.
const forever = time.Duration(math.MaxInt64)

// intakeOnly is the map function of the scheduler's watches: the intake
// (the observer) has enqueued what the event concerns.
func intakeOnly[T any](T) []string { return nil }

// podIntake takes the pod events into the cache and the scheduling
// queue: the informer.Handler the scheduler's pod watch observes.
type podIntake struct{ s *Scheduler }

func (i podIntake) OnAdd(p *api.Pod, _ bool)    { i.s.onPod(nil, p) }
func (i podIntake) OnUpdate(old, p *api.Pod)    { i.s.onPod(old, p) }
func (i podIntake) OnDelete(p *api.Pod, _ bool) { i.s.onPodDelete(p) }

// nodeIntake takes the node events into the cache: the informer.Handler
// the scheduler's node watch observes.
type nodeIntake struct{ s *Scheduler }

func (i nodeIntake) OnAdd(n *api.Node, _ bool)    { i.s.onNode(nil, n) }
func (i nodeIntake) OnUpdate(old, n *api.Node)    { i.s.onNode(old, n) }
func (i nodeIntake) OnDelete(n *api.Node, _ bool) { i.s.onNodeDelete(n) }

// ErrRunning is returned by a second Run.
var ErrRunning = errors.New("scheduler: Run called twice")

// Run runs the informers, the scheduling loop (one pod at a time, as
// kube-scheduler) and the binds (concurrently) until ctx ends. The loop
// is a reconcile.Controller over the scheduling queue: it starts once
// the informers (and Options.Synced) have synced, and when ctx ends the
// attempt in flight finishes (for up to reconcile.DefaultShutdownTimeout)
// while the pods still queued are dropped. Run returns after every
// goroutine it started has exited, binds included, with the
// controller's drain error (reconcile.Controller.Run): ctx.Err() after a
// clean drain, else an error wrapping reconcile.ErrShutdownTimeout too.
// A second Run returns ErrRunning; a nil ctx is an error.
func (s *Scheduler) Run(ctx context.Context) error {
	if ctx == nil {
		return errors.New("scheduler: Run: context is nil")
	}
	s.mu.Lock()
	if s.running {
		s.mu.Unlock()
		return ErrRunning
	}
	s.running = true
	s.mu.Unlock()

	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { _ = s.podInf.Run(ctx) })
	wg.Go(func() { _ = s.nodeInf.Run(ctx) })
	wg.Go(func() { s.expireLoop(ctx) })
	s.runCtx, s.runWG = ctx, &wg // read by the worker, which starts after this
	return s.ctl.Run(ctx)
}

// reconcile is one scheduling cycle, of the pod under key.
func (s *Scheduler) reconcile(_ context.Context, key string) (reconcile.Result, error) {
	s.scheduleOne(s.runCtx, key, s.runWG)
	return reconcile.Result{}, nil
}

// Explain returns the last scheduling attempt of the pod under key, if it
// is among the ExplainHistory most recently attempted pods. The slices of
// the Explanation are shared and must not be modified.
func (s *Scheduler) Explain(key string) (Explanation, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	el, ok := s.explain[key]
	if !ok {
		return Explanation{}, false
	}
	return el.Value.(*decision).explain(), true
}

// Unschedulable returns the keys of the pods parked as unschedulable
// (their last attempt found no node), sorted — what a view lists next to
// Explain.
func (s *Scheduler) Unschedulable() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var keys []string
	for key, pp := range s.pending {
		if pp.noFit {
			keys = append(keys, key)
		}
	}
	slices.Sort(keys)
	return keys
}

// responsible reports whether the scheduler should place the unbound pod
// p: it names this scheduler, is not being deleted, has not terminated,
// and has no scheduling gates (kube-scheduler's SchedulingGates plugin
// keeps gated pods out of the queue until the gates are removed).
func (s *Scheduler) responsible(p *api.Pod) bool {
	name := p.Spec.SchedulerName
	return (name == "" || name == s.opts.SchedulerName) && p.DeletionTimestamp == nil &&
		!terminated(p) &&
		len(p.Spec.SchedulingGates) == 0
}

func terminated(p *api.Pod) bool {
	return p.Status.Phase == api.PodSucceeded || p.Status.Phase == api.PodFailed
}

func priorityOf(p *api.Pod) int {
	if p.Spec.Priority != nil {
		return int(*p.Spec.Priority)
	}
	return 0
}

// nominateLocked records that pp (under key) is nominated to node; ""
// clears the nomination.
func (s *Scheduler) nominateLocked(key string, pp *pending, node string) {
	if pp.nominated != "" {
		l := s.nominated[pp.nominated]
		l = slices.DeleteFunc(l, func(p *PodInfo) bool { return p.Key == key })
		if len(l) == 0 {
			delete(s.nominated, pp.nominated)
		} else {
			s.nominated[pp.nominated] = l
		}
		pp.nominated, pp.info = "", nil
	}
	if node != "" {
		pp.nominated, pp.info = node, NewPodInfo(pp.pod)
		s.nominated[node] = append(s.nominated[node], pp.info)
	}
}

// dropPendingLocked forgets the pending pod under key, and its
// nomination.
func (s *Scheduler) dropPendingLocked(key string) {
	if pp, ok := s.pending[key]; ok {
		s.nominateLocked(key, pp, "")
		delete(s.pending, key)
		delete(s.podWaiters, key)
	}
}

// onPod handles an added or updated pod: bound pods go to the cache (a
// change that can free room retries the parked pods), unbound ones to the
// queue when new or changed other than in status.
func (s *Scheduler) onPod(old, p *api.Pod) {
	key := api.Key(p)
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.Spec.NodeName != "" {
		s.dropPendingLocked(key)
		s.cache.AddPod(p)
		// A bound pod that terminates or whose spec changes may free
		// room; one that just got bound (the confirmation of an
		// assumption) or goes Running frees none.
		if old != nil && old.Spec.NodeName != "" &&
			(terminated(p) && !terminated(old) || !reflect.DeepEqual(old.Spec, p.Spec)) {
			s.retryParkedLocked()
		} else if old == nil || old.Spec.NodeName == "" || !maps.Equal(old.Labels, p.Labels) {
			// A pod placed or relabelled can satisfy a pod affinity
			// or even out a topology spread (kube-scheduler's
			// InterPodAffinity and PodTopologySpread requeue on pod
			// adds and label updates).
			s.retryPodWaitersLocked()
		}
		return
	}
	if !s.responsible(p) {
		if _, ok := s.pending[key]; ok {
			s.dropPendingLocked(key)
			s.cache.Forget(key)
		}
		return
	}
	pp, ok := s.pending[key]
	if !ok {
		pp = &pending{pod: p}
		s.pending[key] = pp
		if n := p.Status.NominatedNodeName; n != "" {
			s.nominateLocked(key, pp, n)
		}
		s.queue.AddWithOptions(key, workqueue.AddOptions{Priority: priorityOf(p)})
		return
	}
	changed := !reflect.DeepEqual(pp.pod.Spec, p.Spec) || !maps.Equal(pp.pod.Labels, p.Labels)
	pp.pod = p
	if n := p.Status.NominatedNodeName; n != "" && (n != pp.nominated || changed) {
		s.nominateLocked(key, pp, n)
	}
	if changed && pp.unschedulable {
		pp.unschedulable = false
		s.queue.AddWithOptions(key, workqueue.AddOptions{Priority: priorityOf(p), After: time.Until(pp.backoffUntil)})
	}
}

func (s *Scheduler) onPodDelete(p *api.Pod) {
	key := api.Key(p)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropPendingLocked(key)
	if _, ok := s.cache.PodNode(key); ok {
		s.cache.RemovePod(key)
		s.retryParkedLocked()
	}
}

// nodeChanged reports whether an update can make a pod fit that did not.
func nodeChanged(old, n *api.Node) bool {
	return old.Spec.Unschedulable != n.Spec.Unschedulable ||
		!reflect.DeepEqual(old.Status.Allocatable, n.Status.Allocatable) ||
		!maps.Equal(old.Labels, n.Labels) ||
		!slices.EqualFunc(old.Spec.Taints, n.Spec.Taints, func(a, b api.Taint) bool {
			return a.Key == b.Key && a.Value == b.Value && a.Effect == b.Effect
		})
}

func (s *Scheduler) onNode(old, n *api.Node) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cache.SetNode(n)
	if old == nil || nodeChanged(old, n) {
		s.retryParkedLocked()
	}
}

func (s *Scheduler) onNodeDelete(n *api.Node) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cache.RemoveNode(n.Name)
}

// retryParkedLocked moves every parked unschedulable pod back to the
// queue, ready when its backoff ends.
func (s *Scheduler) retryParkedLocked() {
	now := time.Now()
	for key, pp := range s.pending {
		if !pp.unschedulable {
			continue
		}
		pp.unschedulable = false
		s.queue.AddWithOptions(key, workqueue.AddOptions{Priority: priorityOf(pp.pod), After: pp.backoffUntil.Sub(now)})
	}
}

// retryPodWaitersLocked moves the parked pods that PodTopologySpread or
// InterPodAffinity rejected back to the queue, ready when their backoff
// ends.
func (s *Scheduler) retryPodWaitersLocked() {
	if len(s.podWaiters) == 0 {
		return
	}
	now := time.Now()
	for key := range s.podWaiters {
		pp, ok := s.pending[key]
		if !ok || !pp.unschedulable || !pp.podWait {
			continue
		}
		pp.unschedulable = false
		s.queue.AddWithOptions(key, workqueue.AddOptions{Priority: priorityOf(pp.pod), After: pp.backoffUntil.Sub(now)})
	}
	clear(s.podWaiters)
}

// backoff returns the delay after the n-th failed attempt.
func (s *Scheduler) backoff(n int) time.Duration {
	d := s.opts.InitialBackoff
	for i := 1; i < n && d < s.opts.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, s.opts.MaxBackoff)
}

// recordLocked stores d as the last attempt of its pod, and drops the
// oldest attempts beyond ExplainHistory or ExplainBytes (never d).
func (s *Scheduler) recordLocked(d *decision) {
	if s.opts.ExplainHistory < 0 {
		return
	}
	if el, ok := s.explain[d.pod]; ok {
		s.forgetLocked(s.history.Remove(el).(*decision))
	}
	d.bytes = decisionBytes(d)
	s.historyBytes += d.bytes
	s.explain[d.pod] = s.history.PushFront(d)
	for s.history.Len() > s.opts.ExplainHistory ||
		s.opts.ExplainBytes > 0 && s.historyBytes > s.opts.ExplainBytes && s.history.Len() > 1 {
		old := s.history.Remove(s.history.Back()).(*decision)
		delete(s.explain, old.pod)
		s.forgetLocked(old)
	}
}

// forgetLocked accounts for d, removed from the history, and recycles its
// buffers.
func (s *Scheduler) forgetLocked(d *decision) {
	s.historyBytes -= d.bytes
	s.scratch.recycle(d)
}

// scheduleOne is one scheduling cycle: decide under the lock (so no event
// slips between the snapshot and parking the pod), assume, then bind in
// the background.
func (s *Scheduler) scheduleOne(ctx context.Context, key string, wg *sync.WaitGroup) {
	s.mu.Lock()
	pp, ok := s.pending[key]
	if !ok {
		s.mu.Unlock()
		return
	}
	if _, busy := s.cache.PodNode(key); busy { // assumed, bind in flight
		s.mu.Unlock()
		return
	}
	now := time.Now()
	pod := pp.pod
	pp.unschedulable = false // not parked while being attempted
	nodes := s.cache.Nodes()
	limit := NumFeasibleNodesToFind(s.opts.PercentageOfNodesToScore, len(nodes))
	pi := NewPodInfo(pod)
	env := pluginEnv{anyAffinity: s.cache.withAffinity > 0, namespaces: s.opts.Namespaces,
		nominated: s.nominated, nominatedNode: pp.nominated, comparisonOperators: s.opts.TaintTolerationComparisonOperators,
		images: s.cache.images, added: s.added, groupZones: s.cache.groupZones, cache: s.cache}
	if s.opts.Preempt != nil {
		env.preempt = &preemptEnv{pdbs: s.opts.PDBs, now: now}
	}
	var delay *delayEnv
	if s.opts.StorageClasses != nil {
		delay = &delayEnv{classes: s.opts.StorageClasses, list: s.opts.VolumeList, assumed: s.assumedPVs}
	}
	vs := volumeStateFor(pi, s.cache, s.opts.Claims, s.opts.Volumes, delay)
	vs.csi = newCSIState(pod, s.opts.Claims, s.opts.Volumes, s.opts.CSINodes)
	e, next := decide(pi, nodes, s.cache.names, s.scorers, s.rng, now, &s.scratch, s.next, limit, vs, env)
	s.next = next
	s.recordLocked(e)
	if e.node == "" {
		s.attempts[attemptUnschedulable].Add(1)
		pp.attempts++
		pp.backoffUntil = now.Add(s.backoff(pp.attempts))
		pp.unschedulable = true
		pp.noFit = true
		pp.podWait = e.podWait
		if pp.podWait {
			s.podWaiters[key] = struct{}{}
		}
		if e.nominate != "" {
			s.preemptLocked(ctx, wg, key, pp, e)
		}
		if e.claimWait {
			// Held for a claim or volume: nothing the scheduler
			// watches tells it that the claim got bound, so it
			// retries when the backoff ends.
			s.queue.AddAfter(key, s.backoff(pp.attempts))
		} else {
			s.queue.AddAfter(key, s.opts.UnschedulableTimeout)
		}
		s.mu.Unlock()
		s.event(pod, events.Warning, ReasonFailedScheduling, e.message)
		if s.opts.Status != nil {
			cond := api.PodCondition{Type: api.PodScheduled, Status: api.ConditionFalse, Reason: ReasonUnschedulable, Message: e.message}
			wg.Go(func() {
				if err := s.opts.Status.SetCondition(ctx, pod, cond); err != nil && ctx.Err() == nil {
					s.opts.Logger.Warn("scheduler: writing the Unschedulable condition failed", "pod", key, "err", err)
				}
			})
		}
		return
	}
	pp.noFit = false
	s.nominateLocked(key, pp, "")  // as kube's assume drops the nomination
	_ = s.cache.assume(pi, e.node) // cannot fail: PodNode said the key is free
	if e.volumes != nil {
		// Reserve (AssumePodVolumes): no other claim takes these
		// volumes while PreBind runs.
		for _, b := range e.volumes.bindings {
			s.assumedPVs[b.pv.Name] = api.Key(b.claim)
		}
	}
	s.mu.Unlock()
	wg.Go(func() { s.bind(ctx, key, pod, e) })
}

// bind binds pod to e.node; on failure it forgets the assumption and
// retries the pod after its backoff.
func (s *Scheduler) bind(ctx context.Context, key string, pod *api.Pod, e *decision) {
	var err, preBindErr error
	if e.volumes != nil && (len(e.volumes.bindings) > 0 || len(e.volumes.provisions) > 0) {
		// PreBind: the claims are bound before the pod is.
		preBindErr = s.bindVolumes(ctx, key, e.node, e.volumes)
		err = preBindErr
	}
	if err == nil {
		err = s.opts.Binder.Bind(ctx, pod, e.node)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e.volumes != nil {
		// Unreserve, or the binding is done: the informers show it.
		for _, b := range e.volumes.bindings {
			if s.assumedPVs[b.pv.Name] == api.Key(b.claim) {
				delete(s.assumedPVs, b.pv.Name)
			}
		}
	}
	if err == nil {
		s.attempts[attemptScheduled].Add(1)
		s.event(pod, events.Normal, ReasonScheduled, fmt.Sprintf("Successfully assigned %s/%s to %s", pod.Namespace, pod.Name, e.node))
		s.cache.FinishBinding(key, time.Now())
		select {
		case s.kick <- struct{}{}:
		default:
		}
		return
	}
	s.attempts[attemptError].Add(1)
	s.cache.Forget(key)
	e.bindErr = err
	if ctx.Err() == nil {
		s.opts.Logger.Info("scheduler: bind failed", "pod", key, "node", e.node, "err", err)
		if preBindErr != nil {
			s.opts.Logger.Info("scheduler: binding volumes failed", "pod", key, "node", e.node, "err", err)
			s.event(pod, events.Warning, ReasonFailedScheduling, fmt.Sprintf("running PreBind plugin %q: %v", FilterVolumeBinding, err))
		} else {
			s.event(pod, events.Warning, ReasonFailedScheduling, "binding rejected: "+err.Error())
		}
	}
	if pp, ok := s.pending[key]; ok {
		pp.attempts++
		pp.backoffUntil = time.Now().Add(s.backoff(pp.attempts))
		s.queue.AddWithOptions(key, workqueue.AddOptions{Priority: priorityOf(pp.pod), After: s.backoff(pp.attempts)})
	}
	// The freed room may fit a parked pod.
	s.retryParkedLocked()
}

// The results of an attempt, indexes of Scheduler.attempts.
const (
	attemptScheduled = iota
	attemptUnschedulable
	attemptError
)

// Attempts are a Scheduler's scheduling attempts so far, by result, as
// kube-scheduler's scheduler_schedule_attempts_total counts them.
type Attempts struct {
	// Scheduled: the pod was bound.
	Scheduled int64
	// Unschedulable: no node fits the pod (a FailedScheduling with the
	// nodes' reasons).
	Unschedulable int64
	// Error: a node was chosen but PreBind or the binding failed.
	Error int64
}

// Attempts returns the attempts so far; safe from any goroutine.
func (s *Scheduler) Attempts() Attempts {
	return Attempts{Scheduled: s.attempts[attemptScheduled].Load(), Unschedulable: s.attempts[attemptUnschedulable].Load(),
		Error: s.attempts[attemptError].Load()}
}

// The reasons of the scheduler's events, as kube-scheduler's.
const (
	// ReasonScheduled is the reason of the event of a bound pod.
	ReasonScheduled = "Scheduled"
	// ReasonFailedScheduling is the reason of the event of an attempt
	// that found no node or whose bind failed.
	ReasonFailedScheduling = "FailedScheduling"
)

// maxEventMessage is the longest event message kube-scheduler writes
// (its truncateMessage: 1024 bytes, the end replaced by " ...").
const maxEventMessage = 1024

// event records an event about pod, if there is a Recorder.
func (s *Scheduler) event(pod *api.Pod, typ events.Type, reason, msg string) {
	if s.opts.Recorder == nil {
		return
	}
	if len(msg) > maxEventMessage {
		msg = msg[:maxEventMessage-4] + " ..."
	}
	s.opts.Recorder.Event(events.Ref{APIVersion: "v1", Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: string(pod.UID)},
		typ, reason, msg)
}

// expireLoop drops assumptions whose TTL ran out, on one timer armed for
// the earliest deadline.
func (s *Scheduler) expireLoop(ctx context.Context) {
	var timer *time.Timer
	var fire <-chan time.Time
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.kick:
		case <-fire:
		}
		s.mu.Lock()
		if keys := s.cache.Expire(time.Now()); len(keys) > 0 {
			s.opts.Logger.Info("scheduler: assumed pods expired", "pods", keys)
			// A pod whose bind "succeeded" but was never observed bound
			// is still pending: schedule it again.
			for _, key := range keys {
				if pp, ok := s.pending[key]; ok {
					s.queue.AddWithOptions(key, workqueue.AddOptions{Priority: priorityOf(pp.pod)})
				}
			}
			s.retryParkedLocked()
		}
		next, ok := s.cache.NextExpiry()
		s.mu.Unlock()
		fire = nil
		if ok {
			if timer == nil {
				timer = time.NewTimer(time.Until(next))
			} else {
				timer.Reset(time.Until(next))
			}
			fire = timer.C
		}
	}
}
