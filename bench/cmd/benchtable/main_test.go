package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const sample = `goos: linux
BenchmarkW1Cycle_ctrlkit-2   	 1000000	       100.0 ns/op	       90.0 cpu-ns/op	       0 B/op	       0 allocs/op
BenchmarkW1Cycle_clientgo-2   	 1000000	       400.0 ns/op	       380.0 cpu-ns/op	      16 B/op	       1 allocs/op
BenchmarkW1Cycle_ctrlkit-2   	 1000000	       300.0 ns/op	       95.0 cpu-ns/op	       0 B/op	       0 allocs/op
BenchmarkW1Cycle_clientgo-2   	 1000000	       200.0 ns/op	       200.0 cpu-ns/op	      16 B/op	       1 allocs/op
BenchmarkW1Cycle_ctrlkit-2   	 1000000	       200.0 ns/op	       80.0 cpu-ns/op	       0 B/op	       0 allocs/op
BenchmarkW1Cycle_clientgo-2   	 1000000	       500.0 ns/op	       300.0 cpu-ns/op	      16 B/op	       1 allocs/op
BenchmarkW1Cycle_floor-2   	 1000000	       100.0 ns/op	       100.0 cpu-ns/op	      16 B/op	       1 allocs/op
BenchmarkW6Bytes_ctrlkit-2   	       1	1911993144 ns/op	       110.0 heapB/obj
BenchmarkW6Bytes_clientgo-2   	       1	2006022692 ns/op	       100.0 heapB/obj
BenchmarkW5aFifoAddPop_ctrlkit-2 5 86280310 ns/op 245.4 B/obj 2.0 allocs/obj 860.4 cpu-ns/obj 100 ns/obj 24535448 B/op 200556 allocs/op
BenchmarkW5aFifoAddPop_clientgo-2 5 188102549 ns/op 623.1 B/obj 11.0 allocs/obj 1847 cpu-ns/obj 1000 ns/obj 62306083 B/op 1100243 allocs/op
`

func TestTable(t *testing.T) {
	s := samples{}
	read(strings.NewReader(sample), s)
	require.Equal(t, []float64{100, 300, 200}, s["W1Cycle"]["ctrlkit"]["ns/op"])

	var out bytes.Buffer
	write(&out, s)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 2+4)
	// Medians 200 and 400: ratio 0.50; cpu 90/300; allocs 0 of 1.
	require.Equal(t, "| W1Cycle | clientgo | 3 | 200ns | 400ns | 0.50 | 0.30 | 0 | 16 | 0.00 | 0 | 1 | 0.00 | — | met |", lines[2])
	// The floor row has no verdict.
	require.Equal(t, "| W1Cycle (floor) | floor | 1 | 200ns | 100ns | 2.00 | 0.90 | 0 | 16 | 0.00 | 0 | 1 | 0.00 | — |  |", lines[3])
	// Per-object metrics win over per-op ones; allocs 2.0 ≤ 3, time 0.1 ≤ 0.4.
	require.Equal(t, "| W5aFifoAddPop | clientgo | 1 | 100ns | 1000ns | 0.10 | 0.47 | 245 | 623 | 0.39 | 2 | 11 | 0.18 | — | met |", lines[4])
	require.Equal(t, "| W6Bytes | clientgo | 1 | 1.91s | 2.01s | 0.95 | — | — | — | — | — | — | — | 1.10 | MISSED: heap × > 0.7 |", lines[5])
}

func TestMedian(t *testing.T) {
	m, ok := median([]float64{4, 1, 3, 2})
	require.True(t, ok)
	require.Equal(t, 2.5, m)
	_, ok = median(nil)
	require.False(t, ok)
}
