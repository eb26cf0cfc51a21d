//go:build race

package scheduler

// raceEnabled: the benchmarks run their small shapes under the race
// detector, as under -short (the test command runs every benchmark once
// in its -race pass).
const raceEnabled = true
