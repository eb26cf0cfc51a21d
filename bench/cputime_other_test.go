//go:build !unix

package bench

// cpuNanos is not measured on this platform.
func cpuNanos() int64 { return 0 }
