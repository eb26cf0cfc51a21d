package events

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"
)

// order returns c's keys from the most to the least recently used,
// walking the links both ways and checking that they agree.
func order[K comparable, V any](t *testing.T, c *lru[K, V]) []K {
	t.Helper()
	var fwd, back []K
	for i := c.head; i >= 0; i = c.slots[i].next {
		fwd = append(fwd, c.slots[i].key)
	}
	for i := c.tail; i >= 0; i = c.slots[i].prev {
		back = append(back, c.slots[i].key)
	}
	slices.Reverse(back)
	require.Equal(t, fwd, back, "the links disagree")
	return fwd
}

// The lru does what a list of (key, value), most recent first, cut at
// size, does — over random gets and puts — and never holds a slot past
// its size.
func TestLRUMatchesList(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for size := 1; size <= 7; size++ {
		c := newLRU[int, int](size)
		type kv struct{ k, v int }
		var model []kv // most recent first
		find := func(k int) int {
			return slices.IndexFunc(model, func(e kv) bool { return e.k == k })
		}
		for op := range 2000 {
			k := rng.IntN(2 * size)
			if rng.IntN(2) == 0 {
				got, ok := c.get(k)
				i := find(k)
				require.Equal(t, i >= 0, ok, "get(%d)", k)
				if ok {
					require.Equal(t, model[i].v, *got)
					e := model[i]
					model = slices.Insert(slices.Delete(model, i, i+1), 0, e)
				}
			} else {
				p := c.put(k, op)
				require.Equal(t, op, *p)
				if i := find(k); i >= 0 {
					model = slices.Delete(model, i, i+1)
				}
				model = slices.Insert(model, 0, kv{k, op})
				if len(model) > size {
					model = model[:size]
				}
			}
			var want []int
			for _, e := range model {
				want = append(want, e.k)
			}
			require.Equal(t, want, order(t, c))
			require.Equal(t, len(model), c.len())
			require.LessOrEqual(t, cap(c.slots), size)
		}
	}
}

// A pointer from get changes the value in place.
func TestLRUGetInPlace(t *testing.T) {
	c := newLRU[string, int](2)
	c.put("a", 1)
	p, ok := c.get("a")
	require.True(t, ok)
	*p = 5
	got, _ := c.get("a")
	require.Equal(t, 5, *got)
}

// The bucket decides as x/time/rate's Limiter does, at any refill and
// burst, for times that advance by random steps, stand still or go
// back.
func TestBucketMatchesLimiter(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	refills := []time.Duration{time.Nanosecond, 3 * time.Nanosecond, time.Microsecond, 7 * time.Millisecond,
		time.Second, 3 * time.Second, time.Minute, 5 * time.Minute, 7*time.Minute + 13*time.Millisecond, 1000 * time.Hour}
	allowed, refused := 0, 0
	for _, refill := range refills {
		for _, burst := range []int{1, 2, 5, 25} {
			lim := rate.NewLimiter(rate.Every(refill), burst)
			k := bucket{tokens: float64(burst)}
			now := time.Now() // with a monotonic reading
			for i := range 3000 {
				switch rng.IntN(6) {
				case 0: // the same instant
				case 1:
					now = now.Add(-time.Duration(rng.Int64N(int64(refill) + 1)))
				case 2:
					now = now.Add(refill)
				default:
					now = now.Add(time.Duration(rng.Int64N(int64(refill)/max(int64(burst)/2, 1) + 1)))
				}
				want := lim.AllowN(now, 1)
				require.Equal(t, want, k.allow(now, 1/refill.Seconds(), burst), "refill %v burst %d event %d", refill, burst, i)
				if want {
					allowed++
				} else {
					refused++
				}
			}
		}
	}
	require.Positive(t, allowed)
	require.Positive(t, refused)

	// At 3ns a token, one refill brings 0.9999999999999999 tokens: the
	// Limiter lets the event through (its wait rounds to 0ns), and so
	// does the bucket.
	k := bucket{tokens: 1}
	t0 := time.Now()
	refill := 3 * time.Nanosecond
	require.Less(t, refill.Seconds()*(1/refill.Seconds()), 1.0)
	require.True(t, k.allow(t0, 1/refill.Seconds(), 1))
	require.True(t, k.allow(t0.Add(refill), 1/refill.Seconds(), 1))
	require.False(t, k.allow(t0.Add(refill), 1/refill.Seconds(), 1))
}

// Digests tell apart events whose parts join into the same string, and
// only those that differ.
func TestDigestSeparatesParts(t *testing.T) {
	h := newHasher()
	base := Event{Host: "node-1", Regarding: Ref{APIVersion: "v1", Kind: "Pod", Namespace: "ns", Name: "web-0", UID: "u"},
		Type: Normal, Reason: "Pulled", Message: "pulled"}
	obj, ev := h.event(&base)
	same := base
	same.Name, same.Count, same.First, same.Last = "other", 9, time.Now(), time.Now()
	o2, e2 := h.event(&same)
	require.Equal(t, obj, o2, "name, count and times are not part of the digests")
	require.Equal(t, ev, e2)

	// One part moved across a boundary, or changed.
	variants := map[string]func(*Event){
		"reason/message":   func(e *Event) { e.Reason, e.Message = "Pulle", "dpulled" },
		"host/apiVersion":  func(e *Event) { e.Host, e.Regarding.APIVersion = "node-1v", "1" },
		"name/uid":         func(e *Event) { e.Regarding.Name, e.Regarding.UID = "web-0u", "" },
		"fieldPath/type":   func(e *Event) { e.Regarding.FieldPath, e.Type = "N", "ormal" },
		"message":          func(e *Event) { e.Message = "pulled!" },
		"type":             func(e *Event) { e.Type = Warning },
		"kind":             func(e *Event) { e.Regarding.Kind = "Node" },
		"namespace":        func(e *Event) { e.Regarding.Namespace = "ns2" },
		"fieldPath":        func(e *Event) { e.Regarding.FieldPath = "spec.containers{web}" },
		"uid":              func(e *Event) { e.Regarding.UID = "v" },
		"host":             func(e *Event) { e.Host = "node-2" },
		"message, nul":     func(e *Event) { e.Reason, e.Message = "Pulled\x00", "\x00pulled" },
		"empty namespace":  func(e *Event) { e.Regarding.Namespace, e.Regarding.Name = "", "nsweb-0" },
		"empty everything": func(e *Event) { *e = Event{} },
	}
	for name, change := range variants {
		v := base
		change(&v)
		o, e := h.event(&v)
		require.NotEqual(t, ev, e, name)
		objectChanged := v.Host != base.Host || v.Regarding != base.Regarding
		require.Equal(t, objectChanged, o != obj, name)
	}
}

// nopSink accepts everything.
type nopSink struct{}

func (nopSink) Create(context.Context, Event) error { return nil }
func (nopSink) Update(context.Context, Event) error { return nil }

// Correlating a repeated event allocates nothing.
func TestRepeatWritesAllocateNothing(t *testing.T) {
	b, err := NewBroadcaster(nopSink{}, Options{Component: "c", Logger: slog.New(slog.DiscardHandler), Refill: time.Nanosecond})
	require.NoError(t, err)
	now := time.Now()
	ev := newEvent(Ref{Kind: "Pod", Namespace: "ns", Name: "web-0"}, Normal, "Pulled", "pulled", "c", now, 1)
	ctx := context.Background()
	b.write(ctx, ev)
	allocs := testing.AllocsPerRun(100, func() {
		ev.Last = ev.Last.Add(time.Second)
		b.write(ctx, ev)
	})
	require.Zero(t, allocs)
	got, ok := b.seen.get(eventDigest(b.digests.event(&ev)))
	require.True(t, ok)
	require.Equal(t, 102, got.count)
}

func eventDigest(_, event digest) digest { return event }

// BenchmarkWrite correlates events through a full cache: each event is
// new (its object's bucket and the event forgotten since it was last
// written), then repeated at once.
func BenchmarkWrite(b *testing.B) {
	br, err := NewBroadcaster(nopSink{}, Options{Component: "c", Logger: slog.New(slog.DiscardHandler), CacheSize: 256})
	if err != nil {
		b.Fatal(err)
	}
	evs := make([]Event, 512)
	now := time.Now()
	for i := range evs {
		ref := Ref{APIVersion: "v1", Kind: "Pod", Namespace: "default", Name: "web-7d9f8c6b5-" + string(rune('a'+i%26)) + string(rune('a'+i/26)), UID: "0b5e8f4c-2a34-4c1e-9f2b-7a4d1c6e3f80", FieldPath: "spec.containers{web}"}
		evs[i] = newEvent(ref, Normal, "Pulled", `Container image "nginx:1.27" already present on machine`, "kubelet", now, int64(i))
		evs[i].Host = "node-1234"
	}
	ctx := context.Background()
	i := 0
	for b.Loop() {
		br.write(ctx, evs[i/2%len(evs)])
		i++
	}
}

// The interner hands back the first copy of a text for later equal ones,
// keeps no text longer than internMax, and always returns what it was
// given, whatever took the slot meanwhile.
func TestInternerSharesTexts(t *testing.T) {
	var in interner
	a := strings.Clone("Container started")
	b := strings.Clone(a)
	require.NotSame(t, unsafe.StringData(a), unsafe.StringData(b))
	require.Same(t, unsafe.StringData(a), unsafe.StringData(in.intern(a)))
	require.Same(t, unsafe.StringData(a), unsafe.StringData(in.intern(b)), "an equal text is the first copy")
	long := strings.Repeat("x", internMax+1)
	in.intern(long)
	require.NotSame(t, unsafe.StringData(long), unsafe.StringData(in.intern(strings.Clone(long))), "a long text is not kept")
	require.Empty(t, in.intern(""))
	for i := range 4 * internSlots {
		s := fmt.Sprintf("text %d", i)
		require.Equal(t, s, in.intern(s))
		require.Equal(t, s, in.intern(strings.Clone(s)))
	}
}

// textSink keeps the events it is given.
type textSink struct{ got []Event }

func (s *textSink) Create(_ context.Context, ev Event) error { s.got = append(s.got, ev); return nil }
func (s *textSink) Update(_ context.Context, ev Event) error { s.got = append(s.got, ev); return nil }

// Events about two pods, their messages and field paths made apart,
// reach the sink sharing one copy of each.
func TestBroadcasterSharesTexts(t *testing.T) {
	s := &textSink{}
	b, err := NewBroadcaster(s, Options{Component: "kubelet", Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	now := time.Now()
	for i := range 2 {
		ref := Ref{Kind: "Pod", Namespace: "ns", Name: fmt.Sprintf("web-%d", i), FieldPath: "spec.containers{" + fmt.Sprint("web") + "}"}
		b.write(context.Background(), newEvent(ref, Normal, "Started", fmt.Sprintf("Container %s", "started"), "kubelet", now, int64(i)))
	}
	require.Len(t, s.got, 2)
	require.Equal(t, "Container started", s.got[1].Message)
	require.Same(t, unsafe.StringData(s.got[0].Message), unsafe.StringData(s.got[1].Message))
	require.Equal(t, "spec.containers{web}", s.got[1].Regarding.FieldPath)
	require.Same(t, unsafe.StringData(s.got[0].Regarding.FieldPath), unsafe.StringData(s.got[1].Regarding.FieldPath))
}
