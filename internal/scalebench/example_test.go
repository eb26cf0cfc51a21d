package scalebench_test

import (
	"fmt"

	"github.com/ctrlkit/ctrlkit/internal/scalebench"
)

// A benchmark over a store of its own passes a Store; the controlplane
// package's pass nil, the in-memory backend:
//
//	func BenchmarkScaleDeployment(b *testing.B) { scalebench.BenchmarkDeployment(b, nil) }
//
// The sizes come from the environment, with small defaults.
func Example() {
	nodes, err := scalebench.EnvInt("CTRLKIT_SCALE_EXAMPLE_UNSET", scalebench.DefaultNodes)
	fmt.Println(nodes, err)
	// Output: 10 <nil>
}
