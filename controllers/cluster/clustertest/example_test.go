package clustertest_test

import (
	"context"
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/cluster/clustertest"
)

// The suite's fixtures are valid objects a test can create at once; a
// backend's test runs the whole suite with clustertest.Run(t, newCluster).
func ExampleDeployment() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := cluster.New(ctx, cluster.Options{})
	if err != nil {
		panic(err)
	}
	d := clustertest.Deployment("default", "web")
	if _, err := c.Deployments().Create(ctx, d); err != nil {
		panic(err)
	}
	fmt.Println(d.Name, d.Generation, *d.Spec.Replicas, d.Spec.Strategy.Type)
	// Output: web 1 1 RollingUpdate
}
