package scheduler

import (
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
