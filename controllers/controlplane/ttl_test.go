package controlplane_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane"
	"github.com/ctrlkit/ctrlkit/source"
)

// Two controllers kcm runs that a bare cluster lacks: a finished Job with
// ttlSecondsAfterFinished is deleted with its pods when the TTL runs out
// (ttl-after-finished-controller and the garbage collector), and a new
// namespace gets kube-root-ca.crt (root-ca-certificate-publisher-controller).
func TestTTLAfterFinishedAndRootCAEndToEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		cp, err := controlplane.Start(ctx, controlplane.Options{Nodes: 1})
		require.NoError(t, err)
		defer func() { require.NoError(t, cp.Stop()) }()
		ttl, one := int32(30), int32(1)
		require.NoError(t, cp.Apply(ctx, &api.Job{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "once"},
			Spec: api.JobSpec{TTLSecondsAfterFinished: &ttl, Completions: &one, Template: api.PodTemplateSpec{Spec: api.PodSpec{
				RestartPolicy: api.RestartPolicyNever, Containers: []api.Container{{Name: "c", Image: "busybox"}}}}}}))
		require.NoError(t, cp.Apply(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "team"}}))
		time.Sleep(15 * time.Second) // the pod runs and succeeds
		synctest.Wait()
		j, _, err := cp.Cluster.Jobs().Get(ctx, "default/once")
		require.NoError(t, err)
		var done time.Time
		for _, c := range j.Status.Conditions {
			if c.Type == api.JobComplete && c.Status == api.ConditionTrue {
				done = c.LastTransitionTime.Time
			}
		}
		require.False(t, done.IsZero(), "the job completed: %+v", j.Status)
		pods, err := cp.Cluster.Pods().List(ctx, source.ListOptions{})
		require.NoError(t, err)
		require.Len(t, pods.Items, 1, "its pod is kept until the TTL")

		time.Sleep(time.Until(done.Add(29 * time.Second)))
		synctest.Wait()
		_, _, err = cp.Cluster.Jobs().Get(ctx, "default/once")
		require.NoError(t, err, "not before the TTL")
		time.Sleep(5 * time.Second)
		synctest.Wait()
		_, _, err = cp.Cluster.Jobs().Get(ctx, "default/once")
		require.ErrorIs(t, err, source.ErrNotFound)
		pods, err = cp.Cluster.Pods().List(ctx, source.ListOptions{})
		require.NoError(t, err)
		require.Empty(t, pods.Items, "the pods went first (foreground)")

		cm, _, err := cp.Cluster.ConfigMaps().Get(ctx, "team/kube-root-ca.crt")
		require.NoError(t, err)
		require.Contains(t, cm.Data, "ca.crt")
	})
}
