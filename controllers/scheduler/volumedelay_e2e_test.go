package scheduler_test

import (
	"context"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/scheduler"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/informer"
)

// WaitForFirstConsumer end to end over the in-process cluster, the
// scheduler wired as the control plane wires it (shared informers,
// ClusterWriter), with the test playing the PersistentVolume controller
// and the provisioner: a claim of a local class is pre-bound to the
// available volume on the one node it can be on, a claim of a
// provisioning class is annotated with the chosen node, the pod is bound
// only once its claims are, and a claim nobody binds fails the PreBind
// after the 600 s bind timeout, the pod going back to the queue.
func TestWaitForFirstConsumer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		c, err := cluster.New(ctx, cluster.Options{})
		require.NoError(t, err)
		for _, name := range []string{"n1", "n2", "n3"} {
			n := node(name, "4", "8Gi")
			n.Labels = map[string]string{"kubernetes.io/hostname": name}
			_, err = c.Nodes().Create(ctx, n)
			require.NoError(t, err)
		}
		wffc := api.VolumeBindingMode("WaitForFirstConsumer")
		for name, prov := range map[string]string{"local": scheduler.NoProvisioner, "fast": "sim.ctrlkit.dev"} {
			_, err = c.StorageClasses().Create(ctx, &api.StorageClass{ObjectMeta: api.ObjectMeta{Name: name},
				Provisioner: prov, VolumeBindingMode: &wffc})
			require.NoError(t, err)
		}
		f := informer.NewFactory(informer.FactoryOptions{Logger: slog.New(slog.DiscardHandler)})
		defer f.Shutdown()
		pvcs, err := informer.Shared(f, c.PersistentVolumeClaims().Resource(), c.PersistentVolumeClaims(),
			api.Key[*api.PersistentVolumeClaim], informer.Options[*api.PersistentVolumeClaim]{})
		require.NoError(t, err)
		pvs, err := informer.Shared(f, c.PersistentVolumes().Resource(), c.PersistentVolumes(),
			api.Key[*api.PersistentVolume], informer.Options[*api.PersistentVolume]{})
		require.NoError(t, err)
		classes, err := informer.Shared(f, c.StorageClasses().Resource(), c.StorageClasses(),
			api.Key[*api.StorageClass], informer.Options[*api.StorageClass]{})
		require.NoError(t, err)
		w := scheduler.ClusterWriter{Cluster: c}
		rec := events.NewMemory()
		s, err := scheduler.New(scheduler.Options{Pods: c.Pods(), Nodes: c.Nodes(), Binder: w, Status: w, Recorder: rec,
			Claims: scheduler.ClaimsFrom(pvcs.Lister()), Volumes: scheduler.VolumesFrom(pvs.Lister()),
			StorageClasses: scheduler.StorageClassesFrom(classes.Lister()), VolumeList: scheduler.VolumeListFrom(pvs.Lister()),
			VolumeWriter: w,
			Synced:       []func() bool{pvcs.HasSynced, pvs.HasSynced, classes.HasSynced},
			Logger:       slog.New(slog.DiscardHandler)})
		require.NoError(t, err)
		done := make(chan error, 1)
		go func() { done <- s.Run(ctx) }()
		f.Start(ctx)

		// A local volume on n2, available.
		_, err = c.PersistentVolumes().Create(ctx, &api.PersistentVolume{ObjectMeta: api.ObjectMeta{Name: "local-n2"},
			Spec: api.PersistentVolumeSpec{StorageClassName: "local",
				Capacity:    api.ResourceList{api.ResourceStorage: api.MustParse("10Gi")},
				AccessModes: []api.PersistentVolumeAccessMode{"ReadWriteOnce"},
				NodeAffinity: &api.VolumeNodeAffinity{Required: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{
					MatchExpressions: []api.NodeSelectorRequirement{{Key: "kubernetes.io/hostname", Operator: api.NodeSelectorOpIn, Values: []string{"n2"}}}}}}}}})
		require.NoError(t, err)
		pv, _, err := c.PersistentVolumes().Get(ctx, "local-n2")
		require.NoError(t, err)
		pv.Status.Phase = "Available"
		_, err = c.PersistentVolumes().UpdateStatus(ctx, pv)
		require.NoError(t, err)
		claim := func(name, class string) {
			_, err := c.PersistentVolumeClaims().Create(ctx, &api.PersistentVolumeClaim{
				ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name},
				Spec: api.PersistentVolumeClaimSpec{StorageClassName: &class,
					AccessModes: []api.PersistentVolumeAccessMode{"ReadWriteOnce"},
					Resources:   api.VolumeResourceRequirements{Requests: api.ResourceList{api.ResourceStorage: api.MustParse("1Gi")}}}})
			require.NoError(t, err)
		}
		claim("data-local", "local")
		claim("data-fast", "fast")
		claim("data-never", "fast")
		mkPod := func(name, claim string) {
			p := pod(name, "1")
			p.UID = ""
			p.Spec.Containers[0].Image = "nginx"
			p.Spec.Volumes = []api.Volume{{Name: "data", VolumeSource: api.VolumeSource{
				PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}}
			_, err := c.Pods().Create(ctx, p)
			require.NoError(t, err)
		}
		nodeOf := func(name string) string {
			p, _, err := c.Pods().Get(ctx, "default/"+name)
			require.NoError(t, err)
			return p.Spec.NodeName
		}
		getClaim := func(name string) (*api.PersistentVolumeClaim, string) {
			pvc, rv, err := c.PersistentVolumeClaims().Get(ctx, "default/"+name)
			require.NoError(t, err)
			return pvc, rv
		}
		// bindClaim does what the PersistentVolume controller does.
		bindClaim := func(name, volume string) {
			pvc, rv := getClaim(name)
			pvc.Spec.VolumeName = volume
			if pvc.Annotations == nil {
				pvc.Annotations = map[string]string{}
			}
			pvc.Annotations[scheduler.AnnBindCompleted] = "yes"
			_, err := c.PersistentVolumeClaims().Update(ctx, pvc, rv)
			require.NoError(t, err)
		}

		mkPod("local", "data-local")
		mkPod("fast", "data-fast")
		time.Sleep(3 * time.Second)
		synctest.Wait()
		// PreBind wrote, and waits: no pod is bound yet.
		pv, _, err = c.PersistentVolumes().Get(ctx, "local-n2")
		require.NoError(t, err)
		require.NotNil(t, pv.Spec.ClaimRef)
		require.Equal(t, "data-local", pv.Spec.ClaimRef.Name)
		require.Equal(t, "yes", pv.Annotations[scheduler.AnnBoundByController])
		pvc, _ := getClaim("data-fast")
		selected := pvc.Annotations[scheduler.AnnSelectedNode]
		require.NotEmpty(t, selected)
		require.Empty(t, nodeOf("local"))
		require.Empty(t, nodeOf("fast"))

		bindClaim("data-local", "local-n2")
		_, err = c.PersistentVolumes().Create(ctx, &api.PersistentVolume{ObjectMeta: api.ObjectMeta{Name: "pvc-fast"},
			Spec: api.PersistentVolumeSpec{StorageClassName: "fast",
				Capacity:    api.ResourceList{api.ResourceStorage: api.MustParse("1Gi")},
				AccessModes: []api.PersistentVolumeAccessMode{"ReadWriteOnce"}, ClaimRef: &api.ObjectReference{Namespace: "default", Name: "data-fast", UID: pvc.UID}}})
		require.NoError(t, err)
		bindClaim("data-fast", "pvc-fast")
		time.Sleep(2 * time.Second)
		synctest.Wait()
		require.Equal(t, "n2", nodeOf("local"), "the only node the local volume admits")
		require.Equal(t, selected, nodeOf("fast"), "the node the claim was provisioned for")

		// Nobody provisions data-never: PreBind gives up after 600 s
		// and the pod is retried, to its selected node only.
		mkPod("never", "data-never")
		time.Sleep(3 * time.Second)
		synctest.Wait()
		never, _ := getClaim("data-never")
		selected = never.Annotations[scheduler.AnnSelectedNode]
		require.NotEmpty(t, selected)
		failures := func() []string {
			var out []string
			for _, ev := range rec.Events() {
				if ev.Regarding.Name == "never" && ev.Reason == scheduler.ReasonFailedScheduling {
					out = append(out, ev.Message)
				}
			}
			return out
		}
		time.Sleep(scheduler.DefaultBindTimeout - 4*time.Second) // 599 s after the PreBind began
		synctest.Wait()
		require.Empty(t, failures(), "still waiting within the bind timeout")
		time.Sleep(2 * time.Second)
		synctest.Wait()
		require.Empty(t, nodeOf("never"))
		require.Equal(t, []string{`running PreBind plugin "VolumeBinding": binding volumes: context deadline exceeded`}, failures())
		// Retried after its backoff: only the selected node fits now.
		time.Sleep(2 * time.Second)
		synctest.Wait()
		e, ok := s.Explain("default/never")
		require.True(t, ok)
		require.Equal(t, selected, e.Node)
		for _, v := range e.Verdicts {
			if v.Node != selected {
				require.Equal(t, []string{scheduler.ReasonBindConflict}, v.Reasons, v.Node)
			}
		}

		// The provisioner fails: it removes the annotation, and the
		// waiting PreBind fails at its next check.
		never, rv := getClaim("data-never")
		delete(never.Annotations, scheduler.AnnSelectedNode)
		_, err = c.PersistentVolumeClaims().Update(ctx, never, rv)
		require.NoError(t, err)
		time.Sleep(1500 * time.Millisecond)
		synctest.Wait()
		require.Equal(t, `running PreBind plugin "VolumeBinding": binding volumes: provisioning failed for PVC "data-never"`, failures()[1])
		require.Empty(t, nodeOf("never"))

		cancel()
		require.ErrorIs(t, <-done, context.Canceled)
	})
}
