package admission_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/admission"
	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// newCluster returns a cluster with the LimitRanger and Priority plugins
// wired as their docs say.
func newCluster(t *testing.T) *cluster.Cluster {
	t.Helper()
	ctx := context.Background()
	lr, pr := admission.NewLimitRanger(), admission.NewPriority()
	c, err := cluster.New(ctx, cluster.Options{
		Mutating:  []admission.MutatingFunc{lr.Admit, pr.Admit},
		Admission: []admission.ValidatingFunc{lr.Validate, pr.Validate}})
	require.NoError(t, err)
	require.NoError(t, lr.SetClient(c))
	require.NoError(t, pr.SetClient(c))
	require.NoError(t, admission.EnsureSystemPriorityClasses(ctx, c))
	return c
}

func rl(kv ...string) api.ResourceList {
	l := api.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		l[api.ResourceName(kv[i])] = api.MustParse(kv[i+1])
	}
	return l
}

func pod(name string, req, lim api.ResourceList) *api.Pod {
	return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"}, Spec: api.PodSpec{
		Containers: []api.Container{{Name: "web", Image: "nginx", Resources: api.ResourceRequirements{Requests: req, Limits: lim}}}}}
}

// LimitRanger gives containers the defaults of their namespace's
// LimitRange and refuses what breaks its bounds, with the messages of
// kube's plugin/pkg/admission/limitranger (cases after its admission_test.go:
// TestPodLimitFunc, TestDefaultContainerResourceRequirements).
func TestLimitRanger(t *testing.T) {
	ctx := context.Background()
	c := newCluster(t)
	_, err := c.CreateObject(ctx, &api.LimitRange{ObjectMeta: api.ObjectMeta{Name: "lr", Namespace: "default"}, Spec: api.LimitRangeSpec{Limits: []api.LimitRangeItem{
		{Type: api.LimitTypeContainer, Default: rl("cpu", "500m", "memory", "512Mi"), DefaultRequest: rl("cpu", "250m", "memory", "256Mi"),
			Max: rl("cpu", "2", "memory", "1Gi"), Min: rl("cpu", "100m"), MaxLimitRequestRatio: rl("cpu", "4")},
		{Type: api.LimitTypePod, Max: rl("memory", "1536Mi")},
	}}})
	require.NoError(t, err)

	p := pod("defaults", nil, nil)
	_, err = c.Pods().Create(ctx, p)
	require.NoError(t, err)
	got, _, err := c.Pods().Get(ctx, "default/defaults")
	require.NoError(t, err)
	r := got.Spec.Containers[0].Resources
	require.Equal(t, "250m", r.Requests.Cpu().String())
	require.Equal(t, "256Mi", r.Requests.Memory().String())
	require.Equal(t, "500m", r.Limits.Cpu().String())
	require.Equal(t, "512Mi", r.Limits.Memory().String())
	require.Equal(t, "LimitRanger plugin set: cpu, memory request for container web; cpu, memory limit for container web",
		got.Annotations[admission.AnnotationLimitRanger])

	// An explicit request is kept; only the missing ones are set.
	_, err = c.Pods().Create(ctx, pod("explicit", rl("cpu", "1"), rl("cpu", "2")))
	require.NoError(t, err)
	got, _, _ = c.Pods().Get(ctx, "default/explicit")
	require.Equal(t, "1", got.Spec.Containers[0].Resources.Requests.Cpu().String())
	require.Equal(t, "256Mi", got.Spec.Containers[0].Resources.Requests.Memory().String())

	for _, tc := range []struct {
		name     string
		req, lim api.ResourceList
		want     string
	}{
		{"max", rl("cpu", "1"), rl("cpu", "3"), "maximum cpu usage per Container is 2, but limit is 3"},
		{"min", rl("cpu", "50m"), rl("cpu", "100m"), "minimum cpu usage per Container is 100m, but request is 50m"},
		{"ratio", rl("cpu", "200m"), rl("cpu", "1"), "cpu max limit to request ratio per Container is 4, but provided ratio is 5.000000"},
		{"pod", nil, rl("memory", "1Gi"), ""}, // one container: within the pod's max
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Pods().Create(ctx, pod("p-"+tc.name, tc.req, tc.lim))
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, client.ErrForbidden)
			msg, ok := admission.ForbiddenMessage(err)
			require.True(t, ok, "%v", err)
			require.Equal(t, tc.want, msg)
		})
	}

	// The Pod item bounds the sum of the containers.
	two := pod("two", nil, rl("memory", "1Gi"))
	two.Spec.Containers = append(two.Spec.Containers, api.Container{Name: "side", Image: "busybox",
		Resources: api.ResourceRequirements{Limits: rl("memory", "1Gi")}})
	_, err = c.Pods().Create(ctx, two)
	msg, _ := admission.ForbiddenMessage(err)
	require.Equal(t, "maximum memory usage per Pod is 1536Mi, but limit is 2Gi", msg)

	// Another namespace has no LimitRange: nothing is set.
	require.NoError(t, createNamespace(ctx, c, "free"))
	free := pod("free", nil, nil)
	free.Namespace = "free"
	_, err = c.Pods().Create(ctx, free)
	require.NoError(t, err)
	got, _, _ = c.Pods().Get(ctx, "free/free")
	require.Empty(t, got.Spec.Containers[0].Resources.Limits)
}

func createNamespace(ctx context.Context, c *cluster.Cluster, name string) error {
	_, err := c.CreateObject(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: name}})
	return err
}

// Priority resolves a pod's priority class, as kube's
// plugin/pkg/admission/priority (cases after its admission_test.go:
// TestPodAdmission, TestPriorityClassAdmission).
func TestPriority(t *testing.T) {
	ctx := context.Background()
	c := newCluster(t)
	pcs, _ := cluster.StoreFor[*api.PriorityClass](c)
	sys, _, err := pcs.Get(ctx, api.SystemNodeCritical)
	require.NoError(t, err)
	require.Equal(t, int32(2000001000), sys.Value)
	_, _, err = pcs.Get(ctx, api.SystemClusterCritical)
	require.NoError(t, err)

	never := api.PreemptNever
	_, err = c.CreateObject(ctx, &api.PriorityClass{ObjectMeta: api.ObjectMeta{Name: "high"}, Value: 1000, PreemptionPolicy: &never})
	require.NoError(t, err)

	// No class and no global default: 0, PreemptLowerPriority.
	_, err = c.Pods().Create(ctx, pod("none", nil, nil))
	require.NoError(t, err)
	got, _, _ := c.Pods().Get(ctx, "default/none")
	require.Equal(t, int32(0), *got.Spec.Priority)
	require.Equal(t, api.PreemptLowerPriority, *got.Spec.PreemptionPolicy)

	named := pod("named", nil, nil)
	named.Spec.PriorityClassName = "high"
	_, err = c.Pods().Create(ctx, named)
	require.NoError(t, err)
	got, _, _ = c.Pods().Get(ctx, "default/named")
	require.Equal(t, int32(1000), *got.Spec.Priority)
	require.Equal(t, api.PreemptNever, *got.Spec.PreemptionPolicy)

	unknown := pod("unknown", nil, nil)
	unknown.Spec.PriorityClassName = "nope"
	_, err = c.Pods().Create(ctx, unknown)
	require.ErrorIs(t, err, client.ErrForbidden)
	msg, _ := admission.ForbiddenMessage(err)
	require.Equal(t, "no PriorityClass with name nope was found", msg)

	wrong := pod("wrong", nil, nil)
	wrong.Spec.PriorityClassName = "high"
	wrong.Spec.Priority = ptr(int32(5))
	_, err = c.Pods().Create(ctx, wrong)
	msg, _ = admission.ForbiddenMessage(err)
	require.Equal(t, "the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name", msg)

	// A global default applies to pods that name no class; a second one is refused.
	_, err = c.CreateObject(ctx, &api.PriorityClass{ObjectMeta: api.ObjectMeta{Name: "default-prio"}, Value: 7, GlobalDefault: true})
	require.NoError(t, err)
	_, err = c.CreateObject(ctx, &api.PriorityClass{ObjectMeta: api.ObjectMeta{Name: "other"}, Value: 8, GlobalDefault: true})
	msg, _ = admission.ForbiddenMessage(err)
	require.Equal(t, "PriorityClass default-prio is already marked as default. Only one default can exist", msg)
	_, err = c.Pods().Create(ctx, pod("defaulted", nil, nil))
	require.NoError(t, err)
	got, _, _ = c.Pods().Get(ctx, "default/defaulted")
	require.Equal(t, "default-prio", got.Spec.PriorityClassName)
	require.Equal(t, int32(7), *got.Spec.Priority)

	// The system classes cannot be deleted.
	_, err = pcs.Delete(ctx, api.SystemClusterCritical, "")
	require.True(t, errors.Is(err, client.ErrForbidden), "%v", err)
	msg, _ = admission.ForbiddenMessage(err)
	require.True(t, strings.Contains(msg, "this is a system priority class and cannot be deleted"), msg)
}

func ptr[V any](v V) *V { return &v }
