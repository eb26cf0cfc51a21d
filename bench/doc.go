// Package bench runs ctrlkit and client-go (and controller-runtime's
// priority queue) side by side on the same workloads, with the same
// inputs, in one binary, so that performance claims are ratios measured
// in one run on one machine. See README.md for the workloads, run.sh for
// the runner and cmd/benchtable for the table of medians and ratios.
//
// The package itself only holds the shared inputs (Pods, Keys) and the
// floor queue (FloorQueue); the workloads are the Benchmark functions of
// its tests, and TestSmoke runs each of them once at a small size.
package bench
