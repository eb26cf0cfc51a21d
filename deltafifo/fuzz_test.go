package deltafifo

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// The model: the FIFO's contract written as plainly as possible, with
// slices and maps and no sequence numbers. The fuzz test drives the real
// FIFO and the model with the same operations and requires the same
// popped deltas, lengths, versions and sync state.

type mentry struct {
	key     string
	deltas  Deltas[*obj]
	changes []int // indexes into model.changes, one per delta appended
	initial bool
}

type mchange struct {
	rv          string
	outstanding int // deltas of this change not processed yet
}

type model struct {
	known    map[string]*obj // the consumer's cache
	queue    []*mentry       // in order of first insertion
	inflight []*mentry       // in pop order
	changes  []mchange
	done     int    // changes[:done] are processed
	doneRV   string // the newest rv in changes[:done]

	bad               int // objects quarantined so far
	populated, synced bool
	initialRemaining  int
	lastRV            string
}

var errModelTransform = errors.New("model transform failure")

// fuzzTransform fails for values ending in 4 and otherwise adds 1000.
func fuzzTransform(x *obj) (*obj, error) {
	if x.Val%10 == 4 {
		return nil, errModelTransform
	}
	return &obj{Key: x.Key, Val: x.Val + 1000}, nil
}

func (m *model) queued(key string) *mentry {
	for _, e := range m.queue {
		if e.key == key {
			return e
		}
	}
	return nil
}

func (m *model) flying(key string) *mentry {
	for _, e := range m.inflight {
		if e.key == key {
			return e
		}
	}
	return nil
}

func (m *model) begin(rv string) int {
	m.changes = append(m.changes, mchange{rv: rv})
	if rv != "" {
		m.lastRV = rv
	}
	return len(m.changes) - 1
}

func (m *model) enqueue(key string, d Delta[*obj], ch int) *mentry {
	e := m.queued(key)
	if e == nil {
		e = &mentry{key: key}
		m.queue = append(m.queue, e)
	}
	n := len(e.deltas)
	if n > 0 && d.Type == Deleted && e.deltas[n-1].Type == Deleted {
		if e.deltas[n-1].FinalStateUnknown {
			e.deltas[n-1] = d
		}
	} else {
		e.deltas = append(e.deltas, d)
	}
	e.changes = append(e.changes, ch)
	m.changes[ch].outstanding++
	return e
}

func (m *model) change(typ DeltaType, x *obj, rv string) error {
	ch := m.begin(rv)
	m.populated = true
	m.checkSynced()
	tx, err := fuzzTransform(x)
	if err != nil {
		m.bad++
		if typ != Deleted {
			return nil
		}
		// A delete still applies, carrying the last known object.
		last, ok := m.last(x.Key)
		if !ok {
			return nil
		}
		tx = last
	}
	if typ == Deleted && m.queued(x.Key) == nil {
		if e := m.flying(x.Key); e != nil {
			if e.deltas[len(e.deltas)-1].Type == Deleted {
				return nil
			}
		} else if _, ok := m.known[x.Key]; !ok {
			return nil
		}
	}
	m.enqueue(x.Key, Delta[*obj]{Type: typ, Object: tx, ResourceVersion: rv}, ch)
	return nil
}

// last is the newest object the consumer has or will have under key.
func (m *model) last(key string) (*obj, bool) {
	if e := m.queued(key); e != nil {
		return e.deltas[len(e.deltas)-1].Object, true
	}
	if e := m.flying(key); e != nil {
		if d := e.deltas[len(e.deltas)-1]; d.Type != Deleted {
			return d.Object, true
		}
		return nil, false
	}
	x, ok := m.known[key]
	return x, ok
}

func (m *model) replace(items []*obj, rv string) error {
	ch := m.begin(rv)
	first := !m.populated
	m.populated = true
	touch := func(e *mentry) {
		if first && !e.initial {
			e.initial = true
			m.initialRemaining++
		}
	}
	listed := map[string]bool{}
	for _, x := range items {
		listed[x.Key] = true
		tx, err := fuzzTransform(x)
		if err != nil {
			m.bad++
			continue
		}
		touch(m.enqueue(x.Key, Delta[*obj]{Type: Replaced, Object: tx, ResourceVersion: rv}, ch))
	}
	infer := func(key string, x *obj) {
		touch(m.enqueue(key, Delta[*obj]{Type: Deleted, Object: x, ResourceVersion: rv, FinalStateUnknown: true}, ch))
	}
	for _, e := range slices.Clone(m.queue) {
		if newest := e.deltas[len(e.deltas)-1]; !listed[e.key] && newest.Type != Deleted {
			infer(e.key, newest.Object)
		}
	}
	for _, e := range m.inflight {
		if newest := e.deltas[len(e.deltas)-1]; !listed[e.key] && m.queued(e.key) == nil && newest.Type != Deleted {
			infer(e.key, newest.Object)
		}
	}
	for _, key := range slices.Sorted(mapKeys(m.known)) {
		if !listed[key] && m.queued(key) == nil && m.flying(key) == nil {
			infer(key, m.known[key])
		}
	}
	m.checkSynced()
	return nil
}

func (m *model) resync() {
	ch := m.begin("")
	for _, key := range slices.Sorted(mapKeys(m.known)) {
		if m.queued(key) == nil && m.flying(key) == nil {
			m.enqueue(key, Delta[*obj]{Type: Sync, Object: m.known[key]}, ch)
		}
	}
}

// take pops the first queued entry whose key is not in flight.
func (m *model) take() *mentry {
	for i, e := range m.queue {
		if m.flying(e.key) == nil {
			m.queue = slices.Delete(m.queue, i, i+1)
			m.inflight = append(m.inflight, e)
			return e
		}
	}
	return nil
}

func (m *model) finish(e *mentry) {
	for _, d := range e.deltas {
		if d.Type == Deleted {
			delete(m.known, d.Object.Key)
		} else {
			m.known[d.Object.Key] = d.Object
		}
	}
	m.inflight = slices.DeleteFunc(m.inflight, func(x *mentry) bool { return x == e })
	for _, ch := range e.changes {
		m.changes[ch].outstanding--
	}
	if e.initial {
		m.initialRemaining--
	}
	m.checkSynced()
}

func (m *model) checkSynced() {
	if m.populated && m.initialRemaining == 0 {
		m.synced = true
	}
}

// processedRV is the rv of the newest change such that it and every
// change before it have no outstanding deltas. A change gets deltas only
// while it is the newest, so the processed prefix only grows.
func (m *model) processedRV() string {
	for m.done < len(m.changes) && m.changes[m.done].outstanding == 0 {
		if rv := m.changes[m.done].rv; rv != "" {
			m.doneRV = rv
		}
		m.done++
	}
	return m.doneRV
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// tryPop pops a ready key without blocking; it reports whether it did.
func (f *DeltaFIFO[T]) tryPop(process func(Deltas[T], bool) error) (bool, error) {
	f.mu.Lock()
	e := f.takeLocked()
	f.mu.Unlock()
	if e == nil {
		return false, nil
	}
	defer f.finish(e)
	return true, process(e.deltas, e.initial)
}

// fuzzRun interprets data as operations on both the FIFO and the model.
type fuzzRun struct {
	t     *testing.T
	data  []byte
	f     *DeltaFIFO[*obj]
	known *store
	m     *model
	bad   int // reported by OnBadObject
	rv    int
	val   int
	depth int
}

const fuzzKeys = 6

func (r *fuzzRun) next() (byte, bool) {
	if len(r.data) == 0 {
		return 0, false
	}
	b := r.data[0]
	r.data = r.data[1:]
	return b, true
}

func (r *fuzzRun) arg() byte {
	b, _ := r.next()
	return b
}

func (r *fuzzRun) newRV(op byte) string {
	if op&0x80 != 0 {
		return ""
	}
	r.rv++
	return strconv.Itoa(r.rv)
}

func (r *fuzzRun) newObj(keyByte byte) *obj {
	r.val++
	return &obj{Key: "k" + strconv.Itoa(int(keyByte)%fuzzKeys), Val: r.val}
}

func sameErr(t *testing.T, want, got error, what string) {
	t.Helper()
	require.Equal(t, want != nil, got != nil, "%s: model error %v, fifo error %v", what, want, got)
}

// step runs one operation; it returns false when data is exhausted.
func (r *fuzzRun) step() bool {
	op, ok := r.next()
	if !ok {
		return false
	}
	t, f, m := r.t, r.f, r.m
	rvBefore, changed := f.ProcessedResourceVersion()
	var what string
	switch op % 8 {
	case 0, 1, 2:
		typ := []DeltaType{Added, Updated, Deleted}[op%8]
		x, rv := r.newObj(r.arg()), r.newRV(op)
		what = fmt.Sprintf("%s(%s=%d, %q)", typ, x.Key, x.Val, rv)
		var got error
		switch typ {
		case Added:
			got = f.Add(x, rv)
		case Updated:
			got = f.Update(x, rv)
		default:
			got = f.Delete(x, rv)
		}
		sameErr(t, m.change(typ, x, rv), got, what)
	case 3:
		n := int(r.arg()) % (fuzzKeys + 3)
		items := make([]*obj, n)
		for i := range items {
			items[i] = r.newObj(r.arg())
		}
		rv := r.newRV(op)
		what = fmt.Sprintf("Replace(%d items, %q)", n, rv)
		sameErr(t, m.replace(items, rv), f.Replace(items, rv), what)
	case 4:
		what = "Resync"
		require.NoError(t, f.Resync())
		m.resync()
	case 5:
		rv := r.newRV(op)
		what = fmt.Sprintf("Bookmark(%q)", rv)
		f.Bookmark(rv)
		m.begin(rv)
	default:
		// Pop; while process runs, the next few operations run nested,
		// and only then are the deltas applied to the cache.
		nested := int(r.arg() % 4)
		what = fmt.Sprintf("Pop(nested %d)", nested)
		want := m.take()
		popped, err := f.tryPop(func(ds Deltas[*obj], initial bool) error {
			require.NotNil(t, want, "fifo popped %s, model has nothing ready", fmtDeltas(ds))
			require.Equal(t, fmtDeltas(want.deltas), fmtDeltas(ds), "popped deltas")
			require.Equal(t, want.initial, initial, "isInInitialList of %s", want.key)
			r.depth++
			for i := 0; i < nested && r.step(); i++ {
			}
			r.depth--
			r.known.apply(ds)
			return nil
		})
		require.NoError(t, err)
		require.Equal(t, want != nil, popped, "model ready %v, fifo popped %v", want != nil, popped)
		if want != nil {
			m.finish(want)
		}
	}
	r.check(what, rvBefore, changed)
	return true
}

func (r *fuzzRun) check(what, rvBefore string, changed <-chan struct{}) {
	t, f, m := r.t, r.f, r.m
	t.Helper()
	require.Equal(t, len(m.queue), f.Len(), "after %s: Len", what)
	require.Equal(t, m.bad, r.bad, "after %s: bad objects reported", what)
	require.Equal(t, m.lastRV, f.LastResourceVersion(), "after %s: LastResourceVersion", what)
	rv, _ := f.ProcessedResourceVersion()
	require.Equal(t, m.processedRV(), rv, "after %s: ProcessedResourceVersion", what)
	select {
	case <-changed:
		require.NotEqual(t, rvBefore, rv, "after %s: changed closed but the version stayed", what)
	default:
		require.Equal(t, rvBefore, rv, "after %s: the version moved but changed is open", what)
	}
	require.Equal(t, m.synced, f.HasSynced(), "after %s: HasSynced", what)
}

func runFuzz(t *testing.T, data []byte) {
	known := newStore()
	r := &fuzzRun{t: t, data: data, known: known, m: &model{known: map[string]*obj{}}}
	f, err := New(keyOf, Options[*obj]{KnownObjects: known, Transform: fuzzTransform, Logger: quiet,
		OnBadObject: func(*BadObjectError) { r.bad++ }})
	require.NoError(t, err)
	r.f = f
	for r.step() {
	}
	// Drain: everything left pops in model order, and the cache ends
	// equal to the model's.
	for {
		rvBefore, changed := f.ProcessedResourceVersion()
		want := r.m.take()
		popped, err := f.tryPop(func(ds Deltas[*obj], initial bool) error {
			require.NotNil(t, want)
			require.Equal(t, fmtDeltas(want.deltas), fmtDeltas(ds))
			require.Equal(t, want.initial, initial)
			known.apply(ds)
			return nil
		})
		require.NoError(t, err)
		require.Equal(t, want != nil, popped)
		if want == nil {
			break
		}
		r.m.finish(want)
		r.check("drain", rvBefore, changed)
	}
	require.Equal(t, r.m.known, known.m)
	rv, _ := f.ProcessedResourceVersion()
	require.Equal(t, f.LastResourceVersion(), rv, "everything processed")
	f.Close()
	require.ErrorIs(t, f.Pop(context.Background(), func(Deltas[*obj], bool) error { return nil }), ErrClosed)
}

func FuzzDeltaFIFO(f *testing.F) {
	seeds := [][]byte{
		{},
		{0, 1, 6, 0},                                  // add, pop
		{0, 0, 1, 0, 2, 0, 2, 0, 6, 0},                // add, update, two deletes
		{3, 3, 0, 1, 2, 6, 0, 6, 0, 6, 0, 6, 0},       // replace of 3 items, pops
		{0, 0, 6, 0, 6, 0, 3, 0, 6, 0, 6, 0},          // add, pop, replace []: inferred delete of a known key
		{0, 1, 6, 2, 2, 1, 3, 0, 6, 0},                // pop with a nested delete and replace
		{0, 1, 0, 2, 6, 3, 6, 0, 0, 1, 6, 0, 6, 0},    // nested pop skips the key in flight
		{0, 1, 6, 0, 4, 5, 0, 1, 6, 1, 4, 6, 0, 6, 0}, // resync with a key in flight
		{0x80, 0, 0x85, 6, 0, 0x82, 0},                // empty resource versions
		{0, 4, 6, 0, 3, 1, 4},                         // transform failures
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 40 {
		b := make([]byte, 20+rng.IntN(100))
		for i := range b {
			b[i] = byte(rng.UintN(256))
		}
		seeds = append(seeds, b)
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1024 {
			return
		}
		runFuzz(t, data)
	})
}

// TestModelRandomRuns drives the model comparison with random inputs from
// fixed seeds: a short run in CI, a long one with CTRLKIT_SOAK=1.
func TestModelRandomRuns(t *testing.T) {
	runs := 100
	if os.Getenv("CTRLKIT_SOAK") == "1" {
		runs = 200_000
	}
	for seed := range runs {
		rng := rand.New(rand.NewPCG(uint64(seed), 99))
		data := make([]byte, rng.IntN(1024))
		for i := range data {
			data[i] = byte(rng.UintN(256))
		}
		t.Run("", func(t *testing.T) { runFuzz(t, data) })
		if t.Failed() {
			t.Fatalf("seed %d failed", seed)
		}
	}
}
