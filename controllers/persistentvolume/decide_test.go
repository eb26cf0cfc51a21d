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
			got := findVolume(tc.claim, tc.vols)
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
		p := decideClaim(c, []*api.PersistentVolume{pv("pv-2g", "2Gi", "")}, nil)
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
		p := decideClaim(pvc("c", "1Gi", nil), nil, []*api.StorageClass{std})
		require.Equal(t, "standard", *p.claim.Spec.StorageClassName)
		require.Nil(t, p.provision)
	})
	t.Run("no volume fits: the class's provisioner makes one", func(t *testing.T) {
		p := decideClaim(pvc("c", "1Gi", ptr("standard")), []*api.PersistentVolume{pv("small", "100Mi", "standard")}, []*api.StorageClass{std})
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
		v := provisioned(c, std)
		v.Status.Phase = volumePending
		p := decideClaim(c, []*api.PersistentVolume{v}, []*api.StorageClass{std})
		require.Nil(t, p.provision)
		require.Nil(t, p.volume, "pre-bound already")
		require.Equal(t, volumeBound, p.volumePhase)
		require.Equal(t, v.Name, p.claim.Spec.VolumeName)
	})
	t.Run("no class, no volume: Pending with an event", func(t *testing.T) {
		p := decideClaim(pvc("c", "1Gi", ptr("")), nil, nil)
		require.Equal(t, "FailedBinding", p.event)
		require.Nil(t, p.claimStatus)
	})
	t.Run("the bound volume is gone: Lost", func(t *testing.T) {
		c := pvc("c", "1Gi", ptr(""))
		c.Spec.VolumeName = "gone"
		c.Status.Phase = claimBound
		p := decideClaim(c, nil, nil)
		require.Equal(t, claimLost, p.claimStatus.Phase)
	})
	t.Run("a bound pair writes nothing", func(t *testing.T) {
		c := pvc("c", "1Gi", ptr(""))
		v := pv("v", "1Gi", "")
		b := bind(c, v)
		c, v = b.claim, b.volume
		c.Status, v.Status.Phase = *b.claimStatus, volumeBound
		require.Equal(t, claimPlan{}, decideClaim(c, []*api.PersistentVolume{v}, nil))
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
