package informer

import (
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/metrics"
)

func TestMutationDetector(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t)
		create(t, src, "a", 1)
		create(t, src, "b", 2)
		var mu sync.Mutex
		var found []string
		m := &countingMetrics{}
		inf := newInformer(t, src, Options[*obj]{Metrics: m, MutationCheck: &MutationCheck[*obj]{
			Period:     time.Second,
			OnMutation: func(key string) { mu.Lock(); found = append(found, key); mu.Unlock() },
		}})
		start(t, inf)
		synctest.Wait()
		time.Sleep(3 * time.Second)
		synctest.Wait()
		require.Empty(t, found, "nobody mutated anything")

		// A careless reader changes a cached object.
		a, ok := inf.Lister().Get("a")
		require.True(t, ok)
		a.Val = 99
		// A real mutation is a data race, which -race reports by itself;
		// here the test publishes it to the detector's goroutine.
		inf.mutations.mu.Lock()
		inf.mutations.mu.Unlock() //nolint:staticcheck // empty critical section: a happens-before edge
		time.Sleep(time.Second)
		synctest.Wait()
		mu.Lock()
		require.Equal(t, []string{"a"}, found)
		mu.Unlock()
		time.Sleep(5 * time.Second)
		synctest.Wait()
		require.Equal(t, 1, m.get("mutations", ""), "a mutation is reported once")

		// A mutation is also caught when the cache replaces the object,
		// before the next periodic check.
		b, _ := inf.Lister().Get("b")
		b.Node = "changed"
		update(t, src, "b", 3)
		synctest.Wait()
		mu.Lock()
		require.Equal(t, []string{"a", "b"}, found)
		mu.Unlock()
	})
}

func TestMutationDetectorSkipsUnfingerprintable(t *testing.T) {
	d := newMutationDetector(&MutationCheck[*obj]{
		Period: time.Second,
		Fingerprint: func(o *obj) ([]byte, error) {
			if o.Key == "bad" {
				return nil, errors.New("cannot")
			}
			if o.Key == "panics" {
				panic("boom")
			}
			return []byte(o.Node), nil
		},
	}, quiet, metrics.Nop{}, metrics.Nop{})
	d.record("bad", &obj{Key: "bad"})
	d.record("panics", &obj{Key: "panics"})
	good := &obj{Key: "good"}
	d.record("good", good)
	require.Len(t, d.sums, 1)
	good.Node = "x"
	require.True(t, d.check("good", d.sums["good"]))
	d.forget("good")
	require.Empty(t, d.sums)
}
