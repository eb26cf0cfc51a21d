package cli_test

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/controlplane/cli"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// `up --listen` serves the Kubernetes API of the running control plane and
// the manager's endpoints on one loopback port (real sockets: bounded
// waits, no sleeps beyond polling); a non-loopback address is refused.
func TestUpListen(t *testing.T) {
	var errOut lockedBuffer
	require.Equal(t, 2, cli.Main(t.Context(), []string{"up", "--listen", "0.0.0.0:0"}, io.Discard, &errOut, cli.Options{}))
	require.Contains(t, errOut.String(), "--listen-non-loopback")

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	stderr := new(lockedBuffer)
	done := make(chan int, 1)
	go func() {
		done <- cli.Main(ctx, []string{"up", "--listen", "127.0.0.1:0", "--nodes", "1", "-f", t.TempDir()}, io.Discard, stderr,
			cli.Options{Stdin: strings.NewReader(""), Terminal: func() bool { return false }})
	}()
	re := regexp.MustCompile(`on http://(127\.0\.0\.1:\d+)`)
	var addr string
	client := http.Client{Timeout: 5 * time.Second}
	get := func(path string) (int, string) {
		resp, err := client.Get("http://" + addr + path)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	require.Eventually(t, func() bool {
		if m := re.FindStringSubmatch(stderr.String()); m != nil {
			addr = m[1]
			code, body := get("/api/v1/nodes")
			return code == http.StatusOK && strings.Contains(body, `"name":"node-1"`)
		}
		return false
	}, 30*time.Second, 50*time.Millisecond, "stderr: %s", stderr)
	code, body := get("/readyz")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, "leader: true")
	code, body = get("/apis/apps/v1")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, `"name":"deployments"`)
	code, _ = get("/metrics")
	require.Equal(t, http.StatusNotFound, code, "the core build has no metrics handler")
	cancel()
	require.Equal(t, 0, <-done)
}
