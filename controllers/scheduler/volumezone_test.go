package scheduler

import (
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// The cases of kube-scheduler's
// pkg/scheduler/framework/plugins/volumezone/volume_zone_test.go
// (TestSingleZone, TestMultiZone), run through the Scheduler's decision
// with one node: the pod fits (ok) or the node is rejected by VolumeZone.
func TestVolumeZone(t *testing.T) {
	labeled := func(name string, kv ...string) *api.PersistentVolume {
		pv := mkVolume(name)
		pv.Labels = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			pv.Labels[kv[i]] = kv[i+1]
		}
		return pv
	}
	betaZone, betaRegion := LabelFailureDomainBetaZone, LabelFailureDomainBetaRegion
	zone, region := api.LabelTopologyZone, api.LabelTopologyRegion
	volumes := volumeLookup(
		labeled("Vol_1", betaZone, "us-west1-a"),
		labeled("Vol_2", betaRegion, "us-west1", "uselessLabel", "none"),
		labeled("Vol_Stable_1", zone, "us-west1-a"),
		labeled("Vol_Stable_2", region, "us-west1", "uselessLabel", "none"),
		labeled("Vol_Stable_3", zone, "us-west1-a", region, "us-west1-a"),
		labeled("Vol_Multi_3", betaZone, "us-west1-c__us-west1-a"),
		labeled("Vol_Multi_Stable_2", zone, "us-west1-c__us-west1-a"),
		labeled("Vol_Bad", zone, "us-west1-a__"),
	)
	claims := claimLookup(
		mkClaim("PVC_1", "Vol_1", "Bound"),
		mkClaim("PVC_2", "Vol_2", "Bound"),
		mkClaim("PVC_4", "Vol_not_exist", "Bound"),
		mkClaim("PVC_Stable_1", "Vol_Stable_1", "Bound"),
		mkClaim("PVC_Stable_2", "Vol_Stable_2", "Bound"),
		mkClaim("PVC_Stable_3", "Vol_Stable_3", "Bound"),
		mkClaim("PVC_Multi_3", "Vol_Multi_3", "Bound"),
		mkClaim("PVC_Multi_Stable_2", "Vol_Multi_Stable_2", "Bound"),
		mkClaim("PVC_Bad", "Vol_Bad", "Bound"),
	)
	tests := []struct {
		name   string
		claim  string // "" for a pod without volumes
		labels []string
		ok     bool
	}{
		{"pod without volume", "", []string{betaZone, "us-west1-a"}, true},
		{"node without labels", "PVC_1", nil, true},
		{"beta zone label matched", "PVC_1", []string{betaZone, "us-west1-a", "uselessLabel", "none"}, true},
		{"beta region label matched", "PVC_2", []string{betaRegion, "us-west1", "uselessLabel", "none"}, true},
		{"beta region label doesn't match", "PVC_2", []string{betaRegion, "no_us-west1", "uselessLabel", "none"}, false},
		{"beta zone label doesn't match", "PVC_1", []string{betaZone, "no_us-west1-a", "uselessLabel", "none"}, false},
		{"zone label matched", "PVC_Stable_1", []string{zone, "us-west1-a", "uselessLabel", "none"}, true},
		{"region label matched", "PVC_Stable_2", []string{region, "us-west1", "uselessLabel", "none"}, true},
		{"region label doesn't match", "PVC_Stable_2", []string{region, "no_us-west1", "uselessLabel", "none"}, false},
		{"zone label doesn't match", "PVC_Stable_1", []string{zone, "no_us-west1-a", "uselessLabel", "none"}, false},
		{"pv with zone and region, node with only zone", "PVC_Stable_3", []string{zone, "us-west1-a"}, false},
		{"pv with zone,node with beta zone", "PVC_Stable_1", []string{betaZone, "us-west1-a"}, false},
		{"pv with beta label,node with ga label, matched", "PVC_1", []string{zone, "us-west1-a"}, true},
		{"pv with beta label,node with ga label, don't match", "PVC_1", []string{zone, "us-west1-b"}, false},
		// TestMultiZone.
		{"multi: node without labels", "PVC_Multi_3", nil, true},
		{"multi: beta zone label matched", "PVC_Multi_3", []string{betaZone, "us-west1-a", "uselessLabel", "none"}, true},
		{"multi: beta zone label doesn't match", "PVC_1", []string{betaZone, "us-west1-b", "uselessLabel", "none"}, false},
		{"multi: zone label matched", "PVC_Multi_Stable_2", []string{zone, "us-west1-a", "uselessLabel", "none"}, true},
		{"multi: zone label doesn't match", "PVC_Stable_1", []string{zone, "us-west1-b", "uselessLabel", "none"}, false},
		// A value that does not parse (an empty zone) is ignored.
		{"unparsable zone label ignored", "PVC_Bad", []string{zone, "us-west1-b"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			node := mkNode("host1", "1", "1Gi", 10, withLabels(tt.labels...))
			pod := mkPod("pod_1", "", "")
			if tt.claim != "" {
				withClaim(tt.claim)(pod)
			}
			e := decideWithVolumes(pod, []*api.Node{node}, claims, volumes)
			v, _ := e.Verdict("host1")
			if tt.ok {
				if !v.Feasible() {
					t.Fatalf("rejected by %s: %v", v.Filter, v.Reasons)
				}
				return
			}
			if v.Filter != FilterVolumeZone || len(v.Reasons) != 1 || v.Reasons[0] != ReasonVolumeZoneConflict || !v.Unresolvable {
				t.Fatalf("verdict %+v, want VolumeZone %q (unresolvable)", v, ReasonVolumeZoneConflict)
			}
			want := "0/1 nodes are available: 1 " + ReasonVolumeZoneConflict + ". preemption: 0/1 nodes are available: 1 " + PreemptionNotHelpful + "."
			if e.Message != want {
				t.Fatalf("message %q, want %q", e.Message, want)
			}
		})
	}
}

// A claim bound to a volume that does not exist fails VolumeZone's
// PreFilter with the lister's NotFound, once for the pod (kube's
// getErrorAsStatus on the PV lister's error).
func TestVolumeZoneMissingVolume(t *testing.T) {
	pod := mkPod("p", "", "", withClaim("PVC_4"))
	nodes := []*api.Node{mkNode("a", "1", "1Gi", 10), mkNode("b", "1", "1Gi", 10)}
	e := decideWithVolumes(pod, nodes, claimLookup(mkClaim("PVC_4", "Vol_not_exist", "Bound")), volumeLookup())
	want := `0/2 nodes are available: persistentvolume "Vol_not_exist" not found. preemption: 0/2 nodes are available: 2 ` + PreemptionNotHelpful + "."
	if e.Message != want {
		t.Fatalf("message %q, want %q", e.Message, want)
	}
	for _, v := range e.Verdicts {
		if v.Filter != FilterVolumeZone || !v.Unresolvable {
			t.Errorf("%+v", v)
		}
	}
}

// Across nodes of several zones, only those in a zone of the volume
// remain, and a node without zone labels passes.
func TestVolumeZoneAmongNodes(t *testing.T) {
	pv := mkVolume("pv")
	pv.Labels = map[string]string{api.LabelTopologyZone: "b__c"}
	nodes := []*api.Node{
		mkNode("a", "1", "1Gi", 10, withLabels(api.LabelTopologyZone, "a")),
		mkNode("b", "1", "1Gi", 10, withLabels(api.LabelTopologyZone, "b")),
		mkNode("c", "1", "1Gi", 10, withLabels(LabelFailureDomainBetaZone, "x", api.LabelTopologyZone, "c")),
		mkNode("d", "1", "1Gi", 10),
	}
	e := decideWithVolumes(mkPod("p", "", "", withClaim("data")), nodes, claimLookup(mkClaim("data", "pv", "Bound")), volumeLookup(pv))
	var feasible []string
	for _, v := range e.Verdicts {
		if v.Feasible() {
			feasible = append(feasible, v.Node)
		}
	}
	if got := len(feasible); got != 3 || feasible[0] != "b" || feasible[1] != "c" || feasible[2] != "d" {
		t.Fatalf("feasible %v, want [b c d]", feasible)
	}
}

// From kube's zones helpers: "__"-separated zones, trimmed; an empty one
// invalidates the value.
func TestLabelZonesToSet(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		ok   bool
	}{
		{"a", []string{"a"}, true},
		{"a__b", []string{"a", "b"}, true},
		{" a __ b ", []string{"a", "b"}, true},
		{"a__a", []string{"a"}, true},
		{"a____b", nil, false},
		{"", nil, false},
	} {
		got, ok := labelZonesToSet(tc.in)
		if ok != tc.ok || len(got) != len(tc.want) {
			t.Errorf("%q: %v %v, want %v %v", tc.in, got, ok, tc.want, tc.ok)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%q: %v, want %v", tc.in, got, tc.want)
			}
		}
	}
}
