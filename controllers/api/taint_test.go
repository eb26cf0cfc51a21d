package api

import (
	"testing"
	"time"
)

// Cases from k8s.io/api/core/v1/toleration_test.go TestTolerationToleratesTaint
// (with the Gt/Lt feature gate on), plus the empty-effect and empty-key rules.
func TestToleratesTaint(t *testing.T) {
	ns, ne := TaintEffectNoSchedule, TaintEffectNoExecute
	for _, c := range []struct {
		desc string
		tol  Toleration
		tnt  Taint
		want bool
	}{
		{"same key and effect, Exists, taint without value", Toleration{Key: "foo", Operator: TolerationOpExists, Effect: ns}, Taint{Key: "foo", Effect: ns}, true},
		{"same key and effect, Exists, taint with value", Toleration{Key: "foo", Operator: TolerationOpExists, Effect: ns}, Taint{Key: "foo", Value: "bar", Effect: ns}, true},
		{"empty key with Exists matches every key", Toleration{Operator: TolerationOpExists, Effect: ns}, Taint{Key: "foo", Value: "bar", Effect: ns}, true},
		{"same key, effect and value, Equal", Toleration{Key: "foo", Operator: TolerationOpEqual, Value: "bar", Effect: ns}, Taint{Key: "foo", Value: "bar", Effect: ns}, true},
		{"different values, Equal", Toleration{Key: "foo", Operator: TolerationOpEqual, Value: "value1", Effect: ns}, Taint{Key: "foo", Value: "value2", Effect: ns}, false},
		{"different effects", Toleration{Key: "foo", Operator: TolerationOpEqual, Value: "bar", Effect: ns}, Taint{Key: "foo", Value: "bar", Effect: ne}, false},
		{"Gt, taint less", Toleration{Key: "sla", Operator: TolerationOpGt, Value: "950", Effect: ns}, Taint{Key: "sla", Value: "800", Effect: ns}, false},
		{"Gt, taint greater", Toleration{Key: "sla", Operator: TolerationOpGt, Value: "750", Effect: ns}, Taint{Key: "sla", Value: "950", Effect: ns}, true},
		{"Lt, taint greater", Toleration{Key: "sla", Operator: TolerationOpLt, Value: "800", Effect: ns}, Taint{Key: "sla", Value: "950", Effect: ns}, false},
		{"Lt, taint less", Toleration{Key: "sla", Operator: TolerationOpLt, Value: "950", Effect: ns}, Taint{Key: "sla", Value: "800", Effect: ns}, true},
		{"Gt, equal", Toleration{Key: "sla", Operator: TolerationOpGt, Value: "950", Effect: ns}, Taint{Key: "sla", Value: "950", Effect: ns}, false},
		{"Gt, non-numeric taint", Toleration{Key: "sla", Operator: TolerationOpGt, Value: "950", Effect: ns}, Taint{Key: "sla", Value: "high", Effect: ns}, false},
		{"Gt, negative, taint less", Toleration{Key: "k", Operator: TolerationOpGt, Value: "-100", Effect: ns}, Taint{Key: "k", Value: "-200", Effect: ns}, false},
		{"Gt, large int64", Toleration{Key: "k", Operator: TolerationOpGt, Value: "9223372036854775806", Effect: ns}, Taint{Key: "k", Value: "100", Effect: ns}, false},
		{"Gt, leading zero", Toleration{Key: "k", Operator: TolerationOpGt, Value: "0100", Effect: ns}, Taint{Key: "k", Value: "200", Effect: ns}, false},
		{"Gt, plus sign", Toleration{Key: "k", Operator: TolerationOpGt, Value: "100", Effect: ns}, Taint{Key: "k", Value: "+200", Effect: ns}, false},
		// This package's own cases.
		{"empty effect matches every effect", Toleration{Key: "foo", Operator: TolerationOpExists}, Taint{Key: "foo", Effect: ne}, true},
		{"empty operator means Equal", Toleration{Key: "foo", Value: "bar"}, Taint{Key: "foo", Value: "bar", Effect: ns}, true},
		{"empty everything with Exists tolerates all", Toleration{Operator: TolerationOpExists}, Taint{Key: "any", Value: "v", Effect: ne}, true},
		{"different key", Toleration{Key: "foo", Operator: TolerationOpExists}, Taint{Key: "bar", Effect: ns}, false},
		{"unknown operator", Toleration{Key: "foo", Operator: "Like"}, Taint{Key: "foo", Effect: ns}, false},
	} {
		if got := c.tol.ToleratesTaint(&c.tnt); got != c.want {
			t.Errorf("%s: got %t, want %t", c.desc, got, c.want)
		}
	}
}

func TestTolerationsTolerateTaints(t *testing.T) {
	master := Taint{Key: "node-role.kubernetes.io/master", Effect: TaintEffectNoSchedule}
	prefer := Taint{Key: "gpu", Effect: TaintEffectPreferNoSchedule}
	unreachable := Taint{Key: "node.kubernetes.io/unreachable", Effect: TaintEffectNoExecute}
	taints := []Taint{master, prefer, unreachable}
	tols := []Toleration{{Key: master.Key, Effect: TaintEffectNoSchedule, Operator: TolerationOpExists}}

	if got, ok := FindUntoleratedTaint(taints, tols, TaintEffectNoSchedule, TaintEffectNoExecute); !ok || got.Key != unreachable.Key {
		t.Errorf("FindUntoleratedTaint = %v, %t", got, ok)
	}
	if !TolerationsTolerateTaints(taints, tols, TaintEffectNoSchedule) {
		t.Error("NoSchedule taints not tolerated")
	}
	if TolerationsTolerateTaints(taints, tols) {
		t.Error("all effects: the PreferNoSchedule taint is not tolerated")
	}
	if !TolerationsTolerateTaints(taints, []Toleration{{Operator: TolerationOpExists}}) {
		t.Error("Exists with empty key does not tolerate everything")
	}
	if !TolerationsTolerateTaints(nil, nil) {
		t.Error("no taints")
	}
	if master.String() != "node-role.kubernetes.io/master:NoSchedule" || (Taint{Key: "k", Value: "v", Effect: TaintEffectNoExecute}).String() != "k=v:NoExecute" {
		t.Error("Taint.String")
	}
	if !master.MatchTaint(&Taint{Key: master.Key, Value: "x", Effect: TaintEffectNoSchedule}) || master.MatchTaint(&prefer) {
		t.Error("MatchTaint")
	}
}

func TestTolerationDuration(t *testing.T) {
	secs := func(s int64) *int64 { return &s }
	for _, c := range []struct {
		s      *int64
		want   time.Duration
		finite bool
	}{{nil, 0, false}, {secs(300), 300 * time.Second, true}, {secs(0), 0, true}, {secs(-5), 0, true}} {
		tol := Toleration{Operator: TolerationOpExists, Effect: TaintEffectNoExecute, TolerationSeconds: c.s}
		if d, ok := tol.TolerationDuration(); d != c.want || ok != c.finite {
			t.Errorf("%v: %v, %t", c.s, d, ok)
		}
	}
}

func TestNodeSelector(t *testing.T) {
	node := &Node{ObjectMeta: ObjectMeta{Name: "n1", Labels: map[string]string{"zone": "a", "cores": "8", "ssd": ""}}}
	req := func(k string, op NodeSelectorOperator, v ...string) NodeSelectorRequirement {
		return NodeSelectorRequirement{Key: k, Operator: op, Values: v}
	}
	for _, c := range []struct {
		desc string
		term NodeSelectorTerm
		want bool
	}{
		{"In", NodeSelectorTerm{MatchExpressions: []NodeSelectorRequirement{req("zone", NodeSelectorOpIn, "a", "b")}}, true},
		{"NotIn", NodeSelectorTerm{MatchExpressions: []NodeSelectorRequirement{req("zone", NodeSelectorOpNotIn, "a")}}, false},
		{"NotIn missing key", NodeSelectorTerm{MatchExpressions: []NodeSelectorRequirement{req("rack", NodeSelectorOpNotIn, "a")}}, true},
		{"Exists", NodeSelectorTerm{MatchExpressions: []NodeSelectorRequirement{req("ssd", NodeSelectorOpExists)}}, true},
		{"DoesNotExist", NodeSelectorTerm{MatchExpressions: []NodeSelectorRequirement{req("ssd", NodeSelectorOpDoesNotExist)}}, false},
		{"Gt", NodeSelectorTerm{MatchExpressions: []NodeSelectorRequirement{req("cores", NodeSelectorOpGt, "4")}}, true},
		{"Lt", NodeSelectorTerm{MatchExpressions: []NodeSelectorRequirement{req("cores", NodeSelectorOpLt, "4")}}, false},
		{"Gt on a non-integer label", NodeSelectorTerm{MatchExpressions: []NodeSelectorRequirement{req("zone", NodeSelectorOpGt, "4")}}, false},
		{"Gt with two values is malformed", NodeSelectorTerm{MatchExpressions: []NodeSelectorRequirement{req("cores", NodeSelectorOpGt, "4", "5")}}, false},
		{"Exists with values is malformed", NodeSelectorTerm{MatchExpressions: []NodeSelectorRequirement{req("ssd", NodeSelectorOpExists, "x")}}, false},
		{"AND of expressions", NodeSelectorTerm{MatchExpressions: []NodeSelectorRequirement{req("zone", NodeSelectorOpIn, "a"), req("cores", NodeSelectorOpGt, "16")}}, false},
		{"field metadata.name", NodeSelectorTerm{MatchFields: []NodeSelectorRequirement{req(NodeFieldName, NodeSelectorOpIn, "n1")}}, true},
		{"field metadata.name NotIn", NodeSelectorTerm{MatchFields: []NodeSelectorRequirement{req(NodeFieldName, NodeSelectorOpNotIn, "n1")}}, false},
		{"unsupported field", NodeSelectorTerm{MatchFields: []NodeSelectorRequirement{req("spec.podCIDR", NodeSelectorOpExists)}}, false},
		{"empty term matches nothing", NodeSelectorTerm{}, false},
	} {
		if got := c.term.Matches(node); got != c.want {
			t.Errorf("%s: got %t, want %t", c.desc, got, c.want)
		}
	}
	in := func(zone string) NodeSelectorTerm {
		return NodeSelectorTerm{MatchExpressions: []NodeSelectorRequirement{req("zone", NodeSelectorOpIn, zone)}}
	}
	var nilSel *NodeSelector
	if !nilSel.Matches(node) || (&NodeSelector{}).Matches(node) || !(&NodeSelector{NodeSelectorTerms: []NodeSelectorTerm{in("b"), in("a")}}).Matches(node) {
		t.Error("NodeSelector ORs its terms; nil matches all; no terms match none")
	}

	pod := &Pod{Spec: PodSpec{NodeSelector: map[string]string{"zone": "a"}}}
	if !PodMatchesNode(pod, node) {
		t.Error("nodeSelector zone=a")
	}
	pod.Spec.Affinity = &Affinity{NodeAffinity: &NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &NodeSelector{NodeSelectorTerms: []NodeSelectorTerm{in("b")}}}}
	if PodMatchesNode(pod, node) {
		t.Error("required affinity zone=b matched")
	}
	pod.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = nil
	pod.Spec.NodeSelector["zone"] = "c"
	if PodMatchesNode(pod, node) {
		t.Error("nodeSelector zone=c matched")
	}
}
