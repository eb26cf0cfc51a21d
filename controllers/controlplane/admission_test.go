package controlplane_test

import (
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/admission"
	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane"
)

// The control plane runs kube-apiserver's LimitRanger and Priority
// plugins: a namespace's LimitRange defaults a pod's containers, a pod
// naming an unknown priority class is refused (403), a pod naming none
// gets priority 0, and the system priority classes exist.
func TestControlPlaneLimitRangerAndPriority(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		cp, err := controlplane.Start(ctx, controlplane.Options{})
		require.NoError(t, err)
		defer func() { require.NoError(t, cp.Stop()) }()
		c := cp.Cluster
		require.NoError(t, cp.Settle(ctx, 0)) // the default service account

		classes, err := client.For[*api.PriorityClass](c)
		require.NoError(t, err)
		pc, _, err := classes.Get(ctx, api.SystemNodeCritical)
		require.NoError(t, err)
		require.EqualValues(t, 2000001000, pc.Value)
		_, _, err = classes.Get(ctx, api.SystemClusterCritical)
		require.NoError(t, err)

		q := func(s string) api.Quantity { return api.MustParse(s) }
		_, err = c.CreateObject(ctx, &api.LimitRange{ObjectMeta: api.ObjectMeta{Name: "lr", Namespace: "default"},
			Spec: api.LimitRangeSpec{Limits: []api.LimitRangeItem{{Type: api.LimitTypeContainer,
				Default:        api.ResourceList{"cpu": q("500m"), "memory": q("512Mi")},
				DefaultRequest: api.ResourceList{"cpu": q("250m"), "memory": q("256Mi")}}}}})
		require.NoError(t, err)
		pod := func(name, class string) *api.Pod {
			return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"}, Spec: api.PodSpec{
				PriorityClassName: class, Containers: []api.Container{{Name: "web", Image: "nginx"}}}}
		}
		_, err = c.Pods().Create(ctx, pod("web", ""))
		require.NoError(t, err)
		got, _, err := c.Pods().Get(ctx, "default/web")
		require.NoError(t, err)
		r := got.Spec.Containers[0].Resources
		require.Equal(t, "250m", r.Requests.Cpu().String())
		require.Equal(t, "256Mi", r.Requests.Memory().String())
		require.Equal(t, "500m", r.Limits.Cpu().String())
		require.Equal(t, "512Mi", r.Limits.Memory().String())
		require.Equal(t, "LimitRanger plugin set: cpu, memory request for container web; cpu, memory limit for container web",
			got.Annotations[admission.AnnotationLimitRanger])
		require.NotNil(t, got.Spec.Priority)
		require.EqualValues(t, 0, *got.Spec.Priority)

		_, err = c.Pods().Create(ctx, pod("nope", "no-such-class"))
		require.ErrorIs(t, err, client.ErrForbidden)
		msg, ok := admission.ForbiddenMessage(err)
		require.True(t, ok, "%v", err)
		require.Equal(t, "no PriorityClass with name no-such-class was found", msg)

		_, err = c.Pods().Create(ctx, pod("critical", api.SystemNodeCritical))
		require.NoError(t, err)
		got, _, err = c.Pods().Get(ctx, "default/critical")
		require.NoError(t, err)
		require.EqualValues(t, 2000001000, *got.Spec.Priority)
	})
}
