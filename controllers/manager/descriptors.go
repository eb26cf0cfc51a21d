package manager

import (
	"github.com/ctrlkit/ctrlkit/controllers/deployment"
	"github.com/ctrlkit/ctrlkit/controllers/garbagecollector"
	"github.com/ctrlkit/ctrlkit/controllers/podgc"
	"github.com/ctrlkit/ctrlkit/controllers/replicaset"
)

// The names of the controllers Descriptors knows, as
// kube-controller-manager names them since 1.28 (its older names are
// accepted as aliases).
const (
	ReplicaSetController            = "replicaset-controller"
	ReplicationControllerController = "replicationcontroller-controller"
	DeploymentController            = "deployment-controller"
	GarbageCollectorController      = "garbage-collector-controller"
	PodGarbageCollectorController   = "pod-garbage-collector-controller"
)

// Descriptors returns the controllers ctrlkit ships, in the order the
// manager starts them, with kube-controller-manager's default worker
// counts (its --concurrent-*-syncs flags).
func Descriptors() []Descriptor {
	return []Descriptor{
		{
			Name: ReplicaSetController, Aliases: []string{"replicaset"}, Workers: 5,
			New: func(x Context) (Runner, error) {
				return replicaset.New(x.Cluster, x.Factory, replicaset.Options{Workers: x.Workers, Logger: x.Logger, Recorder: x.Recorder})
			},
		},
		{
			Name: ReplicationControllerController, Aliases: []string{"replicationcontroller"}, Workers: 5,
			New: func(x Context) (Runner, error) {
				return replicaset.NewReplicationManager(x.Cluster, x.Factory, replicaset.Options{Workers: x.Workers, Logger: x.Logger, Recorder: x.Recorder})
			},
		},
		{
			Name: DeploymentController, Aliases: []string{"deployment"}, Workers: 5,
			New: func(x Context) (Runner, error) {
				return deployment.New(x.Cluster, x.Factory, deployment.Options{Workers: x.Workers, Logger: x.Logger, Recorder: x.Recorder})
			},
		},
		{
			Name: GarbageCollectorController, Aliases: []string{"garbagecollector"}, Workers: 20,
			New: func(x Context) (Runner, error) {
				return garbagecollector.New(x.Cluster, x.Factory, garbagecollector.Options{Workers: x.Workers, Logger: x.Logger, Recorder: x.Recorder})
			},
		},
		{
			// The pod GC runs one loop; it has no worker count.
			Name: PodGarbageCollectorController, Aliases: []string{"podgc"},
			New: func(x Context) (Runner, error) {
				return podgc.New(x.Cluster, x.Factory, podgc.Options{Logger: x.Logger})
			},
		},
	}
}
