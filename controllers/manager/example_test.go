package manager_test

import (
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/manager"
)

// Select applies kube-controller-manager's --controllers semantics to
// the controllers ctrlkit ships.
func ExampleSelect() {
	all, _ := manager.Select(manager.Descriptors(), []string{"*"})
	fmt.Println(len(all), "controllers on by default")
	ds, err := manager.Select(manager.Descriptors(), []string{"endpoint", "statefulset", "replicaset", "garbagecollector"})
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
	// 25 controllers on by default
	// replicaset-controller 5
	// garbage-collector-controller 20
	// endpoints-controller 5
	// statefulset-controller 5
	// true
}
