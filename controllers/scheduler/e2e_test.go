package scheduler

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/source"
)

// cluster is a scheduler over fake sources, run inside a synctest bubble.
type cluster struct {
	t     *testing.T
	ctx   context.Context
	pods  *fake.Source[*api.Pod]
	nodes *fake.Source[*api.Node]
	s     *Scheduler
}

func newCluster(t *testing.T, opts Options) *cluster {
	t.Helper()
	pods, err := fake.NewSource(api.Key[*api.Pod], fake.Options[*api.Pod]{Copy: (*api.Pod).DeepCopy})
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := fake.NewSource(api.Key[*api.Node], fake.Options[*api.Node]{Copy: (*api.Node).DeepCopy})
	if err != nil {
		t.Fatal(err)
	}
	opts.Pods, opts.Nodes = pods, nodes
	opts.Logger = slog.New(slog.DiscardHandler)
	opts.Binder = PodWriter{Pods: pods}
	opts.Status = PodWriter{Pods: pods}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return &cluster{t: t, ctx: t.Context(), pods: pods, nodes: nodes, s: s}
}

// start runs the scheduler until the test ends.
func (c *cluster) start() {
	ctx, cancel := context.WithCancel(c.ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := c.s.Run(ctx); !errors.Is(err, context.Canceled) {
			c.t.Errorf("Run = %v", err)
		}
	})
	c.t.Cleanup(func() { cancel(); wg.Wait() })
}

func (c *cluster) addNode(n *api.Node) {
	c.t.Helper()
	if _, err := c.nodes.Create(c.ctx, n); err != nil {
		c.t.Fatal(err)
	}
}

func (c *cluster) addPod(p *api.Pod) {
	c.t.Helper()
	if _, err := c.pods.Create(c.ctx, p); err != nil {
		c.t.Fatal(err)
	}
}

func (c *cluster) pod(name string) *api.Pod {
	c.t.Helper()
	p, _, err := c.pods.Get(c.ctx, "default/"+name)
	if err != nil {
		c.t.Fatal(err)
	}
	return p
}

// settle lets virtual time pass and waits for the bubble to go idle.
func (c *cluster) settle(d time.Duration) {
	time.Sleep(d)
	synctest.Wait()
}

func scheduledCond(p *api.Pod) api.PodCondition {
	if c, ok := p.Status.GetCondition(api.PodScheduled); ok {
		return *c
	}
	return api.PodCondition{}
}

func TestUnschedulableThenNodeAdded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, Options{})
		c.addNode(mkNode("small", "1", "1Gi", 110, withLabels("disk", "ssd")))
		c.addNode(mkNode("hdd1", "4", "4Gi", 110, withLabels("disk", "hdd")))
		c.addNode(mkNode("hdd2", "4", "4Gi", 110))
		c.addPod(mkPod("big", "2", "", withSelector("disk", "ssd")))
		c.start()
		c.settle(100 * time.Millisecond)

		p := c.pod("big")
		want := "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match Pod's node affinity/selector." +
			" preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
		if cond := scheduledCond(p); p.Spec.NodeName != "" || cond.Status != api.ConditionFalse || cond.Reason != ReasonUnschedulable || cond.Message != want {
			t.Fatalf("pod on %q, condition %+v", p.Spec.NodeName, cond)
		}
		e, ok := c.s.Explain("default/big")
		if !ok || e.Message != want || len(e.Verdicts) != 3 {
			t.Fatalf("Explain = %v %v", e, ok)
		}
		if v, _ := e.Verdict("small"); v.Filter != FilterNodeResourcesFit {
			t.Fatalf("small: %+v", v)
		}
		// Stays unschedulable: no event, no retry before the timeout.
		c.settle(time.Minute)
		if e2, _ := c.s.Explain("default/big"); !e2.Time.Equal(e.Time) {
			t.Fatalf("retried without a change at %v", e2.Time)
		}
		// A node that fits arrives: the pod is retried (after its backoff) and bound.
		c.addNode(mkNode("gpu", "8", "8Gi", 110, withLabels("disk", "ssd")))
		c.settle(2 * time.Second)
		p = c.pod("big")
		if p.Spec.NodeName != "gpu" || scheduledCond(p).Status != api.ConditionTrue {
			t.Fatalf("pod on %q, condition %+v", p.Spec.NodeName, scheduledCond(p))
		}
		e, _ = c.s.Explain("default/big")
		if e.Node != "gpu" || e.Feasible != 1 || !strings.Contains(e.String(), "gpu: score") {
			t.Fatalf("Explain after binding:\n%s", e.String())
		}
	})
}

func TestUnschedulableRetryBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, Options{})
		c.addNode(mkNode("n", "1", "1Gi", 110))
		c.addPod(mkPod("p", "2", ""))
		c.start()
		c.settle(time.Millisecond)
		first, _ := c.s.Explain("default/p")
		// A node change retries the pod, but not before its 1 s backoff.
		start := time.Now()
		n, _, _ := c.nodes.Get(c.ctx, "n")
		n.Labels["x"] = "1"
		if _, err := c.nodes.Update(c.ctx, n, ""); err != nil {
			t.Fatal(err)
		}
		c.settle(time.Millisecond)
		e, _ := c.s.Explain("default/p")
		if !e.Time.Equal(first.Time) {
			t.Fatal("retried inside the backoff")
		}
		c.settle(time.Second)
		e, _ = c.s.Explain("default/p")
		if d := e.Time.Sub(first.Time); d < time.Second || e.Time.After(start.Add(time.Second+2*time.Millisecond)) {
			t.Fatalf("retry after %v", d)
		}
		// Without any change the pod is retried after UnschedulableTimeout.
		c.settle(5 * time.Minute)
		if e2, _ := c.s.Explain("default/p"); !e2.Time.After(e.Time) {
			t.Fatal("not retried after the timeout")
		}
	})
}

func TestHostPortsAndSelector(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, Options{})
		c.addNode(mkNode("a", "4", "4Gi", 110))
		c.addNode(mkNode("b", "4", "4Gi", 110, withLabels("disk", "ssd")))
		c.start()
		for _, n := range []string{"w1", "w2", "w3"} {
			c.addPod(mkPod(n, "100m", "", withHostPort(8080, "", "")))
		}
		c.addPod(mkPod("db", "100m", "", withSelector("disk", "ssd")))
		c.settle(100 * time.Millisecond)
		nodes := map[string]int{}
		for _, n := range []string{"w1", "w2", "w3"} {
			nodes[c.pod(n).Spec.NodeName]++
		}
		if nodes["a"] != 1 || nodes["b"] != 1 || nodes[""] != 1 {
			t.Fatalf("host port pods: %v", nodes)
		}
		for _, n := range []string{"w1", "w2", "w3"} {
			if p := c.pod(n); p.Spec.NodeName == "" {
				want := "0/2 nodes are available: 2 node(s) didn't have free ports for the requested pod ports." +
					" preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod."
				if got := scheduledCond(p).Message; got != want {
					t.Fatalf("message %q", got)
				}
			}
		}
		if got := c.pod("db").Spec.NodeName; got != "b" {
			t.Fatalf("db on %q", got)
		}
		// Deleting a bound port holder frees its port: the parked pod lands.
		for _, n := range []string{"w1", "w2", "w3"} {
			if c.pod(n).Spec.NodeName == "a" {
				_, _ = c.pods.Delete(c.ctx, "default/"+n, "")
			}
		}
		c.settle(2 * time.Second)
		bound := 0
		for _, n := range []string{"w1", "w2", "w3"} {
			if p, _, err := c.pods.Get(c.ctx, "default/"+n); err == nil && p.Spec.NodeName != "" {
				bound++
			}
		}
		if bound != 2 {
			t.Fatalf("%d port pods bound after the delete", bound)
		}
	})
}

func TestSpreadAcrossNodesAndZones(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, Options{Seed: 7})
		// Zone z1 has three nodes, z2 one. PodTopologySpread's system
		// default constraints (hostname maxSkew 3, weight ln(4+2); zone
		// maxSkew 5, weight ln(2+2)) score as kube-scheduler's: raw
		// count×weight + maxSkew−1 per key, rounded, then reversed. The
		// pods go z1, z2, z1, z1, z2 and the sixth ties z1's nodes (12)
		// with z2-a (12.35 rounds to 12), so LeastAllocated sends it to z1:
		// 4 and 2, no node with more than 2.
		c.addNode(mkNode("z1-a", "8", "8Gi", 110, withLabels(api.LabelTopologyZone, "z1")))
		c.addNode(mkNode("z1-b", "8", "8Gi", 110, withLabels(api.LabelTopologyZone, "z1")))
		c.addNode(mkNode("z1-c", "8", "8Gi", 110, withLabels(api.LabelTopologyZone, "z1")))
		c.addNode(mkNode("z2-a", "8", "8Gi", 110, withLabels(api.LabelTopologyZone, "z2")))
		c.start()
		names := []string{"r0", "r1", "r2", "r3", "r4", "r5"}
		for _, n := range names {
			c.addPod(mkPod(n, "", "", withOwner("ReplicaSet", "web")))
			c.settle(10 * time.Millisecond)
		}
		perNode, perZone := map[string]int{}, map[string]int{}
		for _, n := range names {
			node := c.pod(n).Spec.NodeName
			perNode[node]++
			perZone[node[:2]]++
		}
		if perZone["z1"] != 4 || perZone["z2"] != 2 || perNode[""] != 0 || len(perNode) != 4 {
			t.Fatalf("per zone %v per node %v", perZone, perNode)
		}
		for _, k := range perNode {
			if k > 2 {
				t.Fatalf("per node %v", perNode)
			}
		}
	})
}

func TestPriorityOrdersQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, Options{})
		c.addNode(mkNode("n", "1", "1Gi", 110))
		// Queued before the scheduler runs: the older low-priority pod
		// would win on age; priority comes first.
		c.addPod(mkPod("low", "1", "", withPriority(0)))
		c.addPod(mkPod("mid", "1", "", withPriority(10)))
		c.addPod(mkPod("high", "1", "", withPriority(1000)))
		c.start()
		c.settle(100 * time.Millisecond)
		if got := c.pod("high").Spec.NodeName; got != "n" {
			t.Fatalf("high on %q", got)
		}
		for _, n := range []string{"low", "mid"} {
			if got := scheduledCond(c.pod(n)).Message; got != "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod." {
				t.Fatalf("%s: %q", n, got)
			}
		}
		// Room for one more: mid goes before low.
		c.addNode(mkNode("m", "1", "1Gi", 110))
		c.settle(3 * time.Second)
		if c.pod("mid").Spec.NodeName != "m" || c.pod("low").Spec.NodeName != "" {
			t.Fatalf("mid on %q, low on %q", c.pod("mid").Spec.NodeName, c.pod("low").Spec.NodeName)
		}
	})
}

// conflictBinder fails every bind of the pods it is told to, once.
type conflictBinder struct {
	Binder
	mu   sync.Mutex
	fail map[string]bool
}

func (b *conflictBinder) Bind(ctx context.Context, pod *api.Pod, node string) error {
	b.mu.Lock()
	f := b.fail[pod.Name]
	delete(b.fail, pod.Name)
	b.mu.Unlock()
	if f {
		return source.ErrConflict
	}
	return b.Binder.Bind(ctx, pod, node)
}

func TestBindFailureForgetsAssumption(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, Options{})
		b := &conflictBinder{Binder: PodWriter{Pods: c.pods}, fail: map[string]bool{"p": true}}
		c.s.opts.Binder = b
		c.addNode(mkNode("n", "1", "1Gi", 110))
		c.addPod(mkPod("p", "1", ""))
		c.start()
		c.settle(10 * time.Millisecond)
		e, _ := c.s.Explain("default/p")
		if e.Bind == nil || c.pod("p").Spec.NodeName != "" {
			t.Fatalf("bind error %v, node %q", e.Bind, c.pod("p").Spec.NodeName)
		}
		// The assumption is gone, so the retry fits again.
		c.settle(2 * time.Second)
		if got := c.pod("p").Spec.NodeName; got != "n" {
			t.Fatalf("p on %q", got)
		}
	})
}

func TestReadWriteOncePod(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		claims := map[string]*api.PersistentVolumeClaim{
			"default/data": {Spec: api.PersistentVolumeClaimSpec{AccessModes: []api.PersistentVolumeAccessMode{ReadWriteOncePod}, VolumeName: "pv-data"},
				Status: api.PersistentVolumeClaimStatus{Phase: "Bound"}},
			"default/shared": {Spec: api.PersistentVolumeClaimSpec{AccessModes: []api.PersistentVolumeAccessMode{"ReadWriteMany"}, VolumeName: "pv-shared"},
				Status: api.PersistentVolumeClaimStatus{Phase: "Bound"}},
		}
		c := newCluster(t, Options{Claims: func(ns, name string) (*api.PersistentVolumeClaim, bool) {
			pvc, ok := claims[ns+"/"+name]
			return pvc, ok
		}})
		vol := func(claim string) podOpt {
			return func(p *api.Pod) {
				p.Spec.Volumes = append(p.Spec.Volumes, api.Volume{Name: claim, VolumeSource: api.VolumeSource{
					PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: claim}}})
			}
		}
		c.addNode(mkNode("a", "4", "4Gi", 110))
		c.addNode(mkNode("b", "4", "4Gi", 110))
		c.start()
		c.addPod(mkPod("first", "", "", vol("data"), vol("shared")))
		c.settle(10 * time.Millisecond)
		c.addPod(mkPod("second", "", "", vol("data")))
		c.addPod(mkPod("third", "", "", vol("shared")))
		c.settle(10 * time.Millisecond)
		if c.pod("first").Spec.NodeName == "" || c.pod("third").Spec.NodeName == "" {
			t.Fatal("first or third not bound")
		}
		want := "0/2 nodes are available: 2 " + ReasonReadWriteOncePod + "." +
			" preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod."
		if got := scheduledCond(c.pod("second")).Message; got != want {
			t.Fatalf("second: %q", got)
		}
		if got := c.s.Unschedulable(); len(got) != 1 || got[0] != "default/second" {
			t.Fatalf("Unschedulable = %v", got)
		}
		// The claim's user goes away: the second pod gets it.
		_, _ = c.pods.Delete(c.ctx, "default/first", "")
		c.settle(2 * time.Second)
		if c.pod("second").Spec.NodeName == "" {
			t.Fatal("second not bound after the claim was freed")
		}
		if got := c.s.Unschedulable(); len(got) != 0 {
			t.Fatalf("Unschedulable = %v", got)
		}
	})
}

func TestSchedulingGatesAndOtherSchedulers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, Options{})
		c.addNode(mkNode("a", "4", "4Gi", 110))
		c.start()
		gated := mkPod("gated", "", "")
		gated.Spec.SchedulingGates = []api.PodSchedulingGate{{Name: "wait"}}
		other := mkPod("other", "", "")
		other.Spec.SchedulerName = "my-scheduler"
		c.addPod(gated)
		c.addPod(other)
		c.settle(time.Second)
		if c.pod("gated").Spec.NodeName != "" || c.pod("other").Spec.NodeName != "" {
			t.Fatal("a gated pod or another scheduler's pod was bound")
		}
		if _, ok := c.s.Explain("default/gated"); ok {
			t.Fatal("gated pod attempted")
		}
		g := c.pod("gated")
		g.Spec.SchedulingGates = nil
		if _, err := c.pods.Update(c.ctx, g, ""); err != nil {
			t.Fatal(err)
		}
		c.settle(time.Millisecond)
		if c.pod("gated").Spec.NodeName != "a" {
			t.Fatal("ungated pod not bound")
		}
	})
}

// lostBinder reports success without binding: the bind's watch event never
// comes.
type lostBinder struct {
	Binder
	mu   sync.Mutex
	lost map[string]bool
}

func (b *lostBinder) Bind(ctx context.Context, pod *api.Pod, node string) error {
	b.mu.Lock()
	l := b.lost[pod.Name]
	delete(b.lost, pod.Name)
	b.mu.Unlock()
	if l {
		return nil
	}
	return b.Binder.Bind(ctx, pod, node)
}

func TestAssumptionExpires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, Options{})
		c.s.opts.Binder = &lostBinder{Binder: PodWriter{Pods: c.pods}, lost: map[string]bool{"p": true}}
		c.addNode(mkNode("n", "1", "1Gi", 110))
		c.start()
		c.addPod(mkPod("p", "1", ""))
		c.settle(time.Millisecond)
		c.addPod(mkPod("q", "1", ""))
		c.settle(time.Millisecond)
		// p's assumption holds the cpu: q does not fit.
		if got := scheduledCond(c.pod("q")).Message; got != "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod." {
			t.Fatalf("q: %q", got)
		}
		// 30 s after the bind returned the assumption expires: the room
		// goes to q (first in the queue after its backoff) or p again.
		c.settle(31 * time.Second)
		bound := 0
		for _, n := range []string{"p", "q"} {
			if c.pod(n).Spec.NodeName == "n" {
				bound++
			}
		}
		if bound != 1 {
			t.Fatalf("%d pods bound after the expiry", bound)
		}
	})
}

func TestPendingPodChangeRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, Options{})
		c.addNode(mkNode("n", "1", "1Gi", 110, withTaint("dedicated", "db", api.TaintEffectNoSchedule)))
		c.addPod(mkPod("p", "", ""))
		c.start()
		c.settle(time.Millisecond)
		if got := scheduledCond(c.pod("p")).Message; got != "0/1 nodes are available: 1 node(s) had untolerated taint {dedicated: db}. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling." {
			t.Fatalf("message %q", got)
		}
		// Its own status write does not retry it ...
		first, _ := c.s.Explain("default/p")
		c.settle(2 * time.Second)
		if e, _ := c.s.Explain("default/p"); !e.Time.Equal(first.Time) {
			t.Fatal("retried after a status-only update")
		}
		// ... a toleration added to its spec does.
		p := c.pod("p")
		p.Spec.Tolerations = []api.Toleration{{Key: "dedicated", Operator: api.TolerationOpExists}}
		if _, err := c.pods.Update(c.ctx, p, ""); err != nil {
			t.Fatal(err)
		}
		c.settle(time.Millisecond)
		if got := c.pod("p").Spec.NodeName; got != "n" {
			t.Fatalf("p on %q", got)
		}
	})
}

func TestNodeDeleted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, Options{})
		c.addNode(mkNode("n", "1", "1Gi", 110))
		c.start()
		c.addPod(mkPod("a", "", ""))
		c.settle(time.Millisecond)
		if _, err := c.nodes.Delete(c.ctx, "n", ""); err != nil {
			t.Fatal(err)
		}
		c.settle(time.Millisecond)
		c.addPod(mkPod("b", "", ""))
		c.settle(time.Millisecond)
		if got := scheduledCond(c.pod("b")).Message; got != ErrNoNodesMessage {
			t.Fatalf("b: %q", got)
		}
		// The node comes back, with a's pod still counted against it.
		c.addNode(mkNode("n", "1", "1Gi", 2))
		c.settle(2 * time.Second)
		if c.pod("b").Spec.NodeName != "n" {
			t.Fatal("b not bound after the node came back")
		}
		c.addPod(mkPod("c", "", ""))
		c.settle(time.Millisecond)
		if got := scheduledCond(c.pod("c")).Message; got != "0/1 nodes are available: 1 Too many pods. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod." {
			t.Fatalf("c: %q", got)
		}
	})
}
