package persistentvolume_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/persistentvolume"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

var quiet = slog.New(slog.DiscardHandler)

type env struct {
	t   *testing.T
	ctx context.Context
	c   *cluster.Cluster
	rec *events.Memory
}

func start(t *testing.T) *env {
	ctx, cancel := context.WithCancel(context.Background())
	c, err := cluster.New(ctx, cluster.Options{})
	require.NoError(t, err)
	f := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
	rec := events.NewMemory()
	ctl, err := persistentvolume.New(c, f, persistentvolume.Options{Logger: quiet, Recorder: rec})
	require.NoError(t, err)
	f.Start(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := ctl.Run(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("Run: %v", err)
		}
	})
	t.Cleanup(func() { cancel(); wg.Wait(); f.Shutdown() })
	return &env{t: t, ctx: ctx, c: c, rec: rec}
}

func (e *env) settle() {
	time.Sleep(10 * time.Second)
	synctest.Wait()
}

func (e *env) pv(name string) (*api.PersistentVolume, bool) {
	v, _, err := e.c.PersistentVolumes().Get(e.ctx, name)
	if errors.Is(err, source.ErrNotFound) {
		return nil, false
	}
	require.NoError(e.t, err)
	return v, true
}

func (e *env) pvc(name string) *api.PersistentVolumeClaim {
	c, _, err := e.c.PersistentVolumeClaims().Get(e.ctx, "default/"+name)
	require.NoError(e.t, err)
	return c
}

func staticPV(name, size string, policy api.PersistentVolumeReclaimPolicy) *api.PersistentVolume {
	return &api.PersistentVolume{ObjectMeta: api.ObjectMeta{Name: name},
		Spec: api.PersistentVolumeSpec{Capacity: api.ResourceList{api.ResourceStorage: api.MustParse(size)},
			AccessModes:                   []api.PersistentVolumeAccessMode{"ReadWriteOnce"},
			PersistentVolumeSource:        api.PersistentVolumeSource{HostPath: &api.HostPathVolumeSource{Path: "/data/" + name}},
			PersistentVolumeReclaimPolicy: policy}}
}

func claim(name, size string, class *string) *api.PersistentVolumeClaim {
	return &api.PersistentVolumeClaim{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
		Spec: api.PersistentVolumeClaimSpec{AccessModes: []api.PersistentVolumeAccessMode{"ReadWriteOnce"}, StorageClassName: class,
			Resources: api.VolumeResourceRequirements{Requests: api.ResourceList{api.ResourceStorage: api.MustParse(size)}}}}
}

func (e *env) create(objs ...api.Object) {
	for _, o := range objs {
		_, err := e.c.CreateObject(e.ctx, o)
		require.NoError(e.t, err)
	}
}

// Static volumes: a claim binds the smallest that fits, both sides Bound;
// when the claim goes, Retain leaves the volume Released and Delete
// deletes it.
func TestStaticBindingAndReclaim(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		none := ""
		e.create(staticPV("pv-10g", "10Gi", "Retain"), staticPV("pv-2g", "2Gi", "Retain"), staticPV("pv-5g", "5Gi", "Delete"))
		e.settle()
		v, _ := e.pv("pv-2g")
		require.Equal(t, api.PersistentVolumePhase("Available"), v.Status.Phase)

		e.create(claim("small", "1Gi", &none), claim("medium", "3Gi", &none))
		e.settle()
		small, medium := e.pvc("small"), e.pvc("medium")
		require.Equal(t, "pv-2g", small.Spec.VolumeName, "smallest fit")
		require.Equal(t, "pv-5g", medium.Spec.VolumeName)
		require.Equal(t, api.PersistentVolumeClaimPhase("Bound"), small.Status.Phase)
		require.Equal(t, "2Gi", small.Status.Capacity[api.ResourceStorage].String())
		require.Equal(t, "yes", small.Annotations[persistentvolume.AnnBindCompleted])
		v, _ = e.pv("pv-2g")
		require.Equal(t, api.PersistentVolumePhase("Bound"), v.Status.Phase)
		require.Equal(t, small.UID, v.Spec.ClaimRef.UID)

		// A third claim finds nothing left that fits.
		e.create(claim("big", "20Gi", &none))
		e.settle()
		require.Equal(t, api.PersistentVolumeClaimPhase("Pending"), e.pvc("big").Status.Phase)

		for _, name := range []string{"small", "medium"} {
			_, err := e.c.PersistentVolumeClaims().DeleteWith(e.ctx, "default/"+name, cluster.DeleteOptions{})
			require.NoError(t, err)
		}
		e.settle()
		v, ok := e.pv("pv-2g")
		require.True(t, ok)
		require.Equal(t, api.PersistentVolumePhase("Released"), v.Status.Phase, "Retain")
		_, ok = e.pv("pv-5g")
		require.False(t, ok, "Delete")

		// A Released volume is not bound again.
		e.create(claim("again", "1Gi", &none))
		e.settle()
		require.Equal(t, "pv-10g", e.pvc("again").Spec.VolumeName)
	})
}

// Dynamic provisioning: a claim with no class gets the default class and
// a volume made for it; the class's reclaim policy applies when it goes.
func TestDefaultClassProvisioning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		retain := api.PersistentVolumeReclaimPolicy("Retain")
		e.create(
			&api.StorageClass{ObjectMeta: api.ObjectMeta{Name: "standard", Annotations: map[string]string{persistentvolume.AnnDefaultStorageClass: "true"}},
				Provisioner: "sim.ctrlkit.io/hostpath"},
			&api.StorageClass{ObjectMeta: api.ObjectMeta{Name: "keep"}, Provisioner: "sim.ctrlkit.io/hostpath", ReclaimPolicy: &retain},
			&api.StorageClass{ObjectMeta: api.ObjectMeta{Name: "local"}, Provisioner: persistentvolume.NoProvisioner},
		)
		keep, local := "keep", "local"
		e.create(claim("data", "1Gi", nil), claim("kept", "2Gi", &keep), claim("nothing", "1Gi", &local))
		e.settle()
		c := e.pvc("data")
		require.Equal(t, "standard", *c.Spec.StorageClassName)
		require.Equal(t, api.PersistentVolumeClaimPhase("Bound"), c.Status.Phase)
		require.Equal(t, "pvc-"+string(c.UID), c.Spec.VolumeName)
		v, _ := e.pv(c.Spec.VolumeName)
		require.Equal(t, "sim.ctrlkit.io/hostpath", v.Annotations[persistentvolume.AnnProvisionedBy])
		require.Equal(t, api.PersistentVolumeReclaimPolicy("Delete"), v.Spec.PersistentVolumeReclaimPolicy)
		require.Equal(t, "1Gi", v.Spec.Capacity[api.ResourceStorage].String())
		require.Equal(t, api.PersistentVolumeClaimPhase("Pending"), e.pvc("nothing").Status.Phase, "no-provisioner: static volumes only")
		kept := e.pvc("kept")
		require.Equal(t, api.PersistentVolumeClaimPhase("Bound"), kept.Status.Phase)

		for _, name := range []string{"data", "kept"} {
			_, err := e.c.PersistentVolumeClaims().DeleteWith(e.ctx, "default/"+name, cluster.DeleteOptions{})
			require.NoError(t, err)
		}
		e.settle()
		_, ok := e.pv(c.Spec.VolumeName)
		require.False(t, ok, "the class's default policy Delete")
		v, ok = e.pv(kept.Spec.VolumeName)
		require.True(t, ok)
		require.Equal(t, api.PersistentVolumePhase("Released"), v.Status.Phase)
		n := 0
		for _, ev := range e.rec.Events() {
			if ev.Reason == "ProvisioningSucceeded" {
				n++
			}
		}
		require.Equal(t, 2, n)
	})
}

// WaitForFirstConsumer end to end, with a fake scheduler step: the claim
// waits (WaitForFirstConsumer, then WaitForPodScheduled once a pod uses
// it), is provisioned for the node the "scheduler" writes into
// volume.kubernetes.io/selected-node, and a static volume the
// "scheduler" pre-binds is bound.
func TestWaitForFirstConsumer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		wait := persistentvolume.BindingWaitForFirstConsumer
		e.create(
			&api.StorageClass{ObjectMeta: api.ObjectMeta{Name: "standard", Annotations: map[string]string{persistentvolume.AnnDefaultStorageClass: "true"}},
				Provisioner: "rancher.io/local-path", VolumeBindingMode: &wait},
			&api.StorageClass{ObjectMeta: api.ObjectMeta{Name: "local"}, Provisioner: persistentvolume.NoProvisioner, VolumeBindingMode: &wait},
		)
		e.create(claim("www-web-0", "1Gi", nil))
		e.settle()
		c := e.pvc("www-web-0")
		require.Equal(t, "standard", *c.Spec.StorageClassName)
		require.Equal(t, api.PersistentVolumeClaimPhase("Pending"), c.Status.Phase)
		require.Contains(t, e.rec.Strings(), "Normal WaitForFirstConsumer waiting for first consumer to be created before binding")
		vols, err := e.c.PersistentVolumes().List(e.ctx, source.ListOptions{})
		require.NoError(t, err)
		require.Empty(t, vols.Items, "nothing provisioned before a node is selected")

		e.create(&api.Pod{ObjectMeta: api.ObjectMeta{Name: "web-0", Namespace: "default"}, Spec: api.PodSpec{
			Containers: []api.Container{{Name: "app", Image: "nginx"}},
			Volumes: []api.Volume{{Name: "www", VolumeSource: api.VolumeSource{
				PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: "www-web-0"}}}}}})
		e.settle()
		require.Contains(t, e.rec.Strings(), "Normal WaitForPodScheduled waiting for pod web-0 to be scheduled")

		// The fake scheduler picks node-a for the pod's claim.
		e.create(&api.Node{ObjectMeta: api.ObjectMeta{Name: "node-a", Labels: map[string]string{persistentvolume.LabelHostname: "node-a"}}})
		c = e.pvc("www-web-0")
		c.Annotations = map[string]string{persistentvolume.AnnSelectedNode: "node-a"}
		_, err = e.c.PersistentVolumeClaims().Update(e.ctx, c, "")
		require.NoError(t, err)
		e.settle()
		c = e.pvc("www-web-0")
		require.Equal(t, api.PersistentVolumeClaimPhase("Bound"), c.Status.Phase)
		v, ok := e.pv(c.Spec.VolumeName)
		require.True(t, ok)
		require.Equal(t, "rancher.io/local-path", v.Annotations[persistentvolume.AnnProvisionedBy])
		require.True(t, v.Spec.NodeAffinity.Required.Matches(&api.Node{ObjectMeta: api.ObjectMeta{Name: "node-a", Labels: map[string]string{persistentvolume.LabelHostname: "node-a"}}}))
		require.False(t, v.Spec.NodeAffinity.Required.Matches(&api.Node{ObjectMeta: api.ObjectMeta{Name: "node-b", Labels: map[string]string{persistentvolume.LabelHostname: "node-b"}}}))

		// A static local volume is bound once the scheduler pre-binds it.
		local := "local"
		lv := staticPV("local-1", "5Gi", "Retain")
		lv.Spec.StorageClassName = "local"
		lv.Spec.NodeAffinity = &api.VolumeNodeAffinity{Required: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{
			MatchExpressions: []api.NodeSelectorRequirement{{Key: persistentvolume.LabelHostname, Operator: "In", Values: []string{"node-a"}}}}}}}
		e.create(lv, claim("logs", "1Gi", &local))
		e.settle()
		require.Equal(t, api.PersistentVolumeClaimPhase("Pending"), e.pvc("logs").Status.Phase, "not bound without the scheduler")
		lv, _ = e.pv("local-1")
		require.Equal(t, api.PersistentVolumePhase("Available"), lv.Status.Phase)
		lv.Spec.ClaimRef = &api.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: "default", Name: "logs"}
		_, err = e.c.PersistentVolumes().Update(e.ctx, lv, "")
		require.NoError(t, err)
		e.settle()
		logs := e.pvc("logs")
		require.Equal(t, api.PersistentVolumeClaimPhase("Bound"), logs.Status.Phase)
		require.Equal(t, "local-1", logs.Spec.VolumeName)
	})
}
