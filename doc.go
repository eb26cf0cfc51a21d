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
//	ListWatcher[T] --List+Watch--> reflector.Reflector[T]
//	    --deltas--> deltafifo.DeltaFIFO[T] --Pop--> informer.Informer[T]
//	    --> indexer.Indexer[T] (cache, listers) and Handler[T] callbacks
//	    --> workqueue.Queue[R] --> reconcile.Controller[R] --> your Reconciler[R]
//
// Which package to reach for:
//
//   - reflector: the source contract (ListWatcher, Event, ErrExpired) and
//     the list-then-watch loop that keeps a store in step with a source.
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
//
// Sources with heavy dependencies live in their own modules, such as
// github.com/ctrlkit/ctrlkit/etcd.
package ctrlkit
