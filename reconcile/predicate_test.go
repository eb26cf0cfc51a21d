package reconcile_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
)

// captureSource is an EventSource that hands the test the handler.
type captureSource[T any] struct{ h informer.Handler[T] }

func (c *captureSource[T]) AddEventHandler(h informer.Handler[T], _ informer.HandlerOptions) (*informer.Registration, error) {
	c.h = h
	return nil, nil
}

// recHandler records which events reached it.
type recHandler[T any] struct{ got []string }

func (r *recHandler[T]) OnAdd(T, bool)            { r.got = append(r.got, "add") }
func (r *recHandler[T]) OnUpdate(T, T)            { r.got = append(r.got, "update") }
func (r *recHandler[T]) OnDelete(T, bool)         { r.got = append(r.got, "delete") }
func (r *recHandler[T]) reset() []string          { g := r.got; r.got = nil; return g }
func deploy(gen int64, rv string) *api.Deployment { return depl(gen, rv, nil, nil) }
func depl(gen int64, rv string, labels, ann map[string]string) *api.Deployment {
	return &api.Deployment{ObjectMeta: api.ObjectMeta{Name: "d", Namespace: "ns", Generation: gen, ResourceVersion: rv, Labels: labels, Annotations: ann}}
}

// Issue 14.7: the predicates controller-runtime and kube-rs users expect.
func TestPredicates(t *testing.T) {
	filter := func(preds ...reconcile.Predicate[*api.Deployment]) (informer.Handler[*api.Deployment], *recHandler[*api.Deployment]) {
		src := &captureSource[*api.Deployment]{}
		rec := &recHandler[*api.Deployment]{}
		_, err := reconcile.Filter[*api.Deployment](src, preds...).AddEventHandler(rec, informer.HandlerOptions{})
		require.NoError(t, err)
		return src.h, rec
	}

	h, rec := filter(reconcile.GenerationChanged[*api.Deployment]())
	h.OnAdd(deploy(1, "1"), false)
	h.OnUpdate(deploy(1, "1"), deploy(1, "2")) // status change
	h.OnUpdate(deploy(1, "2"), deploy(2, "3")) // spec change
	h.OnDelete(deploy(2, "3"), false)
	require.Equal(t, []string{"add", "update", "delete"}, rec.reset())

	h, rec = filter(reconcile.ResourceVersionChanged[*api.Deployment]())
	h.OnUpdate(deploy(1, "1"), deploy(1, "1")) // resync
	h.OnUpdate(deploy(1, "1"), deploy(1, "2"))
	require.Equal(t, []string{"update"}, rec.reset())

	h, rec = filter(reconcile.Any(reconcile.LabelsChanged[*api.Deployment](), reconcile.AnnotationsChanged[*api.Deployment]()))
	h.OnUpdate(depl(1, "1", map[string]string{"a": "1"}, nil), depl(1, "2", map[string]string{"a": "1"}, nil))
	h.OnUpdate(depl(1, "2", map[string]string{"a": "1"}, nil), depl(1, "3", map[string]string{"a": "2"}, nil))
	h.OnUpdate(depl(1, "3", nil, nil), depl(1, "4", nil, map[string]string{"x": "y"}))
	require.Equal(t, []string{"update", "update"}, rec.reset())

	// One hash per key: a change and its undoing, seen only as the last
	// state, is no change; a delete forgets the key.
	replicas := func(d *api.Deployment) string { return fmt.Sprint(d.Annotations["replicas"]) }
	h, rec = filter(reconcile.HashChanged(api.Key[*api.Deployment], replicas))
	h.OnAdd(depl(1, "1", nil, map[string]string{"replicas": "3"}), false)
	h.OnUpdate(nil, depl(1, "2", nil, map[string]string{"replicas": "3"}))
	h.OnUpdate(nil, depl(1, "3", nil, map[string]string{"replicas": "4"}))
	h.OnDelete(depl(1, "3", nil, map[string]string{"replicas": "4"}), false)
	h.OnAdd(depl(1, "4", nil, map[string]string{"replicas": "4"}), false)
	require.Equal(t, []string{"add", "update", "delete", "add"}, rec.reset())

	// Every predicate must agree.
	h, rec = filter(reconcile.GenerationChanged[*api.Deployment](), reconcile.ResourceVersionChanged[*api.Deployment]())
	h.OnUpdate(deploy(1, "1"), deploy(2, "1"))
	h.OnUpdate(deploy(1, "1"), deploy(2, "2"))
	require.Equal(t, []string{"update"}, rec.reset())

	_, err := reconcile.Filter[*api.Deployment](nil).AddEventHandler(rec, informer.HandlerOptions{})
	require.ErrorContains(t, err, "event source is nil")
}

// Result.Priority requeues at the priority the reconcile asks for, and
// ReconcileAllOn enqueues every request on a signal.
func TestPriorityAndReconcileAllOn(t *testing.T) {
	for _, withPriority := range []bool{true, false} {
		t.Run(fmt.Sprintf("priority=%v", withPriority), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				high := 10
				var log callLog
				var calls atomic.Int32
				var ctl *reconcile.Controller[string]
				ctl, err := reconcile.New("prio", reconcile.Func[string](func(_ context.Context, req string) (reconcile.Result, error) {
					log.add(req)
					switch {
					case req == "urgent" && calls.Add(1) == 1:
						for _, r := range []string{"a", "b", "c"} {
							ctl.Enqueue(r)
						}
						res := reconcile.Result{}
						if withPriority {
							res.Priority = &high
						}
						return res, errors.New("try again soon")
					case req == "a":
						time.Sleep(time.Second) // the retry's backoff ends meanwhile
					}
					return reconcile.Result{}, nil
				}), reconcile.Options[string]{Logger: quiet, Workers: 1})
				require.NoError(t, err)
				signal := make(chan struct{})
				require.NoError(t, ctl.ReconcileAllOn(signal, func() []string { return []string{"x", "y"} }))
				stop := running(ctl)
				ctl.Enqueue("urgent")
				time.Sleep(time.Minute)
				if withPriority {
					require.Equal(t, []string{"urgent", "a", "urgent", "b", "c"}, log.requests())
				} else {
					require.Equal(t, []string{"urgent", "a", "b", "c", "urgent"}, log.requests())
				}
				log.reset()
				signal <- struct{}{}
				time.Sleep(time.Second)
				require.ElementsMatch(t, []string{"x", "y"}, log.requests())
				require.NoError(t, ignoreCanceled(stop()))
				require.ErrorContains(t, ctl.ReconcileAllOn(signal, func() []string { return nil }), "after Run")
			})
		})
	}
}
