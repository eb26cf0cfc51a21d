package controlplane_test

import (
	"testing"
	"testing/synctest"
)

type nopTimer struct{}

func (nopTimer) StartTimer() {}
func (nopTimer) StopTimer()  {}

// TestScaleSmoke runs the scale benchmarks' bodies (bench_test.go) at a
// tiny size in a testing/synctest bubble, so that plain `go test` keeps
// them working at no cost in wall time. The durations it logs are
// virtual: the latencies the components build in (the kubelet's 1 s
// container start), with CPU work taking no time.
func TestScaleSmoke(t *testing.T) {
	t.Run("StartEmpty", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			r := runEmpty(t, t.Context())
			t.Logf("virtual: start %v, settled %v", r.start, r.settled)
		})
	})
	t.Run("NodesReady", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			r := runNodes(t, t.Context(), 3)
			t.Logf("virtual: ready %v, settled %v; %.1f writes/node", r.ready, r.settled, r.writesPerNode)
		})
	})
	t.Run("Deployment", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			r := runDeployment(t, t.Context(), 3, 12, nopTimer{})
			t.Logf("virtual: running %v, available %v, settled %v; %.1f writes/pod", r.running, r.available, r.settled, r.writesPerPod)
			if r.writesPerPod < 3 {
				t.Errorf("%.1f writes per pod: a pod is at least created, bound and reported running", r.writesPerPod)
			}
		})
	})
}
