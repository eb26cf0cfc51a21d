package bench

import (
	"testing"

	v1 "k8s.io/api/core/v1"
)

// The W6 update floor (issue 23): what every update of W6 costs before any
// store is involved — the key func on the new object and both index funcs
// on the new and the old object (client-go and ctrlkit both call them
// twice per update to find the entries to move), with their allocations.
// The old object is looked up by position, not by key: no map, no table.
// BenchmarkW6Update_floor gives W6Update's "(floor)" row: ctrlkit's
// update over this.

// floorSink keeps the floor's results alive so the calls are not elided.
var floorSink struct {
	key              string
	nv, av, onv, oav []string
}

func w6UpdateFloor(b timer, versions [2][]*v1.Pod, n int) int {
	fs := ctrlkitIndexers()
	ns, app := fs["namespace"], fs["app"]
	b.ResetTimer()
	moved := 0
	for i := range n {
		cur, old := versions[(i+1)%2], versions[i%2]
		for j, p := range cur {
			floorSink.key = PodKey(p)
			floorSink.nv, _ = ns(p)
			floorSink.av, _ = app(p)
			floorSink.onv, _ = ns(old[j])
			floorSink.oav, _ = app(old[j])
			if floorSink.av[0] != floorSink.oav[0] {
				moved++
			}
		}
	}
	b.StopTimer()
	return moved
}

func BenchmarkW6Update_floor(b *testing.B) {
	vs := relabeled(pods()[:numPods()])
	m := newMeter(b, numPods())
	w6UpdateFloor(m, vs, b.N)
	m.report()
}
