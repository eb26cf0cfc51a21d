//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package workqueue

import (
	"syscall"
	"testing"
)

// reportCPU adds a cpu-ns/op metric: the process's CPU time (user+sys)
// per op, which a loaded machine distorts much less than wall time. Call
// the returned function after the timed loop.
func reportCPU(b *testing.B) func() {
	start := cpuNanos()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(cpuNanos()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

func cpuNanos() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
