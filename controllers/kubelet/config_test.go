package kubelet_test

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/kubelet"
	"github.com/ctrlkit/ctrlkit/events"
)

func count(rec *events.Memory, want string) int {
	n := 0
	for _, s := range rec.Strings() {
		if s == want {
			n++
		}
	}
	return n
}

func (e *env) createConfigMap(name string, data map[string]string) {
	e.t.Helper()
	cm := &api.ConfigMap{Data: data}
	cm.Namespace, cm.Name = "default", name
	if _, err := e.c.ConfigMaps().Create(e.ctx, cm); err != nil {
		e.t.Fatal(err)
	}
}

func waitingOf(p *api.Pod, name string) *api.ContainerStateWaiting {
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name == name {
			return cs.State.Waiting
		}
	}
	return nil
}

// A container whose env needs a missing ConfigMap, Secret or key waits in
// CreateContainerConfigError with makeEnvironmentVariables' message and
// a Failed event, the others of the pod run; it is created at the next
// retry (10 s) once the object or key exists. Optional references do not
// hold it.
func TestMissingConfigEnv(t *testing.T) {
	cases := []struct {
		name   string
		env    []api.EnvVar
		from   []api.EnvFromSource
		msg    string
		create func(e *env)
	}{
		{"configMapKeyRef, no configmap",
			[]api.EnvVar{{Name: "A", ValueFrom: &api.EnvVarSource{ConfigMapKeyRef: &api.ConfigMapKeySelector{LocalObjectReference: api.LocalObjectReference{Name: "x"}, Key: "k"}}}},
			nil, `configmap "x" not found`,
			func(e *env) { e.createConfigMap("x", map[string]string{"k": "v"}) }},
		{"configMapKeyRef, no key",
			[]api.EnvVar{{Name: "A", ValueFrom: &api.EnvVarSource{ConfigMapKeyRef: &api.ConfigMapKeySelector{LocalObjectReference: api.LocalObjectReference{Name: "present"}, Key: "k"}}}},
			nil, `couldn't find key k in ConfigMap default/present`,
			func(e *env) {
				cm, _, _ := e.c.ConfigMaps().Get(e.ctx, "default/present")
				cm.Data = map[string]string{"k": "v"}
				if _, err := e.c.ConfigMaps().Update(e.ctx, cm, ""); err != nil {
					e.t.Fatal(err)
				}
			}},
		{"secretKeyRef, no secret",
			[]api.EnvVar{{Name: "A", ValueFrom: &api.EnvVarSource{SecretKeyRef: &api.SecretKeySelector{LocalObjectReference: api.LocalObjectReference{Name: "y"}, Key: "k"}}}},
			nil, `secret "y" not found`,
			func(e *env) {
				s := &api.Secret{Data: map[string][]byte{"k": []byte("v")}}
				s.Namespace, s.Name = "default", "y"
				if _, err := e.c.Secrets().Create(e.ctx, s); err != nil {
					e.t.Fatal(err)
				}
			}},
		{"envFrom configMapRef",
			nil, []api.EnvFromSource{{ConfigMapRef: &api.ConfigMapEnvSource{LocalObjectReference: api.LocalObjectReference{Name: "x"}}}},
			`configmap "x" not found`,
			func(e *env) { e.createConfigMap("x", nil) }},
		{"envFrom secretRef",
			nil, []api.EnvFromSource{{SecretRef: &api.SecretEnvSource{LocalObjectReference: api.LocalObjectReference{Name: "y"}}}},
			`secret "y" not found`,
			func(e *env) {
				s := &api.Secret{}
				s.Namespace, s.Name = "default", "y"
				if _, err := e.c.Secrets().Create(e.ctx, s); err != nil {
					e.t.Fatal(err)
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec := events.NewMemory()
				e := start(t, kubelet.Options{Recorder: rec})
				e.createConfigMap("present", map[string]string{"other": "v"})
				e.run(newPod("web", "", nil,
					api.Container{Name: "app", Image: "nginx", Env: tc.env, EnvFrom: tc.from},
					api.Container{Name: "side", Image: "nginx"}))
				e.sleepTo(5 * time.Second)
				p := e.pod("web")
				w := waitingOf(p, "app")
				if w == nil || w.Reason != "CreateContainerConfigError" || w.Message != tc.msg {
					t.Fatalf("app: %+v", p.Status.ContainerStatuses)
				}
				if p.Status.ContainerStatuses[1].State.Running == nil || p.Status.Phase != api.PodPending {
					t.Fatalf("side not running or phase %s: %+v", p.Status.Phase, p.Status.ContainerStatuses)
				}
				if n := count(rec, "Warning Failed Error: "+tc.msg); n != 1 {
					t.Errorf("%d Failed events; events %q", n, rec.Strings())
				}
				e.sleepTo(11 * time.Second) // retried at 11 s, still missing
				if n := count(rec, "Warning Failed Error: "+tc.msg); n != 2 {
					t.Errorf("%d Failed events after a retry; events %q", n, rec.Strings())
				}
				tc.create(e)
				e.sleepTo(20 * time.Second)
				if w := waitingOf(e.pod("web"), "app"); w == nil {
					t.Fatal("created before the retry")
				}
				e.sleepTo(21 * time.Second)
				p = e.pod("web")
				if cs := p.Status.ContainerStatuses[0]; cs.State.Running == nil || !cs.State.Running.StartedAt.Time.Equal(e.t0.Add(21*time.Second)) {
					t.Fatalf("app at 21s: %+v", cs)
				}
				if p.Status.Phase != api.PodRunning {
					t.Errorf("phase %s", p.Status.Phase)
				}
			})
		})
	}
}

// Optional references to missing objects or keys do not hold a container.
func TestMissingConfigOptional(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, kubelet.Options{})
		yes := true
		e.createConfigMap("present", nil)
		e.run(newPod("web", "", nil, api.Container{Name: "app", Image: "nginx",
			Env: []api.EnvVar{
				{Name: "A", ValueFrom: &api.EnvVarSource{ConfigMapKeyRef: &api.ConfigMapKeySelector{LocalObjectReference: api.LocalObjectReference{Name: "x"}, Key: "k", Optional: &yes}}},
				{Name: "B", ValueFrom: &api.EnvVarSource{ConfigMapKeyRef: &api.ConfigMapKeySelector{LocalObjectReference: api.LocalObjectReference{Name: "present"}, Key: "k", Optional: &yes}}},
				{Name: "C", ValueFrom: &api.EnvVarSource{SecretKeyRef: &api.SecretKeySelector{LocalObjectReference: api.LocalObjectReference{Name: "y"}, Key: "k", Optional: &yes}}},
				{Name: "D", Value: "literal"},
			},
			EnvFrom: []api.EnvFromSource{{SecretRef: &api.SecretEnvSource{LocalObjectReference: api.LocalObjectReference{Name: "y"}, Optional: &yes}}},
		}))
		e.run(func() *api.Pod {
			p := newPod("vol", "", nil)
			p.Spec.Volumes = []api.Volume{
				{Name: "a", VolumeSource: api.VolumeSource{ConfigMap: &api.ConfigMapVolumeSource{LocalObjectReference: api.LocalObjectReference{Name: "x"}, Optional: &yes}}},
				{Name: "b", VolumeSource: api.VolumeSource{Secret: &api.SecretVolumeSource{SecretName: "y", Optional: &yes}}},
				{Name: "c", VolumeSource: api.VolumeSource{Projected: &api.ProjectedVolumeSource{Sources: []api.VolumeProjection{
					{ConfigMap: &api.ConfigMapProjection{LocalObjectReference: api.LocalObjectReference{Name: "present"}, Items: []api.KeyToPath{{Key: "k", Path: "k"}}, Optional: &yes}},
				}}}},
			}
			return p
		}())
		e.sleepTo(time.Second)
		for _, name := range []string{"web", "vol"} {
			if p := e.pod(name); p.Status.Phase != api.PodRunning {
				t.Errorf("%s: %+v", name, p.Status)
			}
		}
	})
}

// A volume whose ConfigMap or Secret is missing holds every container in
// ContainerCreating, with a
// FailedMount event per attempt as the operation executor words it,
// attempts backing off 0.5 s, 1 s, 2 s, …; the pod starts at the attempt
// after the object appears.
func TestMissingConfigVolume(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := events.NewMemory()
		e := start(t, kubelet.Options{Recorder: rec})
		e.createConfigMap("present", map[string]string{"a": "1"})
		p := newPod("web", "", nil, api.Container{Name: "app", Image: "nginx"})
		p.Spec.Volumes = []api.Volume{
			{Name: "cfg", VolumeSource: api.VolumeSource{ConfigMap: &api.ConfigMapVolumeSource{LocalObjectReference: api.LocalObjectReference{Name: "x"}}}},
			{Name: "empty", VolumeSource: api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{}}},
			{Name: "proj", VolumeSource: api.VolumeSource{Projected: &api.ProjectedVolumeSource{Sources: []api.VolumeProjection{
				{Secret: &api.SecretProjection{LocalObjectReference: api.LocalObjectReference{Name: "y"}}},
				{ConfigMap: &api.ConfigMapProjection{LocalObjectReference: api.LocalObjectReference{Name: "present"}, Items: []api.KeyToPath{{Key: "b", Path: "b"}}}},
			}}}},
		}
		e.run(p)
		cfg := `Warning FailedMount MountVolume.SetUp failed for volume "cfg" : configmap "x" not found`
		proj := `Warning FailedMount MountVolume.SetUp failed for volume "proj" : [secret "y" not found, configmap references non-existent config key: b]`
		// Attempts at 0, 0.5, 1.5, 3.5, 7.5 s.
		e.sleepTo(7*time.Second + 600*time.Millisecond)
		p = e.pod("web")
		if w := waitingOf(p, "app"); w == nil || w.Reason != "ContainerCreating" || p.Status.Phase != api.PodPending {
			t.Fatalf("at 7.6s: %+v", p.Status)
		}
		if n, m := count(rec, cfg), count(rec, proj); n != 5 || m != 5 {
			t.Fatalf("%d, %d FailedMount events, want 5 each; events %q", n, m, rec.Strings())
		}
		cm := &api.ConfigMap{Data: map[string]string{}}
		cm.Namespace, cm.Name = "default", "x"
		if _, err := e.c.ConfigMaps().Create(e.ctx, cm); err != nil {
			t.Fatal(err)
		}
		s := &api.Secret{}
		s.Namespace, s.Name = "default", "y"
		if _, err := e.c.Secrets().Create(e.ctx, s); err != nil {
			t.Fatal(err)
		}
		e.sleepTo(16 * time.Second) // next attempt at 15.5 s: proj still lacks key b
		if n, m := count(rec, cfg), count(rec, proj); n != 5 || m != 5 {
			t.Fatalf("%d, %d FailedMount events; events %q", n, m, rec.Strings())
		}
		if !slices.Contains(rec.Strings(), `Warning FailedMount MountVolume.SetUp failed for volume "proj" : configmap references non-existent config key: b`) {
			t.Fatalf("events %q", rec.Strings())
		}
		present, _, _ := e.c.ConfigMaps().Get(e.ctx, "default/present")
		present.Data["b"] = "2"
		if _, err := e.c.ConfigMaps().Update(e.ctx, present, ""); err != nil {
			t.Fatal(err)
		}
		e.sleepTo(31 * time.Second) // next attempt at 31.5 s
		if w := waitingOf(e.pod("web"), "app"); w == nil {
			t.Fatal("started before the next mount attempt")
		}
		e.sleepTo(32*time.Second + 500*time.Millisecond) // mounted at 31.5, created 1 s later
		p = e.pod("web")
		if cs := p.Status.ContainerStatuses[0]; cs.State.Running == nil || p.Status.Phase != api.PodRunning {
			t.Fatalf("at 32.5s: %+v", p.Status)
		}
	})
}

// A pod deleted while its volumes wait is terminated and removed.
func TestMissingConfigVolumeDeleted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, kubelet.Options{})
		p := newPod("web", "", nil, api.Container{Name: "app", Image: "nginx"})
		p.Spec.Volumes = []api.Volume{{Name: "s", VolumeSource: api.VolumeSource{Secret: &api.SecretVolumeSource{SecretName: "nope"}}}}
		e.run(p)
		e.sleepTo(3 * time.Second)
		if _, err := e.c.Pods().Delete(e.ctx, "default/web", ""); err != nil {
			t.Fatal(err)
		}
		e.sleepTo(4 * time.Second)
		if _, _, err := e.c.Pods().Get(e.ctx, "default/web"); err == nil {
			t.Fatal("the pod is still there")
		}
	})
}
