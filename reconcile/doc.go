// Package reconcile is the controller loop: a Controller takes requests
// (values of a comparable type R, usually object keys) from a rate-limited
// priority work queue and hands each to a Reconciler, from a fixed number
// of workers, with backoff on errors, panic recovery, a read-your-writes
// gate and graceful shutdown. It is controller-runtime's reconcile and
// controller packages, generic and free of Kubernetes types.
//
// # Usage
//
//	ctl, err := reconcile.New("replicaset", reconcile.Func[string](sync), reconcile.Options[string]{Workers: 4})
//	_, err = reconcile.Watch(ctl, rsInformer, reconcile.ByKey(keyOf), reconcile.WatchOptions{})
//	_, err = reconcile.Watch(ctl, podInformer, reconcile.ByOwner(ownerKeys), reconcile.WatchOptions{})
//	go rsInformer.Run(ctx)
//	go podInformer.Run(ctx)
//	err = ctl.Run(ctx) // returns when ctx ends, after the workers have exited
//
// # Vocabulary
//
// A Reconciler (or a Func) gets one request at a time and returns a
// Result and an error:
//
//   - nil error, zero Result: done; the request's backoff is forgotten.
//   - an error: retried after the rate limiter's backoff for that request
//     (Options.RateLimiter), which grows with each consecutive failure and
//     is forgotten on the next success. The Result is ignored.
//   - Terminal(err), possibly wrapped further: logged and counted, not
//     retried; the backoff is forgotten. errors.Is(err, ErrTerminal)
//     tells a terminal error anywhere in a chain.
//   - Result{RequeueAfter: d}: the backoff is forgotten and the request
//     is reconciled again after d, exactly (no backoff added). There is
//     no Requeue flag: see Result for why.
//   - a panic: with Options.RecoverPanic (the default) it is recovered
//     into an error, logged with its stack, counted, and retried like an
//     error; the worker goes on.
//
// Requeues keep the priority the request was queued with.
//
// # Waiting, and no periodic requeue
//
// A request is reconciled again only when something enqueues it: an
// event mapped by Watch (including the informer's periodic resyncs, when
// its ResyncPeriod is set), Enqueue, an error's backoff, or a
// RequeueAfter. The Controller has no periodic requeue of its own, by
// design: the informer's resync is the periodic safety net, and a
// request that needs a deadline says so. So a Reconcile that decides to
// wait — for expectations (see the expectations package: Remaining
// returns how long), for an external system, for a deadline — must return
// Result{RequeueAfter: d}: the zero Result waits for an event, which may
// never come if events were lost.
//
// # Ordering and concurrency
//
// The queue never hands a request to two workers at once, so Reconcile is
// never called concurrently for one request, whatever Options.Workers;
// different requests run in parallel. A request enqueued while it is
// being reconciled is reconciled again afterwards, once however many
// times it was enqueued. Requests with higher priority go first; a
// waiting request gains one priority point per second (the queue's
// aging), so low-priority requests are not starved.
//
// # Wiring
//
// Watch registers a handler on an informer (any EventSource) that maps
// each event's object to requests with a map function: ByKey (the object
// is the reconciled one), ByOwner (owned objects reconcile their owners),
// or any func(T) []R. Objects of the informer's initial list and of
// periodic resyncs are enqueued at workqueue.LowPriority, so that after a
// start or during a resync, live changes still go first. Watch adds the
// registration's HasSynced to what Run waits for. WatchEvents is the
// same with one map function per kind of event (Events: Create, Update
// with old and new, Delete, and Map as their default), for a controller
// whose mapping depends on what changed; Observe puts a handler's side
// effects (lowering expectations) before the mapping; Filter drops
// events by Predicate. These are the one way the controllers under
// controllers/ are wired: controller-runtime's For (ByKey), Owns
// (ByOwner) and Watches (any map function). Enqueue, Queue,
// AddSyncCheck and ReconcileAllOn serve other sources of requests.
// WatchOptions.NoSyncWait lets a loop with work of its own start before
// a watched informer has listed (the kubelet registers its node first),
// and Options.Queue gives a controller a queue configured otherwise
// than its own (the scheduler's, with strict priorities): the kubelet,
// kube-proxy and the scheduler are wired this way too.
//
// # Run
//
// Run waits until every watched registration has synced, bounded by
// Options.CacheSyncTimeout (an error wrapping ErrCacheSyncTimeout
// otherwise): no worker starts before that, so no Reconcile reads a
// partial cache. Then the workers run until ctx ends. They stop taking
// requests at once (what is queued is dropped: the next start lists
// everything again), the reconciles in flight finish with a live ctx for
// up to Options.ShutdownTimeout, after which their ctx is cancelled (at
// once if the controller's queue is ShutDown meanwhile, a second SIGTERM:
// see Controller.Queue), and Run returns once every worker has exited:
// ctx.Err() after a clean drain, else an error that also wraps
// ErrShutdownTimeout or workqueue.ErrDrainAborted. A Reconcile that ignores its
// cancelled ctx therefore holds Run hostage: Run never abandons a worker.
//
// # Bad input
//
// One rule for every call of this package that takes a context: a nil
// ctx is an error (Controller.Run returns one at once and does nothing
// else), never a panic. Nil arguments, and interface arguments or
// Options fields holding a nil pointer (a typed nil, such as a nil
// *informer.Informer[T] passed to Watch), are errors of New, Watch,
// NewConsistency and AddSyncCheck.
//
// # Read your writes: Consistency
//
// An informer's cache lags behind the source. A reconcile that runs
// again right after a write may read a cache without that write and act
// twice. A Consistency gate (kube-controller-manager's consistency store,
// which controller-runtime lacks) closes the gap: the reconciler records
// the resourceVersion each write returned with WroteAt(req, rv), and the
// next reconcile of req is deferred, with backoff and without blocking a
// worker, until the cache has caught up with rv. The gate needs the
// source's source.VersionComparer. It complements the expectations
// package: expectations count the events a controller waits for, the
// gate compares versions; the Example uses both.
//
// # Expectations or the gate: the rule
//
// Every reference controller (controllers/...) follows one rule, and
// controllers written in their style should too:
//
//  1. The gate, always. A controller whose sync reads from a cache what
//     an earlier sync wrote keeps a Consistency gate over every cache it
//     writes through (one per type, fed by a GatedWriter or by
//     WroteKey/DeletedKey). The gate defers the whole next reconcile of
//     the request until the caches show its writes, per key and version,
//     whether they were creates (named or generated), updates, status
//     writes or deletes. It is exact, needs nothing in the handlers, and
//     is the only guard most controllers need: Deployment, StatefulSet,
//     Job, CronJob, Endpoints and the volume binder use it alone.
//  2. Expectations on top, only for a sync that must go on while its
//     earlier creates or deletes are unobserved. Expectations do not
//     defer the reconcile: it runs, writes what it can (the status, other
//     steps), and holds back only the creates and deletes it decides by
//     counting children. That partial progress is kube-controller-manager's
//     behaviour for the ReplicaSet and DaemonSet controllers, which
//     ctrlkit reproduces (a sync during a pending burst updates the status
//     but neither creates nor deletes; a DaemonSet's update step runs only
//     in a sync whose pod management had nothing to do), so those two use
//     both: the gate for their own writes, expectations (wired by
//     ctrlutil.PodExpectations) for the counts.
//
// Why not expectations everywhere, as kube-controller-manager does: they
// count observations in the handlers, which must be wired for each
// created and deleted kind, and they are released by a count or a TTL
// (5 minutes), not by the version of each write; where a controller can
// simply wait for its previous writes, the gate says the same thing
// exactly, and kcm's own consistency store (1.37) is this gate. Why not
// the gate alone everywhere: it cannot let a sync proceed halfway.
//
// # Metrics and logs
//
// Options.Metrics receives controller-runtime's reconcile metrics (see
// Metrics for the names), Options.QueueMetrics the queue's (client-go's
// workqueue names). Errors are logged at error level with the request;
// nothing is process-global.
package reconcile
