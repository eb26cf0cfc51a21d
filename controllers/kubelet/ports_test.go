package kubelet_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/kubelet"
)

func portsPod() *api.Pod {
	return &api.Pod{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "ns", UID: "u1",
		Annotations: map[string]string{kubelet.PortAnnotationPrefix + "7000": "echo"}},
		Spec: api.PodSpec{Containers: []api.Container{
			{Name: "web", Ports: []api.ContainerPort{{ContainerPort: 80}, {ContainerPort: 53, Protocol: api.ProtocolUDP}}},
			{Name: "side", Ports: []api.ContainerPort{{ContainerPort: 7000}}},
		}}}
}

// Issue 32: a declared port answers HTTP with the page naming pod,
// container and port (HEAD: no body); an echo port echoes; an
// undeclared (or UDP) port is refused with the runtime's text; the
// connections to a pod are bounded.
func TestPortsDial(t *testing.T) {
	p := kubelet.NewPorts()
	pod := portsPod()
	ctx := t.Context()
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		c, err := p.DialPort(ctx, pod, 80)
		require.NoError(t, err)
		go func() { _, _ = io.WriteString(c, method+" / HTTP/1.1\r\nHost: x\r\n\r\n") }()
		req, _ := http.NewRequest(method, "http://x/", nil)
		resp, err := http.ReadResponse(bufio.NewReader(c), req)
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.Equal(t, "33", resp.Header.Get("Content-Length"))
		if method == http.MethodGet {
			require.Equal(t, "pod ns/web container web port 80\n", string(body))
		} else {
			require.Empty(t, body)
		}
		c.Close()
	}

	c, err := p.DialPort(ctx, pod, 7000)
	require.NoError(t, err)
	go func() { _, _ = io.WriteString(c, "ping") }()
	b := make([]byte, 4)
	_, err = io.ReadFull(c, b)
	require.NoError(t, err)
	require.Equal(t, "ping", string(b))
	c.Close()

	for _, port := range []int32{81, 53} {
		_, err = p.DialPort(ctx, pod, port)
		require.Error(t, err)
		sb := kubelet.SandboxID(pod)
		require.Len(t, sb, 64)
		require.True(t, strings.HasPrefix(err.Error(), "error forwarding port "), err.Error())
		require.Contains(t, err.Error(), " to pod "+sb+", uid : failed to connect to localhost:")
		require.Contains(t, err.Error(), "connect: connection refused")
	}

	// The bound: ending ctx closes the connections and frees their
	// slots.
	synctest.Test(t, func(t *testing.T) {
		p := kubelet.NewPorts()
		p.MaxPerPod = 2
		cctx, cancel := context.WithCancel(t.Context())
		c1, err := p.DialPort(cctx, pod, 7000)
		require.NoError(t, err)
		c2, err := p.DialPort(cctx, pod, 80)
		require.NoError(t, err)
		_, err = p.DialPort(t.Context(), pod, 7000)
		require.ErrorContains(t, err, "too many open connections (2)")
		cancel()
		_, err = c1.Read(make([]byte, 1))
		require.Error(t, err)
		_, err = c2.Read(make([]byte, 1))
		require.Error(t, err)
		synctest.Wait()
		c3, err := p.DialPort(t.Context(), pod, 7000)
		require.NoError(t, err)
		c3.Close()
		synctest.Wait()
	})
}
