package webhooktest

import (
	"io"
	"net"
	"sync"
	"time"
)

// pipe returns the two ends of an in-memory connection whose writes are
// buffered (net.Pipe's are not: when both ends of a TLS connection send
// their close_notify at once, net.Pipe deadlocks). Its blocking is on
// channels only, so a synctest bubble sees it as durable.
func pipe() (net.Conn, net.Conn) {
	ab, ba := make(chan []byte, 1024), make(chan []byte, 1024)
	aDone, bDone := make(chan struct{}), make(chan struct{})
	a := &conn{in: ba, out: ab, done: aDone, peerDone: bDone}
	b := &conn{in: ab, out: ba, done: bDone, peerDone: aDone}
	return a, b
}

type conn struct {
	in, out        chan []byte
	done, peerDone chan struct{}
	once           sync.Once
	mu             sync.Mutex // guards buf (one reader at a time)
	buf            []byte
}

func (c *conn) Read(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.buf) == 0 {
		select {
		case c.buf = <-c.in:
		default:
			select {
			case c.buf = <-c.in:
			case <-c.done:
				return 0, net.ErrClosed
			case <-c.peerDone:
				select {
				case c.buf = <-c.in:
				default:
					return 0, io.EOF
				}
			}
		}
	}
	n := copy(p, c.buf)
	c.buf = c.buf[n:]
	return n, nil
}

func (c *conn) Write(p []byte) (int, error) {
	select {
	case <-c.done:
		return 0, net.ErrClosed
	case <-c.peerDone:
		return 0, io.ErrClosedPipe
	default:
	}
	select {
	case c.out <- append([]byte(nil), p...):
		return len(p), nil
	case <-c.done:
		return 0, net.ErrClosed
	case <-c.peerDone:
		return 0, io.ErrClosedPipe
	}
}

func (c *conn) Close() error { c.once.Do(func() { close(c.done) }); return nil }

func (c *conn) LocalAddr() net.Addr  { return addr{} }
func (c *conn) RemoteAddr() net.Addr { return addr{} }

// Deadlines are not kept: the callers' contexts bound their calls.
func (c *conn) SetDeadline(time.Time) error      { return nil }
func (c *conn) SetReadDeadline(time.Time) error  { return nil }
func (c *conn) SetWriteDeadline(time.Time) error { return nil }
