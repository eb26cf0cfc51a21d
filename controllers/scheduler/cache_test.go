package scheduler

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestCacheAssume(t *testing.T) {
	c := NewCache(30 * time.Second)
	c.SetNode(mkNode("n", "2", "2Gi", 10))
	n, _ := c.Node("n")
	p := mkPod("p", "1", "1Gi")

	if err := c.Assume(p, "n"); err != nil {
		t.Fatal(err)
	}
	if err := c.Assume(p, "n"); !errors.Is(err, ErrAssumed) {
		t.Fatalf("second Assume: %v", err)
	}
	if n.Requested.MilliCPU != 1000 || len(n.Pods) != 1 {
		t.Fatalf("assumed pod not counted: %+v", n.Requested)
	}
	// A second pod of 1.5 cpu no longer fits: the assumption takes the slot.
	if v := Decide(NewPodInfo(mkPod("q", "1500m", "")), c.Nodes(), Weights{}, rng(), t0); v.Node != "" {
		t.Fatalf("over-commit through an assumption: %s", v)
	}
	// An update of the still-unbound pod leaves the assumption alone.
	c.AddPod(mkPod("p", "1", "1Gi"))
	if _, ok := c.IsAssumed("default/p"); !ok {
		t.Fatal("unbound update dropped the assumption")
	}
	// Forget (bind failed) frees the slot.
	c.Forget("default/p")
	if n.Requested.MilliCPU != 0 || len(n.Pods) != 0 {
		t.Fatalf("forget left %+v", n.Requested)
	}

	// Confirmation: the bound pod replaces the assumption, even on
	// another node; no expiry afterwards.
	c.SetNode(mkNode("m", "2", "2Gi", 10))
	m, _ := c.Node("m")
	_ = c.Assume(p, "n")
	c.FinishBinding("default/p", t0)
	c.AddPod(bound(mkPod("p", "1", "1Gi"), "m"))
	if len(n.Pods) != 0 || len(m.Pods) != 1 {
		t.Fatalf("confirmation: n %d m %d pods", len(n.Pods), len(m.Pods))
	}
	if _, ok := c.IsAssumed("default/p"); ok {
		t.Fatal("still assumed after confirmation")
	}
	if keys := c.Expire(t0.Add(time.Hour)); keys != nil {
		t.Fatalf("expired a bound pod: %v", keys)
	}

	// Expiry: TTL after FinishBinding, never before it.
	q := mkPod("q", "1", "")
	_ = c.Assume(q, "n")
	if keys := c.Expire(t0.Add(time.Hour)); keys != nil {
		t.Fatalf("expired while binding: %v", keys)
	}
	c.FinishBinding("default/q", t0)
	if at, ok := c.NextExpiry(); !ok || !at.Equal(t0.Add(30*time.Second)) {
		t.Fatalf("NextExpiry %v %v", at, ok)
	}
	if keys := c.Expire(t0.Add(29 * time.Second)); keys != nil {
		t.Fatalf("expired early: %v", keys)
	}
	if keys := c.Expire(t0.Add(30 * time.Second)); !slices.Equal(keys, []string{"default/q"}) {
		t.Fatalf("Expire = %v", keys)
	}
	if len(n.Pods) != 0 {
		t.Fatal("expired pod still counted")
	}
	if _, ok := c.NextExpiry(); ok {
		t.Fatal("NextExpiry after expiry")
	}
}

func TestCacheNodes(t *testing.T) {
	c := NewCache(0)
	c.SetNode(mkNode("b", "1", "1Gi", 10))
	c.SetNode(mkNode("a", "1", "1Gi", 10))
	c.AddPod(bound(mkPod("p", "500m", "", withHostPort(80, "", "")), "b"))
	c.AddPod(bound(mkPod("ghost", "1", ""), "gone"))
	names := func() (s []string) {
		for _, n := range c.Nodes() {
			s = append(s, n.Name)
		}
		return s
	}
	if got := names(); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("Nodes = %v", got)
	}
	// A removed node with pods is a ghost: not a candidate, still counted.
	c.RemoveNode("b")
	if got := names(); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("after remove: %v", got)
	}
	if _, ok := c.Node("b"); ok {
		t.Fatal("ghost node is a candidate")
	}
	c.SetNode(mkNode("b", "1", "1Gi", 10))
	b, _ := c.Node("b")
	if b.Requested.MilliCPU != 500 || len(b.ports) != 1 {
		t.Fatalf("re-added node lost its pods: %+v ports %v", b.Requested, b.ports)
	}
	// The pod moves off (deleted): its port and requests are freed.
	c.RemovePod("default/p")
	if b.Requested.MilliCPU != 0 || len(b.ports) != 0 {
		t.Fatalf("after RemovePod: %+v ports %v", b.Requested, b.ports)
	}
	// Terminated pods are dropped.
	done := bound(mkPod("done", "1", ""), "a")
	c.AddPod(done)
	d2 := done.DeepCopy()
	d2.Status.Phase = "Failed"
	c.AddPod(d2)
	if a, _ := c.Node("a"); len(a.Pods) != 0 {
		t.Fatal("terminated pod counted")
	}
	if node, ok := c.PodNode("default/ghost"); !ok || node != "gone" {
		t.Fatalf("PodNode = %q %v", node, ok)
	}
}

// TestCacheExpiryOrder drives assumptions, FinishBinding (deadlines set
// out of order and set again), confirmations, forgets and removals at
// random, and checks NextExpiry and Expire against the assumptions
// themselves: the earliest deadline, and exactly the assumed pods whose
// deadline is not after now. It also bounds the expiry heap.
func TestCacheExpiryOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	c := NewCache(30 * time.Second)
	c.SetNode(mkNode("n", "1000", "1000Gi", 100000))
	key := func(i int) string { return fmt.Sprintf("default/p%d", i) }
	for step := range 20000 {
		i := r.IntN(200)
		switch r.IntN(6) {
		case 0, 1:
			_ = c.Assume(mkPod(fmt.Sprintf("p%d", i), "1m", ""), "n")
		case 2:
			c.FinishBinding(key(i), t0.Add(time.Duration(r.IntN(600))*time.Second))
		case 3:
			c.Forget(key(i))
		case 4:
			c.AddPod(bound(mkPod(fmt.Sprintf("p%d", i), "1m", ""), "n"))
			if r.IntN(2) == 0 {
				c.RemovePod(key(i))
			}
		case 5:
			now := t0.Add(time.Duration(r.IntN(700)) * time.Second)
			var want []string
			for k, st := range c.assumed {
				if !st.deadline.IsZero() && !st.deadline.After(now) {
					want = append(want, k)
				}
			}
			slices.Sort(want)
			if got := c.Expire(now); !slices.Equal(got, want) {
				t.Fatalf("step %d: Expire(%v) = %v, want %v", step, now, got, want)
			}
		}
		var next time.Time
		for _, st := range c.assumed {
			if !st.deadline.IsZero() && (next.IsZero() || st.deadline.Before(next)) {
				next = st.deadline
			}
		}
		if got, ok := c.NextExpiry(); ok != !next.IsZero() || !got.Equal(next) {
			t.Fatalf("step %d: NextExpiry = %v, %v; want %v", step, got, ok, next)
		}
		if len(c.expiries) > 2*len(c.assumed)+65 {
			t.Fatalf("step %d: %d expiries for %d assumptions", step, len(c.expiries), len(c.assumed))
		}
	}
}
