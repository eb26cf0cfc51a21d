package testserver

import (
	"io"
	"net"
	"sync"

	"k8s.io/client-go/rest"
)

// Proxy is a TCP proxy in front of the API server, so that a test can
// cut its clients off as a network fault would: Cut closes every open
// connection (watches break mid-stream), Block refuses new ones until
// Unblock.
type Proxy struct {
	ln     net.Listener
	target string

	mu      sync.Mutex
	conns   map[net.Conn]struct{} // guarded by mu
	blocked bool                  // guarded by mu
	wg      sync.WaitGroup
}

// NewProxy starts a proxy to the server. Close stops it.
func (s *Server) NewProxy() (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{ln: ln, target: s.addr, conns: make(map[net.Conn]struct{})}
	p.wg.Go(p.accept)
	return p, nil
}

// Config returns a copy of the server's Config that goes through p.
func (p *Proxy) Config(s *Server) *rest.Config {
	c := rest.CopyConfig(s.Config)
	c.Host = "https://" + p.ln.Addr().String()
	return c
}

func (p *Proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.blocked {
			p.mu.Unlock()
			c.Close()
			continue
		}
		p.conns[c] = struct{}{}
		p.mu.Unlock()
		p.wg.Go(func() { p.serve(c) })
	}
}

func (p *Proxy) serve(c net.Conn) {
	defer p.forget(c)
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	p.mu.Lock()
	p.conns[up] = struct{}{}
	p.mu.Unlock()
	defer p.forget(up)
	var wg sync.WaitGroup
	wg.Go(func() { io.Copy(up, c); up.Close() })
	io.Copy(c, up)
	c.Close()
	wg.Wait()
}

func (p *Proxy) forget(c net.Conn) {
	c.Close()
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

// Cut closes every open connection.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.Close()
	}
}

// Block cuts every open connection and refuses new ones until Unblock.
func (p *Proxy) Block() {
	p.mu.Lock()
	p.blocked = true
	p.mu.Unlock()
	p.Cut()
}

// Unblock lets new connections through again.
func (p *Proxy) Unblock() {
	p.mu.Lock()
	p.blocked = false
	p.mu.Unlock()
}

// Close stops the proxy and waits for its goroutines.
func (p *Proxy) Close() {
	p.ln.Close()
	p.Cut()
	p.wg.Wait()
}
