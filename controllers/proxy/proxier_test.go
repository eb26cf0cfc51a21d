package proxy_test

import (
	"context"
	"errors"
	"log/slog"
	"net/netip"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/dns"
	"github.com/ctrlkit/ctrlkit/controllers/proxy"
	"github.com/ctrlkit/ctrlkit/informer"
)

var quiet = slog.New(slog.DiscardHandler)

// startProxy runs a proxy over c until the test ends; withDNS gives it a
// controllers/dns resolver over the same informers.
func startProxy(t *testing.T, ctx context.Context, c *cluster.Cluster, opts proxy.Options, withDNS bool) *proxy.Proxier {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	opts.Logger = quiet
	f := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
	if withDNS {
		r, err := dns.New(c, f, dns.Options{})
		if err != nil {
			t.Fatal(err)
		}
		opts.Resolver = r
	}
	p, err := proxy.New(c, f, opts)
	if err != nil {
		t.Fatal(err)
	}
	f.Start(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := p.Run(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("Run: %v", err)
		}
	})
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		f.Shutdown()
	})
	return p
}

// manualService creates a selector-less service and its Endpoints, one
// subset per backend address ("ip:port") under port name "http".
func manualService(t *testing.T, ctx context.Context, c *cluster.Cluster, name string, mutate func(*api.Service), backends ...netip.AddrPort) *api.Service {
	t.Helper()
	s := &api.Service{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name},
		Spec: api.ServiceSpec{Ports: []api.ServicePort{{Name: "http", Port: 80}}}}
	if mutate != nil {
		mutate(s)
	}
	if _, err := c.Services().Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	ep := &api.Endpoints{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name}, Subsets: subsetsOf(backends)}
	if _, err := c.Endpoints().Create(ctx, ep); err != nil {
		t.Fatal(err)
	}
	return s
}

func subsetsOf(backends []netip.AddrPort) []api.EndpointSubset {
	var out []api.EndpointSubset
	for _, b := range backends {
		out = append(out, api.EndpointSubset{
			Addresses: []api.EndpointAddress{{IP: b.Addr().String()}},
			Ports:     []api.EndpointPort{{Name: "http", Port: int32(b.Port())}},
		})
	}
	return out
}

func setBackends(t *testing.T, ctx context.Context, c *cluster.Cluster, name string, backends ...netip.AddrPort) {
	t.Helper()
	ep, rv, err := c.Endpoints().Get(ctx, "default/"+name)
	if err != nil {
		t.Fatal(err)
	}
	ep.Subsets = subsetsOf(backends)
	if _, err := c.Endpoints().Update(ctx, ep, rv); err != nil {
		t.Fatal(err)
	}
}

func ap(s string) netip.AddrPort { return netip.MustParseAddrPort(s) }

// The iptables-mode sync loop in virtual time: the first sync at once,
// changes within MinSyncPeriod coalesced into one sync, Lookup blind to a
// change until it is applied, and a full sync every SyncPeriod.
func TestSyncCoalescesAndLookupSeesAppliedRules(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		c, err := cluster.New(ctx, cluster.Options{})
		if err != nil {
			t.Fatal(err)
		}
		s := manualService(t, ctx, c, "web", nil, ap("10.0.0.1:8080"))
		vip := netip.AddrPortFrom(netip.MustParseAddr(s.Spec.ClusterIP), 80)
		p := startProxy(t, ctx, c, proxy.Options{MinSyncPeriod: time.Second, SyncPeriod: 30 * time.Second}, false)
		for p.Generation() == 0 { // the caches sync (polled), then the first sync
			time.Sleep(10 * time.Millisecond)
			synctest.Wait()
		}
		if g := p.Generation(); g != 1 {
			t.Fatalf("generation %d after start, want 1", g)
		}
		client := netip.MustParseAddr("127.0.0.1")
		lookups := func() map[string]int {
			seen := map[string]int{}
			for range 4 {
				ep, err := p.Lookup(vip, client)
				if err != nil {
					t.Fatal(err)
				}
				seen[ep.String()]++
			}
			return seen
		}
		if got := lookups(); got["10.0.0.1:8080"] != 4 {
			t.Errorf("lookups %v", got)
		}

		time.Sleep(5 * time.Second) // the last sync is long past: a change syncs at once…
		setBackends(t, ctx, c, "web", ap("10.0.0.1:8080"), ap("10.0.0.2:8080"))
		synctest.Wait()
		if g := p.Generation(); g != 2 {
			t.Fatalf("generation %d, want 2", g)
		}
		// …but the next one waits for MinSyncPeriod, and two changes
		// within it make one sync.
		setBackends(t, ctx, c, "web", ap("10.0.0.2:8080"))
		synctest.Wait()
		setBackends(t, ctx, c, "web", ap("10.0.0.3:8080"))
		time.Sleep(999 * time.Millisecond)
		synctest.Wait()
		if g := p.Generation(); g != 2 {
			t.Errorf("generation %d within MinSyncPeriod, want 2", g)
		}
		if got := lookups(); got["10.0.0.1:8080"] != 2 || got["10.0.0.2:8080"] != 2 {
			t.Errorf("before the sync Lookup must answer from the applied rules: %v", got)
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if g := p.Generation(); g != 3 {
			t.Errorf("generation %d after MinSyncPeriod, want 3 (one sync for two changes)", g)
		}
		if got := lookups(); got["10.0.0.3:8080"] != 4 {
			t.Errorf("after the sync: %v", got)
		}

		// Nothing changes: a full sync every SyncPeriod.
		time.Sleep(30 * time.Second)
		synctest.Wait()
		if g := p.Generation(); g != 4 {
			t.Errorf("generation %d after SyncPeriod, want 4", g)
		}

		// A deleted service: no rule.
		if _, err := c.Services().Delete(ctx, "default/web", ""); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if _, err := p.Lookup(vip, client); !errors.Is(err, proxy.ErrNoService) {
			t.Errorf("after delete: %v, want ErrNoService", err)
		}
	})
}

func TestOptionsValidated(t *testing.T) {
	c, err := cluster.New(t.Context(), cluster.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []proxy.Options{
		{MinSyncPeriod: -1},
		{SyncPeriod: time.Second, MinSyncPeriod: 2 * time.Second},
		{Mode: 7},
	} {
		if _, err := proxy.New(c, informer.NewFactory(informer.FactoryOptions{}), o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
}
