package etcdtest

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"sync"
)

// Proxy is a TCP proxy on a loopback port in front of one etcd member,
// whose link can be cut to simulate a network partition between a client
// and the cluster. It serves from NewProxy until Close, like
// httptest.Server.
type Proxy struct {
	target string
	ln     net.Listener
	wg     sync.WaitGroup

	mu sync.Mutex
	// cut makes the proxy drop every connection. Guarded by mu.
	cut bool
	// conns are the open connections (both ends). Guarded by mu.
	conns map[net.Conn]struct{}
	// closed is set by Close. Guarded by mu.
	closed bool
}

// NewProxy starts a proxy to the member whose client URL is target
// (http://host:port).
func NewProxy(target string) (*Proxy, error) {
	u, err := url.Parse(target)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("etcdtest: proxy: bad target URL %q", target)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("etcdtest: proxy: %w", err)
	}
	p := &Proxy{target: u.Host, ln: ln, conns: make(map[net.Conn]struct{})}
	p.wg.Go(p.accept)
	return p, nil
}

// URL returns the URL clients use instead of the member's.
func (p *Proxy) URL() string { return "http://" + p.ln.Addr().String() }

// Cut closes every connection through the proxy and refuses new ones
// until Restore: the client sees a partition.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	p.closeAllLocked()
}

// Restore lets connections through again.
func (p *Proxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = false
}

// Close stops the proxy and waits for its goroutines.
func (p *Proxy) Close() {
	p.mu.Lock()
	p.closed = true
	p.closeAllLocked()
	p.mu.Unlock()
	p.ln.Close()
	p.wg.Wait()
}

func (p *Proxy) closeAllLocked() {
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

// track registers conns, or reports false (and closes them) when the
// proxy is cut or closed.
func (p *Proxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cut || p.closed {
		for _, c := range conns {
			c.Close()
		}
		return false
	}
	for _, c := range conns {
		p.conns[c] = struct{}{}
	}
	return true
}

func (p *Proxy) untrack(conns ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		delete(p.conns, c)
		c.Close()
	}
}

func (p *Proxy) accept() {
	for {
		in, err := p.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		if !p.track(in) {
			continue
		}
		p.wg.Go(func() { p.serve(in) })
	}
}

func (p *Proxy) serve(in net.Conn) {
	out, err := net.Dial("tcp", p.target)
	if err != nil {
		p.untrack(in)
		return
	}
	if !p.track(out) {
		p.untrack(in)
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		_, _ = io.Copy(out, in)
		p.untrack(in, out)
	})
	_, _ = io.Copy(in, out)
	p.untrack(in, out)
	wg.Wait()
}
