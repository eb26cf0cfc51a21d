package kube_test

import (
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ctrlkit/ctrlkit/controllers/controlplane/cli"
)

// lockedWriter is a strings.Builder safe for the command writing and the
// test reading at once.
type lockedWriter struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// `ctrlkit up --listen` writes a kubeconfig that client-go's clientcmd
// loads unchanged (TLS with its CA, the bearer token) and kubectl uses;
// a config without the token is refused with kube's Unauthorized. Real
// sockets in real time: every wait is bounded.
func TestUpKubeconfigWithClientGoAndKubectl(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	stderr := new(lockedWriter)
	done := make(chan int, 1)
	go func() {
		done <- cli.Main(ctx, []string{"up", "--listen", "127.0.0.1:0", "--kubeconfig", kubeconfig, "--nodes", "2", "-f", t.TempDir()},
			io.Discard, stderr, cli.Options{Stdin: strings.NewReader(""), Terminal: func() bool { return false }})
	}()
	defer func() { cancel(); require.Equal(t, 0, <-done, "stderr: %s", stderr) }()
	re := regexp.MustCompile(`kubeconfig: (\S+)`)
	require.Eventually(t, func() bool { return re.MatchString(stderr.String()) }, 30*time.Second, 50*time.Millisecond, "stderr: %s", stderr)
	require.Equal(t, kubeconfig, re.FindStringSubmatch(stderr.String())[1])

	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(cfg.Host, "https://127.0.0.1:"), cfg.Host)
	require.NotEmpty(t, cfg.BearerToken)
	require.NotEmpty(t, cfg.CAData)
	raw, err := clientcmd.LoadFromFile(kubeconfig)
	require.NoError(t, err)
	require.Equal(t, "ctrlkit", raw.CurrentContext)
	cfg.ContentType, cfg.AcceptContentTypes = "application/json", "application/json"
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		return err == nil && len(nodes.Items) == 2
	}, 30*time.Second, 50*time.Millisecond)

	// The same config without the token: 401 Unauthorized, as client-go
	// reports kube-apiserver's.
	anon := *cfg
	anon.BearerToken = ""
	acs, err := kubernetes.NewForConfig(&anon)
	require.NoError(t, err)
	_, err = acs.CoreV1().Secrets("default").List(ctx, metav1.ListOptions{})
	require.Error(t, err)
	require.Contains(t, err.Error(), "Unauthorized")

	// kubectl, when installed, with the kubeconfig as written.
	if kubectl, err := exec.LookPath("kubectl"); err == nil {
		out, err := exec.CommandContext(ctx, kubectl, "--kubeconfig", kubeconfig, "get", "nodes", "-o", "name").CombinedOutput()
		require.NoError(t, err, "%s", out)
		require.Equal(t, "node/node-1\nnode/node-2\n", string(out))
	}
}
