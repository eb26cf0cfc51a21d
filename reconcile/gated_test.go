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

	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
)

var _ reconcile.KeyedCache = (*informer.Informer[*obj])(nil)

// Issue 14.6: after the event of a controller's own create is lost, any
// later event carries the cache's watermark past the write; a gate on the
// watermark then lets the next reconcile through to a cache without the
// child, and it creates a second one. The gate per key holds it until the
// cache shows the child (here: after the relist that a watch failure
// causes).
func TestGatePerKeyIsNotFooledByALostEvent(t *testing.T) {
	for _, perKey := range []bool{true, false} {
		t.Run(fmt.Sprintf("perKey=%v", perKey), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := newSource(t)
				inf := newInformer(t, src, informer.Options[*obj]{})
				gate, err := reconcile.NewConsistency[string](inf, src, reconcile.ConsistencyOptions{MaxKeyWait: 10 * time.Minute})
				require.NoError(t, err)
				writer, err := reconcile.GatedWriter(gate, src, keyOf)
				require.NoError(t, err)

				var creates atomic.Int32
				r := reconcile.Func[string](func(ctx context.Context, req string) (reconcile.Result, error) {
					if len(inf.Lister().List(func(o *obj) bool { return o.Owner == req })) > 0 {
						return reconcile.Result{}, nil
					}
					n := creates.Add(1)
					child := &obj{Name: fmt.Sprintf("%s-%d", req, n), Owner: req}
					if !perKey {
						rv, err := src.Create(ctx, child)
						if err != nil {
							return reconcile.Result{}, err
						}
						return reconcile.Result{}, gate.WroteAt(req, rv)
					}
					_, err := writer.Create(ctx, child)
					return reconcile.Result{}, err
				})
				ctl, err := reconcile.New("gated", r, reconcile.Options[string]{
					Logger:      quiet,
					Consistency: []*reconcile.Consistency[string]{gate},
				})
				require.NoError(t, err)
				require.NoError(t, ctl.AddSyncCheck(inf.HasSynced))
				stopInf := runInformer(inf)
				stop := running(ctl)

				src.MissNextEvents(1) // the child's create is never seen
				ctl.Enqueue("owner")
				time.Sleep(time.Second)
				synctest.Wait()
				require.EqualValues(t, 1, creates.Load())
				_, err = src.Create(t.Context(), &obj{Name: "unrelated"}) // carries the watermark past the child
				require.NoError(t, err)
				time.Sleep(time.Second)
				ctl.Enqueue("owner") // as any event of the owner would
				time.Sleep(10 * time.Second)
				synctest.Wait()

				if !perKey {
					require.EqualValues(t, 2, creates.Load(), "the watermark lets a duplicate through")
				} else {
					require.EqualValues(t, 1, creates.Load(), "held: the cache does not show the child")
					require.Equal(t, []string{"owner-1"}, gate.PendingKeys("owner"))
					src.CutWatches(errors.New("stream broke")) // the relist repairs the lost event
					time.Sleep(time.Minute)
					synctest.Wait()
					require.EqualValues(t, 1, creates.Load(), "the reconcile saw its child")
					require.Zero(t, gate.Len())
				}
				require.NoError(t, ignoreCanceled(stop()))
				stopInf()
			})
		})
	}
}

// A deleted key releases the gate once the cache no longer holds it; a
// key that never shows releases it after MaxKeyWait, with an error for
// the Controller to log.
func TestGatePerKeyDeletesAndMaxWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, &obj{Name: "a"})
		inf := newInformer(t, src, informer.Options[*obj]{})
		stopInf := runInformer(inf)
		defer stopInf()
		synctest.Wait()
		gate, err := reconcile.NewConsistency[string](inf, src, reconcile.ConsistencyOptions{MaxKeyWait: time.Minute})
		require.NoError(t, err)
		writer, err := reconcile.GatedWriter(gate, src, keyOf)
		require.NoError(t, err)

		// Outside a reconcile nothing is recorded.
		_, err = writer.Update(t.Context(), &obj{Name: "a", Val: 1}, "")
		require.NoError(t, err)
		require.Zero(t, gate.Len())

		src.MissNextEvents(1)
		rv, err := src.Delete(t.Context(), "a", "")
		require.NoError(t, err)
		require.NoError(t, gate.DeletedKey("r", "a", rv))
		require.ErrorContains(t, gate.WroteKey("r", "", rv), "key is empty")
		require.Equal(t, []string{"a"}, gate.PendingKeys("r"))

		var calls atomic.Int32
		ctl, err := reconcile.New("gated", reconcile.Func[string](func(context.Context, string) (reconcile.Result, error) {
			calls.Add(1)
			return reconcile.Result{}, nil
		}), reconcile.Options[string]{Logger: quiet, Consistency: []*reconcile.Consistency[string]{gate}})
		require.NoError(t, err)
		stop := running(ctl)
		ctl.Enqueue("r")
		time.Sleep(30 * time.Second)
		require.Zero(t, calls.Load(), "the cache still holds the deleted key")
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		require.EqualValues(t, 1, calls.Load(), "released after MaxKeyWait")
		require.Zero(t, gate.Len())
		require.NoError(t, ignoreCanceled(stop()))

		_, err = reconcile.NewConsistency[string](inf, src, reconcile.ConsistencyOptions{MaxKeyWait: -1})
		require.ErrorContains(t, err, "MaxKeyWait -1ns is negative")
		_, err = reconcile.GatedWriter[*obj, string](nil, src, keyOf)
		require.ErrorContains(t, err, "gate is nil")
	})
}

// reconcile.Writer is the gate on by default: no gate to make or pass,
// and the lost create of TestGatePerKeyIsNotFooledByALostEvent still
// cannot produce a duplicate.
func TestWriterGatesByDefault(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t)
		inf := newInformer(t, src, informer.Options[*obj]{})
		var creates atomic.Int32
		var writer interface {
			Create(context.Context, *obj) (string, error)
		}
		ctl, err := reconcile.New("gated", reconcile.Func[string](func(ctx context.Context, req string) (reconcile.Result, error) {
			if len(inf.Lister().List(func(o *obj) bool { return o.Owner == req })) > 0 {
				return reconcile.Result{}, nil
			}
			n := creates.Add(1)
			_, err := writer.Create(ctx, &obj{Name: fmt.Sprintf("%s-%d", req, n), Owner: req})
			return reconcile.Result{}, err
		}), reconcile.Options[string]{Logger: quiet})
		require.NoError(t, err)
		w, err := reconcile.Writer(ctl, inf, src, keyOf)
		require.NoError(t, err)
		writer = w
		_, err = reconcile.Writer(ctl, inf, src, keyOf) // shares the gate
		require.NoError(t, err)
		require.NoError(t, ctl.AddSyncCheck(inf.HasSynced))
		stopInf := runInformer(inf)
		stop := running(ctl)

		src.MissNextEvents(1)
		ctl.Enqueue("owner")
		time.Sleep(time.Second)
		_, err = src.Create(t.Context(), &obj{Name: "unrelated"})
		require.NoError(t, err)
		ctl.Enqueue("owner")
		time.Sleep(10 * time.Second)
		synctest.Wait()
		require.EqualValues(t, 1, creates.Load(), "held until the cache shows the child")
		src.CutWatches(errors.New("stream broke"))
		time.Sleep(time.Minute)
		synctest.Wait()
		require.EqualValues(t, 1, creates.Load())
		require.NoError(t, ignoreCanceled(stop()))
		stopInf()
		_, err = reconcile.Writer(ctl, inf, src, keyOf)
		require.ErrorContains(t, err, "called after Run")
	})
}
