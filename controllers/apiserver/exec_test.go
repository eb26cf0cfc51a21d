package apiserver_test

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver/stream"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// execResult is what a remote command sent on each channel.
type execResult struct {
	stdout, stderr string
	status         map[string]any
}

// dialExec opens a remote command WebSocket to path on ts.
func dialExec(t *testing.T, ts *httptest.Server, path string, protocols ...string) (*stream.Conn, error) {
	t.Helper()
	u, err := url.Parse(ts.URL)
	require.NoError(t, err)
	nc, err := net.Dial("tcp", u.Host)
	require.NoError(t, err)
	t.Cleanup(func() { nc.Close() })
	_ = nc.SetDeadline(time.Now().Add(20 * time.Second))
	return stream.Dial(nc, u.Host, path, nil, protocols...)
}

// collect reads a remote command's messages until the server closes.
func collect(t *testing.T, c *stream.Conn) execResult {
	t.Helper()
	var r execResult
	for {
		op, msg, err := c.ReadMessage()
		if errors.Is(err, io.EOF) {
			return r
		}
		require.NoError(t, err)
		require.Equal(t, stream.OpBinary, op)
		require.NotEmpty(t, msg)
		switch msg[0] {
		case 1:
			r.stdout += string(msg[1:])
		case 2:
			r.stderr += string(msg[1:])
		case 3:
			require.NoError(t, json.Unmarshal(msg[1:], &r.status))
		default:
			t.Fatalf("message on channel %d", msg[0])
		}
	}
}

func execPath(query string) string {
	return "/api/v1/namespaces/default/pods/p/exec?" + query
}

// Issue 32: exec runs the simulated command set over WebSocket
// (v5.channel.k8s.io, and v4): output on stdout and stderr, stdin with
// v5's close signal, the exit code on the error channel as the kubelet
// reports it, and a runtime's answer for an unknown executable.
func TestExecWebSocket(t *testing.T) {
	c, ts := start(t, cluster.Options{})
	ctx := t.Context()
	_, err := c.ConfigMaps().Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cfg", Namespace: "default"}, Data: map[string]string{"k": "v1\n"}})
	require.NoError(t, err)
	_, err = c.Pods().Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "default"},
		Spec: api.PodSpec{NodeName: "n1", Volumes: []api.Volume{{Name: "cfg", VolumeSource: api.VolumeSource{ConfigMap: &api.ConfigMapVolumeSource{LocalObjectReference: api.LocalObjectReference{Name: "cfg"}}}}},
			Containers: []api.Container{{Name: "web", Image: "nginx", Env: []api.EnvVar{{Name: "A", Value: "x"}},
				VolumeMounts: []api.VolumeMount{{Name: "cfg", MountPath: "/etc/cfg"}}}}}})
	require.NoError(t, err)
	pod, _, err := c.Pods().Get(ctx, "default/p")
	require.NoError(t, err)
	pod.Status.Phase = api.PodRunning
	pod.Status.ContainerStatuses = []api.ContainerStatus{{Name: "web", State: api.ContainerState{Running: &api.ContainerStateRunning{StartedAt: api.NewTime(t0)}}}}
	_, err = c.Pods().UpdateStatus(ctx, pod)
	require.NoError(t, err)

	run := func(protocol, query string) execResult {
		t.Helper()
		conn, err := dialExec(t, ts, execPath(query), protocol)
		require.NoError(t, err)
		require.Equal(t, protocol, conn.Protocol())
		return collect(t, conn)
	}
	q := url.Values{"command": {"sh", "-c", "echo $A; cat /etc/cfg/k; cat /nope; exit 3"}, "stdout": {"true"}, "stderr": {"true"}}
	r := run("v5.channel.k8s.io", q.Encode())
	require.Equal(t, "x\nv1\n", r.stdout)
	require.Equal(t, "cat: can't open '/nope': No such file or directory\n", r.stderr)
	require.Equal(t, "Failure", r.status["status"])
	require.Equal(t, "NonZeroExitCode", r.status["reason"])
	require.Equal(t, []any{map[string]any{"reason": "ExitCode", "message": "3"}}, r.status["details"].(map[string]any)["causes"])

	r = run("v4.channel.k8s.io", "command=ls&command=/etc/cfg&stdout=true")
	require.Equal(t, "k\n", r.stdout)
	require.Equal(t, "Success", r.status["status"])

	r = run("v5.channel.k8s.io", "command=nosuch&stdout=true&stderr=true")
	require.Contains(t, r.stderr, `exec: "nosuch": executable file not found in $PATH`)
	require.Equal(t, "126", r.status["details"].(map[string]any)["causes"].([]any)[0].(map[string]any)["message"])

	// stdin, closed by v5's close signal.
	conn, err := dialExec(t, ts, execPath("command=cat&stdin=true&stdout=true"), "v5.channel.k8s.io")
	require.NoError(t, err)
	require.NoError(t, conn.WriteMessage(stream.OpBinary, append([]byte{0}, "typed\n"...)))
	require.NoError(t, conn.WriteMessage(stream.OpBinary, []byte{255, 0}))
	r = collect(t, conn)
	require.Equal(t, "typed\n", r.stdout)
	require.Equal(t, "Success", r.status["status"])

	// A tty: an interactive sh echoes, edits and prompts; ^D ends it.
	conn, err = dialExec(t, ts, execPath("command=sh&stdin=true&stdout=true&tty=true"), "v5.channel.k8s.io")
	require.NoError(t, err)
	require.NoError(t, conn.WriteMessage(stream.OpBinary, append([]byte{0}, "echo hix\x7f\r"...)))
	require.NoError(t, conn.WriteMessage(stream.OpBinary, append([]byte{0}, "false\r\x04"...)))
	r = collect(t, conn)
	require.Equal(t, "/ # echo hix\b \b\r\nhi\r\n/ # false\r\n/ # ", r.stdout)
	require.Equal(t, "1", r.status["details"].(map[string]any)["causes"].([]any)[0].(map[string]any)["message"])

	// Client mistakes are Statuses before any upgrade (SPDY's own:
	// exec_spdy_test.go).
	for _, tc := range []struct {
		method, query, message string
		code                   int
		header                 []string
	}{
		{"GET", "command=true", "you must specify at least 1 of stdin, stdout, stderr", 400, nil},
		{"GET", "stdout=true", "you must specify at least one command for the container", 400, nil},
		{"GET", "command=true&stdout=true&container=nope", "container nope is not valid for pod p", 400, nil},
		{"GET", "command=true&stdout=maybe", "stdout", 400, nil},
		{"POST", "command=true&stdout=true", "unable to upgrade: header X-Stream-Protocol-Version does not exist", 400, []string{"Connection", "Upgrade", "Upgrade", "SPDY/3.1"}},
		{"PUT", "command=true&stdout=true", "does not allow this method", 405, nil},
	} {
		r := do(t, ts, tc.method, execPath(tc.query), "", "", tc.header...)
		require.Equal(t, tc.code, r.code, "%s %s: %s", tc.method, tc.query, r.raw)
		require.Contains(t, r.body["message"], tc.message)
	}
	_, err = dialExec(t, ts, execPath("command=true&stdout=true"), "v3.channel.k8s.io")
	var he *stream.HandshakeError
	require.ErrorAs(t, err, &he)
	require.Equal(t, http.StatusBadRequest, he.StatusCode)
	require.Contains(t, string(he.Body), "none of the requested subprotocols")
	require.Equal(t, 404, do(t, ts, "GET", "/api/v1/namespaces/default/pods/missing/exec?command=true&stdout=true", "", "").code)

	// port-forward without a PortForwarder: a Status, never a hang.
	r2 := do(t, ts, "GET", "/api/v1/namespaces/default/pods/p/portforward?ports=80", "", "")
	require.Equal(t, 400, r2.code)
	require.Contains(t, r2.body["message"], "port-forward is not served")
	require.True(t, strings.Contains(do(t, ts, "GET", "/api/v1", "", "").raw, `"pods/exec"`))
}

// Issue 32: attach streams the container's log, from its current run.
func TestAttachWebSocket(t *testing.T) {
	c, ts := start(t, cluster.Options{})
	runningPod(t, c, map[string]string{"sim.ctrlkit.io/log.web": "hello"})
	conn, err := dialExec(t, ts, "/api/v1/namespaces/default/pods/p/attach?container=web&stdout=true", "v5.channel.k8s.io")
	require.NoError(t, err)
	var out string
	for !strings.Contains(out, "is ready\n") {
		_, msg, err := conn.ReadMessage()
		require.NoError(t, err)
		require.Equal(t, byte(1), msg[0])
		out += string(msg[1:])
	}
	require.Equal(t, "[ctrlkit] container web started: image nginx, restart 1\nhello\n[ctrlkit] container web is ready\n", out)
	// The container ends: so does the attach, successfully.
	pod, _, err := c.Pods().Get(t.Context(), "default/p")
	require.NoError(t, err)
	pod.Status.ContainerStatuses[0].State = api.ContainerState{Terminated: &api.ContainerStateTerminated{Reason: "Completed", FinishedAt: api.NewTime(t0.Add(time.Hour))}}
	_, err = c.Pods().UpdateStatus(t.Context(), pod)
	require.NoError(t, err)
	r := collect(t, conn)
	require.Equal(t, "[ctrlkit] container web terminated: Completed, exit code 0\n", r.stdout)
	require.Equal(t, "Success", r.status["status"])
}
