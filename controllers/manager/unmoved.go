package manager

import (
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/source"
)

// unmovedCluster is the in-process cluster behind c, for the controllers
// whose New still takes a *cluster.Cluster on this branch (replicaset,
// deployment, podgc, nodelifecycle, tainteviction, endpoints, daemonset,
// statefulset, job, cronjob). It is a transition shim of issue 29: once
// those packages take a client.Client their descriptors pass x.Client
// and this file goes. A client that is not the in-process cluster cannot
// run them yet: an error wrapping source.ErrUnsupported.
func unmovedCluster(c client.Client) (*cluster.Cluster, error) {
	cl, ok := c.(*cluster.Cluster)
	if !ok {
		return nil, fmt.Errorf("manager: this controller still needs the in-process cluster, not a %T: %w", c, source.ErrUnsupported)
	}
	return cl, nil
}
