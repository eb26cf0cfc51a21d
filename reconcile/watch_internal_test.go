package reconcile

import (
	"context"
	"testing"

	"github.com/ctrlkit/ctrlkit/workqueue"
	"github.com/stretchr/testify/require"
)

type vobj struct {
	name, owner, rv string
}

func (o *vobj) GetResourceVersion() string { return o.rv }

type plain struct{ name, owner string }

func newTestController(t *testing.T) *Controller[string] {
	t.Helper()
	ctl, err := New("h", Func[string](func(context.Context, string) (Result, error) { return Result{}, nil }), Options[string]{})
	require.NoError(t, err)
	return ctl
}

type got struct {
	req  string
	prio int
}

// drain returns what the queue holds, in the order Get hands it out.
func drain(q *workqueue.Queue[string]) []got {
	var out []got
	for q.Len() > 0 {
		req, prio, _ := q.GetWithPriority()
		out = append(out, got{req, prio})
		q.Done(req)
	}
	return out
}

func TestWatchHandlerPriorities(t *testing.T) {
	low := workqueue.LowPriority
	t.Run("versioned pointers", func(t *testing.T) {
		ctl := newTestController(t)
		h := &watchHandler[*vobj, string]{q: ctl.queue, ev: Events[*vobj, string]{Map: ByOwner(func(o *vobj) []string { return []string{o.owner} })}, ptr: true}
		a1 := &vobj{name: "a", owner: "rs-1", rv: "5"}
		h.OnAdd(a1, true)                                        // initial list: low
		h.OnUpdate(a1, &vobj{name: "a", owner: "rs-1", rv: "5"}) // same rv, new pointer: resync, low
		require.Equal(t, []got{{"rs-1", low}}, drain(ctl.queue))

		h.OnUpdate(a1, a1) // resync: low
		h.OnAdd(&vobj{name: "b", owner: "rs-2", rv: "6"}, false)
		require.Equal(t, []got{{"rs-2", 0}, {"rs-1", low}}, drain(ctl.queue), "live add first")

		// A change of owner reconciles both owners, at the default priority.
		h.OnUpdate(a1, &vobj{name: "a", owner: "rs-3", rv: "7"})
		require.ElementsMatch(t, []got{{"rs-1", 0}, {"rs-3", 0}}, drain(ctl.queue))

		h.OnDelete(a1, true)
		require.Equal(t, []got{{"rs-1", 0}}, drain(ctl.queue))

		// A pending low request is raised by a live event for it.
		h.OnAdd(a1, true)
		h.OnUpdate(&vobj{name: "x", owner: "rs-1", rv: "8"}, &vobj{name: "x", owner: "rs-1", rv: "9"})
		require.Equal(t, []got{{"rs-1", 0}}, drain(ctl.queue))
	})
	t.Run("unversioned pointers", func(t *testing.T) {
		ctl := newTestController(t)
		h := &watchHandler[*plain, string]{q: ctl.queue, ev: Events[*plain, string]{Map: func(o *plain) []string { return []string{o.name} }}, ptr: true}
		p := &plain{name: "p"}
		h.OnUpdate(p, p) // identity: resync
		require.Equal(t, []got{{"p", low}}, drain(ctl.queue))
		h.OnUpdate(p, &plain{name: "p"}) // another pointer: a change
		require.Equal(t, []got{{"p", 0}}, drain(ctl.queue))
	})
	t.Run("values", func(t *testing.T) {
		ctl := newTestController(t)
		h := &watchHandler[plain, string]{q: ctl.queue, ev: Events[plain, string]{Map: func(o plain) []string { return []string{o.name} }}}
		h.OnUpdate(plain{name: "v"}, plain{name: "v"}) // cannot tell: a change
		require.Equal(t, []got{{"v", 0}}, drain(ctl.queue))
	})
}

// BenchmarkWatchHandler measures one live event mapped by key and
// enqueued (the request already pending, as in a burst of updates).
func BenchmarkWatchHandler(b *testing.B) {
	ctl, err := New("h", Func[string](func(context.Context, string) (Result, error) { return Result{}, nil }), Options[string]{})
	if err != nil {
		b.Fatal(err)
	}
	h := &watchHandler[*vobj, string]{q: ctl.queue, ev: Events[*vobj, string]{Map: ByKey(func(o *vobj) string { return o.name })}, ptr: true}
	old, cur := &vobj{name: "a", rv: "1"}, &vobj{name: "a", rv: "2"}
	b.ReportAllocs()
	for b.Loop() {
		h.OnUpdate(old, cur)
	}
}
