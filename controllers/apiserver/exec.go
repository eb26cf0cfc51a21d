package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver/stream"
)

// The remote command subprotocols served (k8s.io/apimachinery
// pkg/util/remotecommand): v5 adds the close signal to v4, whose error
// channel carries a metav1.Status with the exit code.
const (
	protocolV5 = "v5.channel.k8s.io"
	protocolV4 = "v4.channel.k8s.io"
)

// The channels of a remote command connection: the first byte of each
// binary message.
const (
	chanStdin  = 0
	chanStdout = 1
	chanStderr = 2
	chanError  = 3
	chanResize = 4
	// closeSignal (v5) is followed by the channel the peer closes.
	closeSignal = 255
)

// streamResources are the discovery entries of the streaming
// subresources of pods, as kube-apiserver lists them.
var streamResources = []apiResource{
	{Name: "pods/attach", Namespaced: true, Kind: "PodAttachOptions", Verbs: []string{"create", "get"}},
	{Name: "pods/exec", Namespaced: true, Kind: "PodExecOptions", Verbs: []string{"create", "get"}},
	{Name: "pods/log", Namespaced: true, Kind: "Pod", Verbs: []string{"get"}},
	{Name: "pods/portforward", Namespaced: true, Kind: "PodPortForwardOptions", Verbs: []string{"create", "get"}},
}

// isStreamSub reports whether sub is a pod subresource served by
// serveStream.
func isStreamSub(sub string) bool {
	switch sub {
	case "log", "exec", "attach", "portforward":
		return true
	}
	return false
}

// isLongRunning reports whether r is a request that streams for as long
// as it lasts, as kube-apiserver's long-running check: exec, attach,
// portforward and a followed log are not bound by the request timeout
// nor counted in flight (they bound themselves).
func isLongRunning(r *http.Request) bool {
	p := strings.TrimSuffix(r.URL.Path, "/")
	i := strings.LastIndexByte(p, '/')
	if i < 0 || !strings.Contains(p, "/pods/") {
		return false
	}
	switch p[i+1:] {
	case "exec", "attach", "portforward":
		return true
	case "log":
		f, _ := strconv.ParseBool(r.URL.Query().Get("follow"))
		return f
	}
	return false
}

// serveStream serves the streaming subresources of pods.
func (h *typed[T]) serveStream(req *request) {
	if req.namespace == "" {
		h.fail(req, notFound())
		return
	}
	switch req.sub {
	case "log":
		h.serveLog(req)
	case "exec", "attach":
		h.serveExec(req)
	case "portforward":
		h.servePortForward(req)
	}
}

// execOptions are core/v1 PodExecOptions (and PodAttachOptions).
type execOptions struct {
	container                  string
	command                    []string
	stdin, stdout, stderr, tty bool
}

func parseExecOptions(req *request) (execOptions, error) {
	q := req.r.URL.Query()
	o := execOptions{container: q.Get("container"), command: q["command"]}
	for _, f := range []struct {
		name string
		p    *bool
	}{{"stdin", &o.stdin}, {"stdout", &o.stdout}, {"stderr", &o.stderr}, {"tty", &o.tty}} {
		if v := q.Get(f.name); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return o, badRequest("%s: invalid value %q: %v", f.name, v, err)
			}
			*f.p = b
		}
	}
	if !o.stdin && !o.stdout && !o.stderr {
		return o, badRequest("you must specify at least 1 of stdin, stdout, stderr")
	}
	if req.sub == "exec" && len(o.command) == 0 {
		return o, badRequest("you must specify at least one command for the container")
	}
	return o, nil
}

// serveExec serves pods/{name}/exec and /attach: it checks the request
// as kube-apiserver and the kubelet do (the pod, its container, its
// state), then upgrades — to WebSocket (v5.channel.k8s.io or
// v4.channel.k8s.io) or to SPDY/3.1 (v4.channel.k8s.io down to
// channel.k8s.io, exec_spdy.go) — and runs the simulated command (exec)
// or streams the container's log (attach).
func (h *typed[T]) serveExec(req *request) {
	if m := req.r.Method; m != http.MethodGet && m != http.MethodPost {
		h.fail(req, methodNotAllowed(req))
		return
	}
	o, err := parseExecOptions(req)
	if err != nil {
		h.fail(req, err)
		return
	}
	ctx := req.r.Context()
	pod, rv, err := h.srv.c.Pods().Get(ctx, h.key(req))
	if err != nil {
		h.fail(req, err)
		return
	}
	c, err := podContainer(pod, o.container)
	if err != nil {
		h.fail(req, err)
		return
	}
	switch {
	case pod.Spec.NodeName == "":
		h.fail(req, badRequest("pod %s does not have a host assigned", pod.Name))
		return
	case pod.Status.Phase == api.PodSucceeded || pod.Status.Phase == api.PodFailed:
		h.fail(req, badRequest("cannot %s into a container in a completed pod; current phase is %s", req.sub, pod.Status.Phase))
		return
	}
	if cs := containerStatus(pod, c.Name); cs == nil || cs.State.Running == nil {
		h.fail(req, badRequest("unable to upgrade connection: container not found (%q)", c.Name))
		return
	}
	if !stream.IsWebSocketRequest(req.r) {
		h.serveExecSPDY(req, o, pod, c, rv)
		return
	}
	conn, err := stream.Upgrade(req.w, req.r, []string{protocolV5, protocolV4})
	switch {
	case errors.Is(err, stream.ErrNoProtocol):
		h.fail(req, badRequest("unable to upgrade connection: none of the requested subprotocols %v is supported (%s, %s)", stream.Protocols(req.r), protocolV5, protocolV4))
		return
	case err != nil:
		h.fail(req, badRequest("unable to upgrade connection: %v", err))
		return
	}
	s := newChannels(conn, o)
	defer s.finish()
	// The command starts after a runtime's exec start latency. Besides
	// modelling it, the wait keeps the first output from reaching
	// kubectl v1.32's WebSocket client before it has made its streams:
	// that client starts reading at once and drops a message for a
	// stream it has not made yet ("Unknown stream id 1, discarding
	// message"); later client-go waits for its streams first.
	t := time.NewTimer(execStartLatency)
	select {
	case <-t.C:
	case <-ctx.Done():
		t.Stop()
		return
	}
	h.runExec(ctx, req, o, pod, c, rv, s)
}

// execStartLatency is how long a command over WebSocket takes to start
// (serveExec).
const execStartLatency = 100 * time.Millisecond

// execSession is the client's end of a remote command, whichever the
// transport: its streams, its terminal size, the end of the client and
// the exit status.
type execSession interface {
	io.Reader // stdin: io.EOF once the client closed it (or went)
	// writer returns the stdout or stderr stream (io.Discard when the
	// client did not ask for it).
	writer(ch byte) io.Writer
	// ctx returns a context that ends with parent or when the client goes.
	ctx(parent context.Context) (context.Context, context.CancelFunc)
	// size returns the terminal's last size the client sent.
	size() (termSize, bool)
	// exit reports the command's exit code as the kubelet does.
	exit(code int)
}

// termSize is a terminal size as the client sends it on the resize
// channel (client-go's remotecommand.TerminalSize).
type termSize struct {
	Width  uint16 `json:"Width"`
	Height uint16 `json:"Height"`
}

// maxResize bounds one resize message.
const maxResize = 1 << 10

// termState holds the last terminal size of a session.
type termState struct {
	mu  sync.Mutex
	cur termSize
	set bool
}

func (t *termState) size() (termSize, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cur, t.set
}

// resize records a resize message (JSON); a malformed one is dropped.
func (t *termState) resize(msg []byte) {
	var ts termSize
	if len(msg) > maxResize || json.Unmarshal(msg, &ts) != nil {
		return
	}
	t.mu.Lock()
	t.cur, t.set = ts, true
	t.mu.Unlock()
}

// runExec runs the remote command on s: the simulated command of an
// exec, the container's log for an attach; then the exit status.
func (h *typed[T]) runExec(ctx context.Context, req *request, o execOptions, pod *api.Pod, c *api.Container, rv string, s execSession) {
	runCtx, cancel := s.ctx(ctx)
	defer cancel()
	if req.sub == "attach" {
		go func() { _, _ = io.Copy(io.Discard, s) }()
		h.attach(runCtx, req, s.writer(chanStdout), pod, c, rv)
		s.exit(0)
		return
	}
	sim := newSimContainer(pod, c, func(resource, name string) (map[string][]byte, bool) {
		return h.lookupData(ctx, pod.Namespace, resource, name)
	})
	sim.stdin, sim.stdout, sim.stderr = s, s.writer(chanStdout), s.writer(chanStderr)
	if o.tty {
		// One terminal: stderr is stdout; input is echoed and cooked.
		out := s.writer(chanStdout)
		sim.stdin, sim.stdout, sim.stderr, sim.tty = &ttyIn{r: s, echo: out}, crlfWriter{out}, crlfWriter{out}, true
		sim.termSize = s.size
	}
	s.exit(sim.run(runCtx, o.command))
}

// exitStatus is the Status the kubelet reports for a command's exit
// code: Success, or NonZeroExitCode with the code as an ExitCode cause.
func exitStatus(command []string, code int) Status {
	if code == 0 {
		return Status{Status: "Success"}
	}
	return Status{Status: "Failure", Reason: "NonZeroExitCode",
		Message: "command terminated with non-zero exit code: error executing command [" + strings.Join(command, " ") + "], exit code " + strconv.Itoa(code),
		Details: &StatusDetails{Causes: []StatusCause{{Reason: "ExitCode", Message: strconv.Itoa(code)}}}}
}

// lookupData reads a ConfigMap's or Secret's data for the simulated
// container.
func (h *typed[T]) lookupData(ctx context.Context, namespace, resource, name string) (map[string][]byte, bool) {
	key := api.NamespacedKey(namespace, name)
	switch resource {
	case "configmaps":
		cm, _, err := h.srv.c.ConfigMaps().Get(ctx, key)
		if err != nil {
			return nil, false
		}
		m := map[string][]byte{}
		for k, v := range cm.Data {
			m[k] = []byte(v)
		}
		for k, v := range cm.BinaryData {
			m[k] = v
		}
		return m, true
	case "secrets":
		sec, _, err := h.srv.c.Secrets().Get(ctx, key)
		if err != nil {
			return nil, false
		}
		return sec.Data, true
	}
	return nil, false
}

// stdinBuffer bounds the stdin messages buffered for a command that
// does not read them yet (each at most the connection's MaxMessage).
const stdinBuffer = 4

// channels multiplexes a remote command's streams on a WebSocket.
type channels struct {
	conn     *stream.Conn
	o        execOptions
	v5       bool
	in       chan []byte   // stdin messages; closed at stdin's end
	inOnce   sync.Once     // closes in
	stop     chan struct{} // closed by finish
	readerD  chan struct{} // closed when the reader goroutine returns
	stdinBuf []byte
	term     termState
}

func newChannels(conn *stream.Conn, o execOptions) *channels {
	s := &channels{conn: conn, o: o, v5: conn.Protocol() == protocolV5,
		in: make(chan []byte, stdinBuffer), stop: make(chan struct{}), readerD: make(chan struct{})}
	if !o.stdin {
		s.closeStdin()
	}
	go s.read()
	return s
}

func (s *channels) closeStdin() { s.inOnce.Do(func() { close(s.in) }) }

// read demultiplexes the client's messages: stdin, its close (v5), and
// terminal resizes (kept for the simulated `stty size`). It returns
// when the client closes or goes.
func (s *channels) read() {
	defer close(s.readerD)
	defer s.closeStdin()
	stdinOpen := s.o.stdin
	for {
		op, msg, err := s.conn.ReadMessage()
		if err != nil {
			return
		}
		if op != stream.OpBinary || len(msg) == 0 {
			continue
		}
		switch msg[0] {
		case chanStdin:
			if stdinOpen && len(msg) > 1 {
				select {
				case s.in <- msg[1:]:
				case <-s.stop:
					return
				}
			}
		case closeSignal:
			if s.v5 && len(msg) == 2 && msg[1] == chanStdin && stdinOpen {
				stdinOpen = false
				s.closeStdin()
			}
		case chanResize:
			s.term.resize(msg[1:])
		}
	}
}

// ctx returns a context that ends with parent or when the client goes.
func (s *channels) ctx(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(parent))
	go func() {
		defer cancel()
		select {
		case <-s.readerD:
		case <-parent.Done():
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// Read reads stdin: EOF once the client closed it (or went).
func (s *channels) Read(p []byte) (int, error) {
	for len(s.stdinBuf) == 0 {
		b, ok := <-s.in
		if !ok {
			return 0, io.EOF
		}
		s.stdinBuf = b
	}
	n := copy(p, s.stdinBuf)
	s.stdinBuf = s.stdinBuf[n:]
	return n, nil
}

// writer writes to a channel, nothing when the client did not ask for
// it. Large writes are cut into messages of at most 32 KiB.
func (s *channels) writer(ch byte) io.Writer {
	if (ch == chanStdout && !s.o.stdout) || (ch == chanStderr && !s.o.stderr) {
		return io.Discard
	}
	return chanWriter{s, ch}
}

type chanWriter struct {
	s  *channels
	ch byte
}

func (w chanWriter) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		k := min(len(p), 32<<10)
		msg := make([]byte, 0, k+1)
		msg = append(append(msg, w.ch), p[:k]...)
		if err := w.s.conn.WriteMessage(stream.OpBinary, msg); err != nil {
			return n, err
		}
		n, p = n+k, p[k:]
	}
	return n, nil
}

func (s *channels) size() (termSize, bool) { return s.term.size() }

// exit writes the command's status on the error channel, as the kubelet.
func (s *channels) exit(code int) {
	b, _ := json.Marshal(exitStatus(s.o.command, code))
	_ = s.conn.WriteMessage(stream.OpBinary, append([]byte{chanError}, b...))
}

// finish closes the connection: a normal close frame, then a short wait
// for the client's, so that its unread messages do not reset the
// connection before it has read the output.
func (s *channels) finish() {
	close(s.stop)
	_ = s.conn.WriteClose(stream.CloseNormal, "")
	t := time.NewTimer(closeWait)
	defer t.Stop()
	select {
	case <-s.readerD:
	case <-t.C:
	}
	s.conn.Close()
}

// closeWait bounds the wait for the client's close frame.
const closeWait = 5 * time.Second

// attach streams the container's log to w as `kubectl logs -f` does,
// from its current run, until the container stops or ctx ends (the
// client went); stdin is read and dropped, the simulated process
// reading none.
func (h *typed[T]) attach(ctx context.Context, req *request, w io.Writer, pod *api.Pod, c *api.Container, rv string) {
	run, err := selectRun(pod, c, false)
	if err != nil {
		return
	}
	lw := &logWriter{w: w}
	if !lw.write(runLog(pod, c, run, true)) || run.finished != nil {
		return
	}
	h.followLog(ctx, req, lw, pod, c, run, rv)
}
