package kubelet_test

import (
	"context"
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/kubelet"
	"github.com/ctrlkit/ctrlkit/source"
)

// Run a node, bind a pod to it as a scheduler would, and watch the
// kubelet run it. With no stages at all containers start at once and
// run until stopped (tests use DefaultStages in synctest bubbles, where
// their delays cost nothing).
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := cluster.New(ctx, cluster.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	k, err := kubelet.New(c, kubelet.Options{NodeName: "node-1", PodCIDR: "10.244.1.0/24", Stages: []kubelet.Stage{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	done := make(chan error)
	go func() { done <- k.Run(ctx) }()
	defer func() { cancel(); <-done }()

	events, err := c.Pods().Watch(ctx, source.WatchOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web"}}
	p.Spec.Containers = []api.Container{{Name: "nginx", Image: "nginx:1.27"}}
	if _, err := c.Pods().Create(ctx, p); err != nil {
		fmt.Println(err)
		return
	}
	if _, err := c.Bind(ctx, "default", "web", "node-1"); err != nil {
		fmt.Println(err)
		return
	}
	for ev := range events {
		if p := ev.Object; api.IsPodReady(p) {
			fmt.Println(p.Name, p.Status.Phase, p.Status.PodIP, p.Status.HostIP != "")
			for _, c := range p.Status.Conditions {
				fmt.Println(c.Type, c.Status)
			}
			break
		}
	}
	// Output:
	// web Running 10.244.1.2 true
	// PodScheduled True
	// Initialized True
	// ContainersReady True
	// Ready True
}
