package cli_test

import (
	"context"
	"github.com/ctrlkit/ctrlkit/internal/kubectltest"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane"
	"github.com/ctrlkit/ctrlkit/source"
)

// Issue 31: `kubectl describe pod` lists the events the control plane of
// `ctrlkit up` records — the scheduler's Scheduled, the kubelet's Pulled,
// Created, Started. The scenario runs in a synctest bubble (virtual
// time); its pod and Event objects are then served by a cluster outside
// it to a real kubectl.
func TestKubectlDescribeListsEvents(t *testing.T) {
	kubectl := kubectltest.Path(t)
	var pod *api.Pod
	var evs []*api.Event
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		cp, err := controlplane.Start(ctx, controlplane.Options{Nodes: 1})
		require.NoError(t, err)
		p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web"}}
		p.Spec.Containers = []api.Container{{Name: "app", Image: "nginx:1.27"}}
		require.NoError(t, cp.Apply(ctx, p))
		require.NoError(t, cp.Settle(ctx, 0))
		time.Sleep(5 * time.Second)
		synctest.Wait()
		got, _, err := cp.Cluster.Pods().Get(ctx, "default/web")
		require.NoError(t, err)
		pod = got.DeepCopy()
		l, err := cp.Cluster.Events().List(ctx, source.ListOptions{})
		require.NoError(t, err)
		for _, e := range l.Items {
			if e.InvolvedObject.Kind == "Pod" && e.InvolvedObject.Name == "web" {
				evs = append(evs, e.DeepCopy())
			}
		}
		require.NoError(t, cp.Stop())
	})
	require.Len(t, evs, 4)

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c, err := cluster.New(ctx, cluster.Options{})
	require.NoError(t, err)
	pod.ResourceVersion = ""
	_, err = c.Pods().Create(ctx, pod)
	require.NoError(t, err)
	created, _, err := c.Pods().Get(ctx, "default/web")
	require.NoError(t, err)
	for _, e := range evs {
		e.ResourceVersion = ""
		e.InvolvedObject.UID = created.UID
		_, err := c.Events().Create(ctx, e)
		require.NoError(t, err)
	}
	srv, err := apiserver.New(c, apiserver.Options{})
	require.NoError(t, err)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	kc := writeKubeconfig(t, ts.URL)
	out, err := exec.CommandContext(ctx, kubectl, "--kubeconfig", kc, "--cache-dir", t.TempDir(), "describe", "pod", "web").CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, line := range []string{
		`Normal\s+Scheduled\s+\S+\s+default-scheduler\s+Successfully assigned default/web to node-1`,
		`Normal\s+Pulled\s+\S+\s+kubelet\S*(, node-1)?\s+(spec.containers\{app\}: )?Container image "nginx:1.27" already present on machine and can be accessed by the pod`,
		`Normal\s+Created\s+\S+\s+kubelet\S*(, node-1)?\s+(spec.containers\{app\}: )?Container created`,
		`Normal\s+Started\s+\S+\s+kubelet\S*(, node-1)?\s+(spec.containers\{app\}: )?Container started`,
	} {
		require.Regexp(t, regexp.MustCompile(`(?m)^\s+`+line+`$`), string(out))
	}
}
