package pvcprotection_test

import (
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/pvcprotection"
)

// A scheduled pod mounting a claim holds it; the same pod unscheduled
// does not.
func Example() {
	fmt.Println(pvcprotection.Uses(podUsing("web", "data", "node-1"), claim("data")))
	fmt.Println(pvcprotection.Uses(podUsing("web", "data", ""), claim("data")))
	// Output:
	// true
	// false
}
