package stream

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Every frame type survives a write and a read; successive header
// blocks share one compression context per direction.
func TestSPDYFrameRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := NewFramer(nil, &buf)
	frames := []*Frame{
		{Type: SPDYSynStream, StreamID: 1, Headers: http.Header{"Streamtype": {"error"}, "Port": {"80"}, "Requestid": {"0"}}},
		{Type: SPDYSynStream, StreamID: 3, Flags: SPDYFlagFin, Headers: http.Header{"Streamtype": {"data"}, "Port": {"80"}, "Requestid": {"0"}}},
		{Type: SPDYSynReply, StreamID: 1, Headers: http.Header{}},
		{Type: SPDYHeaders, StreamID: 3, Headers: http.Header{"Multi": {"a", "b"}}},
		{Type: SPDYData, StreamID: 3, Data: []byte("hello")},
		{Type: SPDYData, StreamID: 3, Flags: SPDYFlagFin, Data: []byte{}},
		{Type: SPDYRstStream, StreamID: 3, Value: SPDYCancel},
		{Type: SPDYSettings, Data: []byte{0, 0, 0, 7, 0, 0, 1, 0}},
		{Type: SPDYPing, Value: 1},
		{Type: SPDYWindowUpdate, StreamID: 1, Value: 4096},
		{Type: SPDYGoAway, StreamID: 3, Value: 0},
	}
	for _, fr := range frames {
		require.NoError(t, w.WriteFrame(fr))
	}
	r := NewFramer(&buf, nil)
	for _, want := range frames {
		got, err := r.ReadFrame()
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
	_, err := r.ReadFrame()
	require.ErrorIs(t, err, io.EOF)
}

// control builds a control frame of type typ with payload.
func control(typ uint16, flags byte, payload []byte) []byte {
	b := binary.BigEndian.AppendUint16(nil, 0x8003)
	b = binary.BigEndian.AppendUint16(b, typ)
	b = append(b, flags, byte(len(payload)>>16), byte(len(payload)>>8), byte(len(payload)))
	return append(b, payload...)
}

// A malformed frame is an ErrSPDYProtocol error, never a panic; a
// truncated one an unexpected EOF; an unknown control type is skipped.
func TestSPDYFrameMalformed(t *testing.T) {
	for name, in := range map[string][]byte{
		"version 2":          {0x80, 0x02, 0, 6, 0, 0, 0, 4, 0, 0, 0, 1},
		"short ping":         control(SPDYPing, 0, []byte{0, 0}),
		"long rst":           control(SPDYRstStream, 0, make([]byte, 12)),
		"settings count":     control(SPDYSettings, 0, []byte{0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 1}),
		"bad header block":   control(SPDYSynStream, 0, append(make([]byte, 10), "not zlib at all"...)),
		"empty header block": control(SPDYSynReply, 0, []byte{0, 0, 0, 1}),
		"too big":            {0, 0, 0, 1, 0, 0x20, 0, 0},
	} {
		t.Run(name, func(t *testing.T) {
			r := NewFramer(bytes.NewReader(in), nil)
			r.MaxFrame = 1 << 20
			_, err := r.ReadFrame()
			require.ErrorIs(t, err, ErrSPDYProtocol)
		})
	}
	_, err := NewFramer(bytes.NewReader([]byte{0, 0, 0, 1, 0, 0, 0, 9, 'a'}), nil).ReadFrame()
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)

	in := append(control(5, 0, []byte("noop")), control(SPDYPing, 0, []byte{0, 0, 0, 5})...)
	fr, err := NewFramer(bytes.NewReader(in), nil).ReadFrame()
	require.NoError(t, err)
	require.Equal(t, &Frame{Type: SPDYPing, Value: 5}, fr)
}

// A header block beyond MaxHeaderBlock once decompressed is refused
// (a small compressed block may expand a lot).
func TestSPDYHeaderBlockLimit(t *testing.T) {
	var buf bytes.Buffer
	w := NewFramer(nil, &buf)
	require.NoError(t, w.WriteFrame(&Frame{Type: SPDYSynStream, StreamID: 1, Headers: http.Header{"Big": {strings.Repeat("x", 100<<10)}}}))
	require.Less(t, buf.Len(), 4<<10)
	_, err := NewFramer(&buf, nil).ReadFrame()
	require.ErrorIs(t, err, ErrSPDYProtocol)
}

func FuzzSPDYReadFrame(f *testing.F) {
	var buf bytes.Buffer
	w := NewFramer(nil, &buf)
	_ = w.WriteFrame(&Frame{Type: SPDYSynStream, StreamID: 1, Headers: http.Header{"Port": {"80"}}})
	_ = w.WriteFrame(&Frame{Type: SPDYData, StreamID: 1, Data: []byte("x")})
	_ = w.WriteFrame(&Frame{Type: SPDYSynStream, StreamID: 3, Headers: http.Header{"Port": {"81"}}})
	f.Add(buf.Bytes())
	f.Add(control(SPDYSettings, 0, []byte{0, 0, 0, 1, 0, 0, 0, 7, 0, 0, 1, 0}))
	f.Add(control(SPDYGoAway, 0, make([]byte, 8)))
	f.Fuzz(func(t *testing.T, in []byte) {
		r := NewFramer(bytes.NewReader(in), nil)
		r.MaxFrame, r.MaxHeaderBlock = 4096, 4096
		for range 64 {
			if _, err := r.ReadFrame(); err != nil {
				return
			}
		}
	})
}

// spdyClient is the peer of an SPDYConn in tests.
type spdyClient struct {
	t  *testing.T
	nc net.Conn
	fr *Framer
}

func newSPDYPair(t *testing.T) (*SPDYConn, *spdyClient) {
	a, b := net.Pipe()
	srv := NewSPDYServer(a)
	t.Cleanup(func() { b.Close(); srv.Close() })
	_ = b.SetDeadline(time.Now().Add(10 * time.Second))
	return srv, &spdyClient{t: t, nc: b, fr: NewFramer(b, b)}
}

func (c *spdyClient) send(fr *Frame) {
	c.t.Helper()
	go func() { _ = c.fr.WriteFrame(fr) }()
}

func (c *spdyClient) next() *Frame {
	c.t.Helper()
	fr, err := c.fr.ReadFrame()
	require.NoError(c.t, err)
	return fr
}

// The server side of streams: SYN_STREAM answered by SYN_REPLY and
// handed to Accept, data both ways with FIN, pings echoed, RST_STREAM
// ending a stream, GOAWAY from Close.
func TestSPDYConnStreams(t *testing.T) {
	srv, cl := newSPDYPair(t)
	cl.send(&Frame{Type: SPDYSynStream, StreamID: 1, Headers: http.Header{"Streamtype": {"data"}}})
	require.Equal(t, &Frame{Type: SPDYSynReply, StreamID: 1, Headers: http.Header{}}, cl.next())
	s, err := srv.Accept()
	require.NoError(t, err)
	require.Equal(t, "data", s.Headers().Get("streamType"))

	cl.send(&Frame{Type: SPDYData, StreamID: 1, Flags: SPDYFlagFin, Data: []byte("ping")})
	got, err := io.ReadAll(s)
	require.NoError(t, err)
	require.Equal(t, "ping", string(got))

	big := bytes.Repeat([]byte("y"), 70<<10)
	go func() {
		_, _ = s.Write(big)
		_ = s.CloseWrite()
	}()
	var recv []byte
	for {
		fr := cl.next()
		require.Equal(t, SPDYData, fr.Type)
		require.LessOrEqual(t, len(fr.Data), 32<<10)
		recv = append(recv, fr.Data...)
		if fr.Flags&SPDYFlagFin != 0 {
			break
		}
	}
	require.Equal(t, big, recv)

	cl.send(&Frame{Type: SPDYPing, Value: 7})
	require.Equal(t, &Frame{Type: SPDYPing, Value: 7}, cl.next())

	cl.send(&Frame{Type: SPDYSynStream, StreamID: 3})
	require.Equal(t, uint32(3), cl.next().StreamID)
	s3, err := srv.Accept()
	require.NoError(t, err)
	cl.send(&Frame{Type: SPDYRstStream, StreamID: 3, Value: SPDYCancel})
	_, err = s3.Read(make([]byte, 1))
	require.ErrorIs(t, err, ErrStreamReset)

	go srv.Close()
	fr := cl.next()
	require.Equal(t, SPDYGoAway, fr.Type)
	require.Equal(t, uint32(3), fr.StreamID)
	_, err = srv.Accept()
	require.ErrorIs(t, err, io.EOF)
}

// A malformed frame ends the connection with a GOAWAY PROTOCOL_ERROR;
// a stream ID out of order too; data beyond a stream's buffer resets
// that stream only.
func TestSPDYConnMisbehaving(t *testing.T) {
	t.Run("malformed", func(t *testing.T) {
		srv, cl := newSPDYPair(t)
		go func() { _, _ = cl.nc.Write(control(SPDYPing, 0, []byte{1})) }()
		fr := cl.next()
		require.Equal(t, &Frame{Type: SPDYGoAway, Value: SPDYProtocolError}, fr)
		<-srv.Done()
		require.ErrorIs(t, srv.Err(), ErrSPDYProtocol)
	})
	t.Run("stream id", func(t *testing.T) {
		srv, cl := newSPDYPair(t)
		cl.send(&Frame{Type: SPDYSynStream, StreamID: 2})
		require.Equal(t, &Frame{Type: SPDYGoAway, Value: SPDYProtocolError}, cl.next())
		<-srv.Done()
	})
	t.Run("buffer", func(t *testing.T) {
		srv, cl := newSPDYPair(t)
		srv.streamBuffer = 10
		cl.send(&Frame{Type: SPDYSynStream, StreamID: 1})
		cl.next()
		s, err := srv.Accept()
		require.NoError(t, err)
		cl.send(&Frame{Type: SPDYData, StreamID: 1, Data: make([]byte, 11)})
		require.Equal(t, &Frame{Type: SPDYRstStream, StreamID: 1, Value: SPDYFlowControlError}, cl.next())
		_, err = s.Read(make([]byte, 1))
		require.True(t, errors.Is(err, ErrStreamReset))
		cl.send(&Frame{Type: SPDYPing, Value: 9})
		require.Equal(t, &Frame{Type: SPDYPing, Value: 9}, cl.next())
	})
}
