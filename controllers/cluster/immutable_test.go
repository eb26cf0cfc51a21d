package cluster_test

import (
	"context"
	"errors"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/cluster/clustertest"
)

// What an update may change, kind by kind; path is where the refusal is
// reported ("" means the update is allowed).
func TestImmutableFields(t *testing.T) {
	ctx := context.Background()
	other := map[string]string{"app": "other"}
	type tc struct {
		name   string
		path   string
		create func(c *cluster.Cluster) error
		update func(c *cluster.Cluster) error
	}
	pod := func(name, path string, change func(p *api.Pod)) tc {
		return tc{name: name, path: path,
			create: func(c *cluster.Cluster) error {
				p := clustertest.Pod("default", "p", nil)
				p.Spec.ActiveDeadlineSeconds = ptr(int64(100))
				p.Spec.SchedulingGates = []api.PodSchedulingGate{{Name: "example.com/wait"}}
				_, err := c.Pods().Create(ctx, p)
				return err
			},
			update: func(c *cluster.Cluster) error {
				p, _, _ := c.Pods().Get(ctx, "default/p")
				change(p)
				_, err := c.Pods().Update(ctx, p, "")
				return err
			}}
	}
	rs := func(name, path string, change func(r *api.ReplicaSet)) tc {
		return tc{name: name, path: path,
			create: func(c *cluster.Cluster) error {
				_, err := c.ReplicaSets().Create(ctx, &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Name: "rs"},
					Spec: api.ReplicaSetSpec{Selector: sel(web), Template: podTemplate(web, "")}})
				return err
			},
			update: func(c *cluster.Cluster) error {
				r, _, _ := c.ReplicaSets().Get(ctx, "default/rs")
				change(r)
				_, err := c.ReplicaSets().Update(ctx, r, "")
				return err
			}}
	}
	ds := func(name, path string, change func(d *api.DaemonSet)) tc {
		return tc{name: name, path: path,
			create: func(c *cluster.Cluster) error {
				_, err := c.DaemonSets().Create(ctx, &api.DaemonSet{ObjectMeta: api.ObjectMeta{Name: "ds"},
					Spec: api.DaemonSetSpec{Selector: sel(web), Template: podTemplate(web, "")}})
				return err
			},
			update: func(c *cluster.Cluster) error {
				d, _, _ := c.DaemonSets().Get(ctx, "default/ds")
				change(d)
				_, err := c.DaemonSets().Update(ctx, d, "")
				return err
			}}
	}
	ss := func(name, path string, change func(s *api.StatefulSet)) tc {
		return tc{name: name, path: path,
			create: func(c *cluster.Cluster) error {
				_, err := c.StatefulSets().Create(ctx, &api.StatefulSet{ObjectMeta: api.ObjectMeta{Name: "ss"},
					Spec: api.StatefulSetSpec{ServiceName: "nginx", Selector: sel(web), Template: podTemplate(web, "")}})
				return err
			},
			update: func(c *cluster.Cluster) error {
				s, _, _ := c.StatefulSets().Get(ctx, "default/ss")
				change(s)
				_, err := c.StatefulSets().Update(ctx, s, "")
				return err
			}}
	}
	job := func(name, path string, change func(j *api.Job)) tc {
		return tc{name: name, path: path,
			create: func(c *cluster.Cluster) error {
				_, err := c.Jobs().Create(ctx, &api.Job{ObjectMeta: api.ObjectMeta{Name: "j"}, Spec: api.JobSpec{Template: podTemplate(nil, api.RestartPolicyNever)}})
				return err
			},
			update: func(c *cluster.Cluster) error {
				j, _, _ := c.Jobs().Get(ctx, "default/j")
				change(j)
				_, err := c.Jobs().Update(ctx, j, "")
				return err
			}}
	}
	cases := []tc{
		pod("PodImage", "", func(p *api.Pod) { p.Spec.Containers[0].Image = "busybox:2" }),
		pod("PodAddToleration", "", func(p *api.Pod) {
			p.Spec.Tolerations = append(p.Spec.Tolerations, api.Toleration{Key: "k", Operator: api.TolerationOpExists})
		}),
		pod("PodRemoveToleration", "spec", func(p *api.Pod) { p.Spec.Tolerations = p.Spec.Tolerations[1:] }),
		pod("PodShortenDeadline", "", func(p *api.Pod) { p.Spec.ActiveDeadlineSeconds = ptr(int64(50)) }),
		pod("PodLengthenDeadline", "spec", func(p *api.Pod) { p.Spec.ActiveDeadlineSeconds = ptr(int64(500)) }),
		pod("PodRemoveSchedulingGate", "", func(p *api.Pod) { p.Spec.SchedulingGates = nil }),
		pod("PodReplaceSchedulingGate", "spec", func(p *api.Pod) { p.Spec.SchedulingGates = []api.PodSchedulingGate{{Name: "other"}} }),
		pod("PodNodeName", "spec", func(p *api.Pod) { p.Spec.NodeName = "n1" }),
		pod("PodContainers", "spec", func(p *api.Pod) {
			p.Spec.Containers = append(p.Spec.Containers, api.Container{Name: "side", Image: "busybox"})
		}),
		rs("ReplicaSetScale", "", func(r *api.ReplicaSet) { r.Spec.Replicas = ptr(int32(5)) }),
		rs("ReplicaSetSelector", "spec.selector", func(r *api.ReplicaSet) { r.Spec.Selector = sel(other); r.Spec.Template.Labels = other }),
		ds("DaemonSetTemplate", "", func(d *api.DaemonSet) { d.Spec.Template.Spec.Containers[0].Image = "busybox:2" }),
		ds("DaemonSetSelector", "spec.selector", func(d *api.DaemonSet) { d.Spec.Selector = sel(other); d.Spec.Template.Labels = other }),
		ss("StatefulSetScale", "", func(s *api.StatefulSet) { s.Spec.Replicas = ptr(int32(3)) }),
		ss("StatefulSetServiceName", "spec", func(s *api.StatefulSet) { s.Spec.ServiceName = "other" }),
		ss("StatefulSetPodManagement", "spec", func(s *api.StatefulSet) { s.Spec.PodManagementPolicy = api.ParallelPodManagement }),
		job("JobParallelism", "", func(j *api.Job) { j.Spec.Parallelism = ptr(int32(3)) }),
		job("JobCompletions", "spec.completions", func(j *api.Job) { j.Spec.Completions = ptr(int32(3)) }),
		job("JobManagedBy", "spec.managedBy", func(j *api.Job) { j.Spec.ManagedBy = ptr("example.com/other") }),
		job("JobTemplate", "spec.template", func(j *api.Job) { j.Spec.Template.Spec.Containers[0].Image = "busybox:2" }),
		job("JobSelector", "spec.selector", func(j *api.Job) {
			j.Spec.Selector = sel(map[string]string{api.LabelControllerUID: "x"})
			j.Spec.Template.Labels[api.LabelControllerUID] = "x"
		}),
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newMemory(t, cluster.Options{})
			if err := tc.create(c); err != nil {
				t.Fatal(err)
			}
			err := tc.update(c)
			if tc.path == "" {
				if err != nil {
					t.Fatalf("allowed update refused: %v", err)
				}
				return
			}
			var inv *cluster.InvalidError
			if !errors.As(err, &inv) {
				t.Fatalf("got %v, want invalid at %s", err, tc.path)
			}
			if _, ok := inv.Field(tc.path); !ok {
				t.Errorf("no error at %s: %v", tc.path, err)
			}
		})
	}
}

func TestNamespaceSpecFinalizersWhileDeleting(t *testing.T) {
	ctx := context.Background()
	c := newMemory(t, cluster.Options{})
	if _, err := c.Namespaces().Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "demo"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Namespaces().Delete(ctx, "demo", ""); err != nil {
		t.Fatal(err)
	}
	ns, _, _ := c.Namespaces().Get(ctx, "demo")
	ns.Spec.Finalizers = append(ns.Spec.Finalizers, "example.com/more")
	if _, err := c.Namespaces().Update(ctx, ns, ""); !errors.Is(err, cluster.ErrInvalid) {
		t.Errorf("adding a spec finalizer while terminating: %v", err)
	}
}

func TestReplicationController(t *testing.T) {
	ctx := context.Background()
	c := newMemory(t, cluster.Options{})
	tmpl := podTemplate(web, "")
	rc := &api.ReplicationController{ObjectMeta: api.ObjectMeta{Name: "rc"}, Spec: api.ReplicationControllerSpec{Template: &tmpl}}
	if _, err := c.ReplicationControllers().Create(ctx, rc); err != nil {
		t.Fatal(err)
	}
	if *rc.Spec.Replicas != 1 || rc.Spec.Selector["app"] != "web" {
		t.Errorf("defaults: %s", jsonOf(rc.Spec))
	}
	bad := &api.ReplicationController{ObjectMeta: api.ObjectMeta{Name: "bad"},
		Spec: api.ReplicationControllerSpec{Selector: map[string]string{"app": "x"}, Template: &tmpl}}
	var inv *cluster.InvalidError
	if _, err := c.ReplicationControllers().Create(ctx, bad); !errors.As(err, &inv) {
		t.Fatalf("mismatched selector: %v", err)
	} else if _, ok := inv.Field("spec.template.metadata.labels"); !ok {
		t.Errorf("%v", err)
	}
}
