package scheduler_test

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/scheduler"
	"github.com/ctrlkit/ctrlkit/fake"
)

func node(name, cpu, mem string, taints ...api.Taint) *api.Node {
	l := api.ResourceList{api.ResourceCPU: api.MustParse(cpu), api.ResourceMemory: api.MustParse(mem), api.ResourcePods: api.MustParse("110")}
	return &api.Node{ObjectMeta: api.ObjectMeta{Name: name}, Spec: api.NodeSpec{Taints: taints},
		Status: api.NodeStatus{Capacity: l, Allocatable: l}}
}

func pod(name, cpu string) *api.Pod {
	return &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name, UID: api.UID(name)},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "app", Resources: api.ResourceRequirements{
			Requests: api.ResourceList{api.ResourceCPU: api.MustParse(cpu), api.ResourceMemory: api.MustParse("1Gi")}}}}}}
}

// waitFor polls until cond holds, for at most 10 s: an Example cannot run
// in a testing/synctest bubble, so this one polls in real time.
func waitFor(cond func() bool) {
	for deadline := time.Now().Add(10 * time.Second); !cond() && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
}

// A scheduler over in-memory sources: one pod is bound and explained, one
// does not fit anywhere and carries kube-scheduler's message.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pods, _ := fake.NewSource(api.Key[*api.Pod], fake.Options[*api.Pod]{Copy: (*api.Pod).DeepCopy})
	nodes, _ := fake.NewSource(api.Key[*api.Node], fake.Options[*api.Node]{Copy: (*api.Node).DeepCopy})
	_, _ = nodes.Create(ctx, node("small", "1", "4Gi"))
	_, _ = nodes.Create(ctx, node("large", "8", "16Gi"))
	_, _ = nodes.Create(ctx, node("medium", "4", "8Gi", api.Taint{Key: "spot", Value: "true", Effect: api.TaintEffectPreferNoSchedule}))
	_, _ = nodes.Create(ctx, node("gpu", "16", "64Gi", api.Taint{Key: "gpu", Value: "true", Effect: api.TaintEffectNoSchedule}))

	s, err := scheduler.New(scheduler.Options{
		Pods: pods, Nodes: nodes,
		Binder: scheduler.PodWriter{Pods: pods},
		Status: scheduler.PodWriter{Pods: pods},
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		panic(err)
	}
	done := make(chan struct{})
	go func() { _ = s.Run(ctx); close(done) }()

	_, _ = pods.Create(ctx, pod("web", "2"))
	_, _ = pods.Create(ctx, pod("batch", "32"))
	waitFor(func() bool {
		web, _, _ := pods.Get(ctx, "default/web")
		batch, _, _ := pods.Get(ctx, "default/batch")
		_, unsched := batch.Status.GetCondition(api.PodScheduled)
		return web.Spec.NodeName != "" && unsched
	})

	e, _ := s.Explain("default/web")
	fmt.Print(e.String())
	batch, _, _ := pods.Get(ctx, "default/batch")
	c, _ := batch.Status.GetCondition(api.PodScheduled)
	fmt.Println(c.Status, c.Reason, c.Message)
	cancel()
	<-done
	// Output:
	// pod default/web: scheduled to large (2/4 nodes feasible)
	//   gpu: filtered by TaintToleration: node(s) had untolerated taint {gpu: true}
	//   large: score 474 = LeastAllocated 84×1 + BalancedAllocation 90×1 + PodTopologySpread 0×2 + InterPodAffinity 0×2 + NodeAffinity 0×2 + TaintToleration 100×3 + ImageLocality 0×1  <- chosen
	//   medium: score 149 = LeastAllocated 68×1 + BalancedAllocation 81×1 + PodTopologySpread 0×2 + InterPodAffinity 0×2 + NodeAffinity 0×2 + TaintToleration 0×3 + ImageLocality 0×1
	//   small: filtered by NodeResourcesFit: Insufficient cpu
	// False Unschedulable 0/4 nodes are available: 1 node(s) had untolerated taint {gpu: true}, 3 Insufficient cpu. preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling.
}
