package reconcile_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/workqueue"
	"github.com/stretchr/testify/require"
)

// handlerSource is an EventSource that keeps the handler registered on it,
// so a test can deliver events by hand.
type handlerSource struct {
	h   informer.Handler[*obj]
	err error
}

func (s *handlerSource) AddEventHandler(h informer.Handler[*obj], _ informer.HandlerOptions) (*informer.Registration, error) {
	if s.err != nil {
		return nil, s.err
	}
	s.h = h
	return &informer.Registration{}, nil
}

// pending takes every request queued on ctl, with its priority.
func pending(ctl *reconcile.Controller[string]) map[string]int {
	out := map[string]int{}
	q := ctl.Queue()
	for q.Len() > 0 {
		req, prio, _ := q.GetWithPriority()
		out[req] = prio
		q.Done(req)
	}
	return out
}

func newQuietController(t *testing.T) *reconcile.Controller[string] {
	t.Helper()
	ctl, err := reconcile.New("w", reconcile.Func[string](func(context.Context, string) (reconcile.Result, error) {
		return reconcile.Result{}, nil
	}), reconcile.Options[string]{Logger: quiet})
	require.NoError(t, err)
	return ctl
}

func TestWatchEventsMapsEachKindOfEvent(t *testing.T) {
	ctl := newQuietController(t)
	src := &handlerSource{}
	var deleted []string
	_, err := reconcile.WatchEvents(ctl, src, reconcile.Events[*obj, string]{
		Map: func(o *obj) []string { return []string{"map:" + o.Name} },
		Update: func(old, cur *obj) []string {
			if old.Owner == cur.Owner {
				return nil // only an owner change matters
			}
			return []string{old.Owner, cur.Owner, cur.Owner}
		},
		Delete: func(o *obj) []string {
			deleted = append(deleted, o.Name) // a side effect before the enqueue
			return []string{"gone:" + o.Name}
		},
	}, reconcile.WatchOptions{})
	require.NoError(t, err)
	low := workqueue.LowPriority

	src.h.OnAdd(&obj{Name: "a"}, true)
	src.h.OnAdd(&obj{Name: "b"}, false)
	require.Equal(t, map[string]int{"map:a": low, "map:b": 0}, pending(ctl), "Create falls back to Map")

	src.h.OnUpdate(&obj{Name: "a", Owner: "x", RV: "1"}, &obj{Name: "a", Owner: "x", RV: "2"})
	require.Empty(t, pending(ctl), "Update returned nothing: Map is not used for it")
	src.h.OnUpdate(&obj{Name: "a", Owner: "x", RV: "2"}, &obj{Name: "a", Owner: "y", RV: "3"})
	require.Equal(t, map[string]int{"x": 0, "y": 0}, pending(ctl))
	src.h.OnUpdate(&obj{Name: "a", Owner: "x", RV: "3"}, &obj{Name: "a", Owner: "y", RV: "3"})
	require.Equal(t, map[string]int{"x": low, "y": low}, pending(ctl), "a resync goes to Update at low priority")

	src.h.OnDelete(&obj{Name: "a"}, false)
	require.Equal(t, map[string]int{"gone:a": 0}, pending(ctl))
	require.Equal(t, []string{"a"}, deleted)
}

func TestWatchEventsWithoutMapIgnoresTheOtherEvents(t *testing.T) {
	ctl := newQuietController(t)
	src := &handlerSource{}
	_, err := reconcile.WatchEvents(ctl, src, reconcile.Events[*obj, string]{
		Create: func(o *obj) []string { return []string{o.Name} },
	}, reconcile.WatchOptions{})
	require.NoError(t, err)
	src.h.OnUpdate(&obj{Name: "a", RV: "1"}, &obj{Name: "a", RV: "2"})
	src.h.OnDelete(&obj{Name: "a"}, true)
	require.Empty(t, pending(ctl))
	src.h.OnAdd(&obj{Name: "a"}, false)
	require.Equal(t, map[string]int{"a": 0}, pending(ctl))
}

func TestWatchEventsTellsTheInitialList(t *testing.T) {
	ctl := newQuietController(t)
	src := &handlerSource{}
	_, err := reconcile.WatchEvents(ctl, src, reconcile.Events[*obj, string]{
		Initial: func(o *obj) []string { return []string{"leftover:" + o.Name} },
	}, reconcile.WatchOptions{})
	require.NoError(t, err)
	src.h.OnAdd(&obj{Name: "a"}, true)
	src.h.OnAdd(&obj{Name: "b"}, false)
	require.Equal(t, map[string]int{"leftover:a": workqueue.LowPriority}, pending(ctl), "a live add has no mapping")
}

func TestWatchOptionsPriorityOfLiveEvents(t *testing.T) {
	ctl := newQuietController(t)
	src := &handlerSource{}
	_, err := reconcile.Watch(ctl, src, reconcile.ByKey(keyOf), reconcile.WatchOptions{Priority: 7})
	require.NoError(t, err)
	src.h.OnAdd(&obj{Name: "initial"}, true)
	src.h.OnAdd(&obj{Name: "live"}, false)
	src.h.OnUpdate(&obj{Name: "changed", RV: "1"}, &obj{Name: "changed", RV: "2"})
	src.h.OnUpdate(&obj{Name: "resynced", RV: "2"}, &obj{Name: "resynced", RV: "2"})
	src.h.OnDelete(&obj{Name: "deleted"}, false)
	low := workqueue.LowPriority
	require.Equal(t, map[string]int{"initial": low, "live": 7, "changed": 7, "resynced": low, "deleted": 7}, pending(ctl))
}

func TestWatchEventsBadInput(t *testing.T) {
	ctl := newQuietController(t)
	_, err := reconcile.WatchEvents(ctl, &handlerSource{}, reconcile.Events[*obj, string]{}, reconcile.WatchOptions{})
	require.ErrorContains(t, err, "map function is nil")
	_, err = reconcile.WatchEvents(nil, &handlerSource{}, reconcile.Events[*obj, string]{Map: reconcile.ByKey(keyOf)}, reconcile.WatchOptions{})
	require.ErrorContains(t, err, "controller is nil")
	_, err = reconcile.WatchEvents[*obj](ctl, (*handlerSource)(nil), reconcile.Events[*obj, string]{Map: reconcile.ByKey(keyOf)}, reconcile.WatchOptions{})
	require.ErrorContains(t, err, "event source is nil")
	boom := errors.New("boom")
	_, err = reconcile.WatchEvents(ctl, &handlerSource{err: boom}, reconcile.Events[*obj, string]{Map: reconcile.ByKey(keyOf)}, reconcile.WatchOptions{})
	require.ErrorIs(t, err, boom, "a registration failure is returned")
	_, err = reconcile.Watch(ctl, reconcile.Observe[*obj](&handlerSource{}, nil), reconcile.ByKey(keyOf), reconcile.WatchOptions{})
	require.ErrorContains(t, err, "observer is nil")
}

// order records the calls of an observer and of the mapping.
type order struct{ calls []string }

func (o *order) OnAdd(x *obj, _ bool)    { o.calls = append(o.calls, "observe add "+x.Name) }
func (o *order) OnUpdate(_, x *obj)      { o.calls = append(o.calls, "observe update "+x.Name) }
func (o *order) OnDelete(x *obj, _ bool) { o.calls = append(o.calls, "observe delete "+x.Name) }
func (o *order) mapped(x *obj) []string {
	o.calls = append(o.calls, "map "+x.Name)
	return []string{x.Name}
}

func TestObserveRunsBeforeTheMapping(t *testing.T) {
	ctl := newQuietController(t)
	src := &handlerSource{}
	var o order
	_, err := reconcile.Watch(ctl, reconcile.Observe[*obj](src, &o), o.mapped, reconcile.WatchOptions{})
	require.NoError(t, err)
	src.h.OnAdd(&obj{Name: "a"}, false)
	src.h.OnUpdate(&obj{Name: "a", RV: "1"}, &obj{Name: "a", RV: "1"})
	src.h.OnDelete(&obj{Name: "a"}, false)
	require.Equal(t, []string{
		"observe add a", "map a",
		"observe update a", "map a",
		"observe delete a", "map a",
	}, o.calls)
}

func TestRunReportsADrainThatTimedOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := reconcile.Func[string](func(ctx context.Context, _ string) (reconcile.Result, error) {
			<-ctx.Done()
			return reconcile.Result{}, nil
		})
		ctl, err := reconcile.New("stuck", r, reconcile.Options[string]{Logger: quiet})
		require.NoError(t, err)
		ctl.Enqueue("a")
		stop := running(ctl)
		synctest.Wait()
		err = stop()
		require.ErrorIs(t, err, reconcile.ErrShutdownTimeout)
		require.ErrorIs(t, err, context.Canceled)
	})
}
