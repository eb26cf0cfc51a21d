package scheduler

import (
	"slices"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Delayed binding fixtures after kube-scheduler's
// volumebinding/binder_test.go: waitClass is WaitForFirstConsumer with
// no provisioner, waitClassWithProvisioner provisions anywhere,
// topoMismatchClass provisions only in a zone no node is in.

func wffcClass(name, provisioner string, topo ...api.TopologySelectorTerm) *api.StorageClass {
	mode := VolumeBindingWaitForFirstConsumer
	return &api.StorageClass{ObjectMeta: api.ObjectMeta{Name: name}, Provisioner: provisioner,
		VolumeBindingMode: &mode, AllowedTopologies: topo}
}

func testClasses() StorageClassLookup {
	imm := api.VolumeBindingMode("Immediate")
	all := []*api.StorageClass{
		wffcClass("waitClass", NoProvisioner),
		wffcClass("waitClassWithProvisioner", "test-provisioner"),
		wffcClass("topoMismatchClass", "test-provisioner", api.TopologySelectorTerm{MatchLabelExpressions: []api.TopologySelectorLabelRequirement{
			{Key: api.LabelTopologyZone, Values: []string{"zone-x"}}}}),
		{ObjectMeta: api.ObjectMeta{Name: "immediateClass"}, Provisioner: "test-provisioner", VolumeBindingMode: &imm},
	}
	return func(name string) (*api.StorageClass, bool) {
		i := slices.IndexFunc(all, func(c *api.StorageClass) bool { return c.Name == name })
		if i < 0 {
			return nil, false
		}
		return all[i], true
	}
}

// testPVC is makeTestPVC: an unbound claim of size and class, uid
// "uid-"+name, access mode ReadWriteOnce.
func testPVC(name, size, class string) *api.PersistentVolumeClaim {
	return &api.PersistentVolumeClaim{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: api.UID("uid-" + name), ResourceVersion: "1"},
		Spec: api.PersistentVolumeClaimSpec{StorageClassName: &class,
			AccessModes: []api.PersistentVolumeAccessMode{"ReadWriteOnce"},
			Resources:   api.VolumeResourceRequirements{Requests: api.ResourceList{api.ResourceStorage: api.MustParse(size)}}},
		Status: api.PersistentVolumeClaimStatus{Phase: "Pending"}}
}

// testPV is makeTestPV: an Available volume of class on node (its
// kubernetes.io/hostname node affinity), pre-bound to claim when set.
func testPV(name, node, size, class string, claim *api.PersistentVolumeClaim) *api.PersistentVolume {
	pv := mkVolume(name, term("kubernetes.io/hostname", api.NodeSelectorOpIn, node))
	pv.ResourceVersion = "1"
	pv.Spec.StorageClassName = class
	pv.Spec.Capacity = api.ResourceList{api.ResourceStorage: api.MustParse(size)}
	pv.Spec.AccessModes = []api.PersistentVolumeAccessMode{"ReadWriteOnce"}
	pv.Status.Phase = "Available"
	if claim != nil {
		pv.Spec.ClaimRef = &api.ObjectReference{Namespace: claim.Namespace, Name: claim.Name, UID: claim.UID}
		pv.Status.Phase = "Bound"
	}
	return pv
}

func withSelectedNode(c *api.PersistentVolumeClaim, node string) *api.PersistentVolumeClaim {
	c.Annotations = map[string]string{AnnSelectedNode: node}
	return c
}

func TestFindPodVolumesDelayed(t *testing.T) {
	unbound := testPVC("unbound-pvc", "1G", "waitClass")
	unbound2 := testPVC("unbound-pvc2", "5G", "waitClass")
	prebound := testPVC("prebound-pvc", "1G", "waitClass")
	provisioned := testPVC("provisioned-pvc", "1Gi", "waitClassWithProvisioner")
	bound := mkClaim("bound-pvc", "pv-bound", "Bound")
	pvNode1a := testPV("pv-node1a", "node1", "5G", "waitClass", nil)
	pvNode1b := testPV("pv-node1b", "node1", "10G", "waitClass", nil)
	pvNode2 := testPV("pv-node2", "node2", "1G", "waitClass", nil)
	pvBound := testPV("pv-bound", "node1", "1G", "waitClass", bound)
	bound2 := mkClaim("bound-pvc2", "pv-bound2", "Bound")
	pvBound2 := testPV("pv-bound2", "node2", "1G", "waitClass", bound2)
	pvPrebound1a := testPV("pv-node1a", "node1", "5G", "waitClass", prebound)
	pvPrebound2 := testPV("pv-node2", "node2", "5G", "waitClass", prebound)
	type want struct {
		reasons    []string
		bindings   []string // claim=volume
		provisions []string
	}
	// Rows of binder_test.go's TestFindPodVolumesWithoutProvisioning and
	// TestFindPodVolumesWithProvisioning, on node1.
	tests := []struct {
		name   string
		claims []*api.PersistentVolumeClaim
		pvs    []*api.PersistentVolume
		want   want
	}{
		{"unbound-pvc,pv-same-node", []*api.PersistentVolumeClaim{unbound}, []*api.PersistentVolume{pvNode2, pvNode1a, pvNode1b},
			want{bindings: []string{"unbound-pvc=pv-node1a"}}},
		{"unbound-pvc,pv-different-node", []*api.PersistentVolumeClaim{unbound}, []*api.PersistentVolume{pvNode2},
			want{reasons: []string{ReasonBindConflict}}},
		{"two-unbound-pvcs", []*api.PersistentVolumeClaim{unbound, unbound2}, []*api.PersistentVolume{pvNode1a, pvNode1b},
			want{bindings: []string{"unbound-pvc=pv-node1a", "unbound-pvc2=pv-node1b"}}},
		{"two-unbound-pvcs,order-by-size", []*api.PersistentVolumeClaim{unbound2, unbound}, []*api.PersistentVolume{pvNode1a, pvNode1b},
			want{bindings: []string{"unbound-pvc=pv-node1a", "unbound-pvc2=pv-node1b"}}},
		{"two-unbound-pvcs,partial-match", []*api.PersistentVolumeClaim{unbound, unbound2}, []*api.PersistentVolume{pvNode1a},
			want{reasons: []string{ReasonBindConflict}}},
		{"one-bound,one-unbound", []*api.PersistentVolumeClaim{unbound, bound}, []*api.PersistentVolume{pvBound, pvNode1a},
			want{bindings: []string{"unbound-pvc=pv-node1a"}}},
		{"one-bound,one-unbound,no-match", []*api.PersistentVolumeClaim{unbound, bound}, []*api.PersistentVolume{pvBound, pvNode2},
			want{reasons: []string{ReasonBindConflict}}},
		{"prebound-pv,same-node", []*api.PersistentVolumeClaim{prebound}, []*api.PersistentVolume{pvNode1b, pvPrebound1a},
			want{bindings: []string{"prebound-pvc=pv-node1a"}}},
		{"prebound-pv,other-node-wins-over-a-match", []*api.PersistentVolumeClaim{prebound}, []*api.PersistentVolume{pvNode1b, pvPrebound2},
			want{reasons: []string{ReasonBindConflict}}},
		// Every reason that applies, in FindPodVolumes' order.
		{"bound-pvc,node-conflict,unbound-no-match", []*api.PersistentVolumeClaim{bound2, unbound}, []*api.PersistentVolume{pvBound2, pvNode2},
			want{reasons: []string{ReasonVolumeNodeAffinity, ReasonBindConflict}}},
		{"one-provisioned", []*api.PersistentVolumeClaim{provisioned}, nil,
			want{provisions: []string{"provisioned-pvc"}}},
		{"two-unbound-pvcs,one-matched,one-provisioned", []*api.PersistentVolumeClaim{unbound, provisioned}, []*api.PersistentVolume{pvNode1a},
			want{bindings: []string{"unbound-pvc=pv-node1a"}, provisions: []string{"provisioned-pvc"}}},
		{"one-bound,one-provisioned", []*api.PersistentVolumeClaim{bound, provisioned}, []*api.PersistentVolume{pvBound},
			want{provisions: []string{"provisioned-pvc"}}},
		{"one-binding,one-selected-node", []*api.PersistentVolumeClaim{bound, withSelectedNode(testPVC("provisioned-pvc", "1Gi", "waitClassWithProvisioner"), "node1")},
			[]*api.PersistentVolume{pvBound}, want{provisions: []string{"provisioned-pvc"}}},
		{"selected-other-node", []*api.PersistentVolumeClaim{withSelectedNode(testPVC("provisioned-pvc", "1Gi", "waitClassWithProvisioner"), "node2")},
			nil, want{reasons: []string{ReasonBindConflict}}},
		{"invalid-provisioner", []*api.PersistentVolumeClaim{testPVC("no-provisioner-pvc", "1Gi", "waitClass")}, nil,
			want{reasons: []string{ReasonBindConflict}}},
		{"volume-topology-unsatisfied", []*api.PersistentVolumeClaim{testPVC("topo-mismatch-pvc", "1Gi", "topoMismatchClass")}, nil,
			want{reasons: []string{ReasonBindConflict}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := []podOpt{}
			for _, c := range tt.claims {
				opts = append(opts, withClaim(c.Name))
			}
			pod := mkPod("p", "", "", opts...)
			c := NewCache(time.Minute)
			c.SetNode(mkNode("node1", "1", "1Gi", 10))
			pi := NewPodInfo(pod)
			delay := &delayEnv{classes: testClasses(), list: func() []*api.PersistentVolume { return tt.pvs }}
			vs := volumeStateFor(pi, c, claimLookup(tt.claims...), volumeLookup(tt.pvs...), delay)
			if vs.reject != "" {
				t.Fatalf("PreFilter rejected: %s", vs.reject)
			}
			pc := newPodCtx(pi)
			pc.volumes = vs
			n, _ := c.Node("node1")
			if got := filterVolumeBinding(pc, n); !slices.Equal(got, tt.want.reasons) {
				t.Fatalf("reasons %q, want %q", got, tt.want.reasons)
			}
			if tt.want.reasons != nil {
				return
			}
			var plan volumePlan
			if !findDelayed(pc, n, &plan) {
				t.Fatal("findDelayed failed where the Filter passed")
			}
			var bindings, provisions []string
			for _, b := range plan.bindings {
				bindings = append(bindings, b.claim.Name+"="+b.pv.Name)
			}
			for _, p := range plan.provisions {
				provisions = append(provisions, p.Name)
			}
			if !slices.Equal(bindings, tt.want.bindings) || !slices.Equal(provisions, tt.want.provisions) {
				t.Fatalf("bindings %q provisions %q, want %q %q", bindings, provisions, tt.want.bindings, tt.want.provisions)
			}
		})
	}
}

// volume_binding_test.go's PreFilter cases: an unbound claim of an
// Immediate (or unknown) class still rejects the pod; one of a
// WaitForFirstConsumer class does not; a claim naming a volume counts as
// Immediate (prebound).
func TestVolumeBindingPreFilterDelayed(t *testing.T) {
	prebound := testPVC("prebound", "1G", "waitClass")
	prebound.Spec.VolumeName = "pv-x"
	beta := testPVC("beta", "1G", "")
	beta.Spec.StorageClassName = nil
	beta.Annotations = map[string]string{AnnBetaStorageClass: "waitClassWithProvisioner"}
	for _, tt := range []struct {
		claim  *api.PersistentVolumeClaim
		reject string
	}{
		{testPVC("immediate", "1G", "immediateClass"), ReasonUnboundImmediateClaims},
		{testPVC("no-class", "1G", "missingClass"), ReasonUnboundImmediateClaims},
		{prebound, ReasonUnboundImmediateClaims},
		{testPVC("wait", "1G", "waitClass"), ""},
		{beta, ""},
	} {
		pod := mkPod("p", "", "", withClaim(tt.claim.Name))
		delay := &delayEnv{classes: testClasses(), list: func() []*api.PersistentVolume { return nil }}
		reject, _, delayed := volumeBindingPreFilter(pod, claimLookup(tt.claim), volumeLookup(), delay)
		if reject != tt.reject {
			t.Errorf("%s: reject %q, want %q", tt.claim.Name, reject, tt.reject)
		}
		if (tt.reject == "") != (len(delayed) == 1) {
			t.Errorf("%s: %d delayed claims", tt.claim.Name, len(delayed))
		}
		// Without StorageClasses every claim is Immediate.
		if reject, _, _ := volumeBindingPreFilter(pod, claimLookup(tt.claim), volumeLookup(), nil); reject != ReasonUnboundImmediateClaims {
			t.Errorf("%s without classes: reject %q", tt.claim.Name, reject)
		}
	}
}
