package bench

import (
	"testing"

	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
)

// TestSmoke runs every workload body once, at a small size, on every
// side, and checks that the sides agree on what they did, so that the
// harness cannot rot (plain `go test`, with -race too, runs it in
// seconds). The full sizes run with -bench (see run.sh).
func TestSmoke(t *testing.T) {
	const nKeys = 1 << 10 // power of two, as the queue bodies require
	ks := Keys(nKeys)
	var b nopTimer

	t.Run("W1Cycle", func(t *testing.T) {
		n := 3 * nKeys / 2 // wraps around the keys
		require.Equal(t, n, w1Ctrlkit(b, ks, n))
		require.Equal(t, n, w1Clientgo(b, ks, n))
		require.Equal(t, n, w1Floor(b, ks, n))
		require.Equal(t, n, w8CycleControllerRuntime(b, ks, n))
	})
	t.Run("W2Dedup", func(t *testing.T) {
		require.Equal(t, 2*w2Keys, w2Ctrlkit(b, ks, 2))
		require.Equal(t, 2*w2Keys, w2Clientgo(b, ks, 2))
	})
	t.Run("W3Parallel", func(t *testing.T) {
		n := 5*nKeys/2 + 1 // three chunks
		require.Equal(t, n, w3Ctrlkit(b, ks, n))
		require.Equal(t, n, w3Clientgo(b, ks, n))
		require.Equal(t, n, w3Floor(b, ks, n))
		require.Equal(t, n, w8ParallelControllerRuntime(b, ks, n))
	})
	t.Run("W4aRateLimited", func(t *testing.T) {
		require.Zero(t, w4aCtrlkit(b, ks, 3*w4aKeys))
		require.Zero(t, w4aClientgo(b, ks, 3*w4aKeys))
	})
	t.Run("W4bAddAfter", func(t *testing.T) {
		ds := w4bDelays(200)
		for _, d := range ds {
			require.True(t, d >= 1e6 && d < 10e6, "delay %v outside [1ms, 10ms)", d)
		}
		require.Equal(t, 400, w4bCtrlkit(b, ks[:200], ds, 2))
		require.Equal(t, 400, w4bClientgo(b, ks[:200], ds, 2))
	})

	_, ps := Pods(2200)
	t.Run("W5aFifoAddPop", func(t *testing.T) {
		want := fifoResult{Keys: 4000, Added: 4000}
		require.Equal(t, want, w5aCtrlkit(b, ps[:2000], 2))
		require.Equal(t, want, w5aClientgo(b, ps[:2000], 2))
	})
	t.Run("W5bFifoReplace", func(t *testing.T) {
		have, list, pops := w5bLists(ps, 2000)
		require.Len(t, have, 2000)
		require.Len(t, list, 2000)
		require.Equal(t, 2200, pops)
		want := fifoResult{Keys: 2 * 2200, Replaced: 2 * 2000, Deleted: 2 * 200, Inferred: 2 * 200}
		require.Equal(t, want, w5bCtrlkit(b, have, list, pops, 2))
		require.Equal(t, want, w5bClientgo(b, have, list, pops, 2))
	})
	t.Run("W6Indexer", func(t *testing.T) {
		ps := ps[:2000]
		require.Equal(t, indexResult{Len: 2000}, w6AddCtrlkit(b, ps, 2))
		require.Equal(t, indexResult{Len: 2000}, w6AddClientgo(b, ps, 2))

		// 10 lookups of 5 namespaces of 400 pods each.
		ns := indexResult{Len: 2000, Found: 10 * 400}
		require.Equal(t, ns, w6ByIndexCtrlkit(b, ps, "namespace", namespaces(), 10))
		require.Equal(t, ns, w6ByIndexClientgo(b, ps, "namespace", namespaces(), 10))
		// 1,000 lookups of the apps, 2 pods each.
		app := indexResult{Len: 2000, Found: 1000 * 2}
		require.Equal(t, app, w6ByIndexCtrlkit(b, ps, "app", apps(), 1000))
		require.Equal(t, app, w6ByIndexClientgo(b, ps, "app", apps(), 1000))

		vs := relabeled(ps)
		require.NotEqual(t, vs[0][0].Labels["app"], vs[1][0].Labels["app"])
		for _, n := range []int{1, 2} {
			want := indexResult{Len: 2000, Found: 2}
			require.Equal(t, want, w6UpdateCtrlkit(b, vs, n))
			require.Equal(t, want, w6UpdateClientgo(b, vs, n))
		}

		require.Positive(t, w6BytesCtrlkit(ps))
		require.Positive(t, w6BytesClientgo(ps))
	})
}

// TestSmokeInformer runs W7 on both sides with a few hundred pods and
// checks that both informers delivered every add and every update.
func TestSmokeInformer(t *testing.T) {
	_, ps := Pods(500)
	up := Relabeled(ps, 1, "2")
	var b nopTimer
	want := w7Result{Adds: 500, Updates: 500, Cached: 500}
	for name, body := range map[string]func(timer, phase, []*v1.Pod, []*v1.Pod, int) w7Result{
		"ctrlkit": w7Ctrlkit, "clientgo": w7Clientgo,
	} {
		t.Run(name, func(t *testing.T) {
			r := body(b, 0, ps, up, 2)
			require.Positive(t, r.HeapPerObject)
			r.HeapPerObject = 0
			require.Equal(t, want, r)
		})
	}
}
