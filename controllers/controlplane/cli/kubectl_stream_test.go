package cli_test

import (
	"bufio"
	"context"
	"errors"
	"github.com/ctrlkit/ctrlkit/internal/kubectltest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const streamManifest = `apiVersion: v1
kind: ConfigMap
metadata: {name: web-config, namespace: default}
data: {greeting: "hello from a configmap\n"}
---
apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: default
  annotations:
    sim.ctrlkit.io/log.web: |
      listening on :8080
      GET / 200
spec:
  terminationGracePeriodSeconds: 0
  containers:
  - name: web
    image: nginx
    env: [{name: MODE, value: demo}]
    volumeMounts: [{name: config, mountPath: /etc/config}]
  - name: side
    image: busybox
  volumes: [{name: config, configMap: {name: web-config}}]
---
apiVersion: v1
kind: Pod
metadata:
  name: crash
  namespace: default
  annotations:
    sim.ctrlkit.io/exit-code: "3"
    sim.ctrlkit.io/log: "boom"
spec:
  terminationGracePeriodSeconds: 0
  containers: [{name: crash, image: busybox}]
`

// Issue 32: `kubectl logs`, `exec`, `attach`, `cp`, `port-forward` and
// `debug` against `ctrlkit up --listen`: simulated logs with their
// options and kube's errors; commands run over WebSocket v5 and over
// SPDY (kubectl's fallback, forced) with their exit codes; `kubectl
// debug` of a pod (an ephemeral container that runs and that exec,
// attach and logs reach) and of a node; never a hang or a crash.
func TestKubectlStream(t *testing.T) {
	kubectl := kubectltest.Path(t)
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	_, stderr, _ := upServing(t, "--kubeconfig", kc)
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	cache := t.TempDir()
	command := func(args ...string) *exec.Cmd {
		return exec.CommandContext(ctx, kubectl, append([]string{"--kubeconfig", kc, "--cache-dir", cache}, args...)...)
	}
	run := func(args ...string) string {
		t.Helper()
		out, err := command(args...).CombinedOutput()
		require.NoError(t, err, "kubectl %s:\n%s\nctrlkit: %s", strings.Join(args, " "), out, stderr)
		return string(out)
	}
	// fail runs a command that must fail with code and returns its
	// output.
	fail := func(code int, args ...string) string {
		t.Helper()
		out, err := command(args...).CombinedOutput()
		var ee *exec.ExitError
		require.True(t, errors.As(err, &ee), "kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		require.Equal(t, code, ee.ExitCode(), "kubectl %s:\n%s", strings.Join(args, " "), out)
		return string(out)
	}
	manifest := filepath.Join(t.TempDir(), "stream.yaml")
	require.NoError(t, os.WriteFile(manifest, []byte(streamManifest), 0o600))
	require.Eventually(t, func() bool {
		out, err := command("apply", "-f", manifest).CombinedOutput()
		return err == nil && strings.Contains(string(out), "pod/crash")
	}, 20*time.Second, 200*time.Millisecond)
	require.Eventually(t, func() bool {
		out, err := command("get", "pod", "web", "-o", "jsonpath={.status.containerStatuses[*].state.running.startedAt}").CombinedOutput()
		return err == nil && len(strings.Fields(string(out))) == 2
	}, 20*time.Second, 200*time.Millisecond)

	// logs: kube's errors for a missing or unknown container.
	// (kubectl itself picks the first container when -c is missing.)
	out := fail(1, "get", "--raw", "/api/v1/namespaces/default/pods/web/log")
	require.Contains(t, out, "Error from server (BadRequest): a container name must be specified for pod web, choose one of: [web side]")
	out = fail(1, "logs", "web", "-c", "nope")
	require.Contains(t, out, "container nope is not valid for pod web")
	out = fail(1, "logs", "web", "-c", "web", "--previous")
	require.Contains(t, out, `previous terminated container "web" in pod "web" not found`)

	out = run("logs", "web", "-c", "web")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Equal(t, []string{"[ctrlkit] container web started: image nginx, restart 0", "listening on :8080", "GET / 200",
		"[ctrlkit] container web is ready"}, lines)
	require.Equal(t, "[ctrlkit] container web is ready\n", run("logs", "web", "-c", "web", "--tail", "1"))
	require.Equal(t, "[ctrlkit] c", run("logs", "web", "-c", "web", "--tail", "1", "--limit-bytes", "11"))
	for _, l := range strings.Split(strings.TrimSuffix(run("logs", "web", "-c", "web", "--timestamps"), "\n"), "\n") {
		ts, _, ok := strings.Cut(l, " ")
		require.True(t, ok, l)
		_, err := time.Parse(time.RFC3339Nano, ts)
		require.NoError(t, err, l)
	}
	require.Empty(t, run("logs", "web", "-c", "web", "--since-time", time.Now().Add(time.Hour).UTC().Format(time.RFC3339)))
	require.Contains(t, run("logs", "web", "-c", "side", "--since", "1h"), "container side started: image busybox")

	// logs -f: the lines so far, then what the annotation appends, until
	// the client goes.
	fctx, fcancel := context.WithTimeout(ctx, 30*time.Second)
	follow := exec.CommandContext(fctx, kubectl, "--kubeconfig", kc, "--cache-dir", cache, "logs", "-f", "web", "-c", "web")
	pipe, err := follow.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, follow.Start())
	sc := bufio.NewScanner(pipe)
	readUntil := func(want string) {
		t.Helper()
		for sc.Scan() {
			if sc.Text() == want {
				return
			}
		}
		t.Fatalf("stream ended before %q: %v", want, sc.Err())
	}
	readUntil("[ctrlkit] container web is ready")
	run("annotate", "pod", "web", "--overwrite", "sim.ctrlkit.io/log.web=listening on :8080\nGET / 200\nGET /late 404\n")
	readUntil("GET /late 404")
	fcancel()
	_ = follow.Wait()

	// --previous of a crashing container: its last run, and its exit.
	require.Eventually(t, func() bool {
		out, err := command("get", "pod", "crash", "-o", "jsonpath={.status.containerStatuses[0].lastState.terminated.exitCode}").CombinedOutput()
		return err == nil && string(out) == "3"
	}, 30*time.Second, 200*time.Millisecond)
	out = run("logs", "crash", "--previous")
	require.Contains(t, out, "[ctrlkit] container crash started: image busybox, restart 0\nboom\n[ctrlkit] container crash terminated: Error, exit code 3\n")

	// exec over WebSocket v5: output, stdin, exit codes.
	require.Equal(t, "hello from a configmap\n", run("exec", "web", "-c", "web", "--", "cat", "/etc/config/greeting"))
	require.Equal(t, "web\n", run("exec", "web", "-c", "web", "--", "hostname"))
	require.Contains(t, run("exec", "web", "-c", "web", "--", "env"), "\nMODE=demo\n")
	require.Equal(t, "greeting\n", run("exec", "web", "-c", "web", "--", "ls", "/etc/config"))
	require.Equal(t, "a b\nmode demo\n", run("exec", "web", "-c", "web", "--", "sh", "-c", `echo a b; echo "mode $MODE"`))
	cat := command("exec", "-i", "web", "-c", "web", "--", "cat")
	cat.Stdin = strings.NewReader("typed in\n")
	b, err := cat.CombinedOutput()
	require.NoError(t, err, "%s", b)
	require.Equal(t, "typed in\n", string(b))
	out = fail(3, "exec", "web", "-c", "web", "--", "sh", "-c", "echo before; exit 3")
	require.Contains(t, out, "before\ncommand terminated with exit code 3")
	out = fail(1, "exec", "web", "-c", "web", "--", "false")
	require.Contains(t, out, "command terminated with exit code 1")
	out = fail(126, "exec", "web", "-c", "web", "--", "nosuch")
	require.Contains(t, out, `exec: "nosuch": executable file not found in $PATH`)
	out = fail(127, "exec", "web", "-c", "web", "--", "sh", "-c", "nosuch")
	require.Contains(t, out, "sh: nosuch: not found")
	out = fail(1, "exec", "web", "-c", "nope", "--", "true")
	require.Contains(t, out, "container nope is not valid for pod web")

	// cp from the pod (tar over exec); to the pod, a clear refusal.
	dst := filepath.Join(t.TempDir(), "greeting")
	run("cp", "-c", "web", "default/web:/etc/config/greeting", dst)
	got, err := os.ReadFile(dst)
	require.NoError(t, err)
	require.Equal(t, "hello from a configmap\n", string(got))
	out = fail(2, "cp", "-c", "web", dst, "default/web:/tmp/greeting")
	require.Contains(t, out, "Read-only file system")

	// attach: the container's log, until the client goes.
	actx, acancel := context.WithTimeout(ctx, 30*time.Second)
	attach := exec.CommandContext(actx, kubectl, "--kubeconfig", kc, "--cache-dir", cache, "attach", "web", "-c", "web")
	pipe, err = attach.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, attach.Start())
	sc = bufio.NewScanner(pipe)
	readUntil("GET / 200")
	acancel()
	_ = attach.Wait()

	// exec and attach over SPDY/3.1, kubectl's fallback (forced): the
	// same commands, stdin, exit codes and refusals.
	spdy := func(args ...string) *exec.Cmd {
		cmd := command(args...)
		cmd.Env = append(os.Environ(), "KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false")
		return cmd
	}
	spdyRun := func(stdin string, args ...string) (string, int) {
		t.Helper()
		cmd := spdy(args...)
		if stdin != "" {
			cmd.Stdin = strings.NewReader(stdin)
		}
		b, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return string(b), ee.ExitCode()
		}
		require.NoError(t, err, "kubectl %s:\n%s\nctrlkit: %s", strings.Join(args, " "), b, stderr)
		return string(b), 0
	}
	out, code := spdyRun("", "exec", "web", "-c", "web", "-v=8", "--", "cat", "/etc/config/greeting")
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "Upgrade: SPDY/3.1")
	require.Contains(t, out, "X-Stream-Protocol-Version: v4.channel.k8s.io")
	require.True(t, strings.HasSuffix(out, "\nhello from a configmap\n"), out)
	out, code = spdyRun("typed in\n", "exec", "-i", "web", "-c", "web", "--", "cat")
	require.Equal(t, 0, code, out)
	require.Equal(t, "typed in\n", out)
	out, code = spdyRun("", "exec", "web", "-c", "web", "--", "sh", "-c", "echo before; exit 3")
	require.Equal(t, 3, code, out)
	require.Contains(t, out, "before\ncommand terminated with exit code 3")
	out, code = spdyRun("", "exec", "web", "-c", "web", "--", "nosuch")
	require.Equal(t, 126, code, out)
	require.Contains(t, out, `exec: "nosuch": executable file not found in $PATH`)
	out, code = spdyRun("", "exec", "web", "-c", "nope", "--", "true")
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "container nope is not valid for pod web")
	dst = filepath.Join(t.TempDir(), "greeting-spdy")
	out, code = spdyRun("", "cp", "-c", "web", "default/web:/etc/config/greeting", dst)
	require.Equal(t, 0, code, out)
	got, err = os.ReadFile(dst)
	require.NoError(t, err)
	require.Equal(t, "hello from a configmap\n", string(got))
	actx, acancel = context.WithTimeout(ctx, 30*time.Second)
	attach = exec.CommandContext(actx, kubectl, "--kubeconfig", kc, "--cache-dir", cache, "attach", "web", "-c", "web")
	attach.Env = append(os.Environ(), "KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false")
	pipe, err = attach.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, attach.Start())
	sc = bufio.NewScanner(pipe)
	readUntil("GET / 200")
	acancel()
	_ = attach.Wait()

	// debug: an ephemeral container added through
	// pods/ephemeralcontainers runs; attach and exec reach it (over
	// WebSocket and SPDY); a node's debugger pod runs.
	out = run("debug", "web", "--image=busybox", "-c", "dbg", "--target=web", "--", "sleep", "1d")
	require.Contains(t, out, "Targeting container \"web\"")
	require.Eventually(t, func() bool {
		out, err := command("get", "pod", "web", "-o", "jsonpath={.spec.ephemeralContainers[0].name} {.status.ephemeralContainerStatuses[0].state.running.startedAt} {.status.ephemeralContainerStatuses[0].started}").CombinedOutput()
		f := strings.Fields(string(out))
		return err == nil && len(f) == 3 && f[0] == "dbg" && f[2] == "true"
	}, 20*time.Second, 200*time.Millisecond)
	require.Equal(t, "web\n", run("exec", "web", "-c", "dbg", "--", "hostname"))
	out, code = spdyRun("", "exec", "web", "-c", "dbg", "--", "sh", "-c", "exit 4")
	require.Equal(t, 4, code, out)
	require.Contains(t, run("logs", "web", "-c", "dbg"), "container dbg started: image busybox")
	// attachDbg attaches to dbg and reports whether its log came: over
	// WebSocket, kubectl v1.32's client drops the messages that arrive
	// before it registered its streams (client-go later waits for them:
	// tools/remotecommand/websocket.go's readyChan), so the log may be
	// lost there and the attach is tried again.
	attachDbg := func(env []string) (bool, string) {
		actx, acancel := context.WithTimeout(ctx, 10*time.Second)
		defer acancel()
		attach := exec.CommandContext(actx, kubectl, "--kubeconfig", kc, "--cache-dir", cache, "attach", "web", "-c", "dbg")
		attach.Env = append(os.Environ(), env...)
		var attachErr strings.Builder
		attach.Stderr = &attachErr
		pipe, err := attach.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, attach.Start())
		sc := bufio.NewScanner(pipe)
		found := false
		for !found && sc.Scan() {
			found = sc.Text() == "[ctrlkit] container dbg started: image busybox, restart 0"
		}
		acancel()
		_ = attach.Wait()
		return found, attachErr.String()
	}
	ok, msg := attachDbg([]string{"KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false"})
	require.True(t, ok, "kubectl attach -c dbg over SPDY: %s", msg)
	ok = false
	for i := 0; !ok; i++ {
		require.Less(t, i, 3, "kubectl attach -c dbg over WebSocket: %s", msg)
		ok, msg = attachDbg(nil)
	}
	out = run("debug", "node/node-1", "--image=busybox", "--", "sleep", "1d")
	require.Contains(t, out, "Creating debugging pod node-debugger-node-1-")
	require.Eventually(t, func() bool {
		out, err := command("get", "pods", "-o", "jsonpath={range .items[*]}{.metadata.name} {.spec.hostPID} {.status.phase}{\"\\n\"}{end}").CombinedOutput()
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "node-debugger-node-1-") && strings.HasSuffix(l, " true Running") {
				return err == nil
			}
		}
		return false
	}, 30*time.Second, 200*time.Millisecond)
}
