package stream

import (
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// Defaults of an SPDYConn's limits.
const (
	// DefaultMaxStreams bounds the streams open at once on a connection.
	DefaultMaxStreams = 128
	// DefaultStreamBuffer bounds the bytes received on a stream and not
	// yet read. The peer (spdystream) does no flow control: a stream
	// beyond it is reset with FLOW_CONTROL_ERROR.
	DefaultStreamBuffer = 1 << 20
	// spdyChunk is the largest data frame written.
	spdyChunk = 32 << 10
)

// ErrStreamReset is returned by an SPDYStream's Read and Write once the
// stream was reset by either side or its connection ended.
var ErrStreamReset = errors.New("stream: spdy stream reset")

// SPDYConn is the server side of an SPDY/3.1 connection: the peer opens
// streams (SYN_STREAM), each answered with a SYN_REPLY and handed out by
// Accept. Pings are answered, WINDOW_UPDATE and SETTINGS ignored (the
// peer, spdystream, does no flow control; each stream's receive buffer
// is bounded instead). A malformed frame or a GOAWAY ends the
// connection.
type SPDYConn struct {
	rwc io.ReadWriteCloser
	fr  *Framer

	maxStreams, streamBuffer int
	idle                     time.Duration

	wmu sync.Mutex // serialises writes

	mu      sync.Mutex
	streams map[uint32]*SPDYStream
	lastID  uint32
	accept  chan *SPDYStream
	done    chan struct{}
	once    sync.Once
	err     error
}

// NewSPDYServer starts serving an SPDY connection over rwc, after the
// upgrade (a hijacked connection, or a WebSocket tunnel's). Its reader
// goroutine ends with the connection. When rwc has SetReadDeadline,
// nothing arriving for DefaultIdleTimeout (client-go pings every 10 s)
// ends the connection.
func NewSPDYServer(rwc io.ReadWriteCloser) *SPDYConn {
	c := &SPDYConn{rwc: rwc, fr: NewFramer(rwc, rwc), maxStreams: DefaultMaxStreams, streamBuffer: DefaultStreamBuffer,
		idle: DefaultIdleTimeout, streams: map[uint32]*SPDYStream{}, accept: make(chan *SPDYStream, DefaultMaxStreams),
		done: make(chan struct{})}
	go c.read()
	return c
}

// Accept returns the next stream the peer opened, or an error once the
// connection ended.
func (c *SPDYConn) Accept() (*SPDYStream, error) {
	select {
	case s := <-c.accept:
		return s, nil
	case <-c.done:
		return nil, c.Err()
	}
}

// Done is closed when the connection has ended.
func (c *SPDYConn) Done() <-chan struct{} { return c.done }

// Err returns why the connection ended (io.EOF: the peer closed it or
// Close was called), nil while it lasts.
func (c *SPDYConn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close sends a GOAWAY and closes the connection; the streams are reset.
func (c *SPDYConn) Close() error {
	c.mu.Lock()
	last := c.lastID
	c.mu.Unlock()
	_ = c.write(&Frame{Type: SPDYGoAway, StreamID: last})
	c.end(io.EOF)
	return nil
}

func (c *SPDYConn) end(err error) {
	c.once.Do(func() {
		c.mu.Lock()
		c.err = err
		streams := c.streams
		c.streams = map[uint32]*SPDYStream{}
		c.mu.Unlock()
		close(c.done)
		_ = c.rwc.Close()
		for _, s := range streams {
			s.reset()
		}
	})
}

func (c *SPDYConn) write(fr *Frame) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	select {
	case <-c.done:
		return net.ErrClosed
	default:
	}
	if d, ok := c.rwc.(interface{ SetWriteDeadline(time.Time) error }); ok {
		_ = d.SetWriteDeadline(time.Now().Add(DefaultWriteTimeout))
	}
	err := c.fr.WriteFrame(fr)
	if err != nil {
		go c.end(err)
	}
	return err
}

func (c *SPDYConn) read() {
	for {
		if d, ok := c.rwc.(interface{ SetReadDeadline(time.Time) error }); ok && c.idle > 0 {
			_ = d.SetReadDeadline(time.Now().Add(c.idle))
		}
		fr, err := c.fr.ReadFrame()
		if err != nil {
			if errors.Is(err, ErrSPDYProtocol) {
				_ = c.write(&Frame{Type: SPDYGoAway, StreamID: c.lastID, Value: SPDYProtocolError})
			}
			if errors.Is(err, net.ErrClosed) {
				err = io.EOF
			}
			c.end(err)
			return
		}
		switch fr.Type {
		case SPDYSynStream:
			if !c.open(fr) {
				return
			}
		case SPDYData, SPDYHeaders:
			c.mu.Lock()
			s := c.streams[fr.StreamID]
			c.mu.Unlock()
			if s == nil {
				continue
			}
			if !s.receive(fr.Data, fr.Flags&SPDYFlagFin != 0, c.streamBuffer) {
				s.reset()
				_ = c.write(&Frame{Type: SPDYRstStream, StreamID: s.id, Value: SPDYFlowControlError})
			}
		case SPDYRstStream:
			c.mu.Lock()
			s := c.streams[fr.StreamID]
			delete(c.streams, fr.StreamID)
			c.mu.Unlock()
			if s != nil {
				s.reset()
			}
		case SPDYPing:
			if fr.Value%2 == 1 { // the client's; ours would be even
				_ = c.write(fr)
			}
		case SPDYGoAway:
			c.end(io.EOF)
			return
		}
	}
}

// open answers a SYN_STREAM: refused beyond the limit, a protocol error
// (the connection ends) for an ID that is not the client's next.
func (c *SPDYConn) open(fr *Frame) bool {
	c.mu.Lock()
	if fr.StreamID%2 == 0 || fr.StreamID <= c.lastID {
		c.mu.Unlock()
		_ = c.write(&Frame{Type: SPDYGoAway, StreamID: c.lastID, Value: SPDYProtocolError})
		c.end(errors.New("stream: spdy stream id out of order"))
		return false
	}
	c.lastID = fr.StreamID
	if len(c.streams) >= c.maxStreams {
		c.mu.Unlock()
		_ = c.write(&Frame{Type: SPDYRstStream, StreamID: fr.StreamID, Value: SPDYRefusedStream})
		return true
	}
	s := &SPDYStream{c: c, id: fr.StreamID, headers: fr.Headers}
	s.cond = sync.NewCond(&s.mu)
	s.eof = fr.Flags&SPDYFlagFin != 0
	c.streams[fr.StreamID] = s
	c.mu.Unlock()
	if err := c.write(&Frame{Type: SPDYSynReply, StreamID: s.id, Headers: http.Header{}}); err != nil {
		return false
	}
	select {
	case c.accept <- s:
	default: // cannot happen: accept holds maxStreams
		s.Reset()
	}
	return true
}

// SPDYStream is one stream of an SPDYConn: Read returns the peer's data
// (io.EOF after its FIN), Write sends data frames, CloseWrite the FIN.
type SPDYStream struct {
	c       *SPDYConn
	id      uint32
	headers http.Header

	mu      sync.Mutex
	cond    *sync.Cond
	buf     []byte
	eof     bool // the peer's FIN
	wclosed bool // our FIN sent
	isReset bool
	wmu     sync.Mutex
}

// Headers returns the headers of the peer's SYN_STREAM.
func (s *SPDYStream) Headers() http.Header { return s.headers }

// ID returns the stream's ID.
func (s *SPDYStream) ID() uint32 { return s.id }

// receive buffers data; false when it goes beyond limit.
func (s *SPDYStream) receive(data []byte, fin bool, limit int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isReset || s.eof {
		return true
	}
	if len(s.buf)+len(data) > limit {
		return false
	}
	s.buf = append(s.buf, data...)
	s.eof = s.eof || fin
	s.cond.Broadcast()
	return true
}

// Read reads the peer's data.
func (s *SPDYStream) Read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.buf) == 0 {
		switch {
		case s.isReset:
			return 0, ErrStreamReset
		case s.eof:
			return 0, io.EOF
		}
		s.cond.Wait()
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	if len(s.buf) == 0 {
		s.buf = nil
	}
	return n, nil
}

// Write sends p in data frames of at most 32 KiB.
func (s *SPDYStream) Write(p []byte) (int, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	n := 0
	for len(p) > 0 {
		s.mu.Lock()
		bad := s.isReset || s.wclosed
		s.mu.Unlock()
		if bad {
			return n, ErrStreamReset
		}
		k := min(len(p), spdyChunk)
		if err := s.c.write(&Frame{Type: SPDYData, StreamID: s.id, Data: p[:k]}); err != nil {
			return n, err
		}
		n, p = n+k, p[k:]
	}
	return n, nil
}

// CloseWrite sends the FIN: the peer reads EOF. The stream is dropped
// from the connection once both sides finished.
func (s *SPDYStream) CloseWrite() error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.mu.Lock()
	if s.isReset || s.wclosed {
		s.mu.Unlock()
		return nil
	}
	s.wclosed = true
	s.mu.Unlock()
	return s.c.write(&Frame{Type: SPDYData, StreamID: s.id, Flags: SPDYFlagFin})
}

// Reset resets the stream (RST_STREAM CANCEL) unless it already ended.
func (s *SPDYStream) Reset() {
	s.mu.Lock()
	was := s.isReset
	s.mu.Unlock()
	if was {
		return
	}
	s.reset()
	_ = s.c.write(&Frame{Type: SPDYRstStream, StreamID: s.id, Value: SPDYCancel})
}

// Close ends the stream: the FIN, and it is forgotten by the connection
// (data the peer still sends is dropped).
func (s *SPDYStream) Close() error {
	err := s.CloseWrite()
	s.c.mu.Lock()
	delete(s.c.streams, s.id)
	s.c.mu.Unlock()
	s.mu.Lock()
	s.buf = nil
	s.eof = true
	s.cond.Broadcast()
	s.mu.Unlock()
	return err
}

func (s *SPDYStream) reset() {
	s.c.mu.Lock()
	delete(s.c.streams, s.id)
	s.c.mu.Unlock()
	s.mu.Lock()
	s.isReset = true
	s.buf = nil
	s.cond.Broadcast()
	s.mu.Unlock()
}

// Tunnel returns c as a byte stream, as client-go tunnels SPDY in
// WebSocket (subprotocol "SPDY/3.1+portforward.k8s.io"): Read returns
// the bytes of the binary messages received in turn (io.EOF after the
// peer's close), Write sends each slice as one binary message, Close
// closes the connection.
func (c *Conn) Tunnel() io.ReadWriteCloser { return &tunnel{c: c} }

type tunnel struct {
	c   *Conn
	buf []byte
}

func (t *tunnel) Read(p []byte) (int, error) {
	for len(t.buf) == 0 {
		op, msg, err := t.c.ReadMessage()
		if err != nil {
			return 0, err
		}
		if op != OpBinary {
			return 0, errors.New("stream: tunnel: text message")
		}
		t.buf = msg
	}
	n := copy(p, t.buf)
	t.buf = t.buf[n:]
	return n, nil
}

func (t *tunnel) Write(p []byte) (int, error) {
	if err := t.c.WriteMessage(OpBinary, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (t *tunnel) Close() error { return t.c.Close() }
