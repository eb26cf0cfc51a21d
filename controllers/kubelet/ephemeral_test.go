package kubelet_test

import (
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/kubelet"
	"github.com/ctrlkit/ctrlkit/events"
)

// Issue 32: an ephemeral container added to a running pod (kubectl
// debug) runs: status.ephemeralContainerStatuses reports it Running and
// started, never restarted nor ready; it stops with the pod.
func TestEphemeralContainerRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, kubelet.Options{})
		e.run(newPod("web", "", nil, api.Container{Name: "app", Image: "nginx"}))
		e.sleepTo(5 * time.Second)
		p := e.pod("web")
		if p.Status.Phase != api.PodRunning || len(p.Status.EphemeralContainerStatuses) != 0 {
			t.Fatalf("at 5s: %+v", p.Status)
		}
		p.Spec.EphemeralContainers = []api.EphemeralContainer{{Container: api.Container{Name: "dbg", Image: "busybox", Command: []string{"sleep", "1d"}}, TargetContainerName: "app"}}
		if _, err := e.c.UpdateEphemeralContainers(t.Context(), p); err != nil {
			t.Fatal(err)
		}
		e.sleepTo(6 * time.Second)
		p = e.pod("web")
		if len(p.Status.EphemeralContainerStatuses) != 1 {
			t.Fatalf("at 6s: %+v", p.Status)
		}
		st := p.Status.EphemeralContainerStatuses[0]
		if st.Name != "dbg" || st.Image != "busybox" || st.State.Running == nil || st.Started == nil || !*st.Started ||
			st.Ready || st.RestartCount != 0 || st.ContainerID == "" {
			t.Fatalf("at 6s: %+v", st)
		}
		started := st.State.Running.StartedAt
		e.sleepTo(time.Hour)
		p = e.pod("web")
		st = p.Status.EphemeralContainerStatuses[0]
		if st.State.Running == nil || !st.State.Running.StartedAt.Equal(started.Time) || st.RestartCount != 0 || p.Status.ContainerStatuses[0].State.Running == nil {
			t.Fatalf("at 1h: %+v", p.Status)
		}
	})
}

// Issue 32: an ephemeral container records the kubelet's events about
// spec.ephemeralContainers{name} (kube's GenerateContainerRef): Pulled,
// Created and Started when it starts, once; Killing when the pod stops
// it. kubectl describe pod lists them.
func TestEphemeralContainerEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := events.NewMemory()
		e := start(t, kubelet.Options{Recorder: rec})
		e.run(newPod("web", "", nil, api.Container{Name: "app", Image: "nginx"}))
		e.sleepTo(5 * time.Second)
		p := e.pod("web")
		p.Spec.EphemeralContainers = []api.EphemeralContainer{{Container: api.Container{Name: "dbg", Image: "busybox"}, TargetContainerName: "app"}}
		if _, err := e.c.UpdateEphemeralContainers(t.Context(), p); err != nil {
			t.Fatal(err)
		}
		e.sleepTo(time.Minute)
		ephemeral := func() []string {
			var out []string
			for _, ev := range rec.Events() {
				if strings.HasPrefix(ev.Regarding.FieldPath, "spec.ephemeralContainers") {
					if ev.Regarding.Kind != "Pod" || ev.Regarding.Name != "web" {
						t.Errorf("event about %+v", ev.Regarding)
					}
					out = append(out, ev.Regarding.FieldPath+" "+ev.String())
				}
			}
			return out
		}
		want := []string{
			`spec.ephemeralContainers{dbg} Normal Pulled Container image "busybox" already present on machine and can be accessed by the pod`,
			"spec.ephemeralContainers{dbg} Normal Created Container created",
			"spec.ephemeralContainers{dbg} Normal Started Container started",
		}
		if got := ephemeral(); !slices.Equal(got, want) {
			t.Fatalf("events of the ephemeral container:\n%q\nwant\n%q", got, want)
		}
		if _, err := e.c.Pods().DeleteWith(e.ctx, "default/web", cluster.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		e.sleepTo(2 * time.Minute)
		want = append(want, "spec.ephemeralContainers{dbg} Normal Killing Stopping container dbg")
		if got := ephemeral(); !slices.Equal(got, want) {
			t.Fatalf("after the delete:\n%q\nwant\n%q", got, want)
		}
	})
}
