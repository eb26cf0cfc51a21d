package kubelet

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// PortAnnotationPrefix, followed by a port number, names the behaviour
// of a declared container port: "echo" (a TCP echo) or "http" (the
// default).
const PortAnnotationPrefix = "sim.ctrlkit.io/port-"

// DefaultMaxPortConnections bounds the connections open at once to the
// ports of one pod.
const DefaultMaxPortConnections = 32

// maxRequestHeader bounds the request the simulated HTTP responder
// reads.
const maxRequestHeader = 64 << 10

// Ports is what the simulated containers serve on their ports, for
// port forwarding (the API server's pods/portforward; kubectl
// port-forward). Each TCP port a container declares in
// spec.containers[].ports answers:
//
//   - "http" (the default): a minimal HTTP/1.1 responder. It reads one
//     request and answers 200 with a text/plain page "pod <namespace>/<name>
//     container <container> port <port>\n" (HEAD: headers only), then
//     closes the connection.
//   - "echo" (annotation sim.ctrlkit.io/port-<port>: echo): every byte
//     received is sent back until the client closes.
//
// A port no container declares refuses the connection, with the error
// text the kubelet and its container runtime (containerd) write on the
// error stream: "error forwarding port N to pod <sandbox>, uid :
// failed to connect to localhost:N inside namespace "<sandbox>", ...
// connection refused". At most MaxPerPod connections are open
// to one pod at once. The zero value is not usable: use NewPorts.
type Ports struct {
	// MaxPerPod bounds the connections open to one pod
	// (DefaultMaxPortConnections).
	MaxPerPod int

	mu    sync.Mutex
	conns map[api.UID]int
}

// NewPorts returns the simulated ports of the pods.
func NewPorts() *Ports {
	return &Ports{MaxPerPod: DefaultMaxPortConnections, conns: map[api.UID]int{}}
}

// SandboxID is the simulated ID of the pod's sandbox, as the container
// runtime names it in its errors: 64 hex digits derived from the UID.
func SandboxID(pod *api.Pod) string {
	h := sha256.Sum256([]byte("sandbox/" + string(pod.UID)))
	return hex.EncodeToString(h[:])
}

// DialPort connects to port inside pod: the connection is served by the
// simulated container until either end closes it or ctx ends. A port
// no container declares is refused with the runtime's error text.
func (p *Ports) DialPort(ctx context.Context, pod *api.Pod, port int32) (io.ReadWriteCloser, error) {
	var c *api.Container
	for i := range pod.Spec.Containers {
		for _, cp := range pod.Spec.Containers[i].Ports {
			if cp.ContainerPort == port && (cp.Protocol == "" || cp.Protocol == api.ProtocolTCP) && c == nil {
				c = &pod.Spec.Containers[i]
			}
		}
	}
	if c == nil {
		sb := SandboxID(pod)
		return nil, fmt.Errorf("error forwarding port %d to pod %s, uid : failed to connect to localhost:%d inside namespace %q, IPv4: dial tcp4 127.0.0.1:%d: connect: connection refused IPv6 dial tcp6 [::1]:%d: connect: connection refused ", port, sb, port, sb, port, port)
	}
	p.mu.Lock()
	if p.conns[pod.UID] >= p.MaxPerPod {
		p.mu.Unlock()
		sb := SandboxID(pod)
		return nil, fmt.Errorf("error forwarding port %d to pod %s, uid : failed to connect to localhost:%d inside namespace %q: too many open connections (%d)", port, sb, port, sb, p.MaxPerPod)
	}
	p.conns[pod.UID]++
	p.mu.Unlock()
	client, server := net.Pipe()
	mode := pod.Annotations[PortAnnotationPrefix+strconv.Itoa(int(port))]
	go func() {
		defer func() {
			p.mu.Lock()
			if p.conns[pod.UID]--; p.conns[pod.UID] <= 0 {
				delete(p.conns, pod.UID)
			}
			p.mu.Unlock()
		}()
		defer server.Close()
		stop := context.AfterFunc(ctx, func() { server.Close() })
		defer stop()
		if mode == "echo" {
			_, _ = io.Copy(server, server)
			return
		}
		serveHTTP(server, pod, c.Name, port)
	}()
	return client, nil
}

// serveHTTP answers one HTTP request on conn.
func serveHTTP(conn net.Conn, pod *api.Pod, container string, port int32) {
	br := bufio.NewReaderSize(io.LimitReader(conn, maxRequestHeader), 4096)
	req, err := http.ReadRequest(br)
	if err != nil {
		if !errors.Is(err, io.EOF) {
			_, _ = io.WriteString(conn, "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request")
		}
		return
	}
	body := fmt.Sprintf("pod %s/%s container %s port %d\n", pod.Namespace, pod.Name, container, port)
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n", len(body))
	if req.Method != http.MethodHead {
		b.WriteString(body)
	}
	_, _ = io.WriteString(conn, b.String())
}
