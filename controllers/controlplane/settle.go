package controlplane

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

// DefaultQuiet is Settle's default quiet period: longer than every
// controller's immediate retry and the kubelet's probe periods, shorter
// than the minute of a CronJob's schedule.
const DefaultQuiet = 30 * time.Second

// activity tracks the last change of the cluster a component caused,
// from the informers of every kind: heartbeats (Lease renewals, node
// status posts that change only heartbeat times) and Events are not
// changes.
type activity struct {
	mu      sync.Mutex
	last    time.Time
	writes  uint64
	changed chan struct{} // closed and replaced at each change
	synced  []func() bool
	// kinds can say each store's newest resourceVersion and wait until
	// its informer has caught up with one (nodes are left out: their
	// heartbeats move it every 10 s).
	kinds []kindVersion
	seen  []string // the versions of kinds at Settle's last look
	// deleting holds "<resource> <key>" of every object with a
	// deletionTimestamp: a graceful deletion or a finalizer pending.
	deleting map[string]bool
}

type kindVersion struct {
	current  func(ctx context.Context) (string, error)
	caughtUp func(ctx context.Context, rv string) error
}

func (a *activity) track(resource string, obj api.Object, gone bool) {
	k := resource + " " + api.Key(obj)
	a.mu.Lock()
	if !gone && obj.GetObjectMeta().DeletionTimestamp != nil {
		a.deleting[k] = true
	} else {
		delete(a.deleting, k)
	}
	a.mu.Unlock()
}

func (a *activity) touch() {
	a.mu.Lock()
	a.last = time.Now()
	a.writes++
	close(a.changed)
	a.changed = make(chan struct{})
	a.mu.Unlock()
}

func watchActivity(ctx context.Context, c *cluster.Cluster, f *informer.Factory) (*activity, error) {
	a := &activity{last: time.Now(), changed: make(chan struct{}), deleting: map[string]bool{}}
	errs := []error{
		follow(a, f, c.Pods(), nil),
		follow(a, f, c.Nodes(), nodeChanged),
		follow(a, f, c.Services(), nil),
		follow(a, f, c.Endpoints(), nil),
		follow(a, f, c.ReplicaSets(), nil),
		follow(a, f, c.ReplicationControllers(), nil),
		follow(a, f, c.Deployments(), nil),
		follow(a, f, c.StatefulSets(), nil),
		follow(a, f, c.DaemonSets(), nil),
		follow(a, f, c.ControllerRevisions(), nil),
		follow(a, f, c.Jobs(), nil),
		follow(a, f, c.CronJobs(), nil),
		follow(a, f, c.Namespaces(), nil),
		follow(a, f, c.ResourceQuotas(), nil),
		follow(a, f, c.ServiceAccounts(), nil),
		follow(a, f, c.ConfigMaps(), nil),
		follow(a, f, c.Secrets(), nil),
		follow(a, f, c.PersistentVolumes(), nil),
		follow(a, f, c.PersistentVolumeClaims(), nil),
		follow(a, f, c.StorageClasses(), nil),
		follow(a, f, c.HorizontalPodAutoscalers(), nil),
	}
	// The kinds a user registered (api.Register) before Start: their
	// controllers' writes are activity too.
	for _, k := range c.Kinds() {
		if api.IsBuiltin(k.GroupVersionKind) {
			continue
		}
		if s, ok := c.DynamicStore(k.GroupVersionKind); ok {
			errs = append(errs, follow(a, f, s, nil))
		}
	}
	return a, errors.Join(errs...)
}

// follow marks activity on every add, delete and meaningful update of
// the store's shared informer (the one the controllers use, so Settle
// also knows their caches saw the change).
func follow[T api.Object](a *activity, f *informer.Factory, s *cluster.Store[T], changed func(old, new T) bool) error {
	inf, err := informer.Shared(f, s.Resource(), source.ListWatcher[T](s), api.Key[T], informer.Options[T]{})
	if err != nil {
		return err
	}
	a.synced = append(a.synced, inf.HasSynced)
	r := s.Resource()
	if changed == nil {
		a.kinds = append(a.kinds, kindVersion{
			current: func(ctx context.Context) (string, error) {
				l, err := s.List(ctx, source.ListOptions{Limit: 1})
				if err != nil {
					return "", err
				}
				return l.ResourceVersion, nil
			},
			caughtUp: inf.WaitForResourceVersion,
		})
	}
	_, err = inf.AddEventHandler(informer.HandlerFuncs[T]{
		AddFunc: func(obj T, _ bool) { a.track(r, obj, false); a.touch() },
		UpdateFunc: func(old, new T) {
			a.track(r, new, false)
			if changed == nil || changed(old, new) {
				a.touch()
			}
		},
		DeleteFunc: func(obj T, _ bool) { a.track(r, obj, true); a.touch() },
	}, informer.HandlerOptions{})
	return err
}

// nodeChanged ignores the kubelet's status posts that only move
// heartbeat times.
func nodeChanged(old, new *api.Node) bool {
	strip := func(n *api.Node) *api.Node {
		n = n.DeepCopy()
		n.ResourceVersion = ""
		for i := range n.Status.Conditions {
			n.Status.Conditions[i].LastHeartbeatTime = api.Time{}
		}
		return n
	}
	return !reflect.DeepEqual(strip(old), strip(new))
}

// Settle returns once the control plane is quiescent: every informer has
// synced, the controllers lead (this replica's, or another replica's
// when this one stands by: see below), no object is being deleted (a
// graceful deletion or a finalizer pending), and no component has
// changed the cluster for quiet (DefaultQuiet if ≤ 0) — no object (of a
// built-in kind, or of a kind registered with api.Register before Start,
// so that a user's controller counts too) created, deleted or updated
// other than heartbeats, so that no queue
// item, retry or timer due within quiet of the last change wrote
// anything. It does not poll: it waits on the informers' events and one
// timer.
//
// The controllers lead when this control plane's manager leads, or when
// the manager's elector reports that a replica holds leadership: one
// with a Leading() bool method (leader.Memory) or a
// Leader(ctx) (string, bool, error) method (the etcd module's Elector).
// So Settle works on every replica of a control plane whose leadership
// moved, the one that lost it included; with an elector that can tell
// neither, it waits for this replica to lead.
//
// A List of the store that fails (Settle reads each kind's newest
// resourceVersion) is a transient fault: Settle looks again a second
// later, or at the next change, and returns that error with ctx's if ctx
// ends first.
//
// In a testing/synctest bubble the quiet period passes in virtual time
// and Settle returns at the first instant the system has been idle for
// quiet; follow it with synctest.Wait to let the goroutines it woke
// block again. Outside a bubble the same holds in real time, with
// informer delivery latency on top. A timer due later than quiet (a
// CronJob's next minute, a Job's back-off of minutes, a 300 s toleration)
// is not waited for: choose quiet accordingly.
//
// It returns ctx's error if ctx ends first.
func (cp *ControlPlane) Settle(ctx context.Context, quiet time.Duration) error {
	if ctx == nil {
		return errors.New("controlplane: Settle: context is nil")
	}
	if quiet <= 0 {
		quiet = DefaultQuiet
	}
	a := cp.activity
	var listErr error // the last List that failed, nil once one succeeds
	for {
		// A write the informers have not delivered yet is a change too:
		// compare the stores' versions with the last look, and wait until
		// the caches hold them.
		versions := make([]string, len(a.kinds))
		listErr = nil
		for i, k := range a.kinds {
			rv, err := k.current(ctx)
			if err != nil {
				if ctx.Err() == nil {
					listErr = err
				}
				break
			}
			versions[i] = rv
		}
		if err := ctx.Err(); err != nil {
			return settleErr(err, listErr)
		}
		if listErr == nil {
			a.mu.Lock()
			moved := a.seen == nil || !slices.Equal(a.seen, versions)
			a.seen = versions
			a.mu.Unlock()
			if moved {
				a.touch()
			}
			if a.allSynced() {
				for i, k := range a.kinds {
					if err := k.caughtUp(ctx, versions[i]); err != nil {
						return fmt.Errorf("controlplane: Settle: %w", err)
					}
				}
			}
		}
		a.mu.Lock()
		last, changed, deleting := a.last, a.changed, len(a.deleting)
		a.mu.Unlock()
		wait := time.Until(last.Add(quiet))
		ready := listErr == nil && cp.Manager.Synced() && a.allSynced() && deleting == 0
		if wait <= 0 && ready && cp.led(ctx) {
			return nil
		}
		switch {
		case listErr != nil:
			wait = min(wait, time.Second)
			if wait <= 0 {
				wait = time.Second
			}
		case wait <= 0:
			// The caches are still syncing, a deletion waits for a grace
			// period or a finalizer (its end is a change), or no replica
			// leads yet.
			wait = quiet
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return settleErr(ctx.Err(), listErr)
		case <-changed:
			t.Stop()
		case <-t.C:
		}
	}
}

func settleErr(ctxErr, listErr error) error {
	if listErr != nil {
		return fmt.Errorf("controlplane: Settle: %w (last failure: %w)", ctxErr, listErr)
	}
	return ctxErr
}

// led reports whether some replica's controllers run: this control
// plane's, or, when its elector can tell, another replica's.
func (cp *ControlPlane) led(ctx context.Context) bool {
	if cp.Manager.Leading() {
		return true
	}
	switch e := cp.elector.(type) {
	case interface{ Leading() bool }:
		return e.Leading()
	case interface {
		Leader(context.Context) (string, bool, error)
	}:
		_, ok, err := e.Leader(ctx)
		return err == nil && ok
	}
	return false
}

func (a *activity) allSynced() bool {
	for _, s := range a.synced {
		if !s() {
			return false
		}
	}
	return true
}

// Writes returns how many changes of the cluster (as Settle counts them)
// the control plane has observed.
func (cp *ControlPlane) Writes() uint64 {
	cp.activity.mu.Lock()
	defer cp.activity.mu.Unlock()
	return cp.activity.writes
}
