package kubelet_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/kubelet"
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
