package apiserver_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
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
	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver/stream"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// fakePorts answers port 80 with a fixed text, refuses the others.
type fakePorts struct{}

func (fakePorts) DialPort(ctx context.Context, pod *api.Pod, port int32) (io.ReadWriteCloser, error) {
	if port != 80 {
		return nil, fmt.Errorf("error forwarding port %d to pod %s: connection refused", port, pod.Name)
	}
	a, b := net.Pipe()
	go func() {
		defer b.Close()
		_, _ = io.WriteString(b, "hello from "+pod.Name)
	}()
	return a, nil
}

func startPortForward(t *testing.T, pf apiserver.PortForwarder) (*cluster.Cluster, *httptest.Server) {
	t.Helper()
	c, err := cluster.New(t.Context(), cluster.Options{})
	require.NoError(t, err)
	srv, err := apiserver.New(c, apiserver.Options{PortForward: pf})
	require.NoError(t, err)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return c, ts
}

// spdyUpgrade sends a plain SPDY/3.1 upgrade for path and returns the
// connection and the response.
func spdyUpgrade(t *testing.T, ts *httptest.Server, path string, protocols ...string) (net.Conn, *bufio.Reader, *http.Response) {
	t.Helper()
	u, err := url.Parse(ts.URL)
	require.NoError(t, err)
	nc, err := net.Dial("tcp", u.Host)
	require.NoError(t, err)
	t.Cleanup(func() { nc.Close() })
	require.NoError(t, nc.SetDeadline(time.Now().Add(20*time.Second)))
	req, err := http.NewRequest(http.MethodPost, ts.URL+path, nil)
	require.NoError(t, err)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "SPDY/3.1")
	for _, p := range protocols {
		req.Header.Add("X-Stream-Protocol-Version", p)
	}
	require.NoError(t, req.Write(nc))
	br := bufio.NewReader(nc)
	resp, err := http.ReadResponse(br, req)
	require.NoError(t, err)
	return nc, br, resp
}

// Issue 32: pods/portforward over SPDY/3.1, tunnelled in WebSocket
// (what kubectl v1.31+ tries first) and plain (its fallback):
// the upgrade answers portforward.k8s.io, each requestID's error and
// data streams carry one connection to the pod's port, a refused port's
// error text comes on the error stream; deleting the pod ends the
// connection with a GOAWAY. Without a PortForwarder, and for a pod
// not running or missing, the upgrade is refused with kube's errors.
func TestPortForwardSPDY(t *testing.T) {
	t.Run("websocket", func(t *testing.T) { testPortForwardSPDY(t, true) })
	t.Run("plain", func(t *testing.T) { testPortForwardSPDY(t, false) })
}

func testPortForwardSPDY(t *testing.T, tunnel bool) {
	c, ts := startPortForward(t, fakePorts{})
	ctx := t.Context()
	_, err := c.Pods().Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "default"},
		Spec: api.PodSpec{NodeName: "n1", Containers: []api.Container{{Name: "web", Image: "nginx"}}}})
	require.NoError(t, err)
	path := "/api/v1/namespaces/default/pods/p/portforward"

	// Not running yet: 400 before any upgrade.
	_, _, resp := spdyUpgrade(t, ts, path, "portforward.k8s.io")
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	p, _, err := c.Pods().Get(ctx, api.NamespacedKey("default", "p"))
	require.NoError(t, err)
	p.Status.Phase = api.PodRunning
	_, err = c.Pods().UpdateStatus(ctx, p)
	require.NoError(t, err)

	// An unknown protocol version: 403, as kube's handshake.
	_, _, resp = spdyUpgrade(t, ts, path, "portforward.k8s.io.v2")
	require.Equal(t, http.StatusForbidden, resp.StatusCode)

	var fr *stream.Framer
	if tunnel {
		u, err := url.Parse(ts.URL)
		require.NoError(t, err)
		nc, err := net.Dial("tcp", u.Host)
		require.NoError(t, err)
		t.Cleanup(func() { nc.Close() })
		require.NoError(t, nc.SetDeadline(time.Now().Add(20*time.Second)))
		conn, err := stream.Dial(nc, u.Host, path, nil, "SPDY/3.1+portforward.k8s.io")
		require.NoError(t, err)
		require.Equal(t, "SPDY/3.1+portforward.k8s.io", conn.Protocol())
		tun := conn.Tunnel()
		fr = stream.NewFramer(tun, tun)
	} else {
		nc, br, resp := spdyUpgrade(t, ts, path, "portforward.k8s.io")
		require.Equal(t, http.StatusSwitchingProtocols, resp.StatusCode)
		require.Equal(t, "portforward.k8s.io", resp.Header.Get("X-Stream-Protocol-Version"))
		fr = stream.NewFramer(br, nc)
	}
	frames := make(chan *stream.Frame, 64)
	go func() {
		defer close(frames)
		for {
			f, err := fr.ReadFrame()
			if err != nil {
				return
			}
			frames <- f
		}
	}()
	// collect reads until both streams ended: the data and error text.
	collect := func(errID, dataID uint32) (data, errText string) {
		t.Helper()
		fins := 0
		for fins < 2 {
			f, ok := <-frames
			require.True(t, ok, "connection ended")
			if f.Type != stream.SPDYData {
				continue
			}
			switch f.StreamID {
			case dataID:
				data += string(f.Data)
			case errID:
				errText += string(f.Data)
			}
			if f.Flags&stream.SPDYFlagFin != 0 {
				fins++
			}
		}
		return data, errText
	}
	open := func(id uint32, typ, port, req string) {
		t.Helper()
		require.NoError(t, fr.WriteFrame(&stream.Frame{Type: stream.SPDYSynStream, StreamID: id,
			Headers: http.Header{"Streamtype": {typ}, "Port": {port}, "Requestid": {req}}}))
	}
	open(1, "error", "80", "0")
	open(3, "data", "80", "0")
	data, errText := collect(1, 3)
	require.Equal(t, "hello from p", data)
	require.Empty(t, errText)

	open(5, "error", "81", "1")
	open(7, "data", "81", "1")
	data, errText = collect(5, 7)
	require.Empty(t, data)
	require.Equal(t, "error forwarding port 81 to pod p: connection refused", errText)

	require.NoError(t, fr.WriteFrame(&stream.Frame{Type: stream.SPDYPing, Value: 1}))
	for f := range frames {
		if f.Type == stream.SPDYPing {
			require.Equal(t, uint32(1), f.Value)
			break
		}
	}

	zero := int64(0)
	_, err = c.Pods().DeleteWith(ctx, api.NamespacedKey("default", "p"), cluster.DeleteOptions{GracePeriodSeconds: &zero})
	require.NoError(t, err)
	goaway := false
	for f := range frames {
		goaway = goaway || f.Type == stream.SPDYGoAway
	}
	require.True(t, goaway, "no GOAWAY before the connection ended")

	_, _, resp = spdyUpgrade(t, ts, path, "portforward.k8s.io")
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
}

// Without a PortForwarder the upgrade is refused with a 400 Status; a
// request that is no upgrade is a 400 too.
func TestPortForwardRefused(t *testing.T) {
	for _, pf := range []apiserver.PortForwarder{nil, fakePorts{}} {
		c, ts := startPortForward(t, pf)
		_, err := c.Pods().Create(t.Context(), &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "default"},
			Spec:   api.PodSpec{NodeName: "n1", Containers: []api.Container{{Name: "web", Image: "nginx"}}},
			Status: api.PodStatus{Phase: api.PodRunning}})
		require.NoError(t, err)
		p, _, err := c.Pods().Get(t.Context(), api.NamespacedKey("default", "p"))
		require.NoError(t, err)
		p.Status.Phase = api.PodRunning
		_, err = c.Pods().UpdateStatus(t.Context(), p)
		require.NoError(t, err)
		resp, err := http.Post(ts.URL+"/api/v1/namespaces/default/pods/p/portforward", "", nil)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusBadRequest, resp.StatusCode, string(body))
		if pf == nil {
			require.Contains(t, string(body), "port-forward is not served")
		} else {
			require.Contains(t, string(body), "unable to upgrade: missing upgrade headers in request")
		}
		_, _, err = dialPF(ts)
		if pf == nil {
			var he *stream.HandshakeError
			require.True(t, errors.As(err, &he), "%v", err)
			require.Equal(t, http.StatusBadRequest, he.StatusCode)
		} else {
			require.NoError(t, err)
		}
	}
}

// dialPF opens the WebSocket tunnel kubectl v1.31+ tries first.
func dialPF(ts *httptest.Server) (*stream.Conn, net.Conn, error) {
	u, _ := url.Parse(ts.URL)
	nc, err := net.Dial("tcp", u.Host)
	if err != nil {
		return nil, nil, err
	}
	_ = nc.SetDeadline(time.Now().Add(20 * time.Second))
	conn, err := stream.Dial(nc, u.Host, "/api/v1/namespaces/default/pods/p/portforward", nil, "SPDY/3.1+portforward.k8s.io")
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	if !strings.HasPrefix(conn.Protocol(), "SPDY/3.1+") {
		return nil, nil, fmt.Errorf("protocol %q", conn.Protocol())
	}
	conn.Close()
	return conn, nc, nil
}
