package scheduler

import (
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

func csiVolume(name, driver, handle string) *api.PersistentVolume {
	pv := mkVolume(name)
	pv.Spec.CSI = &api.CSIPersistentVolumeSource{Driver: driver, VolumeHandle: handle}
	return pv
}

func csiNode(node string, limits map[string]int32) *api.CSINode {
	cn := &api.CSINode{ObjectMeta: api.ObjectMeta{Name: node}}
	for d, c := range limits {
		d := api.CSINodeDriver{Name: d, NodeID: node}
		if c >= 0 {
			d.Allocatable = &api.VolumeNodeResources{Count: &c}
		}
		cn.Spec.Drivers = append(cn.Spec.Drivers, d)
	}
	return cn
}

func withInlineCSI(name, driver string) podOpt {
	return func(p *api.Pod) {
		p.Spec.Volumes = append(p.Spec.Volumes, api.Volume{Name: name, VolumeSource: api.VolumeSource{CSI: &api.CSIVolumeSource{Driver: driver}}})
	}
}

// Scenarios after kube-scheduler's
// pkg/scheduler/framework/plugins/nodevolumelimits/csi_test.go
// (TestCSILimits): volumes of the pods on the node count per driver
// against the CSINode's allocatable.count; a volume shared with a pod
// already there is not counted twice; drivers without a limit, nodes
// without a CSINode and pods without CSI volumes are not limited.
func TestNodeVolumeLimits(t *testing.T) {
	claims := claimLookup(
		mkClaim("csi-ebs.csi.aws.com-0", "pv-0", "Bound"),
		mkClaim("csi-ebs.csi.aws.com-1", "pv-1", "Bound"),
		mkClaim("csi-ebs.csi.aws.com-2", "pv-2", "Bound"),
		mkClaim("csi-other-0", "pv-other-0", "Bound"),
		mkClaim("plain", "pv-plain", "Bound"),
	)
	pvs := volumeLookup(
		csiVolume("pv-0", "ebs.csi.aws.com", "vol-0"),
		csiVolume("pv-1", "ebs.csi.aws.com", "vol-1"),
		csiVolume("pv-2", "ebs.csi.aws.com", "vol-2"),
		csiVolume("pv-other-0", "other.csi.example", "o-0"),
		mkVolume("pv-plain"),
	)
	ebs := func(i ...int) []podOpt {
		var o []podOpt
		for _, n := range i {
			o = append(o, withClaim("csi-ebs.csi.aws.com-"+string(rune('0'+n))))
		}
		return o
	}
	tests := []struct {
		name     string
		pod      *api.Pod
		existing []*api.Pod
		csiNodes []*api.CSINode
		fits     bool
	}{
		{"fits when under the limit", mkPod("p", "", "", ebs(0)...),
			[]*api.Pod{mkPod("x", "", "", ebs(1)...)},
			[]*api.CSINode{csiNode("n", map[string]int32{"ebs.csi.aws.com": 2})}, true},
		{"doesn't when the limit is reached", mkPod("p", "", "", ebs(2)...),
			[]*api.Pod{mkPod("x", "", "", ebs(0, 1)...)},
			[]*api.CSINode{csiNode("n", map[string]int32{"ebs.csi.aws.com": 2})}, false},
		{"the pod's own volumes count together", mkPod("p", "", "", ebs(1, 2)...),
			[]*api.Pod{mkPod("x", "", "", ebs(0)...)},
			[]*api.CSINode{csiNode("n", map[string]int32{"ebs.csi.aws.com": 2})}, false},
		{"a volume already on the node is not counted again", mkPod("p", "", "", ebs(0)...),
			[]*api.Pod{mkPod("x", "", "", ebs(0, 1)...)},
			[]*api.CSINode{csiNode("n", map[string]int32{"ebs.csi.aws.com": 2})}, true},
		{"another driver's volumes don't count", mkPod("p", "", "", ebs(0)...),
			[]*api.Pod{mkPod("x", "", "", withClaim("csi-other-0")), mkPod("y", "", "", ebs(1)...)},
			[]*api.CSINode{csiNode("n", map[string]int32{"ebs.csi.aws.com": 2, "other.csi.example": 1})}, true},
		{"limit of another driver's full node", mkPod("p", "", "", withClaim("csi-other-0")),
			[]*api.Pod{mkPod("x", "", "", withInlineCSI("scratch", "other.csi.example"))},
			[]*api.CSINode{csiNode("n", map[string]int32{"other.csi.example": 1})}, false},
		{"driver without allocatable count is unlimited", mkPod("p", "", "", ebs(2)...),
			[]*api.Pod{mkPod("x", "", "", ebs(0, 1)...)},
			[]*api.CSINode{csiNode("n", map[string]int32{"ebs.csi.aws.com": -1})}, true},
		{"node without CSINode is unlimited", mkPod("p", "", "", ebs(2)...),
			[]*api.Pod{mkPod("x", "", "", ebs(0, 1)...)}, nil, true},
		{"non-CSI volume is not counted", mkPod("p", "", "", withClaim("plain")),
			[]*api.Pod{mkPod("x", "", "", ebs(0)...)},
			[]*api.CSINode{csiNode("n", map[string]int32{"ebs.csi.aws.com": 1})}, true},
		{"inline CSI volumes count", mkPod("p", "", "", withInlineCSI("a", "ebs.csi.aws.com")),
			[]*api.Pod{mkPod("x", "", "", ebs(0)...)},
			[]*api.CSINode{csiNode("n", map[string]int32{"ebs.csi.aws.com": 1})}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCache(0)
			c.SetNode(mkNode("n", "4", "8Gi", 110))
			for _, p := range tt.existing {
				c.AddPod(bound(p, "n"))
			}
			csiNodes := func(name string) (*api.CSINode, bool) {
				for _, cn := range tt.csiNodes {
					if cn.Name == name {
						return cn, true
					}
				}
				return nil, false
			}
			pi := NewPodInfo(tt.pod)
			vs := volumeStateFor(pi, c, claims, pvs, nil)
			vs.csi = newCSIState(tt.pod, claims, pvs, csiNodes)
			d, _ := decide(pi, c.Nodes(), nil, Weights{}.scorers(), rng(), t0, nil, 0, 1, vs, pluginEnv{})
			e := d.explain()
			v, _ := e.Verdict("n")
			if tt.fits {
				if !v.Feasible() {
					t.Fatalf("rejected by %s: %v", v.Filter, v.Reasons)
				}
				return
			}
			if v.Filter != FilterNodeVolumeLimits || len(v.Reasons) != 1 || v.Reasons[0] != ReasonMaxVolumeCount || v.Unresolvable {
				t.Fatalf("verdict %+v, want NodeVolumeLimits %q (resolvable)", v, ReasonMaxVolumeCount)
			}
			if want := "0/1 nodes are available: 1 " + ReasonMaxVolumeCount + ". preemption: 0/1 nodes are available: 1 " + PreemptionNoVictims + "."; e.Message != want {
				t.Fatalf("message %q, want %q", e.Message, want)
			}
		})
	}
}

// Without a CSINode lookup (or claims and volumes) the plugin is skipped.
func TestNodeVolumeLimitsSkipped(t *testing.T) {
	pod := mkPod("p", "", "", withInlineCSI("a", "d"))
	if s := newCSIState(pod, claimLookup(), volumeLookup(), nil); s != nil {
		t.Fatal("state without a CSINode lookup")
	}
	if s := newCSIState(mkPod("q", "", ""), claimLookup(), volumeLookup(), func(string) (*api.CSINode, bool) { return nil, false }); s != nil {
		t.Fatal("state for a pod without CSI volumes")
	}
}
