package proxy_test

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/netip"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/proxy"
)

// These tests use real sockets on loopback addresses, in real time: each
// is bounded by a context deadline, and waits on the proxy's Applied
// channel rather than sleeping.

// randomLoopback is a random address of 127.0.0.0/8 other than
// 127.0.0.1, so that tests (and test binaries) running at once never
// share one.
func randomLoopback() netip.Addr {
	return netip.AddrFrom4([4]byte{127, byte(rand.IntN(256)), byte(rand.IntN(256)), byte(2 + rand.IntN(253))})
}

// backend stands in for a pod: a TCP listener on its own loopback address
// (port 0, held until the test ends) that answers each connection with
// its name.
func backend(t *testing.T, name string) netip.AddrPort {
	t.Helper()
	var ln net.Listener
	var err error
	for range 8 {
		if ln, err = net.Listen("tcp", netip.AddrPortFrom(randomLoopback(), 0).String()); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = io.WriteString(conn, name)
			_ = conn.Close()
		}
	})
	t.Cleanup(func() { _ = ln.Close(); wg.Wait() })
	return ln.Addr().(*net.TCPAddr).AddrPort()
}

// waitFor waits, bounded by ctx, for cond to hold after some sync.
func waitFor(t *testing.T, ctx context.Context, p *proxy.Proxier, what string, cond func() bool) {
	t.Helper()
	for {
		applied := p.Applied()
		if cond() {
			return
		}
		select {
		case <-applied:
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		}
	}
}

// waitForEndpoints waits for the listener of the service at vip and a
// rule with n endpoints.
func waitForEndpoints(t *testing.T, ctx context.Context, p *proxy.Proxier, vip netip.AddrPort, n int) {
	t.Helper()
	waitFor(t, ctx, p, "the service's listener and endpoints", func() bool {
		if _, ok := p.ServiceAddr(vip); !ok {
			return false
		}
		for _, r := range p.Rules() {
			if r.ClusterIP == vip {
				return len(r.Endpoints) == n
			}
		}
		return false
	})
}

// call connects to dst (from local, if valid) and returns what the
// backend said.
func call(t *testing.T, ctx context.Context, dial func(ctx context.Context, network, addr string) (net.Conn, error), dst string) string {
	t.Helper()
	conn, err := dial(ctx, "tcp", dst)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if d, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(d)
	}
	b, err := io.ReadAll(conn)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func startUserspace(t *testing.T) (context.Context, *cluster.Cluster, *proxy.Proxier) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	t.Cleanup(cancel)
	c, err := cluster.New(ctx, cluster.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := startProxy(t, ctx, c, proxy.Options{Userspace: true, MinSyncPeriod: 10 * time.Millisecond, SyncPeriod: time.Minute}, true)
	return ctx, c, p
}

// Three backends behind a service get connections in turn; one removed
// from the endpoints gets none after the sync that applied it.
func TestUserspaceRoundRobinAndRemoval(t *testing.T) {
	ctx, c, p := startUserspace(t)
	a, b, cc := backend(t, "a"), backend(t, "b"), backend(t, "c")
	s := manualService(t, ctx, c, "web", nil, a, b, cc)
	vip := netip.AddrPortFrom(netip.MustParseAddr(s.Spec.ClusterIP), 80)
	waitForEndpoints(t, ctx, p, vip, 3)
	// The resolver shares the proxy's caches: it knows the service now.
	if la, _ := p.ServiceAddr(vip); !la.Addr().IsLoopback() {
		t.Fatalf("listener on %s, want a loopback address", la)
	}

	var seq []string
	for i := range 6 {
		dst := vip.String()
		if i%2 == 1 {
			dst = "web.default.svc.cluster.local:80" // by name, through Options.Resolver
		}
		seq = append(seq, call(t, ctx, p.DialContext, dst))
	}
	first := slices.Clone(seq[:3])
	slices.Sort(first)
	if !slices.Equal(first, []string{"a", "b", "c"}) || !slices.Equal(seq[:3], seq[3:]) {
		t.Errorf("connections went to %v, want each backend in turn", seq)
	}

	setBackends(t, ctx, c, "web", a, cc)
	waitFor(t, ctx, p, "b's removal", func() bool {
		r := p.Rules()
		return len(r) == 1 && len(r[0].Endpoints) == 2
	})
	seq = seq[:0]
	for range 6 {
		seq = append(seq, call(t, ctx, p.DialContext, vip.String()))
	}
	if slices.Contains(seq, "b") || !slices.Contains(seq, "a") || !slices.Contains(seq, "c") {
		t.Errorf("after removing b: %v", seq)
	}

	// No endpoints: the connection is closed without an answer.
	setBackends(t, ctx, c, "web")
	waitFor(t, ctx, p, "no endpoints", func() bool { r := p.Rules(); return len(r) == 1 && len(r[0].Endpoints) == 0 })
	if got := call(t, ctx, p.DialContext, vip.String()); got != "" {
		t.Errorf("without endpoints: %q", got)
	}
	// The service deleted: its listener goes.
	if _, err := c.Services().Delete(ctx, "default/web", ""); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, p, "the listener's removal", func() bool { _, ok := p.ServiceAddr(vip); return !ok })
}

// sessionAffinity ClientIP: every connection of one client reaches the
// same backend, while clients are spread.
func TestUserspaceClientIPAffinity(t *testing.T) {
	ctx, c, p := startUserspace(t)
	a, b, cc := backend(t, "a"), backend(t, "b"), backend(t, "c")
	s := manualService(t, ctx, c, "sticky", func(s *api.Service) { s.Spec.SessionAffinity = "ClientIP" }, a, b, cc)
	vip := netip.AddrPortFrom(netip.MustParseAddr(s.Spec.ClusterIP), 80)
	waitForEndpoints(t, ctx, p, vip, 3)
	addr, _ := p.ServiceAddr(vip)

	got := map[string]string{}
	for range 3 {
		local := randomLoopback()
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: local.AsSlice()}}
		var seen []string
		for range 4 {
			seen = append(seen, call(t, ctx, d.DialContext, addr.String()))
		}
		if slices.Compact(slices.Clone(seen))[0] != seen[0] || len(slices.Compact(slices.Clone(seen))) != 1 {
			t.Errorf("client %s reached %v, want one backend", local, seen)
		}
		got[local.String()] = seen[0]
	}
	backends := map[string]bool{}
	for _, v := range got {
		backends[v] = true
	}
	if len(backends) != 3 {
		t.Errorf("three clients' sessions %v: want them spread over the three backends in turn", got)
	}
}

func TestUserspaceOff(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	c, err := cluster.New(ctx, cluster.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := startProxy(t, ctx, c, proxy.Options{MinSyncPeriod: 10 * time.Millisecond}, false)
	s := manualService(t, ctx, c, "web", nil, ap("127.0.0.1:1"))
	vip := netip.AddrPortFrom(netip.MustParseAddr(s.Spec.ClusterIP), 80)
	waitFor(t, ctx, p, "the rule", func() bool { _, err := p.Lookup(vip, netip.Addr{}); return err == nil })
	if _, ok := p.ServiceAddr(vip); ok {
		t.Error("a listener without Options.Userspace")
	}
	if _, err := p.Lookup(ap("10.96.99.99:80"), netip.Addr{}); !errors.Is(err, proxy.ErrNoService) {
		t.Errorf("unknown address: %v", err)
	}
}
