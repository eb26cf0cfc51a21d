package managercmd_test

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/kube/managercmd"
	"github.com/ctrlkit/ctrlkit/source"
)

// runSub runs one of the Main functions in a goroutine until the test
// ends.
func runSub(t *testing.T, main func(context.Context, []string, io.Writer, io.Writer) int, args ...string) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	r := &running{stderr: new(lockedWriter), cancel: cancel, done: make(chan int, 1)}
	go func() { r.done <- main(ctx, args, io.Discard, r.stderr) }()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-r.done:
			if code != 0 {
				t.Errorf("exit %d; stderr:\n%s", code, r.stderr)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("did not exit; stderr:\n%s", r.stderr)
		}
	})
	return r
}

// A server without nodes or a scheduler runs a Deployment's pods once
// `ctrlkit scheduler` and `ctrlkit nodes` join the manager: the pods are
// bound to the simulated nodes and run.
func TestSchedulerAndNodes(t *testing.T) {
	c, kubeconfig := apiServer(t)
	runSub(t, managercmd.Main, "--kubeconfig", kubeconfig, "--secure-port=0", "--leader-elect=false", "--controllers=replicaset,deployment")
	runSub(t, managercmd.SchedulerMain, "--kubeconfig", kubeconfig)
	nodes := runSub(t, managercmd.NodesMain, "--kubeconfig", kubeconfig, "--count", "2")
	deps, err := client.For[*api.Deployment](c)
	require.NoError(t, err)
	_, err = deps.Create(t.Context(), deployment("default", "web", 4))
	require.NoError(t, err)
	pods, err := client.For[*api.Pod](c)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		l, err := pods.List(t.Context(), source.ListOptions{})
		if err != nil || len(l.Items) != 4 {
			return false
		}
		for _, p := range l.Items {
			if p.Spec.NodeName == "" || p.Status.Phase != api.PodRunning {
				return false
			}
		}
		return true
	}, 30*time.Second, 50*time.Millisecond, "nodes: %s", nodes.stderr)
	require.Equal(t, 2, count[*api.Node](t, c))
}

func TestSubcommandBadFlags(t *testing.T) {
	var stderr lockedWriter
	require.Equal(t, 2, managercmd.NodesMain(t.Context(), []string{"--count=0", "--kubeconfig", "/nonexistent"}, nil, &stderr))
	require.Equal(t, 2, managercmd.SchedulerMain(t.Context(), []string{"--bogus"}, nil, &stderr))
	require.Contains(t, stderr.String(), "--count must be in 1..5000")
	require.Contains(t, stderr.String(), "flag provided but not defined")
}
