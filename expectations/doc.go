// Package expectations stops a controller from acting twice while its
// cache lags behind its own writes: kube-controller-manager's controller
// expectations, which controller-runtime lacks.
//
// A controller that creates 3 pods reads its cache again before the watch
// events of those creates have arrived; without a guard it sees too few
// pods and creates 3 more. Expectations remembers, per controller key
// (usually the owner's "namespace/name"), how many creations and
// deletions (optionally: of which names) were issued but not yet
// observed, and Satisfied (or Remaining, which also tells how long the
// wait may last) tells the controller whether its cache can be trusted
// for that key.
//
// A controller uses expectations on top of a read-your-writes gate
// (reconcile.Consistency), not instead of it, and only when a sync must
// go on — write the status, take other steps — while its earlier creates
// or deletes are unobserved, holding back just the creates and deletes it
// decides by counting; package reconcile's doc ("Expectations or the
// gate: the rule") states the rule and its reason.
//
// # Calling pattern
//
// The pattern is the one kube-controller-manager's ReplicaSet controller
// follows, with two changes that make it converge when events are lost or
// a handler lags: it requeues itself while it waits, and it tracks its
// creations by name. In the reconcile (sync) of key:
//
//	if d, waiting := exp.Remaining(key); waiting {
//		// The awaited events requeue key; if they were lost, the
//		// expiry of the record does.
//		return reconcile.Result{RequeueAfter: d}, nil
//	}
//	missing := desiredNames(owner) minus the names in the cache
//	exp.ExpectCreationsOf(key, missing) // before the creates, never after
//	for _, name := range missing {
//		if err := create(ctx, name); err != nil {
//			exp.CreationObservedOf(key, name) // no event will come (or, on
//			                                  // "already exists", it came)
//		}
//	}
//
// In the informer's handlers of the owned type, with ownerKey the key of
// the owner the object's controller reference resolves to:
//
//	OnAdd(obj):    exp.CreationObservedOf(ownerKey, name(obj)); enqueue(ownerKey)
//	OnDelete(obj): exp.CreationObservedOf(ownerKey, name(obj))
//	               exp.DeletionObserved(ownerKey); enqueue(ownerKey)
//
// and in the owner's OnDelete handler, exp.Delete(ownerKey).
//
// Why Remaining and RequeueAfter: a reconcile that finds its key waiting
// and returns the zero Result has nothing scheduled; if the awaited events
// were lost, nothing enqueues the key again, the record's expiry goes
// unnoticed and the owner stays short of children for good, as a
// controller written with Satisfied and a bare return (which this package
// used to teach) does.
// Remaining tells how long until the record expires, so the reconcile
// runs again by then at the latest. (If an event enqueues the key
// earlier, that reconcile finds the record still waiting or not and
// requeues itself again as needed.)
//
// Why names: a handler that lags may never see an object that was created
// and deleted before it caught up (its add and delete coalesce), so a
// count-only creation would wait out the whole TTL. CreationObservedOf
// counts an expected name once, whichever of its add and its delete
// arrives, and ignores names it does not expect. When names are not
// known before the create, ExpectCreations(key, n) and CreationObserved
// count instead (observe only adds then: a delete cannot tell whether its
// add was counted). Use one of the two per controller: CreationObserved
// does not know names, so a name observed both ways counts twice.
//
// Deletions mirror creations: ExpectDeletions(key, n) before the
// deletes, DeletionObserved(key) for each failed delete, or UIDTracking
// to track them by UID. Setting the expectation before the writes
// matters: a watch event may arrive before the write call returns, and an
// observation for a key without a record is ignored. Lowering for a
// failed write matters too: otherwise the key waits for an event that
// will never come, until the TTL.
//
// # Satisfied, Remaining and the TTL
//
// Satisfied is true when the key has no record, when both of its counts
// are ≤ 0 (they may go negative: observations beyond the expectation are
// harmless), or when the record is older than Options.TTL (default 5
// minutes), counted from the ExpectCreations, ExpectCreationsOf or
// ExpectDeletions that set it. Remaining reports the same (waiting is
// !Satisfied) with the time left until the expiry. The TTL exists because
// a watch can lose events; an expiry lets the controller act on a cache
// that may still lag, so it is logged as a warning and reported to
// Metrics.Expired, once per record.
//
// ExpectCreations, ExpectCreationsOf and ExpectDeletions replace the
// key's record; RaiseExpectations, LowerExpectations and the
// observations change it without restarting the TTL, and do nothing when
// the key has no record. Counts saturate at math.MaxInt and math.MinInt
// instead of wrapping around, so no amount of raising reads as satisfied.
//
// # An owner deleted and recreated under the same key
//
// A new owner with the key of a deleted one must neither wait on nor
// profit from the old owner's record. Delete(key) in the owner's delete
// handler drops the record, so the new owner's first sync finds none and
// proceeds; its ExpectCreations then starts a fresh record, which never
// inherits the old counts (a replaced record starts from exactly n, even
// if the old one had gone negative). Observations of the old owner's
// objects that arrive while no record exists are ignored. One gap
// remains, and the caller closes it: an old object's event arriving after
// the new owner's ExpectCreations would count for the new owner, so the
// handlers must map an object to its owner only when the controller
// reference's UID matches the owner in the cache (as
// kube-controller-manager's resolveControllerRef does), or use keys that
// include the owner's UID. Names close the gap for creations (if the new
// owner's children get names the old one's did not use) and UIDTracking
// for deletions: each counts only what the current record expects.
//
// # Graceful deletion: UIDTracking
//
// An object deleted gracefully is first updated with a deletion timestamp
// and disappears later. A controller that treats the first as the
// deletion (so that it can replace the object at once) would count it
// twice. UIDTracking records which UIDs it waits for:
// ExpectDeletions(key, uids) before the deletes, DeletionObserved(key,
// uid) from OnUpdate when the deletion timestamp appears, from OnDelete,
// and for each failed delete. Each expected UID counts once.
//
// # Concurrency
//
// Every method is safe for concurrent use and returns promptly: one
// mutex guards a map, and Metrics and the Logger are called with it
// released. Nothing blocks and no goroutine is started. Satisfied,
// Remaining, Get and the observations do not allocate (except to log an
// expiry); replacing a record reuses its storage.
package expectations
