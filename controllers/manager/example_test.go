package manager_test

import (
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/manager"
)

// Select applies kube-controller-manager's --controllers semantics to
// the controllers ctrlkit ships.
func ExampleSelect() {
	ds, err := manager.Select(manager.Descriptors(), []string{"*", "-podgc", "-replicationcontroller"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range ds {
		fmt.Println(d.Name, d.Workers)
	}
	_, err = manager.Select(manager.Descriptors(), []string{"replicaset", "-nodelifecycle-typo"})
	fmt.Println(err != nil)
	// Output:
	// replicaset-controller 5
	// deployment-controller 5
	// garbage-collector-controller 20
	// true
}
