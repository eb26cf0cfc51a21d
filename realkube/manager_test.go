package realkube_test

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane"
	"github.com/ctrlkit/ctrlkit/kube"
	"github.com/ctrlkit/ctrlkit/kube/managercmd"
	"github.com/ctrlkit/ctrlkit/source"
)

// The reference controllers on a real kube-apiserver, with no
// kube-controller-manager and no kube-scheduler: `ctrlkit manager`,
// `ctrlkit scheduler` and `ctrlkit nodes --count 2` run against it
// through kube.Client, and the same scenario (a Deployment created,
// scaled through its scale subresource, rolled out and rolled back, a
// StatefulSet, a DaemonSet, a Job and a CronJob) reaches the same states
// as on ctrlkit's in-process control plane with two simulated nodes, step
// by step. Both run in real time (a real server holds sockets, which
// synctest cannot), side by side; every wait is for watch events, bounded
// by a deadline.
func TestManagerOnRealServer(t *testing.T) {
	var real, inProcess []string
	t.Run("both", func(t *testing.T) {
		t.Run("kube-apiserver", func(t *testing.T) {
			t.Parallel()
			s := start(t)
			kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
			if err := s.WriteKubeconfig(kubeconfig); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			var wg sync.WaitGroup
			var logs syncBuffer
			run := func(name string, main func(context.Context, []string, io.Writer, io.Writer) int, args ...string) {
				wg.Go(func() {
					if code := main(ctx, append([]string{"--kubeconfig", kubeconfig}, args...), io.Discard, &logs); code != 0 {
						t.Errorf("%s exited %d", name, code)
					}
				})
			}
			// Leader election on (a Lease in kube-system, as kcm's); the
			// HPA needs metrics this cluster has no server for.
			run("manager", managercmd.Main, "--secure-port=0", "--controllers=*,-horizontal-pod-autoscaler-controller")
			run("scheduler", managercmd.SchedulerMain)
			run("nodes", managercmd.NodesMain, "--count=2")
			t.Cleanup(func() {
				cancel()
				wg.Wait()
				if t.Failed() {
					t.Logf("ctrlkit's output:\n%s", logs.String())
				}
			})
			kc, err := kube.NewClient(s.Config(), kube.ClientOptions{QPS: -1})
			if err != nil {
				t.Fatal(err)
			}
			real = scenario(t, kc)
		})
		t.Run("in-process", func(t *testing.T) {
			t.Parallel()
			cp, err := controlplane.Start(t.Context(), controlplane.Options{Nodes: 2})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cp.Stop() })
			inProcess = scenario(t, cp.Cluster)
		})
	})
	if t.Failed() {
		return
	}
	if !slices.Equal(real, inProcess) {
		t.Fatalf("the states differ\nreal kube-apiserver:\n  %s\nctrlkit's control plane:\n  %s",
			strings.Join(real, "\n  "), strings.Join(inProcess, "\n  "))
	}
	t.Logf("the same states on both:\n  %s", strings.Join(real, "\n  "))
}

// scenario drives the steps through c and returns the state reached
// after each, in words that must be equal on every implementation.
func scenario(t *testing.T, c client.Client) []string {
	t.Helper()
	ctx := t.Context()
	deps := resource[*api.Deployment](t, c)
	sets := resource[*api.ReplicaSet](t, c)
	stss := resource[*api.StatefulSet](t, c)
	dss := resource[*api.DaemonSet](t, c)
	jobs := resource[*api.Job](t, c)
	pods := resource[*api.Pod](t, c)
	var states []string
	changed := watchAll(t, c)
	step := func(name string, done func() (string, bool)) {
		t.Helper()
		deadline := time.NewTimer(90 * time.Second)
		defer deadline.Stop()
		for {
			state, ok := done()
			if ok {
				states = append(states, name+": "+state)
				return
			}
			select {
			case <-changed:
			case <-deadline.C:
				t.Fatalf("%s: not reached in 90 s; last state: %s", name, state)
			}
		}
	}
	// replicaSets lists web's ReplicaSets as image=replicas/ready, by image.
	replicaSets := func() string {
		l, err := list(ctx, sets, "app=web")
		if err != nil {
			return err.Error()
		}
		var out []string
		for _, rs := range l.Items {
			out = append(out, fmt.Sprintf("%s=%d/%d", rs.Spec.Template.Spec.Containers[0].Image, deref(rs.Spec.Replicas), rs.Status.ReadyReplicas))
		}
		slices.Sort(out)
		return strings.Join(out, ",")
	}
	rolledOut := func(want int32, rs string) func() (string, bool) {
		return func() (string, bool) {
			d, _, err := deps.Get(ctx, "default/web")
			if err != nil {
				return err.Error(), false
			}
			got := replicaSets()
			st := d.Status
			return got, d.Status.ObservedGeneration == d.Generation && st.Replicas == want && st.UpdatedReplicas == want &&
				st.AvailableReplicas == want && got == rs
		}
	}

	crons := resource[*api.CronJob](t, c)
	if _, err := crons.Create(ctx, cronJob()); err != nil {
		t.Fatal(err)
	}
	if _, err := deps.Create(ctx, webDeployment()); err != nil {
		t.Fatal(err)
	}
	step("deployment created", rolledOut(3, "nginx:1.25=3/3"))

	sc, err := deps.GetScale(ctx, "default/web")
	if err != nil {
		t.Fatal(err)
	}
	sc.Spec.Replicas = 5
	if _, err := deps.UpdateScale(ctx, "default/web", sc); err != nil {
		t.Fatal(err)
	}
	step("scaled to 5", rolledOut(5, "nginx:1.25=5/5"))

	update(t, deps, "default/web", func(d *api.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:1.26" })
	step("rolled out nginx:1.26", rolledOut(5, "nginx:1.25=0/0,nginx:1.26=5/5"))

	// kubectl rollout undo: the template of the previous ReplicaSet,
	// without its pod-template-hash label.
	l, err := list(ctx, sets, "app=web")
	if err != nil {
		t.Fatal(err)
	}
	var previous api.PodTemplateSpec
	for _, rs := range l.Items {
		if rs.Spec.Template.Spec.Containers[0].Image == "nginx:1.25" {
			previous = *rs.Spec.Template.DeepCopy()
		}
	}
	delete(previous.Labels, api.LabelPodTemplateHash)
	update(t, deps, "default/web", func(d *api.Deployment) { d.Spec.Template = previous })
	step("rolled back", rolledOut(5, "nginx:1.25=5/5,nginx:1.26=0/0"))

	if _, err := stss.Create(ctx, statefulSet()); err != nil {
		t.Fatal(err)
	}
	step("statefulset", func() (string, bool) {
		st, _, err := stss.Get(ctx, "default/db")
		if err != nil {
			return err.Error(), false
		}
		names := podNames(ctx, pods, "app=db")
		return fmt.Sprintf("ready=%d pods=%s", st.Status.ReadyReplicas, names), st.Status.ReadyReplicas == 2 && names == "db-0,db-1"
	})

	if _, err := dss.Create(ctx, daemonSet()); err != nil {
		t.Fatal(err)
	}
	step("daemonset", func() (string, bool) {
		ds, _, err := dss.Get(ctx, "default/agent")
		if err != nil {
			return err.Error(), false
		}
		st := ds.Status
		return fmt.Sprintf("desired=%d ready=%d", st.DesiredNumberScheduled, st.NumberReady), st.DesiredNumberScheduled == 2 && st.NumberReady == 2
	})

	if _, err := jobs.Create(ctx, job()); err != nil {
		t.Fatal(err)
	}
	step("job", func() (string, bool) {
		j, _, err := jobs.Get(ctx, "default/batch")
		if err != nil {
			return err.Error(), false
		}
		complete := false
		for _, c := range j.Status.Conditions {
			if c.Type == api.JobComplete && c.Status == api.ConditionTrue {
				complete = true
			}
		}
		return fmt.Sprintf("succeeded=%d complete=%t", j.Status.Succeeded, complete), complete
	})

	// The CronJob, created first, runs at the next minute: its first Job
	// completes and the controller records both times.
	step("cronjob", func() (string, bool) {
		cj, _, err := crons.Get(ctx, "default/tick")
		if err != nil {
			return err.Error(), false
		}
		st := cj.Status
		return fmt.Sprintf("scheduled=%t succeeded=%t", st.LastScheduleTime != nil, st.LastSuccessfulTime != nil),
			st.LastScheduleTime != nil && st.LastSuccessfulTime != nil
	})
	return states
}

func update[T api.Object](t *testing.T, r client.Resource[T], key string, change func(T)) {
	t.Helper()
	for range 10 {
		obj, _, err := r.Get(t.Context(), key)
		if err != nil {
			t.Fatal(err)
		}
		change(obj)
		if _, err = r.Update(t.Context(), obj, ""); err == nil {
			return
		} else if !client.IsConflict(err) {
			t.Fatal(err)
		}
	}
	t.Fatalf("update %s: 10 conflicts in a row", key)
}

// list lists the objects of r in the namespace default that selector
// selects.
func list[T api.Object](ctx context.Context, r client.Resource[T], selector string) (source.List[T], error) {
	lw, err := r.Select(client.SelectOptions{Namespace: "default", LabelSelector: selector})
	if err != nil {
		return source.List[T]{}, err
	}
	return lw.List(ctx, source.ListOptions{})
}

func podNames(ctx context.Context, pods client.Resource[*api.Pod], selector string) string {
	l, err := list(ctx, pods, selector)
	if err != nil {
		return err.Error()
	}
	var names []string
	for _, p := range l.Items {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	return strings.Join(names, ",")
}

func template(app, image string) api.PodTemplateSpec {
	return api.PodTemplateSpec{
		ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": app}},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: app, Image: image}}},
	}
}

func webDeployment() *api.Deployment {
	return &api.Deployment{
		ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web", Labels: map[string]string{"app": "web"}},
		Spec: api.DeploymentSpec{
			Replicas: ptr[int32](3),
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: template("web", "nginx:1.25"),
		},
	}
}

func statefulSet() *api.StatefulSet {
	return &api.StatefulSet{
		ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "db"},
		Spec: api.StatefulSetSpec{
			Replicas:    ptr[int32](2),
			ServiceName: "db",
			Selector:    &api.LabelSelector{MatchLabels: map[string]string{"app": "db"}},
			Template:    template("db", "postgres:17"),
		},
	}
}

func daemonSet() *api.DaemonSet {
	return &api.DaemonSet{
		ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "agent"},
		Spec: api.DaemonSetSpec{
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
			Template: template("agent", "busybox:1.37"),
		},
	}
}

// job completes twice, one pod at a time; each pod's container exits 0
// after a second (the simulated kubelet's annotations).
func job() *api.Job {
	tmpl := template("batch", "busybox:1.37")
	tmpl.Annotations = map[string]string{"sim.ctrlkit.io/exit-code": "0", "sim.ctrlkit.io/run-for": "1s"}
	tmpl.Spec.RestartPolicy = api.RestartPolicyNever
	return &api.Job{
		ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "batch"},
		Spec:       api.JobSpec{Completions: ptr[int32](2), Parallelism: ptr[int32](1), Template: tmpl},
	}
}

// cronJob runs every minute a Job whose one pod exits 0 after a second.
func cronJob() *api.CronJob {
	j := job()
	j.Spec.Completions = nil
	return &api.CronJob{
		ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "tick"},
		Spec: api.CronJobSpec{
			Schedule:          "* * * * *",
			ConcurrencyPolicy: api.ForbidConcurrent,
			JobTemplate:       api.JobTemplateSpec{Spec: j.Spec},
		},
	}
}

// watchAll watches the kinds the scenario reads in c (in the namespace
// default, and Nodes), and returns a channel that receives after each change (changes
// coalesce). A watch that ends is started again from a new list.
func watchAll(t testing.TB, c client.Client) <-chan struct{} {
	changed := make(chan struct{}, 1)
	notify := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	for _, watch := range []func(testing.TB, client.Client, func()){
		watchKind[*api.Deployment], watchKind[*api.ReplicaSet], watchKind[*api.StatefulSet],
		watchKind[*api.DaemonSet], watchKind[*api.Job], watchKind[*api.CronJob], watchKind[*api.Pod], watchKind[*api.Node],
	} {
		watch(t, c, notify)
	}
	return changed
}

// watchKind calls notify after each change of a T in the namespace
// default (or of a cluster-scoped T) until the test ends.
func watchKind[T api.Object](t testing.TB, c client.Client, notify func()) {
	opts := client.SelectOptions{Namespace: "default"}
	if info, _ := api.InfoFor[T](); !info.Namespaced {
		opts.Namespace = ""
	}
	lw, err := resource[T](t, c).Select(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		retry := func() {
			select { // a real server: pace a failing call
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
		for ctx.Err() == nil {
			l, err := lw.List(ctx, source.ListOptions{Limit: 1})
			if err != nil {
				retry()
				continue
			}
			ch, err := lw.Watch(ctx, source.WatchOptions{ResourceVersion: l.ResourceVersion})
			if err != nil {
				retry()
				continue
			}
			notify() // anything may have changed before this watch
			for range ch {
				notify()
			}
		}
	}()
}

func resource[T api.Object](t testing.TB, c client.Client) client.Resource[T] {
	t.Helper()
	r, err := client.For[T](c)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func ptr[T any](v T) *T { return &v }

func deref(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

// syncBuffer collects the commands' logs, written from several
// goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.b.Len() > 1<<20 {
		return len(p), nil // keep the first MiB
	}
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
