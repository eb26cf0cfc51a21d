package cluster_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

func ephemeral(name, image, target string) api.EphemeralContainer {
	return api.EphemeralContainer{Container: api.Container{Name: name, Image: image}, TargetContainerName: target}
}

// Issue 32: the pods/ephemeralcontainers write (UpdateEphemeralContainers)
// as kube's ValidatePodEphemeralContainersUpdate and
// validateEphemeralContainers. Rows ported from
// pkg/apis/core/validation/validation_test.go
// (TestValidatePodEphemeralContainersUpdate, and the ephemeral container
// rows of TestValidateEphemeralContainers).
func TestUpdateEphemeralContainers(t *testing.T) {
	one := int32(1)
	for _, tc := range []struct {
		name        string
		annotations map[string]string
		old, new    []api.EphemeralContainer
		err         string
	}{
		{name: "no ephemeral containers"},
		{name: "No change in Ephemeral Containers", old: []api.EphemeralContainer{ephemeral("debugger", "busybox", "")}, new: []api.EphemeralContainer{ephemeral("debugger", "busybox", "")}},
		{name: "Ephemeral Container list order changes",
			old: []api.EphemeralContainer{ephemeral("debugger", "busybox", ""), ephemeral("debugger2", "busybox", "")},
			new: []api.EphemeralContainer{ephemeral("debugger2", "busybox", ""), ephemeral("debugger", "busybox", "")}},
		{name: "Add an Ephemeral Container", new: []api.EphemeralContainer{ephemeral("debugger", "busybox", "")}},
		{name: "Add two Ephemeral Containers", new: []api.EphemeralContainer{ephemeral("debugger1", "busybox", ""), ephemeral("debugger2", "busybox", "")}},
		{name: "Add to an existing Ephemeral Containers", old: []api.EphemeralContainer{ephemeral("debugger", "busybox", "")},
			new: []api.EphemeralContainer{ephemeral("debugger", "busybox", ""), ephemeral("debugger2", "busybox", "")}},
		{name: "Remove an Ephemeral Container", old: []api.EphemeralContainer{ephemeral("debugger", "busybox", "")},
			err: `spec.ephemeralContainers: Forbidden: existing ephemeral containers "debugger" may not be removed`},
		{name: "Replace an Ephemeral Container", old: []api.EphemeralContainer{ephemeral("firstone", "busybox", "")},
			new: []api.EphemeralContainer{ephemeral("thentheother", "busybox", "")}, err: "may not be removed"},
		{name: "Change an Ephemeral Containers", old: []api.EphemeralContainer{ephemeral("debugger1", "busybox", "")},
			new: []api.EphemeralContainer{ephemeral("debugger1", "debian", "")}, err: `existing ephemeral containers "debugger1" may not be changed`},
		{name: "Add ephemeral container to static pod", annotations: map[string]string{"kubernetes.io/config.mirror": "someHashValue"},
			new: []api.EphemeralContainer{ephemeral("debugger1", "debian", "")}, err: "Forbidden: static pods do not support ephemeral containers"},
		// validateEphemeralContainers.
		{name: "Container name not unique", new: []api.EphemeralContainer{ephemeral("ctr", "debian", "")}, err: `spec.ephemeralContainers[0].name: Duplicate value: "ctr"`},
		{name: "Ephemeral name not unique", new: []api.EphemeralContainer{ephemeral("debug", "debian", ""), ephemeral("debug", "busybox", "")},
			err: `spec.ephemeralContainers[1].name: Duplicate value: "debug"`},
		{name: "Target container not found", new: []api.EphemeralContainer{ephemeral("debug", "debian", "bogus")},
			err: `spec.ephemeralContainers[0].targetContainerName: Not found: "bogus"`},
		{name: "Target container found", new: []api.EphemeralContainer{ephemeral("debug", "debian", "ctr")}},
		{name: "Empty image", new: []api.EphemeralContainer{ephemeral("debug", "", "")}, err: "spec.ephemeralContainers[0].image: Required value"},
		{name: "Container uses disallowed field: Ports", new: []api.EphemeralContainer{{Container: api.Container{Name: "debug", Image: "image",
			Ports: []api.ContainerPort{{Name: "debug", ContainerPort: 80, Protocol: "TCP"}}}}},
			err: "spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container"},
		{name: "Container uses disallowed field: LivenessProbe", new: []api.EphemeralContainer{{Container: api.Container{Name: "debug", Image: "image",
			LivenessProbe: &api.Probe{PeriodSeconds: one}}}},
			err: "spec.ephemeralContainers[0].livenessProbe: Forbidden: cannot be set for an Ephemeral Container"},
		{name: "Container uses disallowed field: Lifecycle", new: []api.EphemeralContainer{{Container: api.Container{Name: "debug", Image: "image",
			Lifecycle: &api.Lifecycle{}}}},
			err: "spec.ephemeralContainers[0].lifecycle: Forbidden: cannot be set for an Ephemeral Container"},
		{name: "Container uses disallowed field: Resources", new: []api.EphemeralContainer{{Container: api.Container{Name: "debug", Image: "image",
			Resources: api.ResourceRequirements{Limits: api.ResourceList{api.ResourceCPU: api.MustParse("1")}}}}},
			err: "spec.ephemeralContainers[0].resources: Forbidden: cannot be set for an Ephemeral Container"},
		{name: "Container uses disallowed field: VolumeMount.SubPath", new: []api.EphemeralContainer{{Container: api.Container{Name: "debug", Image: "image",
			VolumeMounts: []api.VolumeMount{{Name: "vol", MountPath: "/vol", SubPath: "foo"}}}}},
			err: "spec.ephemeralContainers[0].volumeMounts[0].subPath: Forbidden: cannot be set for an Ephemeral Container"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := cluster.New(t.Context(), cluster.Options{})
			require.NoError(t, err)
			ctx := t.Context()
			_, err = c.Pods().Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "pod", Namespace: "default", Annotations: tc.annotations},
				Spec: api.PodSpec{Containers: []api.Container{{Name: "ctr", Image: "image"}},
					Volumes: []api.Volume{{Name: "vol", VolumeSource: api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{}}}}}})
			require.NoError(t, err)
			if tc.old != nil {
				p, _, err := c.Pods().Get(ctx, "default/pod")
				require.NoError(t, err)
				p.Spec.EphemeralContainers = tc.old
				_, err = c.UpdateEphemeralContainers(ctx, p)
				require.NoError(t, err)
			}
			p, rv, err := c.Pods().Get(ctx, "default/pod")
			require.NoError(t, err)
			p.Spec.EphemeralContainers = tc.new
			p.Spec.Containers[0].Image = "ignored" // only the ephemeral containers are written
			_, err = c.UpdateEphemeralContainers(ctx, p)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			got, rv2, err := c.Pods().Get(ctx, "default/pod")
			require.NoError(t, err)
			require.Equal(t, "image", got.Spec.Containers[0].Image)
			require.Len(t, got.Spec.EphemeralContainers, len(tc.new))
			if len(tc.new) > 0 && tc.old == nil {
				require.NotEqual(t, rv, rv2)
				require.Equal(t, "/dev/termination-log", got.Spec.EphemeralContainers[0].TerminationMessagePath)
			}
		})
	}

	// Not on create, not through a plain update, not in a template.
	c, err := cluster.New(t.Context(), cluster.Options{})
	require.NoError(t, err)
	_, err = c.Pods().Create(t.Context(), &api.Pod{ObjectMeta: api.ObjectMeta{Name: "pod", Namespace: "default"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "ctr", Image: "image"}}, EphemeralContainers: []api.EphemeralContainer{ephemeral("debug", "busybox", "")}}})
	require.ErrorContains(t, err, "spec.ephemeralContainers: Forbidden: cannot be set on create")
	_, err = c.Pods().Create(t.Context(), &api.Pod{ObjectMeta: api.ObjectMeta{Name: "pod", Namespace: "default"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "ctr", Image: "image"}}}})
	require.NoError(t, err)
	p, _, err := c.Pods().Get(t.Context(), "default/pod")
	require.NoError(t, err)
	p.Spec.EphemeralContainers = []api.EphemeralContainer{ephemeral("debug", "busybox", "")}
	_, err = c.Pods().Update(t.Context(), p, "")
	require.ErrorContains(t, err, "pod updates may not change fields")
	_, err = c.Deployments().Create(t.Context(), &api.Deployment{ObjectMeta: api.ObjectMeta{Name: "d", Namespace: "default"},
		Spec: api.DeploymentSpec{Selector: &api.LabelSelector{MatchLabels: map[string]string{"a": "b"}},
			Template: api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"a": "b"}},
				Spec: api.PodSpec{Containers: []api.Container{{Name: "ctr", Image: "image"}}, EphemeralContainers: []api.EphemeralContainer{ephemeral("debug", "busybox", "")}}}}})
	require.ErrorContains(t, err, "spec.template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template")
}
