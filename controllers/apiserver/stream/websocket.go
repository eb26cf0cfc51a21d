package stream

import (
	"bufio"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// The WebSocket opcodes (RFC 6455 §5.2).
const (
	OpContinuation byte = 0x0
	OpText         byte = 0x1
	OpBinary       byte = 0x2
	OpClose        byte = 0x8
	OpPing         byte = 0x9
	OpPong         byte = 0xA
)

// Close status codes (RFC 6455 §7.4.1) this package sends.
const (
	CloseNormal        = 1000
	CloseProtocolError = 1002
	CloseTooBig        = 1009
)

// Defaults of a Conn's limits.
const (
	// DefaultMaxMessage bounds one received message (all its frames).
	DefaultMaxMessage = 1 << 20
	// DefaultIdleTimeout ends a connection on which nothing (not even a
	// ping) arrives for this long. client-go pings every 5 s.
	DefaultIdleTimeout = 2 * time.Minute
	// DefaultWriteTimeout bounds one write to the peer.
	DefaultWriteTimeout = 30 * time.Second
)

// acceptGUID is RFC 6455's key suffix.
const acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

// ErrNotWebSocket is returned by Upgrade for a request that is not a
// WebSocket opening handshake; nothing has been written to the response.
var ErrNotWebSocket = errors.New("stream: not a websocket upgrade request")

// ErrNoProtocol is returned by Upgrade when the client offers none of
// the server's subprotocols; nothing has been written to the response.
var ErrNoProtocol = errors.New("stream: no supported websocket subprotocol")

// ErrTooBig is returned by ReadMessage for a message beyond MaxMessage;
// the connection has been closed with status 1009.
var ErrTooBig = errors.New("stream: websocket message too big")

// IsWebSocketRequest reports whether r asks to upgrade to WebSocket.
func IsWebSocketRequest(r *http.Request) bool {
	return headerHasToken(r.Header, "Connection", "upgrade") && headerHasToken(r.Header, "Upgrade", "websocket")
}

// headerHasToken reports whether a comma-separated header has token.
func headerHasToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// Protocols returns the subprotocols r offers, in its order.
func Protocols(r *http.Request) []string {
	var out []string
	for _, v := range r.Header.Values("Sec-WebSocket-Protocol") {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// Upgrade completes the server side of the WebSocket opening handshake
// (RFC 6455 §4.2) for r, choosing the first of supported that the client
// offers, and takes over the connection. It returns ErrNotWebSocket or
// ErrNoProtocol (the response untouched, for the caller to answer) when
// r is not a version-13 handshake or offers none of supported.
func Upgrade(w http.ResponseWriter, r *http.Request, supported []string) (*Conn, error) {
	key := r.Header.Get("Sec-WebSocket-Key")
	if r.Method != http.MethodGet || !IsWebSocketRequest(r) || r.Header.Get("Sec-WebSocket-Version") != "13" {
		return nil, ErrNotWebSocket
	}
	if k, err := base64.StdEncoding.DecodeString(key); err != nil || len(k) != 16 {
		return nil, ErrNotWebSocket
	}
	chosen := ""
	offered := Protocols(r)
	for _, s := range supported {
		for _, o := range offered {
			if o == s && chosen == "" {
				chosen = s
			}
		}
	}
	if chosen == "" {
		return nil, ErrNoProtocol
	}
	nc, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return nil, fmt.Errorf("stream: hijack: %w", err)
	}
	_ = nc.SetDeadline(time.Time{})
	resp := "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Accept: " + acceptKey(key) + "\r\nSec-WebSocket-Protocol: " + chosen + "\r\n\r\n"
	_ = nc.SetWriteDeadline(time.Now().Add(DefaultWriteTimeout))
	if _, err := brw.WriteString(resp); err != nil {
		nc.Close()
		return nil, err
	}
	if err := brw.Flush(); err != nil {
		nc.Close()
		return nil, err
	}
	return newConn(nc, brw.Reader, chosen, false), nil
}

func acceptKey(key string) string {
	h := sha1.Sum([]byte(key + acceptGUID))
	return base64.StdEncoding.EncodeToString(h[:])
}

// Dial performs the client side of the opening handshake over nc (an
// established connection to host) for path, offering protocols, and
// returns the connection; the client masks its frames. headers are
// added to the request (an Authorization, say). A non-101 answer is
// returned as *HandshakeError with the response's status and body.
func Dial(nc net.Conn, host, path string, headers http.Header, protocols ...string) (*Conn, error) {
	var raw [16]byte
	_, _ = rand.Read(raw[:])
	key := base64.StdEncoding.EncodeToString(raw[:])
	req, err := http.NewRequest(http.MethodGet, "http://"+host+path, nil)
	if err != nil {
		return nil, err
	}
	for k, vs := range headers {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Sec-WebSocket-Version", "13")
	req.Header.Set("Sec-WebSocket-Key", key)
	if len(protocols) > 0 {
		req.Header.Set("Sec-WebSocket-Protocol", strings.Join(protocols, ", "))
	}
	if err := req.Write(nc); err != nil {
		return nil, err
	}
	br := bufio.NewReader(nc)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		return nil, &HandshakeError{StatusCode: resp.StatusCode, Body: body}
	}
	if resp.Header.Get("Sec-WebSocket-Accept") != acceptKey(key) {
		return nil, errors.New("stream: bad Sec-WebSocket-Accept")
	}
	return newConn(nc, br, resp.Header.Get("Sec-WebSocket-Protocol"), true), nil
}

// HandshakeError is a refused opening handshake: the server's answer.
type HandshakeError struct {
	StatusCode int
	Body       []byte
}

func (e *HandshakeError) Error() string {
	return fmt.Sprintf("stream: websocket handshake refused: %d %s", e.StatusCode, e.Body)
}

// Conn is one WebSocket connection. Reads are for one goroutine;
// writes may come from several. Pings are answered and close frames
// echoed by ReadMessage.
type Conn struct {
	nc       net.Conn
	br       *bufio.Reader
	protocol string
	client   bool

	// MaxMessage bounds a received message (DefaultMaxMessage).
	MaxMessage int
	// IdleTimeout bounds the wait for the next frame (DefaultIdleTimeout).
	IdleTimeout time.Duration
	// WriteTimeout bounds each write (DefaultWriteTimeout).
	WriteTimeout time.Duration

	wmu    sync.Mutex
	closed bool
}

func newConn(nc net.Conn, br *bufio.Reader, protocol string, client bool) *Conn {
	return &Conn{nc: nc, br: br, protocol: protocol, client: client,
		MaxMessage: DefaultMaxMessage, IdleTimeout: DefaultIdleTimeout, WriteTimeout: DefaultWriteTimeout}
}

// Protocol returns the negotiated subprotocol.
func (c *Conn) Protocol() string { return c.protocol }

// ReadMessage returns the next data message (OpText or OpBinary) and its
// payload, reassembling fragments. It answers pings, and on the peer's
// close frame echoes it and returns io.EOF. A protocol violation closes
// the connection with 1002, a message beyond MaxMessage with 1009.
func (c *Conn) ReadMessage() (byte, []byte, error) {
	var op byte
	msg := []byte{}
	for {
		if c.IdleTimeout > 0 {
			_ = c.nc.SetReadDeadline(time.Now().Add(c.IdleTimeout))
		}
		fin, fop, payload, err := c.readFrame(c.MaxMessage - len(msg))
		if err != nil {
			return 0, nil, err
		}
		switch fop {
		case OpPing:
			if err := c.WriteMessage(OpPong, payload); err != nil {
				return 0, nil, err
			}
			continue
		case OpPong:
			continue
		case OpClose:
			code := uint16(CloseNormal)
			if len(payload) >= 2 {
				code = binary.BigEndian.Uint16(payload)
			}
			_ = c.WriteClose(code, "")
			c.nc.Close()
			return 0, nil, io.EOF
		case OpText, OpBinary:
			if op != 0 {
				return 0, nil, c.fail(CloseProtocolError, "new message inside a fragmented one")
			}
			op = fop
		case OpContinuation:
			if op == 0 {
				return 0, nil, c.fail(CloseProtocolError, "continuation without a message")
			}
		default:
			return 0, nil, c.fail(CloseProtocolError, "unknown opcode")
		}
		msg = append(msg, payload...)
		if fin {
			return op, msg, nil
		}
	}
}

// readFrame reads one frame whose payload may be at most limit bytes
// (control frames: 125).
func (c *Conn) readFrame(limit int) (fin bool, op byte, payload []byte, err error) {
	var h [2]byte
	if _, err = io.ReadFull(c.br, h[:]); err != nil {
		return
	}
	fin, op = h[0]&0x80 != 0, h[0]&0x0f
	if h[0]&0x70 != 0 {
		return false, 0, nil, c.fail(CloseProtocolError, "reserved bits set")
	}
	masked := h[1]&0x80 != 0
	if masked == c.client {
		return false, 0, nil, c.fail(CloseProtocolError, "wrong masking")
	}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var b [2]byte
		if _, err = io.ReadFull(c.br, b[:]); err != nil {
			return
		}
		n = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		if _, err = io.ReadFull(c.br, b[:]); err != nil {
			return
		}
		n = binary.BigEndian.Uint64(b[:])
	}
	if op >= OpClose {
		if n > 125 || !fin {
			return false, 0, nil, c.fail(CloseProtocolError, "bad control frame")
		}
	} else if n > uint64(max(limit, 0)) {
		return false, 0, nil, errors.Join(ErrTooBig, c.fail(CloseTooBig, "message too big"))
	}
	var mask [4]byte
	if masked {
		if _, err = io.ReadFull(c.br, mask[:]); err != nil {
			return
		}
	}
	payload = make([]byte, n)
	if _, err = io.ReadFull(c.br, payload); err != nil {
		return
	}
	if masked {
		for i := range payload {
			payload[i] ^= mask[i%4]
		}
	}
	return fin, op, payload, nil
}

// fail closes the connection with code and returns the error.
func (c *Conn) fail(code uint16, reason string) error {
	_ = c.WriteClose(code, reason)
	c.nc.Close()
	return fmt.Errorf("stream: websocket protocol error: %s", reason)
}

// WriteMessage writes one unfragmented message (or control frame).
func (c *Conn) WriteMessage(op byte, payload []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.closed {
		return net.ErrClosed
	}
	return c.writeFrame(op, payload)
}

func (c *Conn) writeFrame(op byte, payload []byte) error {
	buf := make([]byte, 0, 14+len(payload))
	buf = append(buf, 0x80|op)
	var maskBit byte
	if c.client {
		maskBit = 0x80
	}
	switch n := len(payload); {
	case n < 126:
		buf = append(buf, maskBit|byte(n))
	case n <= 0xffff:
		buf = append(buf, maskBit|126)
		buf = binary.BigEndian.AppendUint16(buf, uint16(n))
	default:
		buf = append(buf, maskBit|127)
		buf = binary.BigEndian.AppendUint64(buf, uint64(n))
	}
	if c.client {
		var mask [4]byte
		_, _ = rand.Read(mask[:])
		buf = append(buf, mask[:]...)
		for i, b := range payload {
			buf = append(buf, b^mask[i%4])
		}
	} else {
		buf = append(buf, payload...)
	}
	if c.WriteTimeout > 0 {
		_ = c.nc.SetWriteDeadline(time.Now().Add(c.WriteTimeout))
	}
	_, err := c.nc.Write(buf)
	return err
}

// WriteClose sends a close frame with code and reason; later writes
// fail. It does not close the connection (Close does).
func (c *Conn) WriteClose(code uint16, reason string) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	if len(reason) > 123 {
		reason = reason[:123]
	}
	return c.writeFrame(OpClose, append(binary.BigEndian.AppendUint16(nil, code), reason...))
}

// Close sends a normal close frame (if none was sent) and closes the
// connection.
func (c *Conn) Close() error {
	_ = c.WriteClose(CloseNormal, "")
	return c.nc.Close()
}
