package cli_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane/cli"
	"github.com/ctrlkit/ctrlkit/controllers/manager"
	"github.com/ctrlkit/ctrlkit/leader"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// `ctrlkit up --once` on the demo set, in virtual time: every workload of
// the demo manifests reaches the state it describes and the command
// exits 0.
func TestUpOnceDemoSet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out, errOut bytes.Buffer
		code := cli.Main(t.Context(), []string{"up", "--once", "--nodes", "3", "--quiet", "10s"}, &out, &errOut, cli.Options{})
		require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
		require.Empty(t, errOut.String())
		o := out.String()
		for _, row := range []string{
			`default\s+cache-0\s+1/1\s+Running`, `default\s+cache-1\s+1/1\s+Running`,
			`default\s+cache\s+2/2\s+2`, // the StatefulSet, both pods in order
			// A daemon on each of the 3 simulated nodes; the node registered
			// by hand (edge-node.json) has no kubelet, so its daemon stays Pending.
			`node-agent\s+4\s+4\s+3\s+4\s+3`,
			`default\s+checksum\s+Complete\s+1/1\s+0`,
			`default\s+hello-web\s+3/3\s+3\s+3`, // the Deployment, available
			`default\s+heartbeat\s+\*/1 \* \* \* \*\s+false`,
			`demo\s+toolbox\s+1/1\s+Running`, // under the namespace's quota
			`default\s+cache\s+ClusterIP\s+None\s+6379/TCP\s+10\.244\.\d+\.\d+:6379,10\.244`,
			`Normal\s+Completed\s+job/checksum\s+Job completed`,
			// Each controller's queue, drained, and the reconciles it ran.
			`(?m)^deployment-controller\s+0\s+[1-9]\d*\s+\d+\s+\d+\.\d$`,
			`(?m)^statefulset-controller\s+0\s+[1-9]\d*\s+`,
			`settled after`,
		} {
			require.Regexp(t, row, o)
		}
		require.Regexp(t, `hello-web  ClusterIP  10\.96\.0\.\d+\s+80/TCP\s+10\.244\.\d+\.\d+:80,10\.244`, o, "the Service has endpoints")
	})
}

// A bad manifest is reported with file, document and field; the other
// documents are still applied, and the command fails, as kubectl apply.
func TestUpReportsBadManifest(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "app.yaml")
	require.NoError(t, os.WriteFile(bad, []byte(`apiVersion: v1
kind: ConfigMap
metadata: {name: fine}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: typo}
spec:
  replicass: 2
`), 0o644))
	synctest.Test(t, func(t *testing.T) {
		var out, errOut bytes.Buffer
		code := cli.Main(t.Context(), []string{"up", "--once", "--nodes", "1", "-f", bad}, &out, &errOut, cli.Options{})
		require.Equal(t, 1, code, errOut.String())
		require.Contains(t, out.String(), "failed: manifests did not decode")
		require.Contains(t, errOut.String(), bad)
		require.Contains(t, errOut.String(), "document 2")
		require.Contains(t, errOut.String(), "spec.replicass")
	})
}

func TestUsage(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Equal(t, 0, cli.Main(context.Background(), []string{"help"}, &out, &errOut, cli.Options{}))
	require.Contains(t, out.String(), "ctrlkit up")
	require.Contains(t, out.String(), "-once")
	require.Equal(t, 2, cli.Main(context.Background(), []string{"down"}, &out, &errOut, cli.Options{}))
	require.Equal(t, 2, cli.Main(context.Background(), []string{"up", "--nodes", "0"}, &out, &errOut, cli.Options{}))
	require.Equal(t, 2, cli.Main(context.Background(), []string{"up", "--etcd", "http://127.0.0.1:2379"}, &out, &errOut, cli.Options{}))
	require.Contains(t, errOut.String(), "etcd backend")
	errOut.Reset()
	require.Equal(t, 2, cli.Main(context.Background(), []string{"up", "--leader-elect"}, &out, &errOut, cli.Options{}))
	require.Contains(t, errOut.String(), "--leader-elect needs a shared store")
}

// The live view of a fixed state (testdata/view.golden; -update rewrites it).
func TestRenderGolden(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) api.Time { return api.NewTime(now.Add(-d)) }
	node := &api.Node{ObjectMeta: api.ObjectMeta{Name: "node-1", Labels: map[string]string{"topology.kubernetes.io/zone": "zone-a"}}}
	node.Status.Conditions = []api.NodeCondition{{Type: api.NodeReady, Status: api.ConditionTrue}}
	node.Status.Allocatable = api.ResourceList{api.ResourceCPU: api.MustParse("4"), api.ResourceMemory: api.MustParse("8Gi")}
	dead := &api.Node{ObjectMeta: api.ObjectMeta{Name: "node-2"}}
	dead.Status.Conditions = []api.NodeCondition{{Type: api.NodeReady, Status: api.ConditionUnknown}}
	pod := func(name string, phase api.PodPhase, ready bool, restarts int32) *api.Pod {
		p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name, CreationTimestamp: ago(3*time.Minute + 20*time.Second)}}
		p.Spec.NodeName = "node-1"
		p.Spec.Containers = []api.Container{{Name: "c", Resources: api.ResourceRequirements{Requests: api.ResourceList{api.ResourceCPU: api.MustParse("250m"), api.ResourceMemory: api.MustParse("64Mi")}}}}
		p.Status.Phase, p.Status.PodIP = phase, "10.244.1.7"
		p.Status.ContainerStatuses = []api.ContainerStatus{{Name: "c", Ready: ready, RestartCount: restarts}}
		return p
	}
	crash := pod("crashy", api.PodRunning, false, 4)
	crash.Status.ContainerStatuses[0].State.Waiting = &api.ContainerStateWaiting{Reason: "CrashLoopBackOff"}
	replicas := int32(2)
	d := &api.Deployment{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web", CreationTimestamp: ago(2 * time.Hour)}}
	d.Spec.Replicas = &replicas
	d.Status.ReadyReplicas, d.Status.UpdatedReplicas, d.Status.AvailableReplicas = 1, 2, 1
	svc := &api.Service{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web"}}
	svc.Spec.ClusterIP, svc.Spec.Type = "10.96.0.10", api.ServiceTypeNodePort
	svc.Spec.Ports = []api.ServicePort{{Port: 80, NodePort: 30080, Protocol: "TCP"}}
	ep := &api.Endpoints{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web"}}
	ep.Subsets = []api.EndpointSubset{{Addresses: []api.EndpointAddress{{IP: "10.244.1.7"}}, Ports: []api.EndpointPort{{Port: 8080}}}}
	ev := &api.Event{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "crashy.1"}, Type: "Warning", Reason: "BackOff",
		Message: "Back-off restarting failed container", Count: 4, LastTimestamp: ago(30 * time.Second)}
	ev.InvolvedObject.Kind, ev.InvolvedObject.Name = "Pod", "crashy"
	snap := cli.Snapshot{Now: now, Nodes: []*api.Node{dead, node},
		Pods:        []*api.Pod{pod("web-a", api.PodRunning, true, 0), crash, pod("done", api.PodSucceeded, false, 0)},
		Deployments: []*api.Deployment{d}, Services: []*api.Service{svc}, Endpoints: []*api.Endpoints{ep}, Events: []*api.Event{ev},
		Controllers: []cli.ControllerStats{
			{Stats: manager.Stats{Name: manager.DeploymentController, Depth: 2, Processed: 40, Retries: 1}, Rate: 3.25},
			{Stats: manager.Stats{Name: manager.PodGarbageCollectorController}},
		}}
	var buf bytes.Buffer
	cli.Render(&buf, snap, 10)
	golden := filepath.Join("testdata", "view.golden")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(golden, buf.Bytes(), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	require.Equal(t, string(want), buf.String())
	require.True(t, strings.Contains(buf.String(), "CrashLoopBackOff"))
}

// `ctrlkit up --leader-elect` whose manager loses its term exits non-zero,
// as kube-controller-manager does, instead of running on with no
// controllers (a lone replica would otherwise stay leaderless).
func TestUpExitsWhenLeadershipIsLost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		election := leader.NewMemory()
		var out, errOut bytes.Buffer
		code := make(chan int, 1)
		go func() {
			code <- cli.Main(t.Context(), []string{"up", "--leader-elect", "--nodes", "1", "--refresh", "1s"}, &out, &errOut,
				cli.Options{Elector: func() (leader.Elector, error) { return election, nil },
					Stdin: strings.NewReader(""), Terminal: func() bool { return false }})
		}()
		for !election.Leading() {
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(5 * time.Second) // the controllers run
		require.True(t, election.Depose())
		select {
		case c := <-code:
			require.Equal(t, 1, c, errOut.String())
			require.Contains(t, errOut.String(), manager.ErrLeadershipLost.Error())
		case <-time.After(time.Minute):
			t.Fatalf("ctrlkit up ran on for a minute after losing its term; stderr:\n%s", errOut.String())
		}
	})
}
