package scheduler

import (
	"errors"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/source"
)

func TestPodWriter(t *testing.T) {
	ctx := t.Context()
	pods, _ := fake.NewSource(api.Key[*api.Pod], fake.Options[*api.Pod]{Copy: (*api.Pod).DeepCopy})
	w := PodWriter{Pods: pods}
	p := mkPod("p", "", "")
	_, _ = pods.Create(ctx, p)
	cond := api.PodCondition{Type: api.PodScheduled, Status: api.ConditionFalse, Reason: ReasonUnschedulable, Message: "m"}
	if err := w.SetCondition(ctx, p, cond); err != nil {
		t.Fatal(err)
	}
	_, rv1, _ := pods.Get(ctx, "default/p")
	if err := w.SetCondition(ctx, p, cond); err != nil {
		t.Fatal(err)
	}
	if _, rv2, _ := pods.Get(ctx, "default/p"); rv2 != rv1 {
		t.Fatal("an unchanged condition was written again")
	}
	if err := w.Nominate(ctx, p, "n1"); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := pods.Get(ctx, "default/p"); got.Status.NominatedNodeName != "n1" {
		t.Fatalf("nominated %q", got.Status.NominatedNodeName)
	}
	if err := w.Bind(ctx, p, "n1"); err != nil {
		t.Fatal(err)
	}
	got, _, _ := pods.Get(ctx, "default/p")
	if got.Spec.NodeName != "n1" || scheduledCond(got).Status != api.ConditionTrue {
		t.Fatalf("bound pod %+v", got.Status.Conditions)
	}
	if got.Status.NominatedNodeName != "" {
		t.Fatalf("binding left nominatedNodeName %q", got.Status.NominatedNodeName)
	}
	if err := w.Bind(ctx, p, "n2"); !errors.Is(err, source.ErrConflict) || !errors.Is(err, ErrAlreadyBound) {
		t.Fatalf("second Bind = %v", err)
	}
	if err := w.SetCondition(ctx, p, cond); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := pods.Get(ctx, "default/p"); scheduledCond(got).Status != api.ConditionTrue {
		t.Fatal("SetCondition overwrote a bound pod's condition")
	}
	other := mkPod("p", "", "")
	other.UID = "another"
	if err := w.Bind(ctx, other, "n2"); !errors.Is(err, source.ErrConflict) {
		t.Fatalf("Bind of another incarnation = %v", err)
	}
}

func TestOptionsAndRunTwice(t *testing.T) {
	if _, err := New(Options{}); err == nil {
		t.Fatal("New without sources succeeded")
	}
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, Options{})
		c.start()
		synctest.Wait()
		if err := c.s.Run(c.ctx); !errors.Is(err, ErrRunning) {
			t.Fatalf("second Run = %v", err)
		}
		if _, ok := c.s.Explain("default/none"); ok {
			t.Fatal("Explain of an unknown pod")
		}
	})
}

func TestExplainHistoryBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, Options{ExplainHistory: 2})
		c.addNode(mkNode("n", "4", "4Gi", 110))
		c.start()
		for _, n := range []string{"a", "b", "c"} {
			c.addPod(mkPod(n, "", ""))
			c.settle(time.Millisecond)
		}
		if _, ok := c.s.Explain("default/a"); ok {
			t.Fatal("oldest attempt kept beyond ExplainHistory")
		}
		for _, n := range []string{"b", "c"} {
			if e, ok := c.s.Explain("default/" + n); !ok || e.Node != "n" {
				t.Fatalf("%s: %v %v", n, e, ok)
			}
		}
	})
}

func TestExplanationString(t *testing.T) {
	e := Explanation{Pod: "default/p", Node: "a", Feasible: 1, Bind: errors.New("boom"),
		ScoreNames: []string{"X"}, Weights: []int64{2},
		Verdicts: []NodeVerdict{{Node: "a", Scores: []int64{50}, Total: 100}, {Node: "b", Filter: FilterNodePorts, Reasons: []string{ReasonNodePorts}}}}
	want := "pod default/p: chose a, bind failed: boom (1/2 nodes feasible)\n" +
		"  a: score 100 = X 50×2  <- chosen\n" +
		"  b: filtered by NodePorts: node(s) didn't have free ports for the requested pod ports\n"
	if got := e.String(); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestServeHTTP(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, Options{})
		c.addNode(mkNode("n", "1", "1Gi", 110))
		c.addPod(mkPod("big", "2", ""))
		c.addPod(mkPod("ok", "100m", ""))
		c.start()
		c.settle(time.Millisecond)
		get := func(url string) (int, string) {
			rec := httptest.NewRecorder()
			c.s.ServeHTTP(rec, httptest.NewRequest("GET", url, nil))
			return rec.Code, rec.Body.String()
		}
		if code, body := get("/"); code != 200 || body != "1 unschedulable pods\ndefault/big: 0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.\n" {
			t.Fatalf("%d %q", code, body)
		}
		if code, body := get("/?pod=default/ok"); code != 200 || !strings.HasPrefix(body, "pod default/ok: scheduled to n (1/1 nodes feasible)\n  n: score ") {
			t.Fatalf("%d %q", code, body)
		}
		if code, _ := get("/?pod=default/none"); code != 404 {
			t.Fatalf("unknown pod: %d", code)
		}
	})
}

// The history is bounded in bytes as well as in count: beyond
// ExplainBytes the oldest attempts go, and the latest always stays.
func TestExplainBytesBounded(t *testing.T) {
	// attempt schedules pods a, b, c (4 nodes, so that each attempt has
	// buffers) and returns the history's bytes after the first and at the
	// end.
	attempt := func(t *testing.T, opts Options) (*cluster, int, int) {
		c := newCluster(t, opts)
		for _, n := range []string{"n1", "n2", "n3", "n4"} {
			c.addNode(mkNode(n, "4", "4Gi", 110))
		}
		c.start()
		var first int
		for i, n := range []string{"a", "b", "c"} {
			c.addPod(mkPod(n, "", ""))
			c.settle(time.Millisecond)
			c.s.mu.Lock()
			if i == 0 {
				first = c.s.historyBytes
			}
			last := c.s.historyBytes
			c.s.mu.Unlock()
			if i == 2 {
				return c, first, last
			}
		}
		panic("unreachable")
	}
	var one int
	synctest.Test(t, func(t *testing.T) {
		c, first, last := attempt(t, Options{ExplainBytes: -1})
		if first <= decisionOverhead || last != 3*first {
			t.Fatalf("unbounded history: %d bytes after one attempt, %d after three", first, last)
		}
		for _, n := range []string{"a", "b", "c"} {
			if _, ok := c.s.Explain("default/" + n); !ok {
				t.Fatalf("%s dropped without a byte bound", n)
			}
		}
		one = first
	})
	for _, tc := range []struct {
		bound int
		kept  []string
	}{
		{bound: 2*one + one/2, kept: []string{"b", "c"}},
		{bound: 1, kept: []string{"c"}},
	} {
		synctest.Test(t, func(t *testing.T) {
			c, _, last := attempt(t, Options{ExplainBytes: tc.bound})
			if want := len(tc.kept) * one; last != want {
				t.Errorf("bound %d: history holds %d bytes, want %d", tc.bound, last, want)
			}
			for _, n := range []string{"a", "b", "c"} {
				_, ok := c.s.Explain("default/" + n)
				if want := slices.Contains(tc.kept, n); ok != want {
					t.Errorf("bound %d: Explain(%s) kept %v, want %v", tc.bound, n, ok, want)
				}
			}
		})
	}
}
