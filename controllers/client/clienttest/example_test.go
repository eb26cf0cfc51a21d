package clienttest_test

import (
	"fmt"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/client/clienttest"
)

// An implementation's test runs the whole suite with
// clienttest.Run(t, newClient); Cases names its subtests, for
// `go test -run 'TestClientConformance/Patch'`.
func ExampleCases() {
	var patches []string
	for _, name := range clienttest.Cases() {
		if strings.HasPrefix(name, "Patch") {
			patches = append(patches, name)
		}
	}
	fmt.Println(len(clienttest.Cases()) > 30, patches)
	// Output: true [PatchMerge PatchJSON PatchStrategicMerge PatchConflict PatchTestFails]
}
