package persistentvolume

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Cases after kcm's pv_controller_test.go / binder_test.go (TestSync's
// "1-x" claim cases, "2-x" volume cases) and index_test.go
// (TestMatchVolume: smallest fit, access modes, class, selector).

func ptr[T any](v T) *T { return &v }

func pv(name, size, class string, modes ...api.PersistentVolumeAccessMode) *api.PersistentVolume {
	if len(modes) == 0 {
		modes = []api.PersistentVolumeAccessMode{"ReadWriteOnce"}
	}
	return &api.PersistentVolume{ObjectMeta: api.ObjectMeta{Name: name, UID: api.UID("uid-" + name)},
		Spec: api.PersistentVolumeSpec{Capacity: api.ResourceList{api.ResourceStorage: api.MustParse(size)}, AccessModes: modes,
			StorageClassName: class, PersistentVolumeReclaimPolicy: "Retain"},
		Status: api.PersistentVolumeStatus{Phase: volumeAvailable}}
}

func pvc(name, size string, class *string, modes ...api.PersistentVolumeAccessMode) *api.PersistentVolumeClaim {
	if len(modes) == 0 {
		modes = []api.PersistentVolumeAccessMode{"ReadWriteOnce"}
	}
	return &api.PersistentVolumeClaim{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: api.UID("uid-" + name)},
		Spec: api.PersistentVolumeClaimSpec{AccessModes: modes, StorageClassName: class,
			Resources: api.VolumeResourceRequirements{Requests: api.ResourceList{api.ResourceStorage: api.MustParse(size)}}},
		Status: api.PersistentVolumeClaimStatus{Phase: claimPending}}
}

func TestFindVolume(t *testing.T) {
	none := ptr("")
	fast := ptr("fast")
	vols := []*api.PersistentVolume{
		pv("pv-10g", "10Gi", ""), pv("pv-1g", "1Gi", ""), pv("pv-5g", "5Gi", ""),
		pv("pv-rwx-2g", "2Gi", "", "ReadWriteMany", "ReadWriteOnce"), pv("pv-fast-3g", "3Gi", "fast"),
	}
	labelled := pv("pv-labelled-20g", "20Gi", "")
	labelled.Labels = map[string]string{"tier": "gold"}
	bound := pv("pv-bound-1g", "1Gi", "")
	bound.Spec.ClaimRef = &api.ObjectReference{Namespace: "default", Name: "other", UID: "x"}
	vols = append(vols, labelled, bound)
	sel := pvc("c", "1Gi", none)
	sel.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"tier": "gold"}}
	preBound := pvc("mine", "8Gi", none)
	mine := pv("pv-mine-9g", "9Gi", "")
	mine.Spec.ClaimRef = &api.ObjectReference{Namespace: "default", Name: "mine"}

	for _, tc := range []struct {
		name  string
		claim *api.PersistentVolumeClaim
		vols  []*api.PersistentVolume
		want  string
	}{
		{"smallest fit", pvc("c", "1Gi", none), vols, "pv-1g"},
		{"bigger request", pvc("c", "3Gi", none), vols, "pv-5g"},
		{"access modes must be a subset", pvc("c", "1Gi", none, "ReadWriteMany"), vols, "pv-rwx-2g"},
		{"class must match", pvc("c", "1Gi", fast), vols, "pv-fast-3g"},
		{"too big", pvc("c", "50Gi", none), vols, ""},
		{"selector", sel, vols, "pv-labelled-20g"},
		{"a volume bound elsewhere is skipped", pvc("c", "1Gi", none), []*api.PersistentVolume{bound}, ""},
		{"a pre-bound volume wins over a smaller one", preBound, append([]*api.PersistentVolume{mine}, vols...), "pv-mine-9g"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := findVolume(tc.claim, tc.vols, false)
			name := ""
			if got != nil {
				name = got.Name
			}
			require.Equal(t, tc.want, name)
		})
	}
}

func TestDecideClaim(t *testing.T) {
	std := &api.StorageClass{ObjectMeta: api.ObjectMeta{Name: "standard", Annotations: map[string]string{AnnDefaultStorageClass: "true"}},
		Provisioner: "sim.ctrlkit.io/hostpath"}

	t.Run("binds both ways", func(t *testing.T) {
		c := pvc("www-web-0", "1Gi", ptr(""))
		p := decideClaim(c, claimWorld{volumes: []*api.PersistentVolume{pv("pv-2g", "2Gi", "")}})
		require.Equal(t, "www-web-0", p.volume.Spec.ClaimRef.Name)
		require.Equal(t, c.UID, p.volume.Spec.ClaimRef.UID)
		require.Equal(t, "yes", p.volume.Annotations[AnnBoundByController])
		require.Equal(t, volumeBound, p.volumePhase)
		require.Equal(t, "pv-2g", p.claim.Spec.VolumeName)
		require.Equal(t, "yes", p.claim.Annotations[AnnBindCompleted])
		require.Equal(t, claimBound, p.claimStatus.Phase)
		require.Equal(t, "2Gi", p.claimStatus.Capacity[api.ResourceStorage].String())
	})
	t.Run("no class: the default class is assigned first", func(t *testing.T) {
		p := decideClaim(pvc("c", "1Gi", nil), claimWorld{classes: []*api.StorageClass{std}})
		require.Equal(t, "standard", *p.claim.Spec.StorageClassName)
		require.Nil(t, p.provision)
	})
	t.Run("no volume fits: the class's provisioner makes one", func(t *testing.T) {
		p := decideClaim(pvc("c", "1Gi", ptr("standard")), claimWorld{volumes: []*api.PersistentVolume{pv("small", "100Mi", "standard")}, classes: []*api.StorageClass{std}})
		require.NotNil(t, p.provision)
		v := p.provision
		require.Equal(t, "pvc-uid-c", v.Name)
		require.Equal(t, "1Gi", v.Spec.Capacity[api.ResourceStorage].String())
		require.Equal(t, api.PersistentVolumeReclaimPolicy("Delete"), v.Spec.PersistentVolumeReclaimPolicy, "the class's default")
		require.Equal(t, "c", v.Spec.ClaimRef.Name)
		require.Equal(t, "standard", v.Spec.StorageClassName)
		require.Equal(t, std.Provisioner, v.Annotations[AnnProvisionedBy])
		require.Equal(t, std.Provisioner, p.claim.Annotations[AnnStorageProvisioner])
	})
	t.Run("the provisioned volume is then bound", func(t *testing.T) {
		c := pvc("c", "1Gi", ptr("standard"))
		v := provisioned(c, std, nil)
		v.Status.Phase = volumePending
		p := decideClaim(c, claimWorld{volumes: []*api.PersistentVolume{v}, classes: []*api.StorageClass{std}})
		require.Nil(t, p.provision)
		require.Nil(t, p.volume, "pre-bound already")
		require.Equal(t, volumeBound, p.volumePhase)
		require.Equal(t, v.Name, p.claim.Spec.VolumeName)
	})
	t.Run("no class, no volume: Pending with an event", func(t *testing.T) {
		p := decideClaim(pvc("c", "1Gi", ptr("")), claimWorld{})
		require.Equal(t, "FailedBinding", p.event)
		require.Nil(t, p.claimStatus)
	})
	t.Run("the bound volume is gone: Lost", func(t *testing.T) {
		c := pvc("c", "1Gi", ptr(""))
		c.Spec.VolumeName = "gone"
		c.Status.Phase = claimBound
		p := decideClaim(c, claimWorld{})
		require.Equal(t, claimLost, p.claimStatus.Phase)
	})
	t.Run("a bound pair writes nothing", func(t *testing.T) {
		c := pvc("c", "1Gi", ptr(""))
		v := pv("v", "1Gi", "")
		b := bind(c, v)
		c, v = b.claim, b.volume
		c.Status, v.Status.Phase = *b.claimStatus, volumeBound
		require.Equal(t, claimPlan{}, decideClaim(c, claimWorld{volumes: []*api.PersistentVolume{v}}))
		require.Equal(t, volumePlan{}, decideVolume(v, c))
	})
}

func TestDecideVolume(t *testing.T) {
	c := pvc("c", "1Gi", ptr(""))
	bound := func(policy api.PersistentVolumeReclaimPolicy) *api.PersistentVolume {
		v := pv("v", "1Gi", "")
		v.Spec.ClaimRef = claimRef(c)
		v.Spec.PersistentVolumeReclaimPolicy = policy
		v.Status.Phase = volumeBound
		return v
	}
	require.Equal(t, volumePlan{phase: volumeAvailable}, decideVolume(func() *api.PersistentVolume {
		v := pv("v", "1Gi", "")
		v.Status.Phase = volumePending
		return v
	}(), nil), "a new volume becomes Available")
	require.Equal(t, volumePlan{released: true, phase: volumeReleased}, decideVolume(bound("Retain"), nil), "Retain: Released, kept")
	require.Equal(t, volumePlan{released: true, delete: true}, decideVolume(bound("Delete"), nil), "Delete: deleted")
	other := c.DeepCopy()
	other.UID = "new"
	require.Equal(t, volumePlan{released: true, delete: true}, decideVolume(bound("Delete"), other), "a new claim of the same name is another claim")
	released := bound("Retain")
	released.Status.Phase = volumeReleased
	require.Equal(t, volumePlan{}, decideVolume(released, nil), "Released stays Released")
}

// Delayed binding (WaitForFirstConsumer). Rows after kcm's binder_test.go
// ("1-13 - delayed binding", "1-14 - successful prebound PV", "1-18 -
// successful pre-bound PV to PVC provisioning"), provision_test.go ("11-23
// - skip finding PV and provision for PVC annotated with AnnSelectedNode")
// and index_test.go (TestBestMatchDelayed); the WaitForPodScheduled
// messages after pv_controller.go's emitEventForUnboundDelayBindingClaim.
func TestDecideDelayedBinding(t *testing.T) {
	wait := BindingWaitForFirstConsumer
	classWait := &api.StorageClass{ObjectMeta: api.ObjectMeta{Name: "wait"}, Provisioner: "rancher.io/local-path", VolumeBindingMode: &wait}
	classes := []*api.StorageClass{classWait}
	node1 := &api.Node{ObjectMeta: api.ObjectMeta{Name: "node1", Labels: map[string]string{LabelHostname: "node1-host"}}}
	nodes := func(name string) (*api.Node, bool) { return node1, name == "node1" }
	selected := func(c *api.PersistentVolumeClaim, node string) *api.PersistentVolumeClaim {
		c.Annotations = map[string]string{AnnSelectedNode: node}
		return c
	}
	pod := func(name, node string, phase api.PodPhase) *api.Pod {
		return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
			Spec: api.PodSpec{NodeName: node, Volumes: []api.Volume{{Name: "data",
				VolumeSource: api.VolumeSource{PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: "claim1-1"}}}}},
			Status: api.PodStatus{Phase: phase}}
	}

	t.Run("1-13 delayed binding: an available volume is not bound", func(t *testing.T) {
		p := decideClaim(pvc("claim1-1", "1Gi", ptr("wait")), claimWorld{volumes: []*api.PersistentVolume{pv("volume1-1", "1Gi", "wait")}, classes: classes})
		require.Equal(t, claimPlan{event: "WaitForFirstConsumer", eventType: "Normal",
			eventMessage: "waiting for first consumer to be created before binding"}, p)
	})
	t.Run("TestBestMatchDelayed: no match while binding is delayed", func(t *testing.T) {
		require.Nil(t, findVolume(pvc("c", "1Gi", ptr("wait")), []*api.PersistentVolume{pv("v", "10Gi", "wait")}, true))
	})
	t.Run("1-14 a volume pre-bound to the claim is bound", func(t *testing.T) {
		v := pv("volume1-1", "1Gi", "wait")
		v.Spec.ClaimRef = &api.ObjectReference{Namespace: "default", Name: "claim1-1"}
		p := decideClaim(pvc("claim1-1", "1Gi", ptr("wait")), claimWorld{volumes: []*api.PersistentVolume{v}, classes: classes})
		require.Equal(t, "volume1-1", p.claim.Spec.VolumeName)
		require.Equal(t, api.UID("uid-claim1-1"), p.volume.Spec.ClaimRef.UID)
		require.Equal(t, claimBound, p.claimStatus.Phase)
		require.Empty(t, p.event)
	})
	t.Run("1-18 pre-bound by the scheduler, node selected: bound", func(t *testing.T) {
		c := selected(pvc("claim1-18", "1Gi", ptr("wait")), "node1")
		v := pv("volume1-18", "1Gi", "wait")
		v.Spec.ClaimRef = claimRef(c)
		p := decideClaim(c, claimWorld{volumes: []*api.PersistentVolume{v}, classes: classes, node: nodes})
		require.Nil(t, p.volume, "the claimRef is complete")
		require.Equal(t, volumeBound, p.volumePhase)
		require.Equal(t, "volume1-18", p.claim.Spec.VolumeName)
		require.Equal(t, "node1", p.claim.Annotations[AnnSelectedNode])
		require.Nil(t, p.provision)
		require.Empty(t, p.event)
	})
	t.Run("11-23 node selected: provisioned for the node, the available volume skipped", func(t *testing.T) {
		c := selected(pvc("claim11-23", "1Gi", ptr("wait")), "node1")
		p := decideClaim(c, claimWorld{volumes: []*api.PersistentVolume{pv("volume11-23", "1Gi", "wait")}, classes: classes, node: nodes})
		require.Nil(t, p.volume)
		require.NotNil(t, p.provision)
		require.Equal(t, "pvc-uid-claim11-23", p.provision.Name)
		require.Equal(t, "rancher.io/local-path", p.claim.Annotations[AnnStorageProvisioner])
		require.Equal(t, &api.VolumeNodeAffinity{Required: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{
			MatchExpressions: []api.NodeSelectorRequirement{{Key: LabelHostname, Operator: "In", Values: []string{"node1-host"}}},
		}}}}, p.provision.Spec.NodeAffinity, "the node's hostname label")
		require.True(t, p.provision.Spec.NodeAffinity.Required.Matches(node1))
	})
	t.Run("selected node unknown: ProvisioningFailed, nothing provisioned", func(t *testing.T) {
		p := decideClaim(selected(pvc("c", "1Gi", ptr("wait")), "gone"), claimWorld{classes: classes, node: nodes})
		require.Equal(t, claimPlan{event: "ProvisioningFailed", eventMessage: `Failed to get target node: node "gone" not found`}, p)
	})
	t.Run("a node without a hostname label: its name", func(t *testing.T) {
		v := provisioned(pvc("c", "1Gi", ptr("wait")), classWait, &api.Node{ObjectMeta: api.ObjectMeta{Name: "bare"}})
		require.Equal(t, []string{"bare"}, v.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions[0].Values)
	})
	t.Run("Immediate: provisioned without node affinity", func(t *testing.T) {
		imm := &api.StorageClass{ObjectMeta: api.ObjectMeta{Name: "imm"}, Provisioner: "rancher.io/local-path"}
		p := decideClaim(pvc("c", "1Gi", ptr("imm")), claimWorld{classes: []*api.StorageClass{imm}, node: nodes})
		require.NotNil(t, p.provision)
		require.Nil(t, p.provision.Spec.NodeAffinity)
	})
	for _, tc := range []struct {
		name          string
		pods          []*api.Pod
		reason, msg   string
		pendingStatus bool
	}{
		{name: "no pod", reason: "WaitForFirstConsumer", msg: "waiting for first consumer to be created before binding"},
		{name: "a scheduled pod only", pods: []*api.Pod{pod("web-0", "node1", "Pending")},
			reason: "WaitForFirstConsumer", msg: "waiting for first consumer to be created before binding"},
		{name: "one pod not scheduled", pods: []*api.Pod{pod("web-0", "", "Pending")},
			reason: "WaitForPodScheduled", msg: "waiting for pod web-0 to be scheduled"},
		{name: "two pods not scheduled", pods: []*api.Pod{pod("web-1", "", "Pending"), pod("web-0", "", "Pending"), pod("web-2", "node1", "Running")},
			reason: "WaitForPodScheduled", msg: "waiting for pods web-0,web-1 to be scheduled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := pvc("claim1-1", "1Gi", ptr("wait"))
			c.Status.Phase = ""
			p := decideClaim(c, claimWorld{classes: classes, pods: tc.pods})
			require.Equal(t, tc.reason, p.event)
			require.Equal(t, tc.msg, p.eventMessage)
			require.Equal(t, "Normal", p.eventType)
			require.Equal(t, &api.PersistentVolumeClaimStatus{Phase: claimPending}, p.claimStatus, "marked Pending")
		})
	}
}

// podUsesClaim is kcm's PodPVCIndex plus findPodsByPVCKey's filter: a
// claim volume or an ephemeral volume's claim, of a pod not terminated.
func TestPodUsesClaim(t *testing.T) {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "web-0"}, Spec: api.PodSpec{Volumes: []api.Volume{
		{Name: "www", VolumeSource: api.VolumeSource{PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: "www-web-0"}}},
		{Name: "scratch", VolumeSource: api.VolumeSource{Ephemeral: &api.EphemeralVolumeSource{}}},
		{Name: "tmp", VolumeSource: api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{}}},
	}}}
	require.True(t, podUsesClaim(p, "www-web-0"))
	require.True(t, podUsesClaim(p, "web-0-scratch"))
	require.False(t, podUsesClaim(p, "web-0-tmp"))
	require.False(t, podUsesClaim(p, "other"))
	p.Status.Phase = "Succeeded"
	require.False(t, podUsesClaim(p, "www-web-0"), "terminated")
}

// The beta class annotation wins over spec.storageClassName on claims and
// volumes (kube's GetPersistentVolumeClaimClass, GetPersistentVolumeClass),
// and a claim carrying it is not given the default class.
func TestBetaStorageClassAnnotation(t *testing.T) {
	fastVol := pv("pv-fast-annotated", "1Gi", "")
	fastVol.Annotations = map[string]string{AnnBetaStorageClass: "fast"}
	plainVol := pv("pv-plain", "1Gi", "")
	claim := pvc("c", "1Gi", nil)
	claim.Annotations = map[string]string{AnnBetaStorageClass: "fast"}
	got := findVolume(claim, []*api.PersistentVolume{plainVol, fastVol}, false)
	require.NotNil(t, got)
	require.Equal(t, "pv-fast-annotated", got.Name)

	specSaysSlow := pvc("c", "1Gi", ptr("slow"))
	specSaysSlow.Annotations = map[string]string{AnnBetaStorageClass: "fast"}
	require.Equal(t, "fast", classOf(specSaysSlow))

	def := &api.StorageClass{ObjectMeta: api.ObjectMeta{Name: "standard",
		Annotations: map[string]string{AnnDefaultStorageClass: "true"}}, Provisioner: "rancher.io/local-path"}
	p := decideUnbound(claim, claimWorld{classes: []*api.StorageClass{def}})
	if p.claim != nil {
		require.Nil(t, p.claim.Spec.StorageClassName, "no default class for a claim with the beta annotation")
	}
	p = decideUnbound(pvc("d", "1Gi", nil), claimWorld{classes: []*api.StorageClass{def}})
	require.NotNil(t, p.claim)
	require.Equal(t, "standard", *p.claim.Spec.StorageClassName)
}
