package cli_test

import (
	"os"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane/cli"
)

// Render prints a snapshot of the cluster as kubectl get would.
func ExampleRender() {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	n := &api.Node{ObjectMeta: api.ObjectMeta{Name: "node-1"}}
	n.Status.Conditions = []api.NodeCondition{{Type: api.NodeReady, Status: api.ConditionTrue}}
	n.Status.Allocatable = api.ResourceList{api.ResourceCPU: api.MustParse("2"), api.ResourceMemory: api.MustParse("4Gi")}
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web-0", CreationTimestamp: api.NewTime(now.Add(-90 * time.Second))}}
	p.Spec.NodeName = "node-1"
	p.Spec.Containers = []api.Container{{Name: "nginx"}}
	p.Status.Phase, p.Status.PodIP = api.PodRunning, "10.244.1.2"
	p.Status.ContainerStatuses = []api.ContainerStatus{{Name: "nginx", Ready: true}}
	cli.Render(os.Stdout, cli.Snapshot{Now: now, Nodes: []*api.Node{n}, Pods: []*api.Pod{p}}, 10)
	// Output:
	// NODES
	// NAME    STATUS  PODS  CPU REQUESTS  MEMORY REQUESTS  ZONE
	// node-1  Ready   1     0m/2000m      0Mi/4096Mi       -
	//
	// PODS
	// NAMESPACE  NAME   READY  STATUS   RESTARTS  IP          NODE    AGE
	// default    web-0  1/1    Running  0         10.244.1.2  node-1  90s
}
