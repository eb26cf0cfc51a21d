package cluster_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/cluster/clustertest"
)

// Each validation rule, with the field path and type kube-apiserver
// reports it at.
func TestValidation(t *testing.T) {
	ctx := context.Background()
	pod := func(mutate func(p *api.Pod)) func(c *cluster.Cluster) error {
		return func(c *cluster.Cluster) error {
			p := clustertest.Pod("default", "p", nil)
			mutate(p)
			_, err := c.Pods().Create(ctx, p)
			return err
		}
	}
	deploy := func(mutate func(d *api.Deployment)) func(c *cluster.Cluster) error {
		return func(c *cluster.Cluster) error {
			d := clustertest.Deployment("default", "d")
			mutate(d)
			_, err := c.Deployments().Create(ctx, d)
			return err
		}
	}
	job := func(restart api.RestartPolicy) func(c *cluster.Cluster) error {
		return func(c *cluster.Cluster) error {
			_, err := c.Jobs().Create(ctx, &api.Job{ObjectMeta: api.ObjectMeta{Name: "j"}, Spec: api.JobSpec{Template: podTemplate(nil, restart)}})
			return err
		}
	}
	cron := func(name, schedule string, restart api.RestartPolicy) func(c *cluster.Cluster) error {
		return func(c *cluster.Cluster) error {
			_, err := c.CronJobs().Create(ctx, &api.CronJob{ObjectMeta: api.ObjectMeta{Name: name},
				Spec: api.CronJobSpec{Schedule: schedule, JobTemplate: api.JobTemplateSpec{Spec: api.JobSpec{Template: podTemplate(nil, restart)}}}})
			return err
		}
	}
	service := func(name string, ports ...api.ServicePort) func(c *cluster.Cluster) error {
		return func(c *cluster.Cluster) error {
			_, err := c.Services().Create(ctx, &api.Service{ObjectMeta: api.ObjectMeta{Name: name}, Spec: api.ServiceSpec{Ports: ports}})
			return err
		}
	}
	cases := []struct {
		name   string
		create func(c *cluster.Cluster) error
		path   string
		typ    cluster.FieldErrorType
	}{
		{"NameRequired", pod(func(p *api.Pod) { p.Name = "" }), "metadata.name", cluster.FieldRequired},
		{"NameSubdomain", pod(func(p *api.Pod) { p.Name = "Web_1" }), "metadata.name", cluster.FieldInvalid},
		{"NameTooLong", pod(func(p *api.Pod) { p.Name = strings.Repeat("a", 254) }), "metadata.name", cluster.FieldInvalid},
		{"NamespaceNameLabel", func(c *cluster.Cluster) error {
			_, err := c.Namespaces().Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "a.b"}})
			return err
		}, "metadata.name", cluster.FieldInvalid},
		{"ServiceNameDNS1035", service("1web", api.ServicePort{Port: 80}), "metadata.name", cluster.FieldInvalid},
		{"LabelKey", pod(func(p *api.Pod) { p.Labels = map[string]string{"-bad": "x"} }), "metadata.labels", cluster.FieldInvalid},
		{"LabelKeyPrefix", pod(func(p *api.Pod) { p.Labels = map[string]string{"Example.COM/a": "x"} }), "metadata.labels", cluster.FieldInvalid},
		{"LabelValue", pod(func(p *api.Pod) { p.Labels = map[string]string{"a": "b c"} }), "metadata.labels", cluster.FieldInvalid},
		{"AnnotationKey", pod(func(p *api.Pod) { p.Annotations = map[string]string{"a b": "x"} }), "metadata.annotations", cluster.FieldInvalid},
		{"OwnerReferenceUID", pod(func(p *api.Pod) {
			p.OwnerReferences = []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs"}}
		}), "metadata.ownerReferences[0].uid", cluster.FieldRequired},
		{"OneControllerReference", pod(func(p *api.Pod) {
			yes := true
			p.OwnerReferences = []api.OwnerReference{
				{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "a", UID: "1", Controller: &yes},
				{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "b", UID: "2", Controller: &yes},
			}
		}), "metadata.ownerReferences", cluster.FieldInvalid},
		{"PodHostname", pod(func(p *api.Pod) { p.Spec.Hostname = "Web.0" }), "spec.hostname", cluster.FieldInvalid},
		{"PodSubdomain", pod(func(p *api.Pod) { p.Spec.Subdomain = "a_b" }), "spec.subdomain", cluster.FieldInvalid},
		{"PodContainersRequired", pod(func(p *api.Pod) { p.Spec.Containers = nil }), "spec.containers", cluster.FieldRequired},
		{"ContainerImage", pod(func(p *api.Pod) { p.Spec.Containers[0].Image = "" }), "spec.containers[0].image", cluster.FieldRequired},
		{"ContainerName", pod(func(p *api.Pod) { p.Spec.Containers[0].Name = "App" }), "spec.containers[0].name", cluster.FieldInvalid},
		{"ContainerNamesUnique", pod(func(p *api.Pod) {
			p.Spec.Containers = append(p.Spec.Containers, p.Spec.Containers[0])
		}), "spec.containers[1].name", cluster.FieldDuplicate},
		{"ContainerPort", pod(func(p *api.Pod) {
			p.Spec.Containers[0].Ports = []api.ContainerPort{{ContainerPort: 70000}}
		}), "spec.containers[0].ports[0].containerPort", cluster.FieldInvalid},
		{"PodRestartPolicy", pod(func(p *api.Pod) { p.Spec.RestartPolicy = "Sometimes" }), "spec.restartPolicy", cluster.FieldUnsupported},
		{"DeploymentSelectorRequired", deploy(func(d *api.Deployment) { d.Spec.Selector = nil }), "spec.selector", cluster.FieldRequired},
		{"DeploymentSelectorMatchesTemplate", deploy(func(d *api.Deployment) {
			d.Spec.Template.Labels = map[string]string{"app": "other"}
		}), "spec.template.metadata.labels", cluster.FieldInvalid},
		{"DeploymentRestartAlways", deploy(func(d *api.Deployment) {
			d.Spec.Template.Spec.RestartPolicy = api.RestartPolicyNever
		}), "spec.template.spec.restartPolicy", cluster.FieldUnsupported},
		{"DeploymentReplicas", deploy(func(d *api.Deployment) { d.Spec.Replicas = ptr(int32(-1)) }), "spec.replicas", cluster.FieldInvalid},
		{"DeploymentSurgeAndUnavailableZero", deploy(func(d *api.Deployment) {
			d.Spec.Strategy.RollingUpdate = &api.RollingUpdateDeployment{MaxSurge: ptr(api.FromInt32(0)), MaxUnavailable: ptr(api.FromInt32(0))}
		}), "spec.strategy.rollingUpdate.maxUnavailable", cluster.FieldInvalid},
		{"DeploymentStrategyType", deploy(func(d *api.Deployment) { d.Spec.Strategy.Type = "Blue" }), "spec.strategy.type", cluster.FieldUnsupported},
		{"ReplicaSetRestartAlways", func(c *cluster.Cluster) error {
			_, err := c.ReplicaSets().Create(ctx, &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Name: "rs"},
				Spec: api.ReplicaSetSpec{Selector: sel(web), Template: podTemplate(web, api.RestartPolicyOnFailure)}})
			return err
		}, "spec.template.spec.restartPolicy", cluster.FieldUnsupported},
		{"DaemonSetSelectorMatchesTemplate", func(c *cluster.Cluster) error {
			_, err := c.DaemonSets().Create(ctx, &api.DaemonSet{ObjectMeta: api.ObjectMeta{Name: "ds"},
				Spec: api.DaemonSetSpec{Selector: sel(web), Template: podTemplate(map[string]string{"app": "x"}, "")}})
			return err
		}, "spec.template.metadata.labels", cluster.FieldInvalid},
		{"DaemonSetRestartAlways", func(c *cluster.Cluster) error {
			_, err := c.DaemonSets().Create(ctx, &api.DaemonSet{ObjectMeta: api.ObjectMeta{Name: "ds"},
				Spec: api.DaemonSetSpec{Selector: sel(web), Template: podTemplate(web, api.RestartPolicyNever)}})
			return err
		}, "spec.template.spec.restartPolicy", cluster.FieldUnsupported},
		{"StatefulSetRestartAlways", func(c *cluster.Cluster) error {
			_, err := c.StatefulSets().Create(ctx, &api.StatefulSet{ObjectMeta: api.ObjectMeta{Name: "ss"},
				Spec: api.StatefulSetSpec{Selector: sel(web), Template: podTemplate(web, api.RestartPolicyNever)}})
			return err
		}, "spec.template.spec.restartPolicy", cluster.FieldUnsupported},
		{"JobRestartNotAlways", job(api.RestartPolicyAlways), "spec.template.spec.restartPolicy", cluster.FieldUnsupported},
		{"JobRestartDefaultedToAlways", job(""), "spec.template.spec.restartPolicy", cluster.FieldUnsupported},
		{"CronJobRestart", cron("c", "* * * * *", api.RestartPolicyAlways), "spec.jobTemplate.spec.template.spec.restartPolicy", cluster.FieldUnsupported},
		{"CronJobSchedule", cron("c", "", api.RestartPolicyNever), "spec.schedule", cluster.FieldRequired},
		{"CronJobNameLength", cron(strings.Repeat("c", 53), "* * * * *", api.RestartPolicyNever), "metadata.name", cluster.FieldInvalid},
		{"ServicePort", service("web", api.ServicePort{Port: 0}), "spec.ports[0].port", cluster.FieldInvalid},
		{"ServicePortNames", service("web", api.ServicePort{Port: 80}, api.ServicePort{Port: 81}), "spec.ports[1].name", cluster.FieldRequired},
		{"ServicePortsRequired", service("web"), "spec.ports", cluster.FieldRequired},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newMemory(t, cluster.Options{})
			err := tc.create(c)
			if !errors.Is(err, cluster.ErrInvalid) {
				t.Fatalf("got %v, want ErrInvalid", err)
			}
			var inv *cluster.InvalidError
			if !errors.As(err, &inv) {
				t.Fatalf("%T is not an *InvalidError", err)
			}
			fe, ok := inv.Field(tc.path)
			if !ok {
				t.Fatalf("no error at %s: %v", tc.path, err)
			}
			if fe.Type != tc.typ {
				t.Errorf("%s: type %q, want %q (%v)", tc.path, fe.Type, tc.typ, err)
			}
			if !strings.Contains(err.Error(), tc.path) {
				t.Errorf("message %q does not name %s", err, tc.path)
			}
		})
	}
}

// Every field error is reported, not only the first.
func TestValidationReportsEveryError(t *testing.T) {
	c := newMemory(t, cluster.Options{})
	p := clustertest.Pod("default", "Bad_Name", map[string]string{"-x": "y"})
	p.Spec.Containers[0].Image = ""
	_, err := c.Pods().Create(context.Background(), p)
	var inv *cluster.InvalidError
	if !errors.As(err, &inv) || len(inv.Errors) != 3 {
		t.Fatalf("got %v", err)
	}
}

// As kube's ValidateStatefulSetSpec (pkg/apis/apps/validation): the pod
// template is validated with a volume per claim template, so a container
// may mount a claim template by name (and a template replaces a volume of
// its name); a mount naming neither is still NotFound.
func TestStatefulSetMountsClaimTemplates(t *testing.T) {
	web := map[string]string{"app": "web"}
	set := func(mount string, volumes ...api.Volume) *api.StatefulSet {
		tpl := podTemplate(web, "")
		tpl.Spec.Containers[0].VolumeMounts = []api.VolumeMount{{Name: mount, MountPath: "/data"}}
		tpl.Spec.Volumes = volumes
		return &api.StatefulSet{ObjectMeta: api.ObjectMeta{Name: "db", Namespace: "default"}, Spec: api.StatefulSetSpec{
			Selector: &api.LabelSelector{MatchLabels: web}, Template: tpl,
			VolumeClaimTemplates: []api.PersistentVolumeClaim{{ObjectMeta: api.ObjectMeta{Name: "data"}, Spec: api.PersistentVolumeClaimSpec{
				AccessModes: []api.PersistentVolumeAccessMode{"ReadWriteOnce"},
				Resources:   api.VolumeResourceRequirements{Requests: api.ResourceList{api.ResourceStorage: api.MustParse("1Gi")}},
			}}},
		}}
	}
	c := newMemory(t, cluster.Options{})
	_, err := c.StatefulSets().Create(context.Background(), set("data"))
	require.NoError(t, err)
	s := set("data", api.Volume{Name: "data", VolumeSource: api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{}}})
	s.Name = "db2"
	_, err = c.StatefulSets().Create(context.Background(), s)
	require.NoError(t, err, "a claim template replaces a volume of its name")
	s = set("logs")
	s.Name = "db3"
	_, err = c.StatefulSets().Create(context.Background(), s)
	var inv *cluster.InvalidError
	require.ErrorAs(t, err, &inv)
	fe, ok := inv.Field("spec.template.spec.containers[0].volumeMounts[0].name")
	require.True(t, ok, "%v", err)
	require.Equal(t, cluster.FieldNotFound, fe.Type)
}
