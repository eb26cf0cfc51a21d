package cli_test

import (
	"bufio"
	"context"
	"errors"
	"github.com/ctrlkit/ctrlkit/internal/kubectltest"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const portForwardManifest = `apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: default
  annotations:
    sim.ctrlkit.io/port-7000: echo
spec:
  terminationGracePeriodSeconds: 0
  containers:
  - name: web
    image: nginx
    ports: [{containerPort: 80}]
  - name: side
    image: busybox
    ports: [{containerPort: 7000}]
`

// forwardLine is what kubectl prints for each listener.
var forwardLine = regexp.MustCompile(`^Forwarding from 127\.0\.0\.1:(\d+) -> (\d+)$`)

// portForward is one running `kubectl port-forward`.
type portForward struct {
	cmd   *exec.Cmd
	local map[string]string // remote port -> 127.0.0.1:local
	mu    sync.Mutex
	out   strings.Builder // stdout after the listeners, and stderr
	done  chan struct{}
	err   error
}

func (p *portForward) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

func (p *portForward) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.Write(b)
}

// wait waits for kubectl to exit and returns its exit code.
func (p *portForward) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("kubectl port-forward did not exit:\n%s", p.output())
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode()
	}
	require.NoError(t, p.err)
	return 0
}

// Issue 32: `kubectl port-forward` (v1.32: SPDY tunnelled in WebSocket)
// against `ctrlkit up`: the declared ports of the simulated containers
// answer (HTTP page, TCP echo), an undeclared port fails with the
// kubelet's error, and the forward ends when the pod is deleted.
func TestKubectlPortForward(t *testing.T) {
	kubectl := kubectltest.Path(t)
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	_, stderr, _ := upServing(t, "--kubeconfig", kc)
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	cache := t.TempDir()
	command := func(args ...string) *exec.Cmd {
		return exec.CommandContext(ctx, kubectl, append([]string{"--kubeconfig", kc, "--cache-dir", cache}, args...)...)
	}
	manifest := filepath.Join(t.TempDir(), "pf.yaml")
	require.NoError(t, os.WriteFile(manifest, []byte(portForwardManifest), 0o600))
	require.Eventually(t, func() bool {
		return command("apply", "-f", manifest).Run() == nil
	}, 20*time.Second, 200*time.Millisecond)
	require.Eventually(t, func() bool {
		out, err := command("get", "pod", "web", "-o", "jsonpath={.status.phase}").CombinedOutput()
		return err == nil && string(out) == "Running"
	}, 20*time.Second, 200*time.Millisecond)

	// start runs kubectl port-forward and waits for its listeners.
	start := func(ports ...string) *portForward {
		t.Helper()
		cmd := command(append([]string{"port-forward", "--address", "127.0.0.1", "pod/web"}, ports...)...)
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		pf := &portForward{cmd: cmd, local: map[string]string{}, done: make(chan struct{})}
		cmd.Stderr = pf
		require.NoError(t, cmd.Start())
		go func() {
			pf.err = cmd.Wait()
			close(pf.done)
		}()
		t.Cleanup(func() {
			_ = cmd.Process.Kill()
			<-pf.done
		})
		sc := bufio.NewScanner(stdout)
		for len(pf.local) < len(ports) && sc.Scan() {
			if m := forwardLine.FindStringSubmatch(sc.Text()); m != nil {
				pf.local[m[2]] = "127.0.0.1:" + m[1]
			}
		}
		require.Len(t, pf.local, len(ports), "kubectl port-forward:\n%s\nctrlkit: %s", pf.output(), stderr)
		go func() { _, _ = io.Copy(pf, stdout) }()
		return pf
	}
	get := func(addr string) string {
		t.Helper()
		c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 20 * time.Second}
		resp, err := c.Get("http://" + addr + "/")
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return string(b)
	}

	pf := start("0:80", "0:7000")
	// Two connections in turn, then two at once: each its own streams.
	require.Equal(t, "pod default/web container web port 80\n", get(pf.local["80"]))
	require.Equal(t, "pod default/web container web port 80\n", get(pf.local["80"]))
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 20 * time.Second}
			resp, err := c.Get("http://" + pf.local["80"] + "/")
			if err == nil {
				resp.Body.Close()
			}
			require.NoError(t, err)
		}()
	}
	wg.Wait()

	// The echo port: what is written comes back, in both directions at
	// once and beyond one SPDY frame.
	conn, err := net.DialTimeout("tcp", pf.local["7000"], 10*time.Second)
	require.NoError(t, err)
	require.NoError(t, conn.SetDeadline(time.Now().Add(20*time.Second)))
	msg := []byte(strings.Repeat("ping ", 20000))
	go func() { _, _ = conn.Write(msg) }()
	got := make([]byte, len(msg))
	_, err = io.ReadFull(conn, got)
	require.NoError(t, err)
	require.Equal(t, msg, got)
	require.NoError(t, conn.Close())
	require.Contains(t, pf.output(), "Handling connection for")

	// A port nothing declares: the connection closes without a byte, and
	// kubectl reports the kubelet's error and gives up.
	bad := start("0:81")
	conn, err = net.DialTimeout("tcp", bad.local["81"], 10*time.Second)
	require.NoError(t, err)
	require.NoError(t, conn.SetDeadline(time.Now().Add(20*time.Second)))
	n, _ := conn.Read(make([]byte, 1))
	require.Zero(t, n)
	conn.Close()
	require.Equal(t, 1, bad.wait(t), bad.output())
	out := bad.output()
	require.Contains(t, out, "error forwarding port 81 to pod ")
	require.Contains(t, out, "failed to connect to localhost:81 inside namespace")
	require.Contains(t, out, "connection refused")
	require.Contains(t, out, "lost connection to pod")

	// The first forward still serves; deleting the pod ends it.
	require.Equal(t, "pod default/web container web port 80\n", get(pf.local["80"]))
	require.NoError(t, command("delete", "pod", "web", "--wait=false").Run())
	require.Equal(t, 1, pf.wait(t), pf.output())
	require.Contains(t, pf.output(), "lost connection to pod")

	// A pod that is gone: kube's NotFound, before any upgrade.
	out2, err := command("port-forward", "pod/web", "0:80").CombinedOutput()
	require.Error(t, err)
	require.Contains(t, string(out2), `pods "web" not found`)
}
