package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// dialTimeouts are the userspace proxy's successive attempts to reach an
// endpoint, each with a fresh choice (kube-proxy's userspace
// EndpointDialTimeouts).
var dialTimeouts = []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second}

// userspace is kube-proxy's first mode: the proxy itself accepts the
// connections to a service port and splices each to an endpoint. Where
// kube-proxy redirected the cluster IP to its own port with iptables,
// this one listens on a loopback address per service port (ServiceAddr
// maps a cluster IP to it, DialContext dials through it).
type userspace struct {
	p *Proxier

	mu        sync.Mutex
	listeners map[ServicePortName]*portListener // guarded by mu
	byIP      map[netip.AddrPort]netip.AddrPort // cluster and external IP:port → listener; guarded by mu
}

type portListener struct {
	spn  ServicePortName
	ln   net.Listener
	addr netip.AddrPort
}

func newUserspace(p *Proxier) *userspace {
	return &userspace{p: p, listeners: map[ServicePortName]*portListener{}, byIP: map[netip.AddrPort]netip.AddrPort{}}
}

// apply opens a listener for every TCP service port of t that has none
// and closes those of service ports t no longer has. The accept loops
// and connections run in wg.
func (u *userspace) apply(ctx context.Context, t *table, wg *sync.WaitGroup) {
	u.mu.Lock()
	defer u.mu.Unlock()
	keep := map[ServicePortName]bool{}
	byIP := map[netip.AddrPort]netip.AddrPort{}
	for _, r := range t.rules {
		if r.Service.Protocol != api.ProtocolTCP {
			continue // only TCP is proxied
		}
		keep[r.Service] = true
		pl, ok := u.listeners[r.Service]
		if !ok {
			ln, err := listenLoopback()
			if err != nil {
				u.p.log.Error("proxy: cannot listen for a service port", "service", r.Service, "err", err)
				continue
			}
			pl = &portListener{spn: r.Service, ln: ln, addr: ln.Addr().(*net.TCPAddr).AddrPort()}
			u.listeners[r.Service] = pl
			wg.Go(func() { u.accept(ctx, pl, wg) })
			u.p.log.Debug("proxy: listening", "service", r.Service, "addr", pl.addr)
		}
		byIP[r.ClusterIP] = pl.addr
		for _, x := range r.ExternalIPs {
			byIP[x] = pl.addr
		}
	}
	for spn, pl := range u.listeners {
		if !keep[spn] {
			_ = pl.ln.Close() // its accept loop ends; open connections go on
			delete(u.listeners, spn)
		}
	}
	u.byIP = byIP
}

// closeAll closes every listener (Run is ending).
func (u *userspace) closeAll() {
	u.mu.Lock()
	defer u.mu.Unlock()
	for spn, pl := range u.listeners {
		_ = pl.ln.Close()
		delete(u.listeners, spn)
	}
	u.byIP = map[netip.AddrPort]netip.AddrPort{}
}

// listenLoopback listens on port 0 of a random address of 127.0.0.0/8
// other than 127.0.0.1, so that proxies of several tests (and processes)
// never meet; the listener is held for as long as the service port
// exists, never closed and bound again.
func listenLoopback() (net.Listener, error) {
	var lastErr error
	for range 8 {
		ip := netip.AddrFrom4([4]byte{127, byte(rand.IntN(256)), byte(rand.IntN(256)), byte(2 + rand.IntN(253))})
		ln, err := net.Listen("tcp", netip.AddrPortFrom(ip, 0).String())
		if err == nil {
			return ln, nil
		}
		lastErr = err
	}
	return nil, fmt.Errorf("proxy: listen on a loopback address: %w", lastErr)
}

func (u *userspace) accept(ctx context.Context, pl *portListener, wg *sync.WaitGroup) {
	for {
		conn, err := pl.ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				u.p.log.Error("proxy: accept", "service", pl.spn, "err", err)
			}
			return
		}
		wg.Go(func() { u.serve(ctx, pl.spn, conn) })
	}
}

// serve picks an endpoint for conn from the applied table (retrying
// with another choice when a dial fails) and splices the two.
func (u *userspace) serve(ctx context.Context, spn ServicePortName, conn net.Conn) {
	defer conn.Close()
	var client netip.Addr
	if a, ok := conn.RemoteAddr().(*net.TCPAddr); ok {
		client = a.AddrPort().Addr().Unmap()
	}
	for i, timeout := range dialTimeouts {
		t := u.p.table.Load()
		b, ok := t.byService[spn]
		if !ok {
			return // the service went away
		}
		ep, err := b.pick(client, time.Now(), i > 0)
		if err != nil {
			u.p.log.Debug("proxy: no endpoint", "service", spn, "err", err)
			return
		}
		d := net.Dialer{Timeout: timeout}
		back, err := d.DialContext(ctx, "tcp", ep.String())
		if err != nil {
			u.p.log.Debug("proxy: dial endpoint", "service", spn, "endpoint", ep, "err", err)
			if ctx.Err() != nil {
				return
			}
			continue
		}
		splice(ctx, conn, back)
		return
	}
}

// splice copies both ways until both sides are done (a side's EOF
// half-closes the other), or ctx ends.
func splice(ctx context.Context, a, b net.Conn) {
	defer b.Close()
	stop := context.AfterFunc(ctx, func() { _ = a.Close(); _ = b.Close() })
	defer stop()
	var wg sync.WaitGroup
	cp := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		if tc, ok := dst.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		} else {
			_ = dst.Close()
		}
	}
	wg.Go(func() { cp(a, b) })
	wg.Go(func() { cp(b, a) })
	wg.Wait()
}

// ServiceAddr returns the loopback address the userspace proxy listens
// on for the TCP service port at dst (a cluster IP or external IP and
// port): what kube-proxy's iptables REDIRECT sent dst to. False without
// Options.Userspace or before the sync that opened it.
func (p *Proxier) ServiceAddr(dst netip.AddrPort) (netip.AddrPort, bool) {
	if p.us == nil {
		return netip.AddrPort{}, false
	}
	p.us.mu.Lock()
	defer p.us.mu.Unlock()
	a, ok := p.us.byIP[dst]
	return a, ok
}

// DialContext dials address ("ip:port") over network "tcp" as a pod on
// this node would: a service's cluster IP or external IP and port is
// redirected to the userspace proxy's listener for it; any other address
// is dialled as is. With Options.Resolver, the host may be a service DNS
// name, resolved first (its first address is used: a cluster IP goes
// through the proxy, a headless service's pod IP directly). It has
// net.Dialer.DialContext's signature, so it fits
// http.Transport.DialContext.
func (p *Proxier) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	var d net.Dialer
	if network != "tcp" && network != "tcp4" {
		return d.DialContext(ctx, network, address)
	}
	if host, port, err := net.SplitHostPort(address); err == nil && p.opts.Resolver != nil {
		if _, err := netip.ParseAddr(host); err != nil {
			ips, err := p.opts.Resolver.LookupHost(host)
			if err != nil {
				return nil, fmt.Errorf("proxy: dial %s: %w", address, err)
			}
			if len(ips) == 0 {
				return nil, fmt.Errorf("proxy: dial %s: no address", address)
			}
			address = net.JoinHostPort(ips[0].String(), port)
		}
	}
	if dst, err := netip.ParseAddrPort(address); err == nil {
		if a, ok := p.ServiceAddr(dst); ok {
			return d.DialContext(ctx, network, a.String())
		}
	}
	return d.DialContext(ctx, network, address)
}
