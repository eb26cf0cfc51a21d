package scheduler

import (
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Cases after kube-scheduler's volumebinding/volume_binding_test.go
// (PreFilter: missing, unbound immediate, Lost, being deleted claims;
// Filter: bound volumes with node affinity, missing volumes).

func withClaim(claim string) podOpt {
	return func(p *api.Pod) {
		p.Spec.Volumes = append(p.Spec.Volumes, api.Volume{Name: claim, VolumeSource: api.VolumeSource{
			PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: claim}}})
	}
}

func mkClaim(name, volume, phase string) *api.PersistentVolumeClaim {
	return &api.PersistentVolumeClaim{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
		Spec:   api.PersistentVolumeClaimSpec{VolumeName: volume},
		Status: api.PersistentVolumeClaimStatus{Phase: api.PersistentVolumeClaimPhase(phase)}}
}

func mkVolume(name string, required ...api.NodeSelectorTerm) *api.PersistentVolume {
	pv := &api.PersistentVolume{ObjectMeta: api.ObjectMeta{Name: name}}
	if required != nil {
		pv.Spec.NodeAffinity = &api.VolumeNodeAffinity{Required: &api.NodeSelector{NodeSelectorTerms: required}}
	}
	return pv
}

func claimLookup(pvcs ...*api.PersistentVolumeClaim) ClaimLookup {
	return func(ns, name string) (*api.PersistentVolumeClaim, bool) {
		i := slices.IndexFunc(pvcs, func(c *api.PersistentVolumeClaim) bool { return c.Namespace == ns && c.Name == name })
		if i < 0 {
			return nil, false
		}
		return pvcs[i], true
	}
}

func volumeLookup(pvs ...*api.PersistentVolume) VolumeLookup {
	return func(name string) (*api.PersistentVolume, bool) {
		i := slices.IndexFunc(pvs, func(v *api.PersistentVolume) bool { return v.Name == name })
		if i < 0 {
			return nil, false
		}
		return pvs[i], true
	}
}

// decideWithVolumes is the Scheduler's decision over nodes with the
// claims and volumes looked up as Options.Claims and Options.Volumes.
func decideWithVolumes(pod *api.Pod, nodes []*api.Node, claims ClaimLookup, volumes VolumeLookup) Explanation {
	c := NewCache(30 * time.Second)
	for _, n := range nodes {
		c.SetNode(n)
	}
	pi := NewPodInfo(pod)
	d, _ := decide(pi, c.Nodes(), nil, Weights{}.scorers(), rng(), t0, nil, 0, len(c.Nodes()),
		volumeStateFor(pi, c, claims, volumes, nil), pluginEnv{})
	return d.explain()
}

// notHelpful3 is DefaultPreemption's part of the message when no node of
// three is one preemption may help (VolumeBinding's rejections are
// UnschedulableAndUnresolvable).
const notHelpful3 = " preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."

func TestVolumeBinding(t *testing.T) {
	zoneA := term(api.LabelTopologyZone, api.NodeSelectorOpIn, "a")
	nodes := []*api.Node{
		mkNode("n1", "4", "4Gi", 110, withLabels(api.LabelTopologyZone, "a")),
		mkNode("n2", "4", "4Gi", 110, withLabels(api.LabelTopologyZone, "b")),
		mkNode("n3", "4", "4Gi", 110, withLabels(api.LabelTopologyZone, "b")),
	}
	deleting := mkClaim("data-web-0", "pv-1", "Bound")
	deleting.DeletionTimestamp = &api.Time{Time: t0}
	annotated := mkClaim("data-web-0", "pv-1", "Pending")
	annotated.Annotations = map[string]string{AnnBindCompleted: "yes"}
	tests := []struct {
		name     string
		pod      *api.Pod
		claims   []*api.PersistentVolumeClaim
		volumes  []*api.PersistentVolume // nil: no VolumeLookup
		feasible []string
		filter   string // of the rejected nodes
		message  string // when nothing is feasible
	}{
		{"no claims", mkPod("p", "", ""), nil, nil, []string{"n1", "n2", "n3"}, "", ""},
		{"missing claim", mkPod("p", "", "", withClaim("data-web-0")), nil, nil, nil, FilterVolumeBinding,
			`0/3 nodes are available: persistentvolumeclaim "data-web-0" not found.` + notHelpful3},
		{"pending claim", mkPod("p", "", "", withClaim("data-web-0")),
			[]*api.PersistentVolumeClaim{mkClaim("data-web-0", "", "Pending")}, nil, nil, FilterVolumeBinding,
			"0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims." + notHelpful3},
		{"pre-bound claim (volumeName, not Bound) is unbound", mkPod("p", "", "", withClaim("data-web-0")),
			[]*api.PersistentVolumeClaim{mkClaim("data-web-0", "pv-1", "Pending")}, nil, nil, FilterVolumeBinding,
			"0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims." + notHelpful3},
		{"Bound phase without volumeName is unbound", mkPod("p", "", "", withClaim("data-web-0")),
			[]*api.PersistentVolumeClaim{mkClaim("data-web-0", "", "Bound")}, nil, nil, FilterVolumeBinding,
			"0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims." + notHelpful3},
		{"bind-completed annotation counts as bound", mkPod("p", "", "", withClaim("data-web-0")),
			[]*api.PersistentVolumeClaim{annotated}, nil, []string{"n1", "n2", "n3"}, "", ""},
		{"lost claim", mkPod("p", "", "", withClaim("data-web-0")),
			[]*api.PersistentVolumeClaim{mkClaim("data-web-0", "pv-1", "Lost")}, nil, nil, FilterVolumeBinding,
			`0/3 nodes are available: persistentvolumeclaim "data-web-0" bound to non-existent persistentvolume "pv-1".` + notHelpful3},
		{"claim being deleted", mkPod("p", "", "", withClaim("data-web-0")),
			[]*api.PersistentVolumeClaim{deleting}, nil, nil, FilterVolumeBinding,
			`0/3 nodes are available: persistentvolumeclaim "data-web-0" is being deleted.` + notHelpful3},
		{"a missing claim wins over an earlier unbound one", mkPod("p", "", "", withClaim("a"), withClaim("b")),
			[]*api.PersistentVolumeClaim{mkClaim("a", "", "Pending")}, nil, nil, FilterVolumeBinding,
			`0/3 nodes are available: persistentvolumeclaim "b" not found.` + notHelpful3},
		{"claim in another namespace is not found", mkPod("p", "", "", withClaim("data-web-0")),
			[]*api.PersistentVolumeClaim{func() *api.PersistentVolumeClaim {
				c := mkClaim("data-web-0", "pv-1", "Bound")
				c.Namespace = "other"
				return c
			}()}, nil, nil, FilterVolumeBinding,
			`0/3 nodes are available: persistentvolumeclaim "data-web-0" not found.` + notHelpful3},
		{"bound claim, no volume lookup", mkPod("p", "", "", withClaim("data-web-0")),
			[]*api.PersistentVolumeClaim{mkClaim("data-web-0", "pv-1", "Bound")}, nil, []string{"n1", "n2", "n3"}, "", ""},
		{"bound claim, volume without affinity", mkPod("p", "", "", withClaim("data-web-0")),
			[]*api.PersistentVolumeClaim{mkClaim("data-web-0", "pv-1", "Bound")},
			[]*api.PersistentVolume{mkVolume("pv-1")}, []string{"n1", "n2", "n3"}, "", ""},
		{"bound volume's node affinity", mkPod("p", "", "", withClaim("data-web-0")),
			[]*api.PersistentVolumeClaim{mkClaim("data-web-0", "pv-1", "Bound")},
			[]*api.PersistentVolume{mkVolume("pv-1", zoneA)}, []string{"n1"}, FilterVolumeBinding, ""},
		{"volume affinity matching no node", mkPod("p", "", "", withClaim("data-web-0")),
			[]*api.PersistentVolumeClaim{mkClaim("data-web-0", "pv-1", "Bound")},
			[]*api.PersistentVolume{mkVolume("pv-1", term(api.LabelTopologyZone, api.NodeSelectorOpIn, "c"))}, nil, FilterVolumeBinding,
			"0/3 nodes are available: 3 " + ReasonVolumeNodeAffinity + "." + notHelpful3},
		{"volume affinity and pod selector", mkPod("p", "", "", withClaim("data-web-0"), withSelector(api.LabelTopologyZone, "b")),
			[]*api.PersistentVolumeClaim{mkClaim("data-web-0", "pv-1", "Bound")},
			[]*api.PersistentVolume{mkVolume("pv-1", zoneA)}, nil, "",
			"0/3 nodes are available: 1 " + ReasonNodeAffinity + ", 2 " + ReasonVolumeNodeAffinity + "." + notHelpful3},
		// VolumeZone's PreFilter, which runs before any Filter, finds the
		// volume missing first (the lister's NotFound), so VolumeBinding's
		// per-node ReasonVolumeNotExist is not reached in the default
		// profile.
		{"bound volume missing", mkPod("p", "", "", withClaim("data-web-0")),
			[]*api.PersistentVolumeClaim{mkClaim("data-web-0", "pv-1", "Bound")},
			[]*api.PersistentVolume{mkVolume("pv-2")}, nil, FilterVolumeZone,
			`0/3 nodes are available: persistentvolume "pv-1" not found.` + notHelpful3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var volumes VolumeLookup
			if tt.volumes != nil {
				volumes = volumeLookup(tt.volumes...)
			}
			e := decideWithVolumes(tt.pod, nodes, claimLookup(tt.claims...), volumes)
			var feasible []string
			for _, v := range e.Verdicts {
				switch {
				case v.Feasible():
					feasible = append(feasible, v.Node)
				case tt.filter != "" && v.Filter != tt.filter:
					t.Errorf("%s filtered by %s %v, want %s", v.Node, v.Filter, v.Reasons, tt.filter)
				}
			}
			if !slices.Equal(feasible, tt.feasible) {
				t.Errorf("feasible %v, want %v", feasible, tt.feasible)
			}
			if e.Message != tt.message {
				t.Errorf("message %q, want %q", e.Message, tt.message)
			}
		})
	}
}

// Without Options.Claims nothing is checked: a pod with a missing claim
// fits as before.
func TestVolumeBindingOffWithoutClaims(t *testing.T) {
	e := decideWithVolumes(mkPod("p", "", "", withClaim("gone")), []*api.Node{mkNode("n", "1", "1Gi", 10)}, nil, nil)
	if e.Node != "n" {
		t.Fatalf("node %q, message %q", e.Node, e.Message)
	}
}

// A PreFilter rejection gives every node the same verdict, and with no
// nodes the message is kube-scheduler's no-nodes one.
func TestVolumeBindingPreFilterVerdicts(t *testing.T) {
	pod := mkPod("p", "", "", withClaim("data"))
	claims := claimLookup(mkClaim("data", "", "Pending"))
	e := decideWithVolumes(pod, []*api.Node{mkNode("a", "1", "1Gi", 10), mkNode("b", "1", "1Gi", 10)}, claims, nil)
	for _, v := range e.Verdicts {
		if v.Skipped || v.Filter != FilterVolumeBinding || !slices.Equal(v.Reasons, []string{ReasonUnboundImmediateClaims}) {
			t.Errorf("%+v", v)
		}
	}
	if s := e.String(); !strings.Contains(s, "a: filtered by VolumeBinding: "+ReasonUnboundImmediateClaims) {
		t.Errorf("String:\n%s", s)
	}
	if e := decideWithVolumes(pod, nil, claims, nil); e.Message != ErrNoNodesMessage {
		t.Errorf("no nodes: %q", e.Message)
	}
}

// Run waits for Options.Synced before its first attempt, so a claim not
// listed yet holds no pod.
func TestRunWaitsForSynced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var synced atomic.Bool
		c := newCluster(t, Options{Claims: claimLookup(mkClaim("data", "pv", "Bound")),
			Synced: []func() bool{synced.Load}})
		c.addNode(mkNode("n", "1", "1Gi", 10))
		c.addPod(mkPod("p", "", "", withClaim("data")))
		c.start()
		c.settle(time.Second)
		if _, ok := c.s.Explain("default/p"); ok {
			t.Fatal("attempted before Synced")
		}
		synced.Store(true)
		c.settle(time.Second)
		if got := c.pod("p").Spec.NodeName; got != "n" {
			t.Fatalf("p on %q", got)
		}
	})
}

// A generic ephemeral volume uses the claim <pod>-<volume>, which must
// exist and be the pod's (volume_binding.go podHasPVCs, component-helpers'
// VolumeIsForPod): missing, it waits for the ephemeral volume controller;
// another's, it is refused; the pod's and bound, it schedules.
func TestVolumeBindingEphemeralVolumes(t *testing.T) {
	pod := mkPod("web-0", "", "", func(p *api.Pod) {
		p.UID = "pod-uid"
		p.Spec.Volumes = append(p.Spec.Volumes, api.Volume{Name: "scratch", VolumeSource: api.VolumeSource{
			Ephemeral: &api.EphemeralVolumeSource{VolumeClaimTemplate: &api.PersistentVolumeClaimTemplate{}}}})
	})
	nodes := []*api.Node{mkNode("a", "1", "1Gi", 10)}
	reasons := func(claims ClaimLookup) []string {
		e := decideWithVolumes(pod, nodes, claims, volumeLookup(mkVolume("pv-1")))
		return e.Verdicts[0].Reasons
	}
	require := func(got []string, want ...string) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Errorf("reasons %q, want %q", got, want)
		}
	}
	require(reasons(claimLookup()), `waiting for ephemeral volume controller to create the persistentvolumeclaim "web-0-scratch"`)
	foreign := mkClaim("web-0-scratch", "pv-1", "Bound")
	require(reasons(claimLookup(foreign)), "PVC default/web-0-scratch was not created for pod default/web-0 (pod is not owner)")
	own := mkClaim("web-0-scratch", "pv-1", "Bound")
	yes := true
	own.OwnerReferences = []api.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "web-0", UID: "pod-uid", Controller: &yes}}
	own.Annotations = map[string]string{AnnBindCompleted: "yes"}
	require(reasons(claimLookup(own)))
}
