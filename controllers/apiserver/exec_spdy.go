package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver/stream"
)

// The remote command protocols the kubelet serves over SPDY, preferred
// first (k8s.io/apimachinery pkg/util/remotecommand
// SupportedStreamingProtocols): v4 sends a metav1.Status on the error
// stream, v3 adds the resize stream to v2, v2 and v1 send the error's
// text.
const (
	protocolV3 = "v3.channel.k8s.io"
	protocolV2 = "v2.channel.k8s.io"
	protocolV1 = "channel.k8s.io"
)

var spdyExecProtocols = []string{protocolV4, protocolV3, protocolV2, protocolV1}

// The streamType header values of a remote command's SPDY streams
// (core/v1 StreamType*); "error" is streamTypeError.
const (
	streamTypeStdin  = "stdin"
	streamTypeStdout = "stdout"
	streamTypeStderr = "stderr"
	streamTypeResize = "resize"
)

// Limits of a remote command over SPDY.
const (
	// execStreamWait bounds the wait for the client's streams, as the
	// kubelet's stream creation timeout.
	execStreamWait = 30 * time.Second
	// headerAcceptedProtos lists the protocols of a refused negotiation.
	headerAcceptedProtos = "X-Accepted-Stream-Protocol-Versions"
)

// isSPDYUpgrade reports whether r asks to upgrade to SPDY/3.1.
func isSPDYUpgrade(r *http.Request) bool {
	return headerToken(r.Header, "Connection", "upgrade") && headerToken(r.Header, "Upgrade", "SPDY/3.1")
}

// hijackSPDY answers an SPDY/3.1 upgrade with 101 Switching Protocols,
// naming proto in X-Stream-Protocol-Version unless it is empty, and
// returns the connection. When the connection cannot be hijacked the
// error is a 400 Status to answer with; otherwise the response is gone.
func hijackSPDY(w http.ResponseWriter, proto string) (io.ReadWriteCloser, error) {
	nc, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return nil, badRequest("unable to upgrade connection: %v", err)
	}
	_ = nc.SetDeadline(time.Time{})
	_ = nc.SetWriteDeadline(time.Now().Add(stream.DefaultWriteTimeout))
	head := "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n"
	if proto != "" {
		head += headerStreamProto + ": " + proto + "\r\n"
	}
	_, err = brw.WriteString(head + "\r\n")
	if err == nil {
		err = brw.Flush()
	}
	if err != nil {
		nc.Close()
		return nil, err
	}
	return hijacked{Reader: brw.Reader, Conn: nc}, nil
}

// negotiateSPDY picks the client's first protocol the server serves, as
// k8s.io/apimachinery's httpstream.Handshake: a missing header is a 400,
// no common protocol a 403 listing the server's.
func negotiateSPDY(r *http.Request, w http.ResponseWriter, server []string) (string, error) {
	values, ok := r.Header[headerStreamProto]
	if !ok {
		return "", badRequest("unable to upgrade: header %s does not exist in request with %d headers", headerStreamProto, len(r.Header))
	}
	var client []string
	for _, v := range values {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				client = append(client, p)
			}
		}
	}
	if len(client) == 0 {
		return "", badRequest("unable to upgrade: header %s contains %v, but no valid protocols", headerStreamProto, values)
	}
	for _, c := range client {
		if contains(server, c) {
			return c, nil
		}
	}
	for _, p := range server {
		w.Header().Add(headerAcceptedProtos, p)
	}
	return "", newError(http.StatusForbidden, "Forbidden", "unable to upgrade: unable to negotiate protocol: client supports ["+strings.Join(client, " ")+"], server accepts ["+strings.Join(server, " ")+"]")
}

// serveExecSPDY serves an exec or attach over SPDY/3.1, as the kubelet:
// the protocol negotiated (v4 down to v1), the client opens its streams
// (error, then stdin, stdout, stderr as asked — no stderr with a tty —
// and, from v3, resize with a tty), each named by its streamType header;
// once all arrived (within execStreamWait) the command runs; its status
// goes to the error stream, then every stream ends.
func (h *typed[T]) serveExecSPDY(req *request, o execOptions, pod *api.Pod, c *api.Container, rv string) {
	if !isSPDYUpgrade(req.r) {
		h.fail(req, badRequest("unable to upgrade: missing upgrade headers in request: %v", req.r.Header.Values("Upgrade")))
		return
	}
	proto, err := negotiateSPDY(req.r, req.w, spdyExecProtocols)
	if err != nil {
		h.fail(req, err)
		return
	}
	rwc, err := hijackSPDY(req.w, proto)
	if err != nil {
		var ae *apiError
		if errors.As(err, &ae) {
			h.fail(req, err)
		}
		return
	}
	if o.tty {
		// The kubelet: a terminal has no separate stderr.
		o.stderr = false
	}
	conn := stream.NewSPDYServer(rwc)
	defer conn.Close()
	s, err := acceptExecStreams(conn, proto, o)
	if err != nil {
		return
	}
	defer s.finish()
	h.runExec(req.r.Context(), req, o, pod, c, rv, s)
}

// spdyExec is a remote command's streams on an SPDY connection.
type spdyExec struct {
	conn                *stream.SPDYConn
	proto               string
	o                   execOptions
	errS, in, out, eout *stream.SPDYStream
	resizeS             *stream.SPDYStream
	term                termState
	wg                  sync.WaitGroup
}

// acceptExecStreams waits for the streams the request asks for, as the
// kubelet's waitForStreams: a stream of an unknown type (or one more of
// a type already open) is reset and does not count; the streams the
// client opens afterwards are reset too.
func acceptExecStreams(conn *stream.SPDYConn, proto string, o execOptions) (*spdyExec, error) {
	s := &spdyExec{conn: conn, proto: proto, o: o}
	expected := 1
	for _, b := range []bool{o.stdin, o.stdout, o.stderr, o.tty && proto != protocolV2 && proto != protocolV1} {
		if b {
			expected++
		}
	}
	timer := time.NewTimer(execStreamWait)
	defer timer.Stop()
	streams := make(chan *stream.SPDYStream)
	go func() {
		defer close(streams)
		for {
			st, err := conn.Accept()
			if err != nil {
				return
			}
			select {
			case streams <- st:
			case <-conn.Done():
				return
			}
		}
	}()
	received := 0
	for received < expected {
		var st *stream.SPDYStream
		select {
		case st = <-streams:
		case <-timer.C:
			return nil, errors.New("timed out waiting for client to create streams")
		}
		if st == nil {
			return nil, io.ErrUnexpectedEOF
		}
		slot := s.slot(st.Headers().Get(headerStreamType))
		if slot == nil || *slot != nil {
			st.Reset()
			continue
		}
		*slot = st
		received++
	}
	// Later streams are not the command's.
	go func() {
		for st := range streams {
			st.Reset()
		}
	}()
	if s.resizeS != nil {
		s.wg.Add(1)
		go s.readResize()
	}
	return s, nil
}

// slot returns where a stream of type t goes, nil for a type the
// request does not have.
func (s *spdyExec) slot(t string) **stream.SPDYStream {
	switch {
	case t == streamTypeError:
		return &s.errS
	case t == streamTypeStdin && s.o.stdin:
		return &s.in
	case t == streamTypeStdout && s.o.stdout:
		return &s.out
	case t == streamTypeStderr && s.o.stderr:
		return &s.eout
	case t == streamTypeResize && s.o.tty && s.proto != protocolV2 && s.proto != protocolV1:
		return &s.resizeS
	}
	return nil
}

// readResize reads the resize stream's JSON sizes, one after another.
func (s *spdyExec) readResize() {
	defer s.wg.Done()
	dec := json.NewDecoder(io.LimitReader(s.resizeS, maxResizeStream))
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return
		}
		s.term.resize(raw)
	}
}

// maxResizeStream bounds the bytes read from a resize stream (a few
// hundred thousand resizes).
const maxResizeStream = 16 << 20

// Read reads stdin: EOF at its end (or none asked).
func (s *spdyExec) Read(p []byte) (int, error) {
	if s.in == nil {
		return 0, io.EOF
	}
	n, err := s.in.Read(p)
	if errors.Is(err, stream.ErrStreamReset) {
		err = io.EOF
	}
	return n, err
}

func (s *spdyExec) writer(ch byte) io.Writer {
	switch {
	case ch == chanStdout && s.out != nil:
		return s.out
	case ch == chanStderr && s.eout != nil:
		return s.eout
	}
	return io.Discard
}

func (s *spdyExec) size() (termSize, bool) { return s.term.size() }

// ctx returns a context that ends with parent or the connection.
func (s *spdyExec) ctx(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(parent))
	go func() {
		defer cancel()
		select {
		case <-s.conn.Done():
		case <-parent.Done():
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// exit writes the status on the error stream: v4's metav1.Status, the
// older protocols' error text (nothing for a success).
func (s *spdyExec) exit(code int) {
	st := exitStatus(s.o.command, code)
	if s.proto == protocolV4 {
		b, _ := json.Marshal(st)
		_, _ = s.errS.Write(b)
		return
	}
	if code != 0 {
		_, _ = io.WriteString(s.errS, st.Message)
	}
}

// finish ends the streams (FIN), waits a while for the client to close
// the connection, so that its unread frames do not reset it before it
// read the output, then closes it.
func (s *spdyExec) finish() {
	for _, st := range []*stream.SPDYStream{s.out, s.eout, s.errS, s.in} {
		if st != nil {
			_ = st.CloseWrite()
		}
	}
	t := time.NewTimer(closeWait)
	defer t.Stop()
	select {
	case <-s.conn.Done():
	case <-t.C:
	}
	s.conn.Close()
	s.wg.Wait()
}
