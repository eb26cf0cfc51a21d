package scheduler

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func rng() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }

// verdictOn schedules pod against a one-node cache holding node and the
// bound pods existing, and returns the node's verdict.
func verdictOn(t *testing.T, node *api.Node, existing []*api.Pod, pod *api.Pod) NodeVerdict {
	t.Helper()
	c := NewCache(30 * time.Second)
	c.SetNode(node)
	for _, p := range existing {
		c.AddPod(bound(p, node.Name))
	}
	e := Decide(NewPodInfo(pod), c.Nodes(), Weights{}, rng(), t0)
	v, ok := e.Verdict(node.Name)
	if !ok {
		t.Fatalf("no verdict for %s", node.Name)
	}
	return v
}

func TestFilters(t *testing.T) {
	sidecar := api.ContainerRestartPolicy("Always")
	tests := []struct {
		name     string
		node     *api.Node
		existing []*api.Pod
		pod      *api.Pod
		filter   string // "" = feasible
		reasons  []string
	}{
		// NodeResourcesFit (cases after kube-scheduler's fit_test.go).
		{"fits empty node", mkNode("n", "1", "1Gi", 10), nil, mkPod("p", "1", "1Gi"), "", nil},
		{"best effort fits anywhere with room for a pod", mkNode("n", "1", "1Gi", 10), []*api.Pod{mkPod("a", "1", "1Gi")}, mkPod("p", "", ""), "", nil},
		{"cpu exhausted", mkNode("n", "1", "1Gi", 10), []*api.Pod{mkPod("a", "600m", "")}, mkPod("p", "500m", ""), FilterNodeResourcesFit, []string{ReasonInsufficientCPU}},
		{"memory exhausted", mkNode("n", "1", "1Gi", 10), []*api.Pod{mkPod("a", "", "800Mi")}, mkPod("p", "", "300Mi"), FilterNodeResourcesFit, []string{ReasonInsufficientMem}},
		{"cpu and memory exhausted", mkNode("n", "1", "1Gi", 10), []*api.Pod{mkPod("a", "1", "1Gi")}, mkPod("p", "1m", "1"), FilterNodeResourcesFit, []string{ReasonInsufficientCPU, ReasonInsufficientMem}},
		{"exact fit", mkNode("n", "1", "1Gi", 10), []*api.Pod{mkPod("a", "500m", "512Mi")}, mkPod("p", "500m", "512Mi"), "", nil},
		{"too many pods", mkNode("n", "1", "1Gi", 1), []*api.Pod{mkPod("a", "", "")}, mkPod("p", "", ""), FilterNodeResourcesFit, []string{ReasonTooManyPods}},
		{"too many pods and cpu", mkNode("n", "1", "1Gi", 1), []*api.Pod{mkPod("a", "1", "")}, mkPod("p", "1", ""), FilterNodeResourcesFit, []string{ReasonTooManyPods, ReasonInsufficientCPU}},
		{"no pods allocatable", mkNode("n", "1", "1Gi", 0), nil, mkPod("p", "", ""), FilterNodeResourcesFit, []string{ReasonTooManyPods}},
		{"init container larger than containers", mkNode("n", "2", "1Gi", 10), []*api.Pod{mkPod("a", "1", "")}, func() *api.Pod {
			p := mkPod("p", "500m", "")
			p.Spec.InitContainers = []api.Container{{Name: "i", Resources: api.ResourceRequirements{Requests: api.ResourceList{api.ResourceCPU: api.MustParse("1500m")}}}}
			return p
		}(), FilterNodeResourcesFit, []string{ReasonInsufficientCPU}},
		{"init container smaller than containers", mkNode("n", "2", "1Gi", 10), []*api.Pod{mkPod("a", "1", "")}, func() *api.Pod {
			p := mkPod("p", "1", "")
			p.Spec.InitContainers = []api.Container{{Name: "i", Resources: api.ResourceRequirements{Requests: api.ResourceList{api.ResourceCPU: api.MustParse("900m")}}}}
			return p
		}(), "", nil},
		{"sidecar adds to containers", mkNode("n", "2", "1Gi", 10), []*api.Pod{mkPod("a", "1", "")}, func() *api.Pod {
			p := mkPod("p", "600m", "")
			p.Spec.InitContainers = []api.Container{{Name: "s", RestartPolicy: &sidecar, Resources: api.ResourceRequirements{Requests: api.ResourceList{api.ResourceCPU: api.MustParse("500m")}}}}
			return p
		}(), FilterNodeResourcesFit, []string{ReasonInsufficientCPU}},
		{"overhead counts", mkNode("n", "1", "1Gi", 10), nil, func() *api.Pod {
			p := mkPod("p", "900m", "")
			p.Spec.Overhead = api.ResourceList{api.ResourceCPU: api.MustParse("200m")}
			return p
		}(), FilterNodeResourcesFit, []string{ReasonInsufficientCPU}},
		{"terminated pods free their requests", mkNode("n", "1", "1Gi", 10), []*api.Pod{func() *api.Pod {
			p := mkPod("a", "1", "")
			p.Status.Phase = api.PodSucceeded
			return p
		}()}, mkPod("p", "1", ""), "", nil},

		// NodePorts.
		{"free port", mkNode("n", "1", "1Gi", 10), []*api.Pod{mkPod("a", "", "", withHostPort(8080, "", ""))}, mkPod("p", "", "", withHostPort(8081, "", "")), "", nil},
		{"port taken", mkNode("n", "1", "1Gi", 10), []*api.Pod{mkPod("a", "", "", withHostPort(8080, "", ""))}, mkPod("p", "", "", withHostPort(8080, api.ProtocolTCP, "")), FilterNodePorts, []string{ReasonNodePorts}},
		{"same port other protocol", mkNode("n", "1", "1Gi", 10), []*api.Pod{mkPod("a", "", "", withHostPort(53, api.ProtocolUDP, ""))}, mkPod("p", "", "", withHostPort(53, api.ProtocolTCP, "")), "", nil},
		{"same port other IPs", mkNode("n", "1", "1Gi", 10), []*api.Pod{mkPod("a", "", "", withHostPort(80, "", "10.0.0.1"))}, mkPod("p", "", "", withHostPort(80, "", "10.0.0.2")), "", nil},
		{"wildcard IP conflicts with any", mkNode("n", "1", "1Gi", 10), []*api.Pod{mkPod("a", "", "", withHostPort(80, "", "10.0.0.1"))}, mkPod("p", "", "", withHostPort(80, "", "")), FilterNodePorts, []string{ReasonNodePorts}},

		// NodeAffinity.
		{"selector matches", mkNode("n", "1", "1Gi", 10, withLabels("disk", "ssd")), nil, mkPod("p", "", "", withSelector("disk", "ssd")), "", nil},
		{"selector mismatch", mkNode("n", "1", "1Gi", 10, withLabels("disk", "hdd")), nil, mkPod("p", "", "", withSelector("disk", "ssd")), FilterNodeAffinity, []string{ReasonNodeAffinity}},
		{"selector label missing", mkNode("n", "1", "1Gi", 10), nil, mkPod("p", "", "", withSelector("disk", "ssd")), FilterNodeAffinity, []string{ReasonNodeAffinity}},
		{"required affinity In", mkNode("n", "1", "1Gi", 10, withLabels("zone", "a")), nil, mkPod("p", "", "", withRequired(term("zone", api.NodeSelectorOpIn, "a", "b"))), "", nil},
		{"required affinity NotIn", mkNode("n", "1", "1Gi", 10, withLabels("zone", "a")), nil, mkPod("p", "", "", withRequired(term("zone", api.NodeSelectorOpNotIn, "a"))), FilterNodeAffinity, []string{ReasonNodeAffinity}},
		{"required affinity terms are ORed", mkNode("n", "1", "1Gi", 10, withLabels("zone", "b")), nil, mkPod("p", "", "", withRequired(term("zone", api.NodeSelectorOpIn, "a"), term("zone", api.NodeSelectorOpIn, "b"))), "", nil},
		{"selector and affinity both needed", mkNode("n", "1", "1Gi", 10, withLabels("zone", "a")), nil, mkPod("p", "", "", withSelector("disk", "ssd"), withRequired(term("zone", api.NodeSelectorOpIn, "a"))), FilterNodeAffinity, []string{ReasonNodeAffinity}},

		// NodeName.
		{"node name matches", mkNode("n", "1", "1Gi", 10), nil, mkPod("p", "", "", withNodeName("n")), "", nil},
		{"node name differs", mkNode("n", "1", "1Gi", 10), nil, mkPod("p", "", "", withNodeName("m")), FilterNodeName, []string{ReasonNodeName}},

		// NodeUnschedulable.
		{"cordoned", mkNode("n", "1", "1Gi", 10, cordoned), nil, mkPod("p", "", ""), FilterNodeUnschedulable, []string{ReasonNodeUnschedulable}},
		{"cordoned but tolerated", mkNode("n", "1", "1Gi", 10, cordoned), nil, mkPod("p", "", "", withToleration(api.Toleration{Key: api.TaintNodeUnschedulable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule})), "", nil},
		{"cordoned comes first", mkNode("n", "1", "1Gi", 0, cordoned), nil, mkPod("p", "", ""), FilterNodeUnschedulable, []string{ReasonNodeUnschedulable}},

		// TaintToleration.
		{"untolerated NoSchedule", mkNode("n", "1", "1Gi", 10, withTaint("dedicated", "gpu", api.TaintEffectNoSchedule)), nil, mkPod("p", "", ""), FilterTaintToleration, []string{"node(s) had untolerated taint {dedicated: gpu}"}},
		{"untolerated NoExecute, no value", mkNode("n", "1", "1Gi", 10, withTaint("node.kubernetes.io/unreachable", "", api.TaintEffectNoExecute)), nil, mkPod("p", "", ""), FilterTaintToleration, []string{"node(s) had untolerated taint {node.kubernetes.io/unreachable: }"}},
		{"PreferNoSchedule does not filter", mkNode("n", "1", "1Gi", 10, withTaint("k", "v", api.TaintEffectPreferNoSchedule)), nil, mkPod("p", "", ""), "", nil},
		{"tolerated Equal", mkNode("n", "1", "1Gi", 10, withTaint("dedicated", "gpu", api.TaintEffectNoSchedule)), nil, mkPod("p", "", "", withToleration(api.Toleration{Key: "dedicated", Value: "gpu", Effect: api.TaintEffectNoSchedule})), "", nil},
		{"tolerated Exists any effect", mkNode("n", "1", "1Gi", 10, withTaint("dedicated", "gpu", api.TaintEffectNoExecute)), nil, mkPod("p", "", "", withToleration(api.Toleration{Key: "dedicated", Operator: api.TolerationOpExists})), "", nil},
		{"second taint untolerated", mkNode("n", "1", "1Gi", 10, withTaint("a", "1", api.TaintEffectNoSchedule), withTaint("b", "2", api.TaintEffectNoSchedule)), nil, mkPod("p", "", "", withToleration(api.Toleration{Key: "a", Operator: api.TolerationOpExists})), FilterTaintToleration, []string{"node(s) had untolerated taint {b: 2}"}},
		{"taint before affinity", mkNode("n", "1", "1Gi", 10, withTaint("a", "1", api.TaintEffectNoSchedule)), nil, mkPod("p", "", "", withSelector("x", "y")), FilterTaintToleration, []string{"node(s) had untolerated taint {a: 1}"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := verdictOn(t, tt.node, tt.existing, tt.pod)
			if v.Filter != tt.filter || !slices.Equal(v.Reasons, tt.reasons) {
				t.Fatalf("verdict %s %q, want %s %q", v.Filter, v.Reasons, tt.filter, tt.reasons)
			}
			if v.Feasible() != (tt.filter == "") || (v.Scores == nil) == v.Feasible() {
				t.Fatalf("feasible %v scores %v", v.Feasible(), v.Scores)
			}
		})
	}
}

func TestPodRequests(t *testing.T) {
	sidecar := api.ContainerRestartPolicy("Always")
	req := func(cpu string) api.ResourceRequirements {
		return api.ResourceRequirements{Requests: api.ResourceList{api.ResourceCPU: api.MustParse(cpu)}}
	}
	both := func(cpu, mem string) api.ResourceRequirements {
		return api.ResourceRequirements{Requests: api.ResourceList{api.ResourceCPU: api.MustParse(cpu), api.ResourceMemory: api.MustParse(mem)}}
	}
	tests := []struct {
		name        string
		init, conts []api.Container
		overhead    string
		want        int64 // millicores
		wantNonZero Resources
	}{
		{"none", nil, []api.Container{{}}, "", 0, Resources{100, DefaultMemoryRequest, 0}},
		{"sum", nil, []api.Container{{Resources: req("1")}, {Resources: req("250m")}}, "", 1250, Resources{1250, 2 * DefaultMemoryRequest, 0}},
		{"init max", []api.Container{{Resources: req("2")}, {Resources: req("3")}}, []api.Container{{Resources: req("1")}}, "", 3000, Resources{3000, DefaultMemoryRequest, 0}},
		// After the KEP-753 table in component-helpers: sidecar 1 + init 2 → 3 during init; 1 + 1 after.
		{"sidecar then init", []api.Container{{Resources: req("1"), RestartPolicy: &sidecar}, {Resources: req("2")}}, []api.Container{{Resources: req("1")}}, "", 3000, Resources{3000, 2 * DefaultMemoryRequest, 0}},
		{"init then sidecar", []api.Container{{Resources: req("2")}, {Resources: req("1"), RestartPolicy: &sidecar}}, []api.Container{{Resources: req("1")}}, "", 2000, Resources{2000, 2 * DefaultMemoryRequest, 0}},
		{"overhead", nil, []api.Container{{Resources: req("1")}}, "100m", 1100, Resources{1100, DefaultMemoryRequest, 0}},
		// The pod's total is rounded up to a millicore, not each
		// container's request (kube-scheduler reads MilliValue of
		// resource.PodRequests): 3 × 1.5m is 5m, not 6m.
		// Every container with both requests: NonZero is Requests (an
		// explicit zero stays zero); one without memory is defaulted.
		{"both set", []api.Container{{Resources: both("2", "1Gi")}}, []api.Container{{Resources: both("1", "0")}, {Resources: both("250m", "1Mi")}}, "", 2000, Resources{2000, 1 << 30, 0}},
		{"one misses memory", []api.Container{{Resources: both("2", "1Gi")}}, []api.Container{{Resources: both("1", "0")}, {Resources: req("250m")}}, "", 2000, Resources{2000, 1 << 30, 0}},
		{"init misses memory", []api.Container{{Resources: req("2")}}, []api.Container{{Resources: both("1", "1Mi")}}, "", 2000, Resources{2000, DefaultMemoryRequest, 0}},
		{"sub-millicore", nil, []api.Container{{Resources: req("1.5m")}, {Resources: req("1.5m")}, {Resources: req("1.5m")}}, "", 5, Resources{5, 3 * DefaultMemoryRequest, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &api.Pod{Spec: api.PodSpec{InitContainers: tt.init, Containers: tt.conts}}
			if tt.overhead != "" {
				p.Spec.Overhead = api.ResourceList{api.ResourceCPU: api.MustParse(tt.overhead)}
			}
			if got := PodRequests(p, false); got.MilliCPU != tt.want {
				t.Errorf("PodRequests = %+v, want %d millicores", got, tt.want)
			}
			if got := PodRequests(p, true); got != tt.wantNonZero {
				t.Errorf("PodRequests nonZero = %+v, want %+v", got, tt.wantNonZero)
			}
			// NewPodInfo takes NonZero from Requests when no container
			// misses a request: the same numbers either way.
			pi := NewPodInfo(p)
			if pi.Requests != PodRequests(p, false) || pi.NonZero != PodRequests(p, true) {
				t.Errorf("NewPodInfo: Requests %+v NonZero %+v, PodRequests %+v and %+v", pi.Requests, pi.NonZero, PodRequests(p, false), PodRequests(p, true))
			}
		})
	}
}
