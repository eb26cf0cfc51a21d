package bench_test

import (
	"fmt"

	"github.com/ctrlkit/ctrlkit/bench"
)

// The inputs every workload shares: keys spread over five namespaces,
// pods with an app label taking 1,000 values.
func ExampleKey() {
	fmt.Println(bench.Key(0), bench.Key(1234567))
	_, pods := bench.Pods(1001)
	fmt.Println(bench.PodKey(pods[1000]), pods[1000].Labels["app"], pods[1000].Status.PodIP)
	// Output:
	// ns-0/pod-0000000 ns-2/pod-1234567
	// ns-0/pod-0001000 app-0 10.0.3.232
}
