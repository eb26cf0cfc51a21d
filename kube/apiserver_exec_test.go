package kube_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/remotecommand"
	utilexec "k8s.io/client-go/util/exec"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// syncBuffer is a bytes.Buffer for one writer and readers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// sizes is a TerminalSizeQueue handing out the sizes sent on it.
type sizes chan remotecommand.TerminalSize

func (s sizes) Next() *remotecommand.TerminalSize {
	sz, ok := <-s
	if !ok {
		return nil
	}
	return &sz
}

// Issue 32: client-go's SPDY executor (remotecommand.NewSPDYExecutor,
// kubectl's fallback) against the served API: output and stderr, the
// exit code as client-go's exec.ExitError, stdin, a tty with its
// resizes, attach; and the WebSocket executor in front of it
// (NewFallbackExecutor) answering the same.
func TestRemoteCommandSPDYAgainstServedAPI(t *testing.T) {
	s := startServedCluster(t, 0)
	ctx := t.Context()
	_, err := s.c.Pods().Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "default",
		Annotations: map[string]string{"sim.ctrlkit.io/log.web": "hello"}},
		Spec: api.PodSpec{NodeName: "n1", Containers: []api.Container{{Name: "web", Image: "nginx", Env: []api.EnvVar{{Name: "MODE", Value: "demo"}}}}}})
	require.NoError(t, err)
	pod, _, err := s.c.Pods().Get(ctx, "default/p")
	require.NoError(t, err)
	pod.Status.Phase = api.PodRunning
	pod.Status.ContainerStatuses = []api.ContainerStatus{{Name: "web", Image: "nginx",
		State: api.ContainerState{Running: &api.ContainerStateRunning{StartedAt: api.NewTime(time.Now())}}}}
	_, err = s.c.Pods().UpdateStatus(ctx, pod)
	require.NoError(t, err)

	cfg := &rest.Config{Host: s.ts.URL}
	newExec := func(t *testing.T, sub string, o *corev1.PodExecOptions) remotecommand.Executor {
		t.Helper()
		r := s.cs.CoreV1().RESTClient().Post().Resource("pods").Namespace("default").Name("p").SubResource(sub)
		if sub == "attach" {
			r = r.VersionedParams(&corev1.PodAttachOptions{Container: o.Container, Stdin: o.Stdin, Stdout: o.Stdout, Stderr: o.Stderr, TTY: o.TTY}, scheme.ParameterCodec)
		} else {
			r = r.VersionedParams(o, scheme.ParameterCodec)
		}
		e, err := remotecommand.NewSPDYExecutor(cfg, "POST", r.URL())
		require.NoError(t, err)
		return e
	}
	run := func(t *testing.T, e remotecommand.Executor, stdin string) (string, string, error) {
		t.Helper()
		var out, errOut bytes.Buffer
		o := remotecommand.StreamOptions{Stdout: &out, Stderr: &errOut}
		if stdin != "" {
			o.Stdin = strings.NewReader(stdin)
		}
		cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		err := e.StreamWithContext(cctx, o)
		return out.String(), errOut.String(), err
	}

	out, errOut, err := run(t, newExec(t, "exec", &corev1.PodExecOptions{Container: "web", Stdout: true, Stderr: true,
		Command: []string{"sh", "-c", `echo "mode $MODE"; cat /nope; exit 3`}}), "")
	require.Equal(t, "mode demo\n", out)
	require.Equal(t, "cat: can't open '/nope': No such file or directory\n", errOut)
	var ee utilexec.ExitError
	require.True(t, errors.As(err, &ee), "%v", err)
	require.Equal(t, 3, ee.ExitStatus())
	require.EqualError(t, err, "command terminated with exit code 3")

	out, _, err = run(t, newExec(t, "exec", &corev1.PodExecOptions{Container: "web", Stdin: true, Stdout: true, Command: []string{"cat"}}), "typed in\n")
	require.NoError(t, err)
	require.Equal(t, "typed in\n", out)

	// A tty: what the terminal sizes queue says, stty says.
	sz := make(sizes, 1)
	sz <- remotecommand.TerminalSize{Width: 100, Height: 30}
	pr, pw := io.Pipe()
	var screen syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- newExec(t, "exec", &corev1.PodExecOptions{Container: "web", Stdin: true, Stdout: true, TTY: true, Command: []string{"sh"}}).
			StreamWithContext(ctx, remotecommand.StreamOptions{Stdin: pr, Stdout: &screen, Tty: true, TerminalSizeQueue: sz})
	}()
	// The resize stream is read apart from stdin: ask until the size
	// arrived, one line at a time.
	eventually(t, "the first prompt", func() bool { return strings.Count(screen.String(), "/ # ") == 1 })
	for prompts := 1; !strings.Contains(screen.String(), "stty size\r\n30 100\r\n"); prompts++ {
		require.Less(t, prompts, 500, screen.String())
		_, _ = pw.Write([]byte("stty size\r"))
		eventually(t, "a prompt", func() bool { return strings.Count(screen.String(), "/ # ") == prompts+1 })
	}
	_, _ = pw.Write([]byte("exit 5\r"))
	err = <-done
	close(sz)
	require.True(t, errors.As(err, &ee), "%v", err)
	require.Equal(t, 5, ee.ExitStatus())

	// attach: the container's log, until the client goes.
	actx, cancel := context.WithCancel(ctx)
	var log syncBuffer
	go func() {
		done <- newExec(t, "attach", &corev1.PodExecOptions{Container: "web", Stdout: true}).
			StreamWithContext(actx, remotecommand.StreamOptions{Stdout: &log})
	}()
	eventually(t, "the attached log", func() bool { return strings.Contains(log.String(), "hello\n") })
	require.Equal(t, "[ctrlkit] container web started: image nginx, restart 0\nhello\n", log.String())
	cancel()
	<-done

	// The fallback executor kubectl builds: WebSocket first.
	r := s.cs.CoreV1().RESTClient().Post().Resource("pods").Namespace("default").Name("p").SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Container: "web", Stdout: true, Command: []string{"hostname"}}, scheme.ParameterCodec)
	spdyExec, err := remotecommand.NewSPDYExecutor(cfg, "POST", r.URL())
	require.NoError(t, err)
	wsExec, err := remotecommand.NewWebSocketExecutor(cfg, "GET", r.URL().String())
	require.NoError(t, err)
	fb, err := remotecommand.NewFallbackExecutor(wsExec, spdyExec, func(error) bool { return true })
	require.NoError(t, err)
	out, _, err = run(t, fb, "")
	require.NoError(t, err)
	require.Equal(t, "p\n", out)
}
