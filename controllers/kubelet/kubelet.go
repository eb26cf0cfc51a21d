package kubelet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/internal/jsonequal"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/source"
)

// retryAfter is how soon a failed write is tried again.
const retryAfter = time.Second

// tickReq is the one request of the kubelet's controller: "look at
// everything that is due" (see Run).
var tickReq = struct{}{}

// Kubelet simulates one node's kubelet over a cluster. Create it with
// New and run it with Run; Stop and Start may be called from any
// goroutine, before or during Run.
type Kubelet struct {
	// The kinds the kubelet writes.
	podRes   client.Resource[*api.Pod]
	nodeRes  client.Resource[*api.Node]
	leaseRes client.Resource[*api.Lease]
	nsRes    client.Resource[*api.Namespace]
	// The kinds the kubelet reads for its pods (configSource).
	cmRes     client.Resource[*api.ConfigMap]
	secretRes client.Resource[*api.Secret]
	opts      Options
	log       *slog.Logger
	pods      *informer.Informer[*api.Pod]
	// ctl runs the loop: its one request, tickReq, is enqueued by every
	// pod event, by Start, and by each tick for when the next is due.
	ctl *reconcile.Controller[struct{}]

	mu    sync.Mutex          // guards the fields below
	dead  bool                // Stop was called and Start not since
	epoch int                 // counts Starts; the loop resyncs when it changes
	dirty map[string]struct{} // pod keys the informer changed

	// Owned by the loop (the controller's one worker).
	seenEpoch  int // the epoch of the last tick
	ips        *ipam
	rng        *rand.Rand
	machineID  string
	bootID     string
	registered bool
	nodeUID    api.UID
	states     podStates
	deleted    map[string]bool // terminated pods whose final delete succeeded
	static     map[string]*staticPod
	images     imageStore // the images containers started with
	out        syncOut    // lent to the pod being synced (podState.out)
	nextStatus time.Time
	lastReport time.Time // the last node status posted; zero: none since (re)start
	nextLease  time.Time
	nextStatic time.Time
	retry      time.Time // earliest retry of a failed write; zero: none
}

// New returns a Kubelet for node opts.NodeName over c. It watches only
// the pods bound to its node (field selector spec.nodeName=<node>, as the
// kubelet's own watch) through an informer of its own, not a shared one:
// a kubelet is a process of its own on its node. New starts nothing.
func New(c client.Client, opts Options) (*Kubelet, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	pods, err := client.For[*api.Pod](c)
	if err != nil {
		return nil, fmt.Errorf("kubelet: %w", err)
	}
	nodes, err := client.For[*api.Node](c)
	if err != nil {
		return nil, fmt.Errorf("kubelet: %w", err)
	}
	leases, err := client.For[*api.Lease](c)
	if err != nil {
		return nil, fmt.Errorf("kubelet: %w", err)
	}
	namespaces, err := client.For[*api.Namespace](c)
	if err != nil {
		return nil, fmt.Errorf("kubelet: %w", err)
	}
	cms, err := client.For[*api.ConfigMap](c)
	if err != nil {
		return nil, fmt.Errorf("kubelet: %w", err)
	}
	secrets, err := client.For[*api.Secret](c)
	if err != nil {
		return nil, fmt.Errorf("kubelet: %w", err)
	}
	lw, err := pods.Select(client.SelectOptions{FieldSelector: "spec.nodeName=" + opts.NodeName})
	if err != nil {
		return nil, fmt.Errorf("kubelet: %w", err)
	}
	inf, err := informer.New[*api.Pod](lw, api.Key[*api.Pod], informer.Options[*api.Pod]{Name: "kubelet-pods-" + opts.NodeName, Logger: opts.Logger})
	if err != nil {
		return nil, fmt.Errorf("kubelet: %w", err)
	}
	ips, err := newIPAM(opts.PodCIDR)
	if err != nil {
		return nil, err
	}
	k := &Kubelet{
		podRes:    pods,
		nodeRes:   nodes,
		leaseRes:  leases,
		nsRes:     namespaces,
		cmRes:     cms,
		secretRes: secrets,
		opts:      opts,
		log:       opts.Logger.With("node", opts.NodeName),
		pods:      inf,
		dirty:     map[string]struct{}{},
		ips:       ips,
		rng:       rand.New(rand.NewPCG(opts.Seed, 0x6b75626c)),
		machineID: fmt.Sprintf("%032x", fnvHash(opts.NodeName)),
		deleted:   map[string]bool{},
		static:    map[string]*staticPod{},
		images:    imageStore{},
	}
	k.bootID = k.machineID
	if k.ctl, err = reconcile.New("kubelet-"+opts.NodeName, reconcile.Func[struct{}](k.reconcile), reconcile.Options[struct{}]{Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("kubelet: %w", err)
	}
	// A pod event marks its key dirty (reconcile.Observe: before the
	// request is enqueued) and enqueues the tick.
	mark := func(p *api.Pod) { k.markDirty(api.Key(p)) }
	_, err = reconcile.Watch(k.ctl, reconcile.Observe(inf, informer.Handler[*api.Pod](informer.HandlerFuncs[*api.Pod]{
		AddFunc:    func(p *api.Pod, _ bool) { mark(p) },
		UpdateFunc: func(_, p *api.Pod) { mark(p) },
		DeleteFunc: func(p *api.Pod, _ bool) { mark(p) },
	})), func(*api.Pod) []struct{} { return []struct{}{tickReq} }, reconcile.WatchOptions{
		Handler: informer.HandlerOptions{Name: "kubelet"},
		// The first tick registers the node at once, before the pods
		// are listed; a pod listed later is an event like any other.
		NoSyncWait: true,
	})
	if err != nil {
		return nil, fmt.Errorf("kubelet: %w", err)
	}
	return k, nil
}

// NodeName returns the name of the kubelet's node.
func (k *Kubelet) NodeName() string { return k.opts.NodeName }

func (k *Kubelet) markDirty(key string) {
	k.mu.Lock()
	k.dirty[key] = struct{}{}
	k.mu.Unlock()
}

// poke enqueues a tick.
func (k *Kubelet) poke() { k.ctl.Enqueue(tickReq) }

// Stop makes the node die: from now on the kubelet posts no status,
// renews no lease, and neither runs nor reports pods. The simulated
// containers keep their timelines; Start catches up with them.
func (k *Kubelet) Stop() {
	k.mu.Lock()
	k.dead = true
	k.mu.Unlock()
	k.poke()
}

// Start brings a stopped node back: the kubelet posts its status and
// renews its lease at once, then resumes its schedule, and syncs every
// pod it knows. On a running kubelet it does nothing.
func (k *Kubelet) Start() {
	k.mu.Lock()
	if k.dead {
		k.dead = false
		k.epoch++
	}
	k.mu.Unlock()
	k.poke()
}

// Run registers the node and runs the kubelet until ctx ends. The loop
// is a reconcile.Controller with one worker and one request, the tick:
// the first at once (not waiting for the pod informer), and when ctx ends a tick
// in flight finishes its writes (for up to
// reconcile.DefaultShutdownTimeout, then its ctx is cancelled). Run
// returns after every goroutine it started has exited, with the
// controller's drain error (reconcile.Controller.Run): ctx.Err() after a
// clean drain, else an error wrapping reconcile.ErrShutdownTimeout too.
// Call it once.
func (k *Kubelet) Run(ctx context.Context) error {
	if ctx == nil {
		return errors.New("kubelet: Run: context is nil")
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { _ = k.pods.Run(ctx) })
	k.poke() // the first tick at once
	return k.ctl.Run(ctx)
}

// reconcile is one tick of the loop, unless the node is dead: it does
// everything due now and requeues itself for when the next thing is.
func (k *Kubelet) reconcile(ctx context.Context, _ struct{}) (reconcile.Result, error) {
	k.mu.Lock()
	dead, e, dirty := k.dead, k.epoch, k.dirty
	if !dead {
		k.dirty = map[string]struct{}{}
	}
	k.mu.Unlock()
	if dead {
		return reconcile.Result{}, nil // Start enqueues the next tick
	}
	now := time.Now()
	if e != k.seenEpoch {
		k.seenEpoch = e
		k.nextStatus, k.nextLease, k.nextStatic = time.Time{}, time.Time{}, time.Time{}
		k.lastReport = time.Time{}
		for key := range k.pods.Lister().All() {
			dirty[key] = struct{}{}
		}
	}
	next := k.tick(ctx, now, dirty)
	switch {
	case next.IsZero():
		return reconcile.Result{}, nil
	case !next.After(now):
		k.poke() // due already: again at once
		return reconcile.Result{}, nil
	}
	return reconcile.Result{RequeueAfter: next.Sub(now)}, nil
}

// tick does everything due at now and returns when to look again.
func (k *Kubelet) tick(ctx context.Context, now time.Time, dirty map[string]struct{}) time.Time {
	if !k.retry.IsZero() && !k.retry.After(now) {
		k.retry = time.Time{}
	}
	fail := func(err error) {
		k.log.Warn("kubelet: write failed", "err", err)
		if k.retry.IsZero() {
			k.retry = now.Add(retryAfter)
		}
	}
	if !k.registered {
		if err := k.register(ctx, now); err != nil {
			fail(err)
		} else {
			k.nextStatus = now.Add(k.opts.StatusUpdateFrequency)
		}
	}
	if k.registered && (k.nextStatus.IsZero() || due(k.nextStatus, now)) {
		if err := k.postStatus(ctx, now); err != nil {
			fail(err)
		}
		k.nextStatus = now.Add(k.opts.StatusUpdateFrequency)
	}
	if k.nextLease.IsZero() || due(k.nextLease, now) {
		if err := k.renewLease(ctx, now); err != nil {
			fail(err)
		}
		k.nextLease = now.Add(k.opts.LeaseDuration / 4)
	}
	if k.opts.StaticPodPath != "" && (k.nextStatic.IsZero() || due(k.nextStatic, now)) {
		if err := k.readStatic(now); err != nil {
			k.log.Warn("kubelet: static pods", "err", err)
		}
		k.nextStatic = now.Add(k.opts.FileCheckFrequency)
	}
	for _, s := range k.states {
		if due(s.wakeAt(), now) {
			dirty[api.NamespacedKey(s.namespace, s.podName)] = struct{}{}
		}
	}
	// In key order, so that pods admitted together get their addresses
	// in a reproducible order.
	for _, key := range slices.Sorted(maps.Keys(dirty)) {
		if err := k.syncPod(ctx, key, now); err != nil {
			fail(err)
			k.mu.Lock()
			k.dirty[key] = struct{}{}
			k.mu.Unlock()
		}
	}
	for key := range k.static {
		if err := k.syncStatic(ctx, key, now); err != nil {
			fail(err)
		}
	}
	next := k.retry
	consider := func(t time.Time) {
		if !t.IsZero() && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	consider(k.nextStatus)
	consider(k.nextLease)
	if k.opts.StaticPodPath != "" {
		consider(k.nextStatic)
	}
	for _, s := range k.states {
		consider(s.wakeAt())
	}
	for _, sp := range k.static {
		consider(sp.st.next())
	}
	return next
}

// syncPod brings the pod at key up to date at now: admits a new pod,
// starts the termination of a deleted one, advances its containers,
// writes its status, and deletes it for good once terminated.
func (k *Kubelet) syncPod(ctx context.Context, key string, now time.Time) error {
	pod, ok := k.pods.Lister().Get(key)
	if _, static := k.static[key]; static || ok && isMirror(pod) {
		return k.syncStatic(ctx, key, now)
	}
	s := k.states.get(key)
	if !ok || (s != nil && s.uid != pod.UID) {
		if s != nil { // gone from the API (or replaced): its containers are gone too
			k.releaseIP(s)
			k.states.remove(s)
			delete(k.deleted, key)
			s = nil
		}
		if !ok {
			return nil
		}
	}
	if s == nil {
		if pod.DeletionTimestamp != nil || pod.Status.Phase == api.PodSucceeded || pod.Status.Phase == api.PodFailed {
			// Nothing of it runs here: confirm a deletion, leave a terminal pod be.
			if pod.DeletionTimestamp != nil {
				return k.finalDelete(ctx, key, pod.UID)
			}
			return nil
		}
		var err error
		s, err = k.admit(pod, now)
		if err != nil {
			k.log.Warn("kubelet: pod annotations", "pod", key, "err", err)
		}
		if hasConfigVolumes(pod) {
			s.holdMount(now)
		}
		k.states.add(s)
	}
	if s.out == nil {
		s.out = &k.out // until record drains it
	}
	if pod.DeletionTimestamp != nil {
		s.terminate(now, gracePeriod(pod))
	}
	cs := k.configSource(ctx, pod.Namespace)
	if s.unmounted && !s.terminating && !s.terminal() && due(s.ext().mountAt, now) {
		k.mountVolumes(cs, pod, s, now)
	}
	s.out.configError = func(c *container) string {
		spec := containerSpec(pod, c)
		if spec == nil {
			return ""
		}
		return cs.envError(spec.Env, spec.EnvFrom)
	}
	s.advance(now)
	s.out.configError = nil
	s.syncEphemeral(pod, now)
	k.record(pod, s)
	if s.terminal() {
		k.releaseIP(s) // the sandbox is gone; the status keeps the address
	}
	if err := k.writeStatus(ctx, pod, s.status(pod, now)); err != nil {
		return err
	}
	if s.done && !k.deleted[key] {
		if err := k.finalDelete(ctx, key, pod.UID); err != nil {
			return err
		}
		k.deleted[key] = true
	}
	return nil
}

// containerSpec returns the spec of pod's container c (a container's env
// cannot change after creation, so the cached pod's is the one c was
// admitted with), nil if pod has none of c's name.
func containerSpec(pod *api.Pod, c *container) *api.Container {
	specs, name := pod.Spec.Containers, c.name()
	if c.init {
		specs = pod.Spec.InitContainers
	}
	for i := range specs {
		if specs[i].Name == name {
			return &specs[i]
		}
	}
	return nil
}

// admit takes a new pod on at now: it gets an IP and its containers.
func (k *Kubelet) admit(pod *api.Pod, now time.Time) (*podState, error) {
	ip := ""
	if !pod.Spec.HostNetwork {
		var ok bool
		if ip, ok = k.ips.allocate(); !ok {
			k.log.Warn("kubelet: pod CIDR exhausted", "pod", api.Key(pod))
		}
	}
	return newPodState(pod, now, k.opts.Stages, k.rng, ip, k.opts.InternalIP)
}

// record hands the events of s to the recorder, about pod, and its
// containers' images to the node's image store.
// It takes s.out back: a pod in its steady state holds none.
func (k *Kubelet) record(pod *api.Pod, s *podState) {
	out := s.out
	if out == nil {
		return
	}
	s.out = nil
	defer func() { *out = syncOut{} }()
	now := time.Now()
	for _, p := range out.pulls {
		k.images.use(p, now)
	}
	if k.opts.Recorder == nil {
		return
	}
	for _, n := range out.notes {
		typ := events.Normal
		if n.warning {
			typ = events.Warning
		}
		ref := events.Ref{APIVersion: "v1", Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: string(pod.UID), FieldPath: n.fieldPath}
		k.opts.Recorder.Event(ref, typ, n.reason, n.message)
	}
}

// releaseIP gives s's pod IP back, once.
func (k *Kubelet) releaseIP(s *podState) {
	if !s.ipReleased && s.podIP != "" {
		k.ips.release(s.podIP)
	}
	s.ipReleased = true
}

// gracePeriod is the pod's deletion grace period.
func gracePeriod(pod *api.Pod) time.Duration {
	if g := pod.DeletionGracePeriodSeconds; g != nil {
		return time.Duration(*g) * time.Second
	}
	if g := pod.Spec.TerminationGracePeriodSeconds; g != nil {
		return time.Duration(*g) * time.Second
	}
	return 30 * time.Second
}

// writeStatus writes st over pod's status unless it holds it already.
// Its precondition is the cached pod's resourceVersion: a conflict means
// a newer pod is on its way to the informer, which will sync it again.
func (k *Kubelet) writeStatus(ctx context.Context, pod *api.Pod, st api.PodStatus) error {
	if sameJSON(pod.Status, st) {
		return nil
	}
	p := pod.DeepCopy()
	p.Status = st
	_, err := k.podRes.UpdateStatus(ctx, p)
	if errors.Is(err, source.ErrConflict) || errors.Is(err, source.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("kubelet: update pod %s status: %w", api.Key(pod), err)
	}
	return nil
}

// finalDelete removes a terminated pod from the API server with grace
// period 0, as the kubelet's status manager does once it may be deleted.
func (k *Kubelet) finalDelete(ctx context.Context, key string, uid api.UID) error {
	_, err := k.podRes.DeleteWith(ctx, key, client.DeleteOptions{GracePeriodSeconds: new(int64), Preconditions: client.Preconditions{UID: uid}})
	if err != nil && !errors.Is(err, source.ErrNotFound) && !errors.Is(err, source.ErrConflict) {
		return fmt.Errorf("kubelet: delete pod %s: %w", key, err)
	}
	return nil
}

// sameJSON compares as the API server does: by encoding (walked, not
// encoded: package jsonequal).
func sameJSON(a, b any) bool { return jsonequal.Equal(a, b) }
