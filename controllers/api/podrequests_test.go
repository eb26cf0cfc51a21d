package api_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// reqs builds a ResourceList from name, quantity pairs.
func reqs(kv ...string) api.ResourceList {
	l := api.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		l[api.ResourceName(kv[i])] = api.MustParse(kv[i+1])
	}
	return l
}

// ctr is a container requesting cpu; sidecar makes it restartable.
func ctr(name, cpu string, sidecar bool) api.Container {
	c := api.Container{Name: name, Resources: api.ResourceRequirements{Requests: reqs("cpu", cpu)}}
	if sidecar {
		always := api.ContainerRestartPolicy(api.RestartPolicyAlways)
		c.RestartPolicy = &always
	}
	return c
}

func requireSameResources(t *testing.T, want, got api.ResourceList) {
	t.Helper()
	require.NotNil(t, got)
	require.Len(t, got, len(want), "got %v", got)
	for name, q := range want {
		g, ok := got[name]
		require.True(t, ok, "%s missing from %v", name, got)
		require.Zero(t, q.Cmp(g), "%s: want %s, got %s", name, q, g)
	}
}

// Cases ported from Kubernetes'
// staging/src/k8s.io/component-helpers/resource/helpers_test.go
// (TestPodResourceRequests, TestPodRequestsAndLimits,
// TestPodRequestsAndLimitsWithoutOverhead); the cases on in-place resize
// status are left out, as ctrlkit's pods have no resize.
func TestPodRequests(t *testing.T) {
	cases := []struct {
		name     string
		opts     api.PodRequestsOptions
		overhead api.ResourceList
		inits    []api.Container
		apps     []api.Container
		want     api.ResourceList
	}{
		{name: "larger init container", want: reqs("cpu", "4"),
			inits: []api.Container{ctr("", "4", false)},
			apps:  []api.Container{ctr("", "1", false)}},
		{name: "larger containers", want: reqs("cpu", "5"),
			inits: []api.Container{ctr("", "2", false)},
			apps:  []api.Container{ctr("", "2", false), ctr("", "3", false)}},
		{name: "pod overhead excluded", want: reqs("cpu", "5"),
			opts:     api.PodRequestsOptions{ExcludeOverhead: true},
			overhead: reqs("cpu", "1"),
			inits:    []api.Container{ctr("", "2", false)},
			apps:     []api.Container{ctr("", "2", false), ctr("", "3", false)}},
		{name: "pod overhead included", want: reqs("cpu", "6", "memory", "1Gi"),
			overhead: reqs("cpu", "1", "memory", "1Gi"),
			inits:    []api.Container{ctr("", "2", false)},
			apps:     []api.Container{ctr("", "2", false), ctr("", "3", false)}},
		{name: "just overhead", want: reqs("cpu", "5", "memory", "5"),
			overhead: reqs("cpu", "5", "memory", "5")},
		{name: "no requests", want: api.ResourceList{},
			apps: []api.Container{{Name: "c"}}},
		{name: "restartable init container", want: reqs("cpu", "2"),
			inits: []api.Container{ctr("restartable-init-1", "1", true)},
			apps:  []api.Container{ctr("container-1", "1", false)}},
		// max(5, restartable init containers (3+2+1) + regular (1)) = 7
		{name: "multiple restartable init containers", want: reqs("cpu", "7"),
			inits: []api.Container{ctr("init-1", "5", false), ctr("restartable-init-1", "1", true),
				ctr("restartable-init-2", "2", true), ctr("restartable-init-3", "3", true)},
			apps: []api.Container{ctr("container-1", "1", false)}},
		// init-2 needs 5 + the restartable init containers started before
		// it (1+2) = 8; the one started after it does not count.
		{name: "multiple restartable and regular init containers", want: reqs("cpu", "8"),
			inits: []api.Container{ctr("init-1", "5", false), ctr("restartable-init-1", "1", true),
				ctr("restartable-init-2", "2", true), ctr("init-2", "5", false), ctr("restartable-init-3", "3", true)},
			apps: []api.Container{ctr("container-1", "1", false)}},
		{name: "restartable-init, init and regular", want: reqs("cpu", "210"),
			inits: []api.Container{ctr("restartable-init-1", "10", true), ctr("init-1", "200", false)},
			apps:  []api.Container{ctr("container-1", "100", false)}},
		{name: "two containers with overhead, massive init: the largest init", want: reqs("cpu", "40", "memory", "120"),
			opts:     api.PodRequestsOptions{ExcludeOverhead: true},
			overhead: reqs("cpu", "3", "memory", "8"),
			inits: []api.Container{
				{Name: "small-init", Resources: api.ResourceRequirements{Requests: reqs("cpu", "1", "memory", "5")}},
				{Name: "big-init", Resources: api.ResourceRequirements{Requests: reqs("cpu", "40", "memory", "120")}}},
			apps: []api.Container{
				{Name: "foobar", Resources: api.ResourceRequirements{Requests: reqs("cpu", "1", "memory", "5")}},
				{Name: "foobar2", Resources: api.ResourceRequirements{Requests: reqs("cpu", "4", "memory", "12")}}}},
		// Not upstream's: NonMissingContainerRequests (kube-scheduler's
		// non-zero requests) fills only what a container leaves out.
		{name: "non-missing defaults fill absent requests only", want: reqs("cpu", "1100m", "memory", "200Mi"),
			opts: api.PodRequestsOptions{NonMissingContainerRequests: reqs("cpu", "100m", "memory", "200Mi")},
			apps: []api.Container{
				ctr("a", "1", false),
				{Name: "b", Resources: api.ResourceRequirements{Requests: reqs("memory", "0")}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := &api.Pod{Spec: api.PodSpec{InitContainers: tc.inits, Containers: tc.apps, Overhead: tc.overhead}}
			got := api.PodRequestsWith(p, tc.opts)
			requireSameResources(t, tc.want, got)
			if tc.opts.NonMissingContainerRequests == nil && !tc.opts.ExcludeOverhead {
				requireSameResources(t, tc.want, api.PodRequests(p))
			}
		})
	}
}

// The result is the caller's: changing it leaves the pod alone.
func TestPodRequestsResultIsPrivate(t *testing.T) {
	p := &api.Pod{Spec: api.PodSpec{Containers: []api.Container{ctr("a", "1", false)}}}
	got := api.PodRequests(p)
	got["cpu"] = api.MustParse("9")
	require.Zero(t, p.Spec.Containers[0].Resources.Requests.Cpu().Cmp(api.MustParse("1")))
}

// lim is a container with the given limits and no requests.
func lim(kv ...string) api.Container {
	return api.Container{Name: "c", Resources: api.ResourceRequirements{Limits: reqs(kv...)}}
}

// Cases ported from Kubernetes'
// staging/src/k8s.io/component-helpers/resource/helpers_test.go
// (TestPodRequestsAndLimits and the limits of TestPodResourcesWithStatus:
// "regular and init containers with limits", "regular, init and sidecar
// containers with limits").
func TestPodLimits(t *testing.T) {
	sidecar := func(c api.Container) api.Container {
		always := api.ContainerRestartPolicy(api.RestartPolicyAlways)
		c.RestartPolicy = &always
		return c
	}
	cases := []struct {
		name     string
		overhead api.ResourceList
		inits    []api.Container
		apps     []api.Container
		want     api.ResourceList
	}{
		{name: "just-limit-no-overhead", want: reqs("cpu", "9"), apps: []api.Container{lim("cpu", "9")}},
		{name: "just-overhead", want: api.ResourceList{}, overhead: reqs("cpu", "5", "memory", "5")},
		{name: "all-lim-and-overhead", want: reqs("cpu", "7", "memory", "17"),
			overhead: reqs("cpu", "5", "memory", "5"), apps: []api.Container{lim("cpu", "2", "memory", "12")}},
		// Overhead is added only to what is limited: memory stays unlimited.
		{name: "some-lim-and-overhead", want: reqs("cpu", "7"),
			overhead: reqs("cpu", "5", "memory", "5"), apps: []api.Container{lim("cpu", "2")}},
		{name: "regular and init containers with limits", want: reqs("cpu", "9"),
			inits: []api.Container{lim("cpu", "9")}, apps: []api.Container{lim("cpu", "9")}},
		{name: "regular, init and sidecar containers with limits", want: reqs("cpu", "17"),
			inits: []api.Container{sidecar(lim("cpu", "8")), lim("cpu", "6")}, apps: []api.Container{lim("cpu", "9")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := &api.Pod{Spec: api.PodSpec{InitContainers: tc.inits, Containers: tc.apps, Overhead: tc.overhead}}
			requireSameResources(t, tc.want, api.PodLimits(p))
		})
	}
}

// Requests default to limits for what a container limits and does not
// request (kube-apiserver's SetDefaults_Pod), in init containers too; an
// explicit request, even zero, is kept.
func TestDefaultRequestsFromLimits(t *testing.T) {
	spec := api.PodSpec{
		InitContainers: []api.Container{lim("memory", "1Gi")},
		Containers: []api.Container{
			{Name: "a", Resources: api.ResourceRequirements{Limits: reqs("cpu", "2", "memory", "1Gi"), Requests: reqs("cpu", "0")}},
			{Name: "b"},
		},
	}
	api.DefaultRequestsFromLimits(&spec)
	requireSameResources(t, reqs("memory", "1Gi"), spec.InitContainers[0].Resources.Requests)
	requireSameResources(t, reqs("cpu", "0", "memory", "1Gi"), spec.Containers[0].Resources.Requests)
	require.Nil(t, spec.Containers[1].Resources.Requests, "nothing limited, nothing requested")
	api.DefaultRequestsFromLimits(&spec) // idempotent
	requireSameResources(t, reqs("cpu", "0", "memory", "1Gi"), spec.Containers[0].Resources.Requests)
}
