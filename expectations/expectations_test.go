package expectations_test

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/expectations"
)

const rcKey = "default/foobar"

var discard = slog.New(slog.NewTextHandler(io.Discard, nil))

// metrics counts expiries per key.
type metrics struct{ n atomic.Int64 }

func (m *metrics) ExpectationsMetrics(string) expectations.Metrics {
	return expectations.Metrics{Expired: m}
}
func (m *metrics) Inc()       { m.n.Add(1) }
func (m *metrics) count() int { return int(m.n.Load()) }

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func newExpectations(t *testing.T, o expectations.Options) *expectations.Expectations {
	t.Helper()
	if o.Logger == nil {
		o.Logger = discard
	}
	e, err := expectations.New(o)
	require.NoError(t, err)
	return e
}

func newUIDTracking(t *testing.T, o expectations.Options) *expectations.UIDTracking {
	t.Helper()
	if o.Logger == nil {
		o.Logger = discard
	}
	u, err := expectations.NewUIDTracking(o)
	require.NoError(t, err)
	return u
}

func TestNewRejectsNegativeTTL(t *testing.T) {
	_, err := expectations.New(expectations.Options{TTL: -time.Second})
	require.ErrorContains(t, err, "expectations: negative TTL -1s")
	_, err = expectations.NewUIDTracking(expectations.Options{TTL: -time.Second})
	require.ErrorContains(t, err, "expectations: negative TTL -1s")
}

// TestControllerExpectations is kube-controller-manager's test of the same
// name, with concurrent observers and the TTL in virtual time.
func TestControllerExpectations(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const ttl = 30 * time.Second
		m := &metrics{}
		var log syncBuffer
		e := newExpectations(t, expectations.Options{TTL: ttl, Metrics: m, Logger: slog.New(slog.NewTextHandler(&log, nil))})
		adds, dels := 10, 30

		// The controller fires off creates and deletes, then sets expectations.
		e.ExpectCreations(rcKey, adds)
		e.RaiseExpectations(rcKey, 0, dels)
		var wg sync.WaitGroup
		for range adds + 1 {
			// A failed create, or a create observed through the informer.
			wg.Go(func() { e.CreationObserved(rcKey) })
		}
		wg.Wait()
		assert.False(t, e.Satisfied(rcKey), "deletions are still expected")

		for range dels + 1 {
			wg.Go(func() { e.DeletionObserved(rcKey) })
		}
		wg.Wait()
		add, del, ok := e.Get(rcKey)
		require.True(t, ok)
		assert.Equal(t, -1, add)
		assert.Equal(t, -1, del)
		assert.True(t, e.Satisfied(rcKey), "expectations surpassed")

		// Next round of sync: the old expectations are replaced.
		e.ExpectCreations(rcKey, 1)
		e.RaiseExpectations(rcKey, 0, 2)
		add, del, ok = e.Get(rcKey)
		require.True(t, ok)
		assert.Equal(t, 1, add)
		assert.Equal(t, 2, del)

		// They expire after the TTL, and the expiry is logged and counted.
		time.Sleep(ttl)
		assert.False(t, e.Satisfied(rcKey), "exactly the TTL old")
		assert.Zero(t, m.count())
		time.Sleep(time.Nanosecond)
		assert.True(t, e.Satisfied(rcKey), "expired")
		assert.True(t, e.Satisfied(rcKey), "still expired")
		assert.Equal(t, 1, m.count(), "one expiry, reported once")
		assert.Contains(t, log.String(), "level=WARN msg=\"expectations: expired")
		assert.Contains(t, log.String(), "key=default/foobar add=1 del=2 age=30.000000001s ttl=30s")
	})
}

// TestDefaultTTL: the zero Options expire records after five minutes.
func TestDefaultTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newExpectations(t, expectations.Options{})
		u := newUIDTracking(t, expectations.Options{})
		e.ExpectCreations(rcKey, 1)
		u.ExpectDeletions(rcKey, []string{"p"})
		time.Sleep(expectations.DefaultTTL)
		assert.False(t, e.Satisfied(rcKey))
		assert.False(t, u.Satisfied(rcKey))
		time.Sleep(time.Nanosecond)
		assert.True(t, e.Satisfied(rcKey))
		assert.True(t, u.Satisfied(rcKey))
	})
}

// TestTTLRestartsOnlyOnExpect: observations and Raise do not extend the
// wait; a new ExpectCreations does.
func TestTTLRestartsOnlyOnExpect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const ttl = time.Minute
		m := &metrics{}
		e := newExpectations(t, expectations.Options{TTL: ttl, Metrics: m})
		e.ExpectCreations(rcKey, 3)
		time.Sleep(ttl / 2)
		e.CreationObserved(rcKey)
		e.RaiseExpectations(rcKey, 1, 0)
		time.Sleep(ttl/2 + 1)
		assert.True(t, e.Satisfied(rcKey), "expired a TTL after ExpectCreations")
		assert.Equal(t, 1, m.count())

		e.ExpectCreations(rcKey, 1)
		time.Sleep(ttl)
		assert.False(t, e.Satisfied(rcKey), "a new record waits a full TTL")
		time.Sleep(1)
		assert.True(t, e.Satisfied(rcKey))
		assert.Equal(t, 2, m.count(), "each expired record is reported")
	})
}

// TestUIDExpectations is kube-controller-manager's test of the same name:
// several controllers each wait for the deletion of their own pods.
func TestUIDExpectations(t *testing.T) {
	u := newUIDTracking(t, expectations.Options{})
	rcToPods := map[string][]string{}
	var rcKeys []string
	for i := range 4 {
		rcKey := fmt.Sprintf("default/rc-%d", i)
		var pods []string
		for j := range 5 {
			pods = append(pods, fmt.Sprintf("default/pod%d-rc-%d", j, i))
		}
		rcKeys = append(rcKeys, rcKey)
		rcToPods[rcKey] = pods
		u.ExpectDeletions(rcKey, pods)
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(rcKeys), func(i, j int) { rcKeys[i], rcKeys[j] = rcKeys[j], rcKeys[i] })
	for _, rcKey := range rcKeys {
		assert.False(t, u.Satisfied(rcKey), "%s satisfied before the deletions", rcKey)
		for _, p := range rcToPods[rcKey] {
			u.DeletionObserved(rcKey, p)
		}
		assert.True(t, u.Satisfied(rcKey), "%s not satisfied after the deletions", rcKey)
		u.Delete(rcKey)
		assert.Empty(t, slices.Collect(u.PendingDeletions(rcKey)), "%s uids deleted", rcKey)
		_, _, ok := u.Get(rcKey)
		assert.False(t, ok, "%s record deleted", rcKey)
	}
}

// TestDeletionTimestamp follows the ReplicaSet controller's test of the
// same name: a pod counts as deleted when it gains a deletion timestamp,
// and neither later updates nor its final delete count again.
func TestDeletionTimestamp(t *testing.T) {
	u := newUIDTracking(t, expectations.Options{})
	const pod, secondPod = "default/pod", "default/secondPod"
	assertDel := func(want int, satisfied bool) {
		t.Helper()
		_, del, ok := u.Get(rcKey)
		require.True(t, ok)
		assert.Equal(t, want, del)
		assert.Equal(t, satisfied, u.Satisfied(rcKey))
	}

	// A pod added with a deletion timestamp decrements deletions.
	u.ExpectDeletions(rcKey, []string{pod})
	u.DeletionObserved(rcKey, pod)
	assertDel(0, true)

	// An update from no deletion timestamp to one is a deletion.
	u.ExpectDeletions(rcKey, []string{pod})
	u.DeletionObserved(rcKey, pod)
	assertDel(0, true)

	// Another update of that pod is not a second deletion...
	u.ExpectDeletions(rcKey, []string{secondPod})
	u.DeletionObserved(rcKey, pod)
	assertDel(1, false)
	// ...nor is its delete.
	u.DeletionObserved(rcKey, pod)
	assertDel(1, false)
	// Deleting the second pod clears the expectations.
	u.DeletionObserved(rcKey, secondPod)
	assertDel(0, true)
}

// TestOwnerRecreatedWithSameKey: an owner deleted and recreated under the
// same key neither waits on nor profits from the old owner's record.
func TestOwnerRecreatedWithSameKey(t *testing.T) {
	t.Run("counts", func(t *testing.T) {
		e := newExpectations(t, expectations.Options{})
		e.ExpectCreations(rcKey, 3) // old owner, 2 creates still in flight
		e.CreationObserved(rcKey)
		e.Delete(rcKey) // old owner's OnDelete

		e.CreationObserved(rcKey) // late event of an old owner's pod
		_, _, ok := e.Get(rcKey)
		assert.False(t, ok, "a late observation creates no record")
		assert.True(t, e.Satisfied(rcKey), "the new owner's first sync proceeds")

		e.ExpectCreations(rcKey, 3) // new owner
		add, _, _ := e.Get(rcKey)
		assert.Equal(t, 3, add, "the new record starts fresh")
		assert.False(t, e.Satisfied(rcKey))
	})
	t.Run("surplus of the old owner is not inherited", func(t *testing.T) {
		e := newExpectations(t, expectations.Options{})
		e.ExpectCreations(rcKey, 1)
		for range 5 {
			e.CreationObserved(rcKey)
		}
		e.Delete(rcKey)
		e.ExpectCreations(rcKey, 2)
		e.CreationObserved(rcKey)
		assert.False(t, e.Satisfied(rcKey), "one creation still outstanding")
	})
	t.Run("without Delete, ExpectCreations still replaces", func(t *testing.T) {
		e := newExpectations(t, expectations.Options{})
		e.ExpectCreations(rcKey, 1)
		for range 5 {
			e.CreationObserved(rcKey)
		}
		e.ExpectCreations(rcKey, 2)
		add, _, _ := e.Get(rcKey)
		assert.Equal(t, 2, add)
	})
	t.Run("uids of the old owner do not count", func(t *testing.T) {
		u := newUIDTracking(t, expectations.Options{})
		u.ExpectDeletions(rcKey, []string{"old-1", "old-2"})
		u.Delete(rcKey)
		u.ExpectDeletions(rcKey, []string{"new-1"})
		u.DeletionObserved(rcKey, "old-1") // a late event of the old owner
		assert.False(t, u.Satisfied(rcKey))
		assert.Equal(t, []string{"new-1"}, slices.Collect(u.PendingDeletions(rcKey)))
	})
}

// TestUIDTrackingCreations: creations and uid deletions share one record,
// replaced together.
func TestUIDTrackingCreations(t *testing.T) {
	var log syncBuffer
	u := newUIDTracking(t, expectations.Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	u.ExpectCreations(rcKey, 2)
	u.CreationObserved(rcKey)
	u.LowerExpectations(rcKey, 1, 0)
	assert.True(t, u.Satisfied(rcKey))

	u.ExpectDeletions(rcKey, []string{"a", "b"})
	u.RaiseExpectations(rcKey, 1, 1)
	add, del, _ := u.Get(rcKey)
	assert.Equal(t, 1, add)
	assert.Equal(t, 3, del)
	u.DeletionObserved(rcKey, "a")
	u.LowerExpectations(rcKey, 0, 1) // a raised deletion has no uid
	u.CreationObserved(rcKey)
	assert.False(t, u.Satisfied(rcKey), "b outstanding")
	assert.Empty(t, log.String())

	// Replacing pending uids is a warning: the caller skipped Satisfied,
	// or the record expired.
	u.ExpectDeletions(rcKey, []string{"c"})
	assert.Contains(t, log.String(), `level=WARN msg="expectations: replacing pending UID deletions" key=default/foobar pending=1`)

	u.ExpectCreations(rcKey, 1)
	assert.Empty(t, slices.Collect(u.PendingDeletions(rcKey)), "ExpectCreations replaces the uids too")
	u.DeletionObserved(rcKey, "c")
	_, del, _ = u.Get(rcKey)
	assert.Zero(t, del)
}

// TestDebugLogging: every change is logged at debug level.
func TestDebugLogging(t *testing.T) {
	var log syncBuffer
	e := newExpectations(t, expectations.Options{Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	e.ExpectCreations(rcKey, 2)
	e.CreationObserved(rcKey)
	e.CreationObserved("default/none")
	assert.Equal(t, 2, bytes.Count([]byte(log.String()), []byte("\n")), log.String())
	assert.Contains(t, log.String(), `level=DEBUG msg="expectations: set" key=default/foobar add=2 del=0`)
	assert.Contains(t, log.String(), `level=DEBUG msg="expectations: adjusted" key=default/foobar add=1 del=0`)
}

// TestConcurrentUse hammers many keys from many goroutines (run with
// -race); the counts end exactly where the arithmetic says.
func TestConcurrentUse(t *testing.T) {
	const keys, workers, per = 8, 8, 200
	e := newExpectations(t, expectations.Options{})
	key := func(k int) string { return fmt.Sprintf("default/rs-%d", k) }
	for k := range keys {
		e.ExpectCreations(key(k), workers*per)
		e.RaiseExpectations(key(k), 0, workers*per)
	}
	var wg sync.WaitGroup
	for k := range keys {
		for range workers {
			wg.Go(func() {
				for range per {
					e.CreationObserved(key(k))
					e.DeletionObserved(key(k))
					e.Satisfied(key(k))
					e.Get(key(k))
				}
			})
		}
	}
	wg.Go(func() { // an owner churning concurrently
		for i := range per {
			e.ExpectCreations("default/churn", i)
			e.CreationObserved("default/churn")
			e.Satisfied("default/churn")
			e.Delete("default/churn")
		}
	})
	wg.Wait()
	for k := range keys {
		add, del, ok := e.Get(key(k))
		assert.True(t, ok)
		assert.Zero(t, add, key(k))
		assert.Zero(t, del, key(k))
		assert.True(t, e.Satisfied(key(k)))
	}
}

// TestConcurrentUIDObservationsCountOnce: the update and the delete
// handlers observing the same deletions at once still count each once.
func TestConcurrentUIDObservationsCountOnce(t *testing.T) {
	const pods, observers = 100, 4
	u := newUIDTracking(t, expectations.Options{})
	uids := make([]string, pods)
	for i := range uids {
		uids[i] = fmt.Sprintf("uid-%03d", i)
	}
	u.ExpectDeletions(rcKey, uids)
	u.RaiseExpectations(rcKey, pods, 0)
	var wg sync.WaitGroup
	for range observers {
		wg.Go(func() {
			for _, uid := range uids {
				u.DeletionObserved(rcKey, uid)
				u.Satisfied(rcKey)
			}
		})
	}
	for range pods {
		wg.Go(func() { u.CreationObserved(rcKey) })
	}
	// Another owner replaces its expectations while they are observed.
	wg.Go(func() {
		for range pods {
			u.ExpectDeletions("default/churn", uids[:3])
		}
	})
	wg.Go(func() {
		for range pods {
			for _, uid := range uids[:3] {
				u.DeletionObserved("default/churn", uid)
			}
			for range u.PendingDeletions("default/churn") {
			}
		}
	})
	wg.Wait()
	add, del, _ := u.Get(rcKey)
	assert.Zero(t, add)
	assert.Zero(t, del, "each uid counted once")
	assert.True(t, u.Satisfied(rcKey))
}

// FuzzUIDTracking checks UIDTracking against a model built from a set:
// after any sequence of calls, the deletion count is the number of
// expected UIDs not yet observed plus raised-minus-lowered deletions.
func FuzzUIDTracking(f *testing.F) {
	f.Add([]byte{0x18, 0x01, 0x01, 0x09, 0x39, 0x07})
	f.Add([]byte{0x02 | 2<<3, 0x03, 0x03, 0x03, 0x07, 0x06, 0x03, 0x07})
	f.Add([]byte{0x28, 0x04 | 5<<3, 0x05 | 3<<3, 0x11, 0x21, 0x06, 0x01, 0x28, 0x02})
	f.Add([]byte{0x30, 0x01, 0x31, 0x30, 0x09, 0x11, 0x19, 0x21, 0x29, 0x31, 0x39})
	uid := func(i int) string { return fmt.Sprintf("u%d", i) }
	f.Fuzz(func(t *testing.T, ops []byte) {
		u := newUIDTracking(t, expectations.Options{})
		var (
			has      bool
			add, del int // del counts deletions raised or lowered without a uid
			pending  = map[string]bool{}
		)
		for i, b := range ops {
			arg := int(b >> 3)
			switch b & 7 {
			case 0: // expect the deletion of u0..u(n-1), u0 twice
				n := arg % 6
				uids := []string{}
				for j := range n {
					uids = append(uids, uid(j))
				}
				if n > 0 {
					uids = append(uids, uid(0))
				}
				u.ExpectDeletions(rcKey, uids)
				has, add, del = true, 0, 0
				clear(pending)
				for _, id := range uids {
					pending[id] = true
				}
			case 1: // observe a deletion; u6 and u7 are never expected
				id := uid(arg % 8)
				u.DeletionObserved(rcKey, id)
				delete(pending, id)
			case 2:
				u.ExpectCreations(rcKey, arg%4)
				has, add, del = true, arg%4, 0
				clear(pending)
			case 3:
				u.CreationObserved(rcKey)
				if has {
					add--
				}
			case 4:
				u.RaiseExpectations(rcKey, arg%3, arg%2)
				if has {
					add, del = add+arg%3, del+arg%2
				}
			case 5:
				u.LowerExpectations(rcKey, arg%3, arg%2)
				if has {
					add, del = add-arg%3, del-arg%2
				}
			case 6:
				u.Delete(rcKey)
				has, add, del = false, 0, 0
				clear(pending)
			case 7:
				u.Satisfied(rcKey)
			}
			gotAdd, gotDel, ok := u.Get(rcKey)
			require.Equal(t, has, ok, "op %d", i)
			require.Equal(t, add, gotAdd, "op %d: add", i)
			require.Equal(t, del+len(pending), gotDel, "op %d: del", i)
			want := []string{}
			for id := range pending {
				want = append(want, id)
			}
			slices.Sort(want)
			require.Equal(t, want, append([]string{}, slices.Collect(u.PendingDeletions(rcKey))...), "op %d: pending", i)
			require.Equal(t, !has || (gotAdd <= 0 && gotDel <= 0), u.Satisfied(rcKey), "op %d: satisfied", i)
		}
	})
}
