package scheduler

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// randomNode and randomPod draw from small domains so that conflicts
// (ports, labels, taints, exhaustion) are frequent.
func randomNode(r *rand.Rand, i int) *api.Node {
	var opts []nodeOpt
	if r.IntN(2) == 0 {
		opts = append(opts, withLabels("disk", []string{"ssd", "hdd"}[r.IntN(2)]))
	}
	opts = append(opts, withLabels(api.LabelTopologyZone, fmt.Sprint("z", r.IntN(3))))
	if r.IntN(5) == 0 {
		opts = append(opts, withTaint("dedicated", fmt.Sprint(r.IntN(2)), []api.TaintEffect{api.TaintEffectNoSchedule, api.TaintEffectNoExecute, api.TaintEffectPreferNoSchedule}[r.IntN(3)]))
	}
	if r.IntN(10) == 0 {
		opts = append(opts, cordoned)
	}
	return mkNode(fmt.Sprint("node-", i), fmt.Sprint(1+r.IntN(8)), fmt.Sprint(1+r.IntN(8), "Gi"), int64(1+r.IntN(10)), opts...)
}

func randomPod(r *rand.Rand, i int) *api.Pod {
	var opts []podOpt
	if r.IntN(4) == 0 {
		opts = append(opts, withHostPort(int32(8000+r.IntN(3)), "", ""))
	}
	if r.IntN(4) == 0 {
		opts = append(opts, withSelector("disk", []string{"ssd", "hdd"}[r.IntN(2)]))
	}
	if r.IntN(4) == 0 {
		opts = append(opts, withRequired(term(api.LabelTopologyZone, api.NodeSelectorOpNotIn, fmt.Sprint("z", r.IntN(3)))))
	}
	if r.IntN(3) == 0 {
		opts = append(opts, withToleration(api.Toleration{Key: "dedicated", Value: fmt.Sprint(r.IntN(2))}))
	}
	if r.IntN(2) == 0 {
		opts = append(opts, withOwner("ReplicaSet", fmt.Sprint("rs-", r.IntN(3))))
	}
	cpu, mem := "", ""
	if r.IntN(5) > 0 {
		cpu = fmt.Sprint(100*(1+r.IntN(30)), "m")
	}
	if r.IntN(5) > 0 {
		mem = fmt.Sprint(128*(1+r.IntN(24)), "Mi")
	}
	return mkPod(fmt.Sprint("pod-", i), cpu, mem, opts...)
}

// admits is an independent statement of the filters: can pod join the
// pods already on node?
func admits(node *api.Node, on []*api.Pod, pod *api.Pod) bool {
	if node.Spec.Unschedulable || !api.PodMatchesNode(pod, node) {
		return false
	}
	if _, bad := api.FindUntoleratedTaint(node.Spec.Taints, pod.Spec.Tolerations, api.TaintEffectNoSchedule, api.TaintEffectNoExecute); bad {
		return false
	}
	alloc := ResourcesFromList(node.Status.Allocatable)
	pods := node.Status.Allocatable[api.ResourcePods]
	if int64(len(on)+1) > pods.Value() {
		return false
	}
	var used Resources
	ports := map[int32]bool{}
	for _, p := range on {
		used = used.Add(PodRequests(p, false))
		for _, c := range p.Spec.Containers {
			for _, hp := range c.Ports {
				ports[hp.HostPort] = true
			}
		}
	}
	req := PodRequests(pod, false)
	for _, c := range pod.Spec.Containers {
		for _, hp := range c.Ports {
			if ports[hp.HostPort] {
				return false
			}
		}
	}
	free := alloc.Sub(used)
	return (req.MilliCPU == 0 || req.MilliCPU <= free.MilliCPU) &&
		(req.Memory == 0 || req.Memory <= free.Memory) &&
		(req.EphemeralStorage == 0 || req.EphemeralStorage <= free.EphemeralStorage)
}

// TestPropertyNeverViolates schedules random pods onto random nodes
// through the cache (assuming each placement, as the loop does) and
// checks every decision against admits: a chosen node admits the pod, and
// an unschedulable pod is admitted by no node.
func TestPropertyNeverViolates(t *testing.T) {
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 99))
		c := NewCache(time.Minute)
		nodes := map[string]*api.Node{}
		on := map[string][]*api.Pod{}
		for i := range 1 + r.IntN(12) {
			n := randomNode(r, i)
			nodes[n.Name] = n
			c.SetNode(n)
		}
		placed := 0
		for i := range 150 {
			pod := randomPod(r, i)
			e := Decide(NewPodInfo(pod), c.Nodes(), Weights{}, r, t0)
			if e.Node == "" {
				for name, n := range nodes {
					if admits(n, on[name], pod) {
						t.Fatalf("seed %d: %s unschedulable but %s admits it:\n%s", seed, pod.Name, name, e)
					}
				}
				if e.Message == "" {
					t.Fatalf("seed %d: no message", seed)
				}
				continue
			}
			if !admits(nodes[e.Node], on[e.Node], pod) {
				t.Fatalf("seed %d: %s placed on %s, which does not admit it:\n%s", seed, pod.Name, e.Node, e)
			}
			for _, v := range e.Verdicts {
				if n := nodes[v.Node]; v.Feasible() != admits(n, on[v.Node], pod) {
					t.Fatalf("seed %d: %s verdict on %s %+v disagrees", seed, pod.Name, v.Node, v)
				}
			}
			if err := c.Assume(pod, e.Node); err != nil {
				t.Fatal(err)
			}
			// Half the assumptions get confirmed by the "watch".
			if r.IntN(2) == 0 {
				c.AddPod(bound(pod.DeepCopy(), e.Node))
			}
			on[e.Node] = append(on[e.Node], pod)
			placed++
		}
		// Final check: no node over-committed.
		for name, n := range nodes {
			ni, _ := c.Node(name)
			alloc := ResourcesFromList(n.Status.Allocatable)
			if ni.Requested.MilliCPU > alloc.MilliCPU || ni.Requested.Memory > alloc.Memory || int64(len(ni.Pods)) > ni.AllowedPods {
				t.Fatalf("seed %d: %s over-committed: %+v of %+v, %d pods", seed, name, ni.Requested, alloc, len(ni.Pods))
			}
		}
		if placed == 0 {
			t.Logf("seed %d placed nothing", seed)
		}
	}
}

// TestPropertyLoopNeverOvercommits runs the whole scheduler over random
// nodes and a burst of random pods created at once (so that binds are in
// flight while later pods are decided) and checks the bound state.
func TestPropertyLoopNeverOvercommits(t *testing.T) {
	for seed := range uint64(5) {
		synctest.Test(t, func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 7))
			c := newCluster(t, Options{Seed: seed})
			nodes := map[string]*api.Node{}
			for i := range 2 + r.IntN(6) {
				n := randomNode(r, i)
				nodes[n.Name] = n
				c.addNode(n)
			}
			c.start()
			for i := range 120 {
				c.addPod(randomPod(r, i))
			}
			c.settle(time.Minute)
			on := map[string][]*api.Pod{}
			for _, p := range c.pods.Items() {
				if p.Spec.NodeName == "" {
					if m := scheduledCond(p).Message; m == "" {
						t.Fatalf("%s neither bound nor unschedulable", p.Name)
					}
					continue
				}
				if !admits(nodes[p.Spec.NodeName], on[p.Spec.NodeName], p) {
					t.Fatalf("seed %d: %s violates a filter on %s", seed, p.Name, p.Spec.NodeName)
				}
				on[p.Spec.NodeName] = append(on[p.Spec.NodeName], p)
			}
		})
	}
}
