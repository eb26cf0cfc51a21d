package kubelet_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/kubelet"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/source"
)

// env is one cluster with one running kubelet, inside a synctest bubble.
type env struct {
	t   *testing.T
	ctx context.Context
	c   *cluster.Cluster
	k   *kubelet.Kubelet
	t0  time.Time
}

func start(t *testing.T, opts kubelet.Options) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	c, err := cluster.New(ctx, cluster.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if opts.NodeName == "" {
		opts.NodeName = "n1"
	}
	k, err := kubelet.New(c, opts)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() { done <- k.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("Run: %v", err)
		}
	})
	synctest.Wait()
	return &env{t: t, ctx: ctx, c: c, k: k, t0: time.Now()}
}

// sleepTo advances the bubble's clock to t0+d and lets everything settle.
func (e *env) sleepTo(d time.Duration) {
	e.t.Helper()
	if w := time.Until(e.t0.Add(d)); w > 0 {
		time.Sleep(w)
	}
	synctest.Wait()
}

// run creates a pod and binds it to n1, as a scheduler would.
func (e *env) run(p *api.Pod) {
	e.t.Helper()
	if p.Namespace == "" {
		p.Namespace = "default"
	}
	if len(p.Spec.Containers) == 0 {
		p.Spec.Containers = []api.Container{{Name: "c", Image: "nginx"}}
	}
	if _, err := e.c.Pods().Create(e.ctx, p); err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.c.Bind(e.ctx, p.Namespace, p.Name, e.k.NodeName()); err != nil {
		e.t.Fatal(err)
	}
	synctest.Wait()
}

func (e *env) pod(name string) *api.Pod {
	e.t.Helper()
	p, _, err := e.c.Pods().Get(e.ctx, "default/"+name)
	if err != nil {
		e.t.Fatalf("pod %s: %v", name, err)
	}
	return p
}

func newPod(name string, policy api.RestartPolicy, ann map[string]string, ctrs ...api.Container) *api.Pod {
	p := &api.Pod{}
	p.Name, p.Annotations = name, ann
	p.Spec.RestartPolicy = policy
	p.Spec.Containers = ctrs
	return p
}

func ctr(p *api.Pod) api.ContainerStatus { return p.Status.ContainerStatuses[0] }

func cond(p *api.Pod, t api.PodConditionType) (api.PodCondition, bool) {
	for _, c := range p.Status.Conditions {
		if c.Type == t {
			return c, true
		}
	}
	return api.PodCondition{}, false
}

func TestRegistrationAndHeartbeats(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, kubelet.Options{})
		heartbeat := func() (node, lease time.Time) {
			t.Helper()
			n, _, err := e.c.Nodes().Get(e.ctx, "n1")
			if err != nil {
				t.Fatal(err)
			}
			ready, ok := n.Status.GetCondition(api.NodeReady)
			if !ok || ready.Status != api.ConditionTrue {
				t.Fatalf("node conditions %+v", n.Status.Conditions)
			}
			l, _, err := e.c.Leases().Get(e.ctx, kubelet.NodeLeaseNamespace+"/n1")
			if err != nil {
				t.Fatal(err)
			}
			if *l.Spec.HolderIdentity != "n1" || *l.Spec.LeaseDurationSeconds != 40 || len(l.OwnerReferences) != 1 || l.OwnerReferences[0].UID != n.UID {
				t.Fatalf("lease %+v", l)
			}
			return ready.LastHeartbeatTime.Time, l.Spec.RenewTime.Time
		}
		n, _, _ := e.c.Nodes().Get(e.ctx, "n1")
		if got := n.Status.Allocatable[api.ResourceName("pods")]; got.CmpInt64(110) != 0 {
			t.Errorf("allocatable pods %v", got)
		}
		if n.Status.NodeInfo.KubeletVersion == "" || len(n.Status.Addresses) != 2 || n.Labels[api.LabelHostname] != "n1" || n.Spec.PodCIDR == "" {
			t.Errorf("node %+v", n)
		}
		// The Lease every 10 s; the unchanged status only at registration
		// (the report frequency is 5 min).
		for i := range 4 {
			e.sleepTo(time.Duration(i) * 10 * time.Second)
			nodeAt, leaseAt := heartbeat()
			want := e.t0.Add(time.Duration(i) * 10 * time.Second)
			if !nodeAt.Equal(e.t0.Truncate(time.Second)) || !leaseAt.Equal(want) {
				t.Fatalf("beat %d: node %v lease %v, want node %v lease %v", i, nodeAt, leaseAt, e.t0, want)
			}
		}
		e.k.Stop()
		e.sleepTo(90 * time.Second)
		if nodeAt, leaseAt := heartbeat(); !nodeAt.Equal(e.t0.Truncate(time.Second)) || !leaseAt.Equal(e.t0.Add(30*time.Second)) {
			t.Fatalf("stopped kubelet beat: node %v lease %v", nodeAt, leaseAt)
		}
		// Back, the kubelet posts its status at once, as after a restart.
		e.k.Start()
		synctest.Wait()
		if nodeAt, leaseAt := heartbeat(); !nodeAt.Equal(e.t0.Add(90*time.Second)) || !leaseAt.Equal(e.t0.Add(90*time.Second)) {
			t.Fatalf("restarted kubelet beat: node %v lease %v", nodeAt, leaseAt)
		}
		e.sleepTo(100 * time.Second)
		if nodeAt, leaseAt := heartbeat(); !nodeAt.Equal(e.t0.Add(90*time.Second)) || !leaseAt.Equal(e.t0.Add(100*time.Second)) {
			t.Fatalf("after restart: node %v lease %v", nodeAt, leaseAt)
		}
	})
}

// An idle node posts its status once per StatusReportFrequency (5 min)
// and renews its Lease every 10 s; a change — a condition another
// component set, a new image — is posted at the next 10 s sync
// (tryUpdateNodeStatus, kubelet_node_status.go).
func TestNodeStatusReportFrequency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, kubelet.Options{})
		node := func() *api.Node {
			t.Helper()
			n, _, err := e.c.Nodes().Get(e.ctx, "n1")
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		check := func(d, nodeAt, leaseAt time.Duration) *api.Node {
			t.Helper()
			e.sleepTo(d)
			n := node()
			ready, _ := n.Status.GetCondition(api.NodeReady)
			l, _, err := e.c.Leases().Get(e.ctx, kubelet.NodeLeaseNamespace+"/n1")
			if err != nil {
				t.Fatal(err)
			}
			if got, want := ready.LastHeartbeatTime.Time, e.t0.Add(nodeAt).Truncate(time.Second); !got.Equal(want) {
				t.Fatalf("at %v: node heartbeat %v, want %v", d, got.Sub(e.t0), nodeAt)
			}
			if got := l.Spec.RenewTime.Time; !got.Equal(e.t0.Add(leaseAt)) {
				t.Fatalf("at %v: lease renewed %v, want %v", d, got.Sub(e.t0), leaseAt)
			}
			return n
		}
		// Idle: one Node write per 5 min, at 5 and 10 min.
		w, err := e.c.Nodes().Watch(e.ctx, source.WatchOptions{ResourceVersion: node().ResourceVersion})
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i <= 60; i++ {
			d := time.Duration(i) * 10 * time.Second
			check(d, d/(5*time.Minute)*(5*time.Minute), d)
		}
		var writes []time.Duration
	drain:
		for {
			synctest.Wait()
			select {
			case ev := <-w:
				ready, _ := ev.Object.Status.GetCondition(api.NodeReady)
				writes = append(writes, ready.LastHeartbeatTime.Time.Sub(e.t0))
			default:
				break drain
			}
		}
		if len(writes) != 2 || writes[0] != 5*time.Minute || writes[1] != 10*time.Minute {
			t.Fatalf("node writes at %v, want 5m and 10m", writes)
		}
		// A condition the node lifecycle controller set is put right at
		// the next sync.
		e.sleepTo(10*time.Minute + 5*time.Second)
		n := node()
		for i := range n.Status.Conditions {
			if n.Status.Conditions[i].Type == api.NodeReady {
				n.Status.Conditions[i].Status, n.Status.Conditions[i].Reason = api.ConditionUnknown, "NodeStatusUnknown"
			}
		}
		if _, err := e.c.Nodes().UpdateStatus(e.ctx, n); err != nil {
			t.Fatal(err)
		}
		n = check(10*time.Minute+10*time.Second, 10*time.Minute+10*time.Second, 10*time.Minute+10*time.Second)
		if ready, _ := n.Status.GetCondition(api.NodeReady); ready.Status != api.ConditionTrue {
			t.Fatalf("Ready %+v", ready)
		}
		// A new image (the pod's container starts 1 s after it is bound)
		// is posted at the next sync, then nothing until 5 min later.
		e.sleepTo(10*time.Minute + 15*time.Second)
		if len(node().Status.Images) != 0 {
			t.Fatalf("images before any pod: %+v", node().Status.Images)
		}
		e.run(newPod("web", "", nil))
		check(10*time.Minute+18*time.Second, 10*time.Minute+10*time.Second, 10*time.Minute+10*time.Second)
		n = check(10*time.Minute+20*time.Second, 10*time.Minute+20*time.Second, 10*time.Minute+20*time.Second)
		if len(n.Status.Images) == 0 {
			t.Fatalf("no image posted: %+v", n.Status)
		}
		check(15*time.Minute+10*time.Second, 10*time.Minute+20*time.Second, 15*time.Minute+10*time.Second)
		check(15*time.Minute+20*time.Second, 15*time.Minute+20*time.Second, 15*time.Minute+20*time.Second)
	})
}

// Pending → Running → Ready, the conditions in order, a pod IP.
func TestPodBecomesReady(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, kubelet.Options{PodCIDR: "10.244.7.0/24"})
		e.run(newPod("web", "", nil, api.Container{Name: "c", Image: "nginx",
			ReadinessProbe: &api.Probe{InitialDelaySeconds: 5, PeriodSeconds: 10}}))
		p := e.pod("web")
		if p.Status.Phase != api.PodPending || p.Status.StartTime == nil || p.Status.PodIP != "10.244.7.2" ||
			p.Status.ContainerStatuses[0].State.Waiting == nil || p.Status.ContainerStatuses[0].State.Waiting.Reason != "ContainerCreating" {
			t.Fatalf("at 0s: %+v", p.Status)
		}
		e.sleepTo(time.Second)
		p = e.pod("web")
		if r, _ := cond(p, api.PodReady); p.Status.Phase != api.PodRunning || r.Status != api.ConditionFalse || p.Status.ContainerStatuses[0].State.Running == nil {
			t.Fatalf("at 1s: %+v", p.Status)
		}
		e.sleepTo(6 * time.Second)
		p = e.pod("web")
		var last time.Time
		for _, ct := range []api.PodConditionType{api.PodScheduled, api.PodInitialized, api.ContainersReady, api.PodReady} {
			c, ok := cond(p, ct)
			if !ok || c.Status != api.ConditionTrue || c.LastTransitionTime.Time.Before(last) {
				t.Fatalf("at 6s: condition %s %+v (after %v)", ct, c, last)
			}
			last = c.LastTransitionTime.Time
		}
		if !last.Equal(e.t0.Add(6 * time.Second)) {
			t.Errorf("Ready at %v, want 6s", last.Sub(e.t0))
		}
		if !p.Status.ContainerStatuses[0].Ready || !api.IsPodReady(p) {
			t.Errorf("not ready: %+v", p.Status)
		}
	})
}

// A Job's pod (restartPolicy Never or OnFailure) completes with exit 0.
func TestJobPodSucceeds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, kubelet.Options{})
		e.run(newPod("job", api.RestartPolicyNever, nil))
		e.sleepTo(5 * time.Second)
		if p := e.pod("job"); p.Status.Phase != api.PodRunning {
			t.Fatalf("at 5s: %s", p.Status.Phase)
		}
		e.sleepTo(6 * time.Second)
		p := e.pod("job")
		term := p.Status.ContainerStatuses[0].State.Terminated
		if p.Status.Phase != api.PodSucceeded || term == nil || term.ExitCode != 0 || term.Reason != "Completed" {
			t.Fatalf("at 6s: %+v", p.Status)
		}
		if r, _ := cond(p, api.PodReady); r.Status != api.ConditionFalse || r.Reason != "PodCompleted" {
			t.Errorf("ready %+v", r)
		}
	})
}

// A pod annotated to fail: Failed under Never; under OnFailure and Always
// it restarts with back-off and counts restarts.
func TestFailingPod(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, kubelet.Options{})
		fail := map[string]string{kubelet.AnnotationExitCode: "1"}
		e.run(newPod("never", api.RestartPolicyNever, fail))
		e.run(newPod("onfailure", api.RestartPolicyOnFailure, fail))
		e.run(newPod("always", api.RestartPolicyAlways, fail))
		e.sleepTo(60 * time.Second)
		p := e.pod("never")
		if term := p.Status.ContainerStatuses[0].State.Terminated; p.Status.Phase != api.PodFailed || term == nil || term.ExitCode != 1 || term.Reason != "Error" {
			t.Fatalf("never: %+v", p.Status)
		}
		// OnFailure (a job container runs 5 s): exits at 6 (restarted at
		// once), 11 (back-off 10 s), 26 (20 s), 51 (40 s: waits until 91).
		p = e.pod("onfailure")
		cs := p.Status.ContainerStatuses[0]
		if p.Status.Phase != api.PodRunning || cs.RestartCount != 3 || cs.State.Waiting == nil || cs.State.Waiting.Reason != "CrashLoopBackOff" || cs.LastTerminationState.Terminated.ExitCode != 1 {
			t.Fatalf("onfailure: %+v", p.Status)
		}
		// Always (a server with an exit code runs 1 s): started at 1, 2, 13,
		// 34, 75 (back-offs 0, 10, 20, 40 after the exits at 2, 3, 14, 35).
		cs = ctr(e.pod("always"))
		if cs.RestartCount != 3 || cs.State.Waiting == nil {
			t.Fatalf("always: %+v", cs)
		}
		e.sleepTo(75 * time.Second)
		if cs = ctr(e.pod("always")); cs.RestartCount != 4 || cs.State.Running == nil {
			t.Fatalf("always at 75s: %+v", cs)
		}
	})
}

// A pod whose readiness probe never passes runs but is never ready.
func TestReadinessNeverPasses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, kubelet.Options{})
		e.run(newPod("web", "", map[string]string{kubelet.AnnotationReady: "never"},
			api.Container{Name: "c", Image: "nginx", ReadinessProbe: &api.Probe{PeriodSeconds: 5}}))
		e.sleepTo(10 * time.Minute)
		p := e.pod("web")
		if r, _ := cond(p, api.PodReady); p.Status.Phase != api.PodRunning || r.Status != api.ConditionFalse || r.Reason != "ContainersNotReady" || ctr(p).Ready || ctr(p).RestartCount != 0 {
			t.Fatalf("%+v", p.Status)
		}
	})
}

// A liveness failure restarts the container with back-off 10 s, 20 s,
// 40 s … after an immediate first restart, counting restarts.
func TestLivenessRestarts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := events.NewMemory()
		e := start(t, kubelet.Options{Recorder: rec})
		e.run(newPod("web", "", map[string]string{kubelet.AnnotationLiveFor: "15s"},
			api.Container{Name: "c", Image: "nginx", LivenessProbe: &api.Probe{PeriodSeconds: 10, FailureThreshold: 2}}))
		// Each run: probes at +0, +10 pass, +20, +30 fail: killed 30 s after
		// its start. Started at 1; killed 31, restarted at once; killed 61,
		// back-off 10 s: 71; killed 101, 20 s: 121; killed 151, 40 s: 191.
		for i, startAt := range []int{1, 31, 71, 121, 191} {
			e.sleepTo(time.Duration(startAt) * time.Second)
			cs := ctr(e.pod("web"))
			if cs.State.Running == nil || !cs.State.Running.StartedAt.Time.Equal(e.t0.Add(time.Duration(startAt)*time.Second)) || cs.RestartCount != int32(i) {
				t.Fatalf("run %d at %ds: %+v", i+1, startAt, cs)
			}
			if i > 0 && (cs.LastTerminationState.Terminated == nil || cs.LastTerminationState.Terminated.ExitCode != 137) {
				t.Fatalf("run %d: last state %+v", i+1, cs.LastTerminationState)
			}
		}
		count := map[string]int{}
		for _, ev := range rec.Strings() {
			count[ev]++
		}
		for ev, n := range map[string]int{
			"Normal Started Container started":                                          5,
			"Warning Unhealthy Liveness probe failed: simulated failure of container c": 8,
			"Normal Killing Container c failed liveness probe, will be restarted":       4,
			// The pod as the kubelet's format.Pod names it.
			"Warning BackOff Back-off restarting failed container c in pod web_default(" + string(e.pod("web").UID) + ")": 3,
		} {
			if count[ev] != n {
				t.Errorf("%d × %q, want %d; events %q", count[ev], ev, n, rec.Strings())
			}
		}
	})
}

// Graceful deletion: containers exit at once on SIGTERM by default, and
// the kubelet deletes the pod with grace 0 without waiting the grace
// period (issue 31).
func TestDeletionIsPromptByDefault(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, kubelet.Options{})
		p := newPod("web", "", nil)
		e.run(p)
		e.sleepTo(5 * time.Second)
		if _, err := e.c.Pods().DeleteWith(e.ctx, "default/web", cluster.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		e.sleepTo(6 * time.Second)
		if _, _, err := e.c.Pods().Get(e.ctx, "default/web"); !errors.Is(err, source.ErrNotFound) {
			t.Fatalf("a second after the delete (grace 30 s): %v", err)
		}
	})
}

// Graceful deletion of a pod whose containers ignore SIGTERM
// (stop-after "grace"): they get the whole grace period, then the
// kubelet deletes the pod with grace 0.
func TestGracefulDeletion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, kubelet.Options{})
		p := newPod("web", "", map[string]string{kubelet.AnnotationStopAfter: "grace"})
		p.Spec.TerminationGracePeriodSeconds = new(int64(20))
		e.run(p)
		e.sleepTo(5 * time.Second)
		if _, err := e.c.Pods().DeleteWith(e.ctx, "default/web", cluster.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		e.sleepTo(24 * time.Second)
		if p := e.pod("web"); p.DeletionTimestamp == nil || ctr(p).State.Running == nil {
			t.Fatalf("at 24s: %+v", p.Status)
		}
		e.sleepTo(25 * time.Second)
		if _, _, err := e.c.Pods().Get(e.ctx, "default/web"); !errors.Is(err, source.ErrNotFound) {
			t.Fatalf("at 25s: %v", err)
		}
	})
}

const staticManifest = `apiVersion: v1
kind: Pod
metadata:
  name: etcd
  namespace: kube-system
  annotations: {sim.ctrlkit.io/stop-after: grace}
spec:
  containers:
  - name: etcd
    image: registry.k8s.io/etcd:3.5
`

// Static pods run from the manifest directory and are mirrored; deleting
// the mirror does not stop the static pod, and the mirror comes back;
// removing the manifest stops the pod and removes its mirror.
func TestStaticPods(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		manifest := filepath.Join(dir, "etcd.yaml")
		if err := os.WriteFile(manifest, []byte(staticManifest), 0o644); err != nil {
			t.Fatal(err)
		}
		e := start(t, kubelet.Options{StaticPodPath: dir})
		e.sleepTo(2 * time.Second)
		get := func() *api.Pod {
			t.Helper()
			p, _, err := e.c.Pods().Get(e.ctx, "kube-system/etcd-n1")
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		m := get()
		if m.Annotations[api.AnnotationConfigMirror] == "" || m.Spec.NodeName != "n1" || m.Status.Phase != api.PodRunning || !api.IsPodReady(m) ||
			len(m.OwnerReferences) != 1 || m.OwnerReferences[0].Kind != "Node" {
			t.Fatalf("mirror %+v", m)
		}
		started := ctr(m).State.Running.StartedAt
		if _, err := e.c.Pods().DeleteWith(e.ctx, "kube-system/etcd-n1", cluster.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		m2 := get()
		if m2.UID == m.UID || m2.DeletionTimestamp != nil {
			t.Fatalf("mirror not re-created: %+v", m2.ObjectMeta)
		}
		if cs := ctr(m2); cs.State.Running == nil || !cs.State.Running.StartedAt.Equal(started.Time) || cs.RestartCount != 0 {
			t.Fatalf("static pod restarted: %+v", cs)
		}
		if err := os.Remove(manifest); err != nil {
			t.Fatal(err)
		}
		e.sleepTo(20 * time.Second) // the next file check begins termination: grace 30 s
		if p := get(); ctr(p).State.Running == nil {
			t.Fatalf("at 20s: %+v", p.Status)
		}
		e.sleepTo(50 * time.Second)
		if _, _, err := e.c.Pods().Get(e.ctx, "kube-system/etcd-n1"); !errors.Is(err, source.ErrNotFound) {
			t.Fatalf("mirror after the manifest's removal: %v", err)
		}
	})
}

// Init containers run in order before the app container; the conditions
// turn True in the order PodScheduled → Initialized → ContainersReady → Ready.
func TestInitContainersInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, kubelet.Options{})
		p := newPod("web", "", map[string]string{kubelet.AnnotationRunFor + ".migrate": "10s"})
		p.Spec.InitContainers = []api.Container{{Name: "wait", Image: "busybox"}, {Name: "migrate", Image: "busybox"}}
		e.run(p)
		// wait: created 0-1, runs 1-2; migrate: 2-3, runs 3-13; web: 13-14.
		for _, step := range []struct {
			at               int
			wait, migrate    string
			initialized, app bool
		}{
			{1, "running", "waiting", false, false},
			{3, "terminated", "running", false, false},
			{13, "terminated", "terminated", true, false},
			{14, "terminated", "terminated", true, true},
		} {
			e.sleepTo(time.Duration(step.at) * time.Second)
			p := e.pod("web")
			state := func(cs api.ContainerStatus) string {
				switch {
				case cs.State.Running != nil:
					return "running"
				case cs.State.Terminated != nil:
					return "terminated"
				}
				return "waiting"
			}
			init, _ := cond(p, api.PodInitialized)
			if got := state(p.Status.InitContainerStatuses[0]); got != step.wait {
				t.Fatalf("at %ds: wait %s", step.at, got)
			}
			if got := state(p.Status.InitContainerStatuses[1]); got != step.migrate {
				t.Fatalf("at %ds: migrate %s", step.at, got)
			}
			if (init.Status == api.ConditionTrue) != step.initialized || (ctr(p).State.Running != nil) != step.app {
				t.Fatalf("at %ds: %+v", step.at, p.Status)
			}
		}
		p = e.pod("web")
		var order []api.PodConditionType
		var last time.Time
		for _, ct := range []api.PodConditionType{api.PodScheduled, api.PodInitialized, api.ContainersReady, api.PodReady} {
			c, _ := cond(p, ct)
			if c.Status != api.ConditionTrue || c.LastTransitionTime.Time.Before(last) {
				t.Fatalf("%s after %v: %+v", ct, order, c)
			}
			order, last = append(order, ct), c.LastTransitionTime.Time
		}
		if init, _ := cond(p, api.PodInitialized); !init.LastTransitionTime.Time.Equal(e.t0.Add(13 * time.Second)) {
			t.Errorf("Initialized at %v", init.LastTransitionTime.Time.Sub(e.t0))
		}
	})
}

// A stopped kubelet reports nothing: a Job's pod that completes meanwhile
// shows Running until the kubelet comes back, and a pod deleted meanwhile
// stays Terminating; Start catches up with both.
func TestStopFreezesPods(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, kubelet.Options{})
		e.run(newPod("job", api.RestartPolicyNever, nil))
		e.run(newPod("web", "", nil))
		e.sleepTo(2 * time.Second)
		e.k.Stop()
		if _, err := e.c.Pods().DeleteWith(e.ctx, "default/web", cluster.DeleteOptions{GracePeriodSeconds: new(int64(5))}); err != nil {
			t.Fatal(err)
		}
		e.sleepTo(5 * time.Minute)
		if p := e.pod("job"); p.Status.Phase != api.PodRunning {
			t.Fatalf("stopped: job %s", p.Status.Phase)
		}
		if p := e.pod("web"); p.DeletionTimestamp == nil {
			t.Fatal("stopped: web not terminating")
		}
		e.k.Start()
		synctest.Wait()
		p := e.pod("job")
		if term := ctr(p).State.Terminated; p.Status.Phase != api.PodSucceeded || term == nil || !term.FinishedAt.Time.Equal(e.t0.Add(6*time.Second)) {
			t.Fatalf("after Start: job %+v", p.Status)
		}
		// The kubelet sees the deletion now: 5 s of grace from here.
		e.sleepTo(5*time.Minute + 5*time.Second)
		if _, _, err := e.c.Pods().Get(e.ctx, "default/web"); !errors.Is(err, source.ErrNotFound) {
			t.Fatalf("web after Start: %v", err)
		}
	})
}

// Options.Stages replace the defaults: here a stage makes the pods
// labelled app=flaky never ready and another makes batch containers run
// for a minute with jitter.
func TestCustomStages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stages := append(kubelet.DefaultStages(),
			kubelet.Stage{Name: "flaky", Match: kubelet.Match{Labels: map[string]string{"app": "flaky"}}, Readiness: &kubelet.ProbeOutcome{Never: true}},
			kubelet.Stage{Name: "batch", Match: kubelet.Match{OwnerKinds: []string{""}, RestartPolicies: []api.RestartPolicy{api.RestartPolicyNever}},
				Exit: &kubelet.Exit{After: kubelet.Delay{Duration: time.Minute, Jitter: 10 * time.Second}}},
		)
		e := start(t, kubelet.Options{Stages: stages, Seed: 7})
		flaky := newPod("flaky", "", nil, api.Container{Name: "c", Image: "nginx", ReadinessProbe: &api.Probe{}})
		flaky.Labels = map[string]string{"app": "flaky"}
		e.run(flaky)
		e.run(newPod("batch", api.RestartPolicyNever, nil))
		e.sleepTo(61 * time.Second)
		if p := e.pod("flaky"); api.IsPodReady(p) || p.Status.Phase != api.PodRunning {
			t.Fatalf("flaky: %+v", p.Status)
		}
		if p := e.pod("batch"); p.Status.Phase != api.PodRunning {
			t.Fatalf("batch at 61s: %s", p.Status.Phase)
		}
		e.sleepTo(71 * time.Second)
		if p := e.pod("batch"); p.Status.Phase != api.PodSucceeded {
			t.Fatalf("batch at 71s: %s", p.Status.Phase)
		}
	})
}

// A pod of Kubernetes' bootcamp image with readiness and liveness probes: ready after the
// readiness probe's initial delay, never restarted by its liveness probe.
const probedPod = `apiVersion: v1
kind: Pod
metadata:
  name: demo-pod
  namespace: default
  labels:
    app: demo
spec:
  containers:
  - name: demo
    image: gcr.io/google-samples/kubernetes-bootcamp:v1
    ports:
    - containerPort: 8080
    readinessProbe:
      tcpSocket:
        port: 8080
      initialDelaySeconds: 5
      periodSeconds: 10
    livenessProbe:
      tcpSocket:
        port: 8080
      initialDelaySeconds: 15
      periodSeconds: 20
`

func TestSeedManifest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, kubelet.Options{})
		objs, err := api.Decode([]byte(probedPod), api.DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		e.run(objs[0].(*api.Pod))
		e.sleepTo(5 * time.Second)
		if p := e.pod("demo-pod"); api.IsPodReady(p) || p.Status.Phase != api.PodRunning {
			t.Fatalf("at 5s: %+v", p.Status)
		}
		e.sleepTo(6 * time.Second)
		if p := e.pod("demo-pod"); !api.IsPodReady(p) {
			t.Fatalf("at 6s: %+v", p.Status)
		}
		e.sleepTo(time.Hour)
		if p := e.pod("demo-pod"); !api.IsPodReady(p) || ctr(p).RestartCount != 0 {
			t.Fatalf("after an hour: %+v", p.Status)
		}
	})
}

// Two nodes: each kubelet runs only the pods bound to it, with IPs from
// its own pod CIDR; a hostNetwork pod gets its node's IP.
func TestTwoNodes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, kubelet.Options{PodCIDR: "10.244.1.0/24", InternalIP: "192.168.0.11"})
		k2, err := kubelet.New(e.c, kubelet.Options{NodeName: "n2", PodCIDR: "10.244.2.0/24", InternalIP: "192.168.0.12"})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(e.ctx)
		done := make(chan error)
		go func() { done <- k2.Run(ctx) }()
		defer func() { cancel(); <-done }()
		e.run(newPod("a", "", nil))
		host := newPod("h", "", nil)
		host.Spec.HostNetwork = true
		e.run(host)
		for _, name := range []string{"b", "c"} {
			p := newPod(name, "", nil, api.Container{Name: "c", Image: "nginx"})
			p.Namespace = "default"
			if _, err := e.c.Pods().Create(e.ctx, p); err != nil {
				t.Fatal(err)
			}
			if _, err := e.c.Bind(e.ctx, "default", name, "n2"); err != nil {
				t.Fatal(err)
			}
		}
		e.sleepTo(2 * time.Second)
		for name, want := range map[string][2]string{
			"a": {"10.244.1.2", "192.168.0.11"},
			"h": {"192.168.0.11", "192.168.0.11"},
			"b": {"10.244.2.2", "192.168.0.12"},
			"c": {"10.244.2.3", "192.168.0.12"},
		} {
			p := e.pod(name)
			if p.Status.PodIP != want[0] || p.Status.HostIP != want[1] || !api.IsPodReady(p) {
				t.Errorf("%s: podIP %s hostIP %s ready %v, want %v", name, p.Status.PodIP, p.Status.HostIP, api.IsPodReady(p), want)
			}
		}
		// n2 dies: its pods stay as they were; n1's keep being served.
		k2.Stop()
		if _, err := e.c.Pods().DeleteWith(e.ctx, "default/b", cluster.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.c.Pods().DeleteWith(e.ctx, "default/a", cluster.DeleteOptions{GracePeriodSeconds: new(int64(1))}); err != nil {
			t.Fatal(err)
		}
		e.sleepTo(time.Minute)
		if p := e.pod("b"); p.DeletionTimestamp == nil {
			t.Error("b: not terminating")
		}
		if _, _, err := e.c.Pods().Get(e.ctx, "default/a"); !errors.Is(err, source.ErrNotFound) {
			t.Errorf("a: %v", err)
		}
	})
}

// A kubelet on an existing Node takes it over (a restarted kubelet):
// it keeps its spec, takes its pod CIDR, and marks it Ready again.
func TestTakeOverNode(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		c, err := cluster.New(ctx, cluster.Options{})
		if err != nil {
			t.Fatal(err)
		}
		n := &api.Node{}
		n.Name = "n1"
		n.Spec.PodCIDR = "10.99.0.0/24"
		n.Spec.Unschedulable = true
		n.Status.Conditions = []api.NodeCondition{{Type: api.NodeReady, Status: api.ConditionUnknown}}
		if _, err := c.Nodes().Create(ctx, n); err != nil {
			t.Fatal(err)
		}
		k, err := kubelet.New(c, kubelet.Options{NodeName: "n1"})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error)
		go func() { done <- k.Run(ctx) }()
		defer func() { cancel(); <-done }()
		synctest.Wait()
		if _, err := c.Pods().Create(ctx, newPod("a", "", nil, api.Container{Name: "c", Image: "nginx"})); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Bind(ctx, "default", "a", "n1"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		n, _, _ = c.Nodes().Get(ctx, "n1")
		if ready, _ := n.Status.GetCondition(api.NodeReady); ready.Status != api.ConditionTrue || !n.Spec.Unschedulable {
			t.Fatalf("node %+v", n)
		}
		p, _, _ := c.Pods().Get(ctx, "default/a")
		if p.Status.PodIP != "10.99.0.2" {
			t.Fatalf("pod IP %q, want one of the node's CIDR", p.Status.PodIP)
		}
	})
}

// The images of the containers that ran are in the node's status at its
// next update, largest first, sizes from sim.ctrlkit.io/image-size or
// derived from the name; a container's imageID is the image's digest name.
func TestNodeStatusImages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, kubelet.Options{})
		e.run(newPod("web", "", map[string]string{kubelet.AnnotationImageSize + ".big": "2Gi"},
			api.Container{Name: "small", Image: "nginx:1.27"}, api.Container{Name: "big", Image: "reg.example/ml/model"}))
		e.sleepTo(2 * time.Second)
		n, _, _ := e.c.Nodes().Get(e.ctx, "n1")
		if len(n.Status.Images) != 0 {
			t.Fatalf("images before the status update: %+v", n.Status.Images)
		}
		e.sleepTo(10 * time.Second)
		n, _, _ = e.c.Nodes().Get(e.ctx, "n1")
		im := n.Status.Images
		if len(im) != 2 || im[0].SizeBytes != 2<<30 || im[0].Names[1] != "reg.example/ml/model:latest" ||
			im[1].SizeBytes != kubelet.ImageSize("nginx:1.27") || im[1].Names[1] != "nginx:1.27" {
			t.Fatalf("images %+v", im)
		}
		p := e.pod("web")
		for i, cs := range p.Status.ContainerStatuses {
			if want := im[1-i].Names[0]; cs.ImageID != want {
				t.Errorf("container %s imageID %q, want %q", cs.Name, cs.ImageID, want)
			}
		}
	})
}
