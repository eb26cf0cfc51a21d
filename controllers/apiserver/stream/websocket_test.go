package stream_test

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/apiserver/stream"
)

// echoServer upgrades to "test.k8s.io" and echoes each message until
// the client closes; each Conn's read error is sent on errs.
func echoServer(t *testing.T, maxMessage int) (*httptest.Server, chan error) {
	errs := make(chan error, 4)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := stream.Upgrade(w, r, []string{"test.k8s.io"})
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		defer c.Close()
		c.MaxMessage = maxMessage
		for {
			op, msg, err := c.ReadMessage()
			if err != nil {
				errs <- err
				return
			}
			if err := c.WriteMessage(op, msg); err != nil {
				errs <- err
				return
			}
		}
	}))
	t.Cleanup(ts.Close)
	return ts, errs
}

func dial(t *testing.T, ts *httptest.Server, protocols ...string) (net.Conn, *stream.Conn, error) {
	t.Helper()
	u, err := url.Parse(ts.URL)
	require.NoError(t, err)
	nc, err := net.Dial("tcp", u.Host)
	require.NoError(t, err)
	t.Cleanup(func() { nc.Close() })
	require.NoError(t, nc.SetDeadline(time.Now().Add(20*time.Second)))
	c, err := stream.Dial(nc, u.Host, "/", nil, protocols...)
	return nc, c, err
}

// readFrame reads one raw (unmasked) server frame.
func readFrame(t *testing.T, nc net.Conn) (byte, []byte) {
	t.Helper()
	var h [2]byte
	_, err := io.ReadFull(nc, h[:])
	require.NoError(t, err)
	require.Zero(t, h[1]&0x80, "server frames are not masked")
	p := make([]byte, h[1]&0x7f)
	_, err = io.ReadFull(nc, p)
	require.NoError(t, err)
	return h[0] & 0x0f, p
}

// Messages round-trip, pings are answered, a close is echoed; the
// handshake needs an offered subprotocol.
func TestConnEcho(t *testing.T) {
	ts, errs := echoServer(t, 1<<10)
	_, c, err := dial(t, ts, "other", "test.k8s.io")
	require.NoError(t, err)
	require.Equal(t, "test.k8s.io", c.Protocol())
	for _, n := range []int{0, 1, 125, 126, 1000} {
		msg := make([]byte, n)
		for i := range msg {
			msg[i] = byte(i)
		}
		require.NoError(t, c.WriteMessage(stream.OpBinary, msg))
		op, got, err := c.ReadMessage()
		require.NoError(t, err)
		require.Equal(t, stream.OpBinary, op)
		require.Equal(t, msg, got)
	}
	require.NoError(t, c.Close())
	require.ErrorIs(t, <-errs, io.EOF)

	_, _, err = dial(t, ts, "v1.channel.k8s.io")
	var he *stream.HandshakeError
	require.ErrorAs(t, err, &he)
	require.Equal(t, http.StatusBadRequest, he.StatusCode)
	require.Contains(t, string(he.Body), stream.ErrNoProtocol.Error())
}

// maskedFrame is a client frame with an all-zero mask (payload as is).
func maskedFrame(b0 byte, payload []byte) []byte {
	f := []byte{b0, 0x80 | byte(len(payload)), 0, 0, 0, 0}
	return append(f, payload...)
}

// Fragments are reassembled, pings answered with their payload, and the
// bounds and framing rules enforced: an oversized message is closed with
// 1009, an unmasked frame with 1002.
func TestConnFramingAndLimits(t *testing.T) {
	ts, errs := echoServer(t, 8)
	nc, _, err := dial(t, ts, "test.k8s.io")
	require.NoError(t, err)
	_, err = nc.Write(maskedFrame(0x09|0x80, []byte("hb"))) // ping
	require.NoError(t, err)
	_, err = nc.Write(maskedFrame(byte(stream.OpBinary), []byte("abc"))) // first fragment
	require.NoError(t, err)
	_, err = nc.Write(maskedFrame(0x80, []byte("def"))) // final continuation
	require.NoError(t, err)
	op, p := readFrame(t, nc)
	require.Equal(t, stream.OpPong, op)
	require.Equal(t, "hb", string(p))
	op, p = readFrame(t, nc)
	require.Equal(t, stream.OpBinary, op)
	require.Equal(t, "abcdef", string(p))

	_, err = nc.Write(maskedFrame(0x80|stream.OpBinary, []byte("123456789"))) // 9 > 8
	require.NoError(t, err)
	op, p = readFrame(t, nc)
	require.Equal(t, stream.OpClose, op)
	require.Equal(t, uint16(stream.CloseTooBig), binary.BigEndian.Uint16(p))
	require.ErrorIs(t, <-errs, stream.ErrTooBig)

	nc, _, err = dial(t, ts, "test.k8s.io")
	require.NoError(t, err)
	_, err = nc.Write([]byte{0x80 | stream.OpBinary, 1, 'x'}) // not masked
	require.NoError(t, err)
	op, p = readFrame(t, nc)
	require.Equal(t, stream.OpClose, op)
	require.Equal(t, uint16(stream.CloseProtocolError), binary.BigEndian.Uint16(p))
	err = <-errs
	require.Error(t, err)
	require.False(t, errors.Is(err, io.EOF))
}

// A request that is not a WebSocket handshake is left to the caller.
func TestUpgradeNotWebSocket(t *testing.T) {
	r := httptest.NewRequest("GET", "/", nil)
	_, err := stream.Upgrade(httptest.NewRecorder(), r, []string{"x"})
	require.ErrorIs(t, err, stream.ErrNotWebSocket)
	require.False(t, stream.IsWebSocketRequest(r))
}
