package harness_test

import (
	"context"
	"fmt"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/harness"
)

// A controller that gives each parent ConfigMap a child ConfigMap named
// by generateName, and records the child's name in the parent
// (recordChild, in this package's tests), crashes right after creating
// the child: its next incarnation finds no record and creates a second
// child. Its fixed twin names the child after its parent, and survives a
// crash at each of its writes (and every write fault: see the tests).
// Tests run this in a testing/synctest bubble (see Check); this example
// runs in real time, hence its short quiet period.
func Example() {
	ctx := context.Background()
	s := harness.Scenario{
		Name:    "record-child",
		Objects: []api.Object{parent("web", nil)},
		Kinds:   []harness.Kind{harness.KindOf[*api.ConfigMap]()},
		Quiet:   500 * time.Millisecond,
	}
	res, err := harness.Explore(ctx, s, recordChild(false), harness.Options{})
	if err != nil {
		panic(err)
	}
	f := res.Failures[0]
	fmt.Println(f.Outcome.Perturbations, f.Outcome.Problems)

	res, err = harness.Explore(ctx, s, recordChild(true), harness.Options{Faults: []harness.Fault{harness.Crash}})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Runs, "runs,", len(res.Failures), "failures")
	// Output:
	// [crash@1] [duplicate create: 2 live ConfigMap default/web-* where the reference run has 1]
	// 2 runs, 0 failures
}
