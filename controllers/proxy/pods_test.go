package proxy_test

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/endpoints"
	"github.com/ctrlkit/ctrlkit/informer"
)

// The whole path in real time: pods standing in as real TCP listeners
// (their IP a loopback address, their container port "http" the
// listener's port), the endpoints controller writing the Endpoints of a
// selector service, and the userspace proxy forwarding to every ready
// pod in turn; a pod turning not ready stops getting new connections
// once the proxy has synced the change.
func TestUserspaceFollowsPodReadiness(t *testing.T) {
	ctx, c, p := startUserspace(t)
	f := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
	ctl, err := endpoints.New(c, f, endpoints.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ectx, cancel := context.WithCancel(ctx)
	f.Start(ectx)
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := ctl.Run(ectx); !errors.Is(err, context.Canceled) {
			t.Errorf("endpoints Run: %v", err)
		}
	})
	t.Cleanup(func() { cancel(); wg.Wait(); f.Shutdown() })

	svc := &api.Service{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: api.ServiceSpec{Selector: map[string]string{"app": "web"},
			Ports: []api.ServicePort{{Name: "http", Port: 80, TargetPort: api.FromString("http")}}}}
	if _, err := c.Services().Create(ctx, svc); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b", "c"} {
		addr := backend(t, name)
		pod := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{"app": "web"}},
			Spec: api.PodSpec{NodeName: "node-1", Containers: []api.Container{{Name: "app", Image: "app",
				Ports: []api.ContainerPort{{Name: "http", ContainerPort: int32(addr.Port())}}}}}}
		if _, err := c.Pods().Create(ctx, pod); err != nil {
			t.Fatal(err)
		}
		setPodStatus(t, ctx, c, name, addr.Addr().String(), true)
	}
	vip := netip.AddrPortFrom(netip.MustParseAddr(svc.Spec.ClusterIP), 80)
	waitForEndpoints(t, ctx, p, vip, 3)
	var seq []string
	for range 6 {
		seq = append(seq, call(t, ctx, p.DialContext, "web.default.svc.cluster.local:80"))
	}
	if got := slices.Sorted(slices.Values(seq[:3])); fmt.Sprint(got) != "[a b c]" || !slices.Equal(seq[:3], seq[3:]) {
		t.Errorf("connections went to %v, want every ready pod in turn", seq)
	}

	b, _, err := c.Pods().Get(ctx, "default/b")
	if err != nil {
		t.Fatal(err)
	}
	setPodStatus(t, ctx, c, "b", b.Status.PodIP, false)
	waitForEndpoints(t, ctx, p, vip, 2)
	seq = seq[:0]
	for range 4 {
		seq = append(seq, call(t, ctx, p.DialContext, vip.String()))
	}
	if slices.Contains(seq, "b") {
		t.Errorf("a not-ready pod got connections: %v", seq)
	}
}

func setPodStatus(t *testing.T, ctx context.Context, c *cluster.Cluster, name, ip string, ready bool) {
	t.Helper()
	p, _, err := c.Pods().Get(ctx, "default/"+name)
	if err != nil {
		t.Fatal(err)
	}
	st := api.ConditionFalse
	if ready {
		st = api.ConditionTrue
	}
	p.Status = api.PodStatus{Phase: api.PodRunning, PodIP: ip, PodIPs: []api.PodIP{{IP: ip}},
		Conditions: []api.PodCondition{{Type: api.PodReady, Status: st, LastTransitionTime: api.NewTime(time.Now())}}}
	if _, err := c.Pods().UpdateStatus(ctx, p); err != nil {
		t.Fatal(err)
	}
}
