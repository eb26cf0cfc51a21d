package apiserver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver/stream"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/source"
)

// PortForwarder connects to a port inside a pod, as the kubelet's
// container runtime does for port forwarding. An error's text is what
// the kubelet writes on the stream's error stream (kubectl prints it).
type PortForwarder interface {
	DialPort(ctx context.Context, pod *api.Pod, port int32) (io.ReadWriteCloser, error)
}

// The port-forward protocol (k8s.io/apimachinery pkg/util/portforward
// and core/v1's stream headers).
const (
	portForwardProtocolV1 = "portforward.k8s.io"
	// spdyTunnelPrefix prefixes the WebSocket subprotocol of SPDY
	// tunnelled in WebSocket (client-go tools/portforward, v1.31+).
	spdyTunnelPrefix    = "SPDY/3.1+"
	headerStreamProto   = "X-Stream-Protocol-Version"
	headerStreamType    = "streamType"
	headerPort          = "port"
	headerRequestID     = "requestID"
	streamTypeError     = "error"
	streamTypeData      = "data"
	portForwardPairWait = 30 * time.Second
)

// servePortForward answers pods/{name}/portforward. After the checks
// kube-apiserver and the kubelet make (the pod exists, runs on a node,
// is Running), it upgrades to SPDY/3.1 — tunnelled in WebSocket
// (subprotocol "SPDY/3.1+portforward.k8s.io", what kubectl v1.31 and
// later try first) or plain (Upgrade: SPDY/3.1) — and serves the
// portforward.k8s.io protocol: each forwarded connection is an error
// stream and a data stream sharing a requestID header, the data stream
// carrying the bytes of Options.PortForward's connection to the port,
// the error stream the kubelet's error text (then its end). The
// connection ends (GOAWAY) when the pod is deleted. Without
// Options.PortForward the upgrade is refused with a 400 Status.
func (h *typed[T]) servePortForward(req *request) {
	if m := req.r.Method; m != http.MethodGet && m != http.MethodPost {
		h.fail(req, methodNotAllowed(req))
		return
	}
	ctx := req.r.Context()
	pod, rv, err := h.srv.c.Pods().Get(ctx, h.key(req))
	if err != nil {
		h.fail(req, err)
		return
	}
	if pod.Spec.NodeName == "" {
		h.fail(req, badRequest("pod %s does not have a host assigned", pod.Name))
		return
	}
	backend := h.srv.opts.PortForward
	if backend == nil {
		h.fail(req, badRequest("unable to upgrade connection: port-forward is not served by this ctrlkit API server (pod %s)", pod.Name))
		return
	}
	if pod.Status.Phase != api.PodRunning {
		h.fail(req, badRequest("unable to upgrade connection: pod %s is not running (phase %s)", pod.Name, pod.Status.Phase))
		return
	}
	var rwc io.ReadWriteCloser
	switch {
	case stream.IsWebSocketRequest(req.r):
		conn, err := stream.Upgrade(req.w, req.r, []string{spdyTunnelPrefix + portForwardProtocolV1})
		switch {
		case errors.Is(err, stream.ErrNoProtocol):
			h.fail(req, badRequest("unable to upgrade connection: none of the requested subprotocols %v is supported (%s)", stream.Protocols(req.r), spdyTunnelPrefix+portForwardProtocolV1))
			return
		case err != nil:
			h.fail(req, badRequest("unable to upgrade connection: %v", err))
			return
		}
		rwc = conn.Tunnel()
	case isSPDYUpgrade(req.r):
		if protos := req.r.Header.Values(headerStreamProto); len(protos) > 0 && !contains(protos, portForwardProtocolV1) {
			http.Error(req.w, fmt.Sprintf("unable to upgrade: unable to negotiate protocol: client supports %v, server accepts %v", protos, []string{portForwardProtocolV1}), http.StatusForbidden)
			return
		}
		if rwc, err = hijackSPDY(req.w, portForwardProtocolV1); err != nil {
			var ae *apiError
			if errors.As(err, &ae) {
				h.fail(req, err)
			}
			return
		}
	default:
		h.fail(req, badRequest("unable to upgrade: missing upgrade headers in request: %v", req.r.Header.Values("Upgrade")))
		return
	}
	conn := stream.NewSPDYServer(rwc)
	defer conn.Close()
	fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	go func() {
		h.waitPodGone(fctx, pod, rv)
		conn.Close()
	}()
	pf := &portForward{ctx: fctx, pod: pod, backend: backend, pairs: map[string]*pfPair{}}
	for {
		s, err := conn.Accept()
		if err != nil {
			break
		}
		pf.add(s)
	}
	cancel()
	pf.wg.Wait()
}

// hijacked is a hijacked connection read through its buffered reader.
type hijacked struct {
	*bufio.Reader
	net.Conn
}

func (c hijacked) Read(p []byte) (int, error) { return c.Reader.Read(p) }

// headerToken reports whether a comma-separated header has token.
func headerToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// waitPodGone returns when the pod is deleted (or replaced by one of
// another UID) or ctx ends.
func (h *typed[T]) waitPodGone(ctx context.Context, pod *api.Pod, rv string) {
	for ctx.Err() == nil {
		sel, err := h.srv.c.Pods().Select(cluster.SelectOptions{Namespace: pod.Namespace, FieldSelector: "metadata.name=" + pod.Name})
		if err != nil {
			return
		}
		events, err := sel.Watch(ctx, source.WatchOptions{ResourceVersion: rv})
		if err == nil {
			for ev := range events {
				if ev.Type == source.Deleted || (ev.Object != nil && ev.Object.UID != pod.UID) {
					return
				}
			}
		}
		if ctx.Err() != nil {
			return
		}
		cur, curRV, err := h.srv.c.Pods().Get(ctx, api.NamespacedKey(pod.Namespace, pod.Name))
		if err != nil || cur.UID != pod.UID {
			return
		}
		rv = curRV
		t := time.NewTimer(time.Second)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
}

// portForward pairs the streams of one port-forward connection.
type portForward struct {
	ctx     context.Context
	pod     *api.Pod
	backend PortForwarder
	mu      sync.Mutex
	pairs   map[string]*pfPair
	wg      sync.WaitGroup
}

type pfPair struct {
	errS, dataS *stream.SPDYStream
	timer       *time.Timer
}

// add takes a new stream: the second of a requestID starts the forward.
func (pf *portForward) add(s *stream.SPDYStream) {
	id := s.Headers().Get(headerRequestID)
	pf.mu.Lock()
	p := pf.pairs[id]
	if p == nil {
		p = &pfPair{}
		pf.pairs[id] = p
		// The kubelet waits a while for the other stream of a request.
		p.timer = time.AfterFunc(portForwardPairWait, func() {
			pf.mu.Lock()
			if pf.pairs[id] == p {
				delete(pf.pairs, id)
			}
			streams := []*stream.SPDYStream{p.errS, p.dataS}
			pf.mu.Unlock()
			for _, s := range streams {
				if s != nil {
					s.Reset()
				}
			}
		})
	}
	switch s.Headers().Get(headerStreamType) {
	case streamTypeError:
		if p.errS == nil {
			p.errS = s
		} else {
			s.Reset()
		}
	case streamTypeData:
		if p.dataS == nil {
			p.dataS = s
		} else {
			s.Reset()
		}
	default:
		s.Reset()
	}
	ready := p.errS != nil && p.dataS != nil
	if ready {
		delete(pf.pairs, id)
	}
	pf.mu.Unlock()
	if ready && p.timer.Stop() {
		pf.wg.Add(1)
		go func() {
			defer pf.wg.Done()
			pf.forward(p.errS, p.dataS)
		}()
	}
}

// forward carries one connection to the pod's port, as the kubelet: an
// error goes to the error stream as text; both streams end with the
// backend's end.
func (pf *portForward) forward(errS, dataS *stream.SPDYStream) {
	defer errS.Close()
	defer dataS.Close()
	ph := dataS.Headers().Get(headerPort)
	port, err := strconv.ParseUint(ph, 10, 16)
	if err != nil || port == 0 {
		fmt.Fprintf(errS, "invalid port header: %q", ph)
		return
	}
	conn, err := pf.backend.DialPort(pf.ctx, pf.pod, int32(port))
	if err != nil {
		_, _ = io.WriteString(errS, err.Error())
		return
	}
	defer conn.Close()
	go func() {
		_, _ = io.Copy(conn, dataS)
		conn.Close()
	}()
	_, _ = io.Copy(dataS, conn)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
