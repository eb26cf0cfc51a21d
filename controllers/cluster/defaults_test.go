package cluster_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/cluster/clustertest"
)

func ptr[V any](v V) *V { return &v }

func podTemplate(labels map[string]string, restart api.RestartPolicy) api.PodTemplateSpec {
	return api.PodTemplateSpec{
		ObjectMeta: api.ObjectMeta{Labels: labels},
		Spec: api.PodSpec{
			RestartPolicy: restart,
			Containers:    []api.Container{{Name: "app", Image: "busybox"}},
		},
	}
}

func sel(labels map[string]string) *api.LabelSelector {
	return &api.LabelSelector{MatchLabels: labels}
}

var web = map[string]string{"app": "web"}

// jsonOf is a compact rendering for failure messages.
func jsonOf(v any) string { b, _ := json.Marshal(v); return string(b) }

func TestDefaults(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name   string
		create func(c *cluster.Cluster) error
		check  func(t *testing.T, c *cluster.Cluster)
	}{
		{
			name: "Deployment",
			create: func(c *cluster.Cluster) error {
				_, err := c.Deployments().Create(ctx, clustertest.Deployment("default", "d"))
				return err
			},
			check: func(t *testing.T, c *cluster.Cluster) {
				d, _, _ := c.Deployments().Get(ctx, "default/d")
				s := d.Spec
				ru := s.Strategy.RollingUpdate
				if *s.Replicas != 1 || *s.RevisionHistoryLimit != 10 || *s.ProgressDeadlineSeconds != 600 ||
					s.Strategy.Type != api.RollingUpdateDeploymentStrategyType || ru == nil ||
					ru.MaxSurge.String() != "25%" || ru.MaxUnavailable.String() != "25%" {
					t.Errorf("spec %s", jsonOf(s))
				}
				ps := s.Template.Spec
				if ps.RestartPolicy != api.RestartPolicyAlways || *ps.TerminationGracePeriodSeconds != 30 ||
					ps.SchedulerName != "default-scheduler" || ps.DNSPolicy != "ClusterFirst" {
					t.Errorf("template spec %s", jsonOf(ps))
				}
				if len(ps.Tolerations) != 0 {
					t.Errorf("templates get no default tolerations: %s", jsonOf(ps.Tolerations))
				}
			},
		},
		{
			name: "DeploymentRecreateHasNoRollingUpdate",
			create: func(c *cluster.Cluster) error {
				d := clustertest.Deployment("default", "d")
				d.Spec.Strategy.Type = api.RecreateDeploymentStrategyType
				_, err := c.Deployments().Create(ctx, d)
				return err
			},
			check: func(t *testing.T, c *cluster.Cluster) {
				d, _, _ := c.Deployments().Get(ctx, "default/d")
				if d.Spec.Strategy.RollingUpdate != nil {
					t.Errorf("strategy %s", jsonOf(d.Spec.Strategy))
				}
			},
		},
		{
			name: "ReplicaSetAndStatefulSet",
			create: func(c *cluster.Cluster) error {
				if _, err := c.ReplicaSets().Create(ctx, &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Name: "rs"},
					Spec: api.ReplicaSetSpec{Selector: sel(web), Template: podTemplate(web, "")}}); err != nil {
					return err
				}
				_, err := c.StatefulSets().Create(ctx, &api.StatefulSet{ObjectMeta: api.ObjectMeta{Name: "ss"},
					Spec: api.StatefulSetSpec{Selector: sel(web), Template: podTemplate(web, "")}})
				return err
			},
			check: func(t *testing.T, c *cluster.Cluster) {
				rs, _, _ := c.ReplicaSets().Get(ctx, "default/rs")
				ss, _, _ := c.StatefulSets().Get(ctx, "default/ss")
				if *rs.Spec.Replicas != 1 || *ss.Spec.Replicas != 1 || ss.Spec.PodManagementPolicy != api.OrderedReadyPodManagement || ss.Spec.UpdateStrategy.Type != "RollingUpdate" {
					t.Errorf("rs %s ss %s", jsonOf(rs.Spec), jsonOf(ss.Spec))
				}
			},
		},
		{
			name: "Job",
			create: func(c *cluster.Cluster) error {
				_, err := c.Jobs().Create(ctx, &api.Job{ObjectMeta: api.ObjectMeta{Name: "pi"},
					Spec: api.JobSpec{Template: podTemplate(nil, api.RestartPolicyNever)}})
				return err
			},
			check: func(t *testing.T, c *cluster.Cluster) {
				j, _, _ := c.Jobs().Get(ctx, "default/pi")
				if *j.Spec.BackoffLimit != 6 || *j.Spec.Completions != 1 || *j.Spec.Parallelism != 1 {
					t.Errorf("spec %s", jsonOf(j.Spec))
				}
				uid := string(j.UID)
				if j.Spec.Selector == nil || j.Spec.Selector.MatchLabels[api.LabelControllerUID] != uid ||
					j.Spec.Template.Labels[api.LabelControllerUID] != uid || j.Spec.Template.Labels[api.LabelJobName] != "pi" {
					t.Errorf("generated selector %s, template labels %v", jsonOf(j.Spec.Selector), j.Spec.Template.Labels)
				}
			},
		},
		{
			name: "CronJob",
			create: func(c *cluster.Cluster) error {
				_, err := c.CronJobs().Create(ctx, &api.CronJob{ObjectMeta: api.ObjectMeta{Name: "hello"},
					Spec: api.CronJobSpec{Schedule: "*/1 * * * *", JobTemplate: api.JobTemplateSpec{Spec: api.JobSpec{Template: podTemplate(nil, api.RestartPolicyOnFailure)}}}})
				return err
			},
			check: func(t *testing.T, c *cluster.Cluster) {
				cj, _, _ := c.CronJobs().Get(ctx, "default/hello")
				s := cj.Spec
				if s.ConcurrencyPolicy != api.AllowConcurrent || *s.SuccessfulJobsHistoryLimit != 3 || *s.FailedJobsHistoryLimit != 1 || *s.Suspend {
					t.Errorf("spec %s", jsonOf(s))
				}
			},
		},
		{
			name: "Pod",
			create: func(c *cluster.Cluster) error {
				p := clustertest.Pod("default", "p", nil)
				p.Spec.Containers[0].Ports = []api.ContainerPort{{ContainerPort: 80}}
				p.Status.Phase = api.PodRunning // reset
				_, err := c.Pods().Create(ctx, p)
				return err
			},
			check: func(t *testing.T, c *cluster.Cluster) {
				p, _, _ := c.Pods().Get(ctx, "default/p")
				s := p.Spec
				if s.RestartPolicy != api.RestartPolicyAlways || *s.TerminationGracePeriodSeconds != 30 || s.SchedulerName != "default-scheduler" ||
					s.DNSPolicy != "ClusterFirst" || s.Containers[0].Ports[0].Protocol != api.ProtocolTCP || s.Containers[0].ImagePullPolicy != api.PullIfNotPresent {
					t.Errorf("spec %s", jsonOf(s))
				}
				if p.Status.Phase != api.PodPending {
					t.Errorf("phase %q", p.Status.Phase)
				}
				want := []api.Toleration{
					{Key: api.TaintNodeNotReady, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
					{Key: api.TaintNodeUnreachable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
				}
				if jsonOf(s.Tolerations) != jsonOf(want) {
					t.Errorf("tolerations %s", jsonOf(s.Tolerations))
				}
			},
		},
		{
			// kube-apiserver's SetDefaults_Pod: a container's limits
			// default its missing requests (not a template's: see
			// ReplicaSetTemplateKeepsRequests).
			name: "PodRequestsFromLimits",
			create: func(c *cluster.Cluster) error {
				p := clustertest.Pod("default", "p", nil)
				p.Spec.InitContainers = []api.Container{{Name: "init", Image: "busybox",
					Resources: api.ResourceRequirements{Limits: api.ResourceList{"memory": api.MustParse("1Gi")}}}}
				p.Spec.Containers[0].Resources = api.ResourceRequirements{
					Limits:   api.ResourceList{"cpu": api.MustParse("2"), "memory": api.MustParse("1Gi")},
					Requests: api.ResourceList{"cpu": api.MustParse("500m")}}
				_, err := c.Pods().Create(ctx, p)
				return err
			},
			check: func(t *testing.T, c *cluster.Cluster) {
				p, _, _ := c.Pods().Get(ctx, "default/p")
				if got := jsonOf(p.Spec.InitContainers[0].Resources.Requests); got != `{"memory":"1Gi"}` {
					t.Errorf("init container requests %s", got)
				}
				if got := jsonOf(p.Spec.Containers[0].Resources.Requests); got != `{"cpu":"500m","memory":"1Gi"}` {
					t.Errorf("container requests %s", got)
				}
			},
		},
		{
			name: "ReplicaSetTemplateKeepsRequests",
			create: func(c *cluster.Cluster) error {
				rs := &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "rs"},
					Spec: api.ReplicaSetSpec{Selector: sel(web), Template: podTemplate(web, "")}}
				rs.Spec.Template.Spec.Containers[0].Resources.Limits = api.ResourceList{"cpu": api.MustParse("1")}
				_, err := c.ReplicaSets().Create(ctx, rs)
				return err
			},
			check: func(t *testing.T, c *cluster.Cluster) {
				rs, _, _ := c.ReplicaSets().Get(ctx, "default/rs")
				if r := rs.Spec.Template.Spec.Containers[0].Resources.Requests; r != nil {
					t.Errorf("template requests %s", jsonOf(r))
				}
			},
		},
		{
			name: "PodKeepsItsOwnToleration",
			create: func(c *cluster.Cluster) error {
				p := clustertest.Pod("default", "p", nil)
				p.Spec.Tolerations = []api.Toleration{{Key: api.TaintNodeUnreachable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: ptr(int64(5))}}
				_, err := c.Pods().Create(ctx, p)
				return err
			},
			check: func(t *testing.T, c *cluster.Cluster) {
				p, _, _ := c.Pods().Get(ctx, "default/p")
				if len(p.Spec.Tolerations) != 2 || *p.Spec.Tolerations[0].TolerationSeconds != 5 || p.Spec.Tolerations[1].Key != api.TaintNodeNotReady {
					t.Errorf("tolerations %s", jsonOf(p.Spec.Tolerations))
				}
			},
		},
		{
			name: "Service",
			create: func(c *cluster.Cluster) error {
				_, err := c.Services().Create(ctx, &api.Service{ObjectMeta: api.ObjectMeta{Name: "web"},
					Spec: api.ServiceSpec{Selector: web, Ports: []api.ServicePort{{Port: 80}}}})
				return err
			},
			check: func(t *testing.T, c *cluster.Cluster) {
				s, _, _ := c.Services().Get(ctx, "default/web")
				p := s.Spec.Ports[0]
				if s.Spec.Type != api.ServiceTypeClusterIP || p.Protocol != api.ProtocolTCP || p.TargetPort != api.FromInt32(80) {
					t.Errorf("spec %s", jsonOf(s.Spec))
				}
			},
		},
		{
			name: "Namespace",
			create: func(c *cluster.Cluster) error {
				_, err := c.Namespaces().Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "demo"}})
				return err
			},
			check: func(t *testing.T, c *cluster.Cluster) {
				n, _, _ := c.Namespaces().Get(ctx, "demo")
				if n.Status.Phase != api.NamespaceActive || len(n.Spec.Finalizers) != 1 || n.Labels["kubernetes.io/metadata.name"] != "demo" {
					t.Errorf("namespace %s", jsonOf(n))
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newMemory(t, cluster.Options{})
			if err := tc.create(c); err != nil {
				t.Fatal(err)
			}
			tc.check(t, c)
		})
	}
}
