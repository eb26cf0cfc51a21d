package scheduler

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Tolerations with the numeric operators Gt and Lt follow the
// TaintTolerationComparisonOperators feature gate, alpha and off by
// default in v1.37 (k8s.io/kubernetes pkg/features/kube_features.go):
// off, they tolerate nothing; on, they compare decimal integers as
// k8s.io/api core/v1 toleration.go's ToleratesTaint. Cases after that
// file's tests (toleration_test.go, the Gt/Lt cases).
func TestTaintTolerationComparisonOperators(t *testing.T) {
	tests := []struct {
		name   string
		op     api.TolerationOperator
		tol    string
		taint  string
		gateOn bool // the verdict with the gate on; off always rejects
	}{
		{"Gt: the taint's value is greater", api.TolerationOpGt, "900", "950", true},
		{"Gt: equal values", api.TolerationOpGt, "950", "950", false},
		{"Gt: the taint's value is smaller", api.TolerationOpGt, "999", "950", false},
		{"Lt: the taint's value is smaller", api.TolerationOpLt, "1000", "950", true},
		{"Lt: equal values", api.TolerationOpLt, "950", "950", false},
		{"Lt: negative values", api.TolerationOpLt, "-5", "-10", true},
		{"Gt: a taint value that is no integer", api.TolerationOpGt, "900", "high", false},
		{"Gt: a toleration value that is no integer", api.TolerationOpGt, "9e2", "950", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCache(0)
			c.SetNode(mkNode("n1", "2", "4Gi", 10, withTaint("sla", tt.taint, api.TaintEffectNoSchedule)))
			pod := mkPod("p", "", "", withToleration(api.Toleration{Key: "sla", Operator: tt.op, Value: tt.tol, Effect: api.TaintEffectNoSchedule}))
			rejected := "0/1 nodes are available: 1 node(s) had untolerated taint {sla: " + tt.taint + "}." +
				" preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
			for _, gate := range []bool{false, true} {
				env := envFor(c.Nodes())
				env.comparisonOperators = gate
				env.preempt = &preemptEnv{}
				d, _ := decide(NewPodInfo(pod), c.Nodes(), nil, Weights{}.scorers(), rng(), time.Time{}, nil, 0, 1, volumeState{}, env)
				want := gate && tt.gateOn
				if (d.node == "n1") != want {
					t.Fatalf("gate %v: node %q message %q, want fit %v", gate, d.node, d.message, want)
				}
				if !want && d.message != rejected {
					t.Fatalf("gate %v: message %q", gate, d.message)
				}
			}
			// Decide runs with the gate at its default, off.
			if e := Decide(NewPodInfo(pod), c.Nodes(), Weights{}, rng(), time.Time{}); e.Node != "" {
				t.Fatalf("Decide placed the pod with the gate off")
			}
		})
	}
}

// TestTaintReasonsShared checks that nodes with the same taint share one
// TaintToleration reason list, so that an attempt rejecting many of them
// keeps one list (not one per node), with the message counting them all.
func TestTaintReasonsShared(t *testing.T) {
	c := NewCache(0)
	for i := range 50 {
		c.SetNode(mkNode(fmt.Sprintf("node-%02d", i), "4", "8Gi", 10, withTaint("foo", "", api.TaintEffectNoSchedule)))
	}
	c.SetNode(mkNode("node-50", "4", "8Gi", 10, withTaint("foo", "bar", api.TaintEffectNoSchedule)))
	nodes := c.Nodes()
	d, _ := decide(NewPodInfo(mkPod("p", "100m", "100Mi")), nodes, c.names, Weights{}.scorers(), rngSeed(1), time.Time{}, nil, 0, len(nodes), volumeState{}, pluginEnv{})
	if len(d.reasons) != 2 {
		t.Errorf("%d reason lists kept, want 2 (one per distinct taint)", len(d.reasons))
	}
	want := "0/51 nodes are available: 1 node(s) had untolerated taint {foo: bar}, 50 node(s) had untolerated taint {foo: }."
	if !strings.HasPrefix(d.message, want) {
		t.Errorf("message %q, want it to start with %q", d.message, want)
	}
}
