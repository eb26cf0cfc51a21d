// Package ctrlkit is a toolkit for writing controllers: the machinery that
// Kubernetes' client-go and controller-runtime provide — reflector, delta
// FIFO, indexer, shared informers, rate-limited work queues, expectations
// and a reconcile loop — made generic over the object type, free of
// k8s.io dependencies, and pluggable into any source that can list and
// watch.
//
// This package holds only documentation. The data flows through the
// subpackages like this:
//
//	source.ListWatcher[T] --List+Watch--> reflector.Reflector[T]
//	    --deltas--> deltafifo.DeltaFIFO[T] --Pop--> informer.Informer[T]
//	    --> indexer.Indexer[T] (cache, listers) and Handler[T] callbacks
//	    --> workqueue.Queue[R] --> reconcile.Controller[R] --> your Reconciler[R]
//
// Which package to reach for:
//
//   - source: the source contract (ListWatcher, Event, ErrExpired, …)
//     that every source implements; source/sourcetest checks it.
//   - reflector: the list-then-watch loop that keeps a store in step with
//     a source.
//   - fake: an in-memory, versioned source with fault injection, for tests,
//     demos and single-process programs.
//   - deltafifo: the queue of per-key changes between reflector and cache.
//   - indexer: the ordered, indexed, thread-safe cache with snapshots.
//   - informer: the shared informer with event handlers and listers.
//   - workqueue: typed queues with dedup, delays, rate limiting and
//     priorities.
//   - expectations: the guard that stops a controller from acting twice
//     while its cache lags behind its own writes.
//   - reconcile: the controller loop (Reconciler, Result, Controller).
//   - metrics: the Counter, Gauge and Histogram every package reports
//     through.
//   - leader: leader election (Elector, Run, an in-memory elector).
//
// # Controllers and the client contract
//
// On those primitives, package controllers/... rebuilds Kubernetes' control
// plane, layered so that every controller runs unchanged wherever the API
// lives:
//
//	reference controllers, scheduler, kubelets, kube-proxy, DNS, manager, yours
//	    │ informers over client.Resource[T]        │ writes through client.Resource[T]
//	    ▼                                          ▼
//	controllers/client: the typed client contract (Get, List/Watch with
//	    selectors, Create, Update, UpdateStatus, Patch, DeleteWith, Scale;
//	    IsNotFound, IsConflict, IsInvalid, …); clienttest is its suite
//	    │
//	    ├── controllers/cluster: the in-process API server semantics, on
//	    │   memory or etcd (a *cluster.Cluster is a client.Client)
//	    ├── kube module: kube.Client, a real Kubernetes API server over HTTP
//	    │   (realkube module: kube-apiserver v1.37.2 in tests, and the proof
//	    │   that the controllers run on it unchanged)
//	    └── controllers/client/fakeclient: the recording fake, over any client
//
// Only the cluster, its HTTP face (controllers/apiserver) and the wiring
// (controllers/controlplane) import the concrete cluster; the controllers
// depend on controllers/client and informers alone, and are all wired
// the same way (reconcile.Watch and WatchEvents onto a
// reconcile.Controller). Every built-in kind is one registration in
// controllers/api (api.KindInfo): discovery, tables, clients, stores, the
// garbage collector and quota derive from it. controllers/harness runs a
// controller on the in-process control plane in virtual time and breaks
// it: crashes between its writes and failed writes, against an
// unperturbed reference run.
//
// # Conventions
//
// Every package follows the same rules, so that logs and errors read
// alike wherever they come from:
//
//   - Error messages and log messages start with the package name and a
//     colon ("reflector: store failed"), are lower case and carry no
//     trailing punctuation. Sentinels callers branch on are exported
//     (ErrExpired, ErrConflict, …) and wrapped with %w.
//   - Log records take a *slog.Logger from Options (default
//     slog.Default()); an error goes under the key "err".
//   - Metrics come from a MetricsProvider in Options that returns a struct
//     of instruments for one named object; nothing is global.
//   - A function that needs its caller to hold a lock has a name ending
//     in Locked.
//
// Sources with heavy dependencies live in their own modules, such as
// github.com/ctrlkit/ctrlkit/etcd.
package ctrlkit
