package controlplane_test

import (
	"testing"
	"testing/synctest"

	"github.com/ctrlkit/ctrlkit/internal/scalebench"
)

// TestScaleSmoke runs the scale benchmarks' bodies (internal/scalebench)
// at a tiny size in a testing/synctest bubble, so that plain `go test`
// keeps them working at no cost in wall time. The durations it logs are
// virtual: the latencies the components build in (the kubelet's 1 s
// container start), with CPU work taking no time.
func TestScaleSmoke(t *testing.T) {
	t.Run("StartEmpty", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			r := scalebench.Empty(t, t.Context(), nil)
			t.Logf("virtual: start %v, settled %v", r.Start, r.Settled)
		})
	})
	t.Run("NodesReady", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			r := scalebench.Nodes(t, t.Context(), nil, 3)
			t.Logf("virtual: ready %v, settled %v; %.1f writes/node", r.Ready, r.Settled, r.WritesPerNode)
		})
	})
	t.Run("Deployment", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			r := scalebench.Deployment(t, t.Context(), nil, 3, 12, scalebench.NopTimer{})
			t.Logf("virtual: running %v, available %v, settled %v; %.1f writes/pod", r.Running, r.Available, r.Settled, r.WritesPerPod)
			if r.WritesPerPod < 3 {
				t.Errorf("%.1f writes per pod: a pod is at least created, bound and reported running", r.WritesPerPod)
			}
		})
	})
}
