package endpoints_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/endpoints"
	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

var quiet = slog.New(slog.DiscardHandler)

// env is a cluster and the endpoints controller in a synctest bubble;
// the test plays the kubelet (setStatus).
type env struct {
	t   *testing.T
	ctx context.Context
	c   *cluster.Cluster
	rec *fake.Recorder[*api.Endpoints]
}

func start(t *testing.T) *env { return startWith(t, nil) }

// startWith runs setup on the cluster before the controller starts.
func startWith(t *testing.T, setup func(ctx context.Context, c *cluster.Cluster)) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	c, err := cluster.New(ctx, cluster.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if setup != nil {
		setup(ctx, c)
	}
	rec := fake.NewRecorder[*api.Endpoints](c.Endpoints(), api.Key[*api.Endpoints])
	f := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
	ctl, err := endpoints.New(c, f, endpoints.Options{Writer: rec, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	f.Start(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := ctl.Run(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("Run: %v", err)
		}
	})
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		f.Shutdown()
	})
	return &env{t: t, ctx: ctx, c: c, rec: rec}
}

func (e *env) service(name string, mutate func(*api.Service)) {
	e.t.Helper()
	s := &api.Service{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name}, Spec: api.ServiceSpec{
		Selector: map[string]string{"app": name},
		Ports:    []api.ServicePort{{Name: "web", Port: 80, TargetPort: api.FromString("http")}},
	}}
	if mutate != nil {
		mutate(s)
	}
	if _, err := e.c.Services().Create(e.ctx, s); err != nil {
		e.t.Fatal(err)
	}
}

// pod creates a running, ready pod with container port "http" 8080 and
// IP ip, as a kubelet would report it.
func (e *env) pod(name, app, ip string, mutate func(*api.Pod)) {
	e.t.Helper()
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{"app": app}},
		Spec: api.PodSpec{NodeName: "node-1", Containers: []api.Container{{Name: "c", Image: "nginx",
			Ports: []api.ContainerPort{{Name: "http", ContainerPort: 8080}}}}}}
	if mutate != nil {
		mutate(p)
	}
	if _, err := e.c.Pods().Create(e.ctx, p); err != nil {
		e.t.Fatal(err)
	}
	e.setStatus(name, ip, true)
}

func (e *env) setStatus(name, ip string, ready bool) {
	e.t.Helper()
	p, _, err := e.c.Pods().Get(e.ctx, "default/"+name)
	if err != nil {
		e.t.Fatal(err)
	}
	st := api.ConditionFalse
	if ready {
		st = api.ConditionTrue
	}
	p.Status.Phase = api.PodRunning
	p.Status.PodIP = ip
	p.Status.PodIPs = []api.PodIP{{IP: ip}}
	p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: st}}
	if _, err := e.c.Pods().UpdateStatus(e.ctx, p); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) updatePod(name string, mutate func(*api.Pod)) {
	e.t.Helper()
	p, rv, err := e.c.Pods().Get(e.ctx, "default/"+name)
	if err != nil {
		e.t.Fatal(err)
	}
	mutate(p)
	if _, err := e.c.Pods().Update(e.ctx, p, rv); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) updateService(name string, mutate func(*api.Service)) {
	e.t.Helper()
	s, rv, err := e.c.Services().Get(e.ctx, "default/"+name)
	if err != nil {
		e.t.Fatal(err)
	}
	mutate(s)
	if _, err := e.c.Services().Update(e.ctx, s, rv); err != nil {
		e.t.Fatal(err)
	}
}

// endpoints renders default/name's Endpoints as
// "ready[ip,…] notReady[ip,…] ports[name:port,…]" per subset, or
// "absent".
func (e *env) endpoints(name string) string {
	e.t.Helper()
	settle()
	ep, _, err := e.c.Endpoints().Get(e.ctx, "default/"+name)
	if errors.Is(err, source.ErrNotFound) {
		return "absent"
	}
	if err != nil {
		e.t.Fatal(err)
	}
	out := ""
	for _, s := range ep.Subsets {
		out += "ready["
		for i, a := range s.Addresses {
			if i > 0 {
				out += ","
			}
			out += a.IP
			if a.Hostname != "" {
				out += "/" + a.Hostname
			}
		}
		out += "] notReady["
		for i, a := range s.NotReadyAddresses {
			if i > 0 {
				out += ","
			}
			out += a.IP
		}
		out += "] ports["
		for i, p := range s.Ports {
			if i > 0 {
				out += ","
			}
			out += fmt.Sprintf("%s:%d", p.Name, p.Port)
		}
		out += "]"
	}
	return out
}

// settle lets virtual time pass (the read-your-writes gate puts a
// request back with a few milliseconds of backoff) until the bubble is
// idle.
func settle() {
	time.Sleep(time.Second)
	synctest.Wait()
}

func (e *env) expect(name, want string) {
	e.t.Helper()
	if got := e.endpoints(name); got != want {
		e.t.Errorf("endpoints %s:\n got  %s\n want %s", name, got, want)
	}
}

// Readiness, publishNotReadyAddresses, a named target port, relabelling,
// no write without a change, and the Endpoints deleted with its service.
func TestEndpointsFollowPods(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		e.service("web", nil)
		e.service("other", func(s *api.Service) { s.Spec.Ports[0].TargetPort = api.FromInt32(9090) })
		e.pod("web-a", "web", "10.0.0.1", nil)
		e.pod("web-b", "web", "10.0.0.2", nil)
		e.expect("web", "ready[10.0.0.1,10.0.0.2] notReady[] ports[web:8080]")
		e.expect("other", "")

		// Not ready moves to notReadyAddresses.
		e.setStatus("web-b", "10.0.0.2", false)
		e.expect("web", "ready[10.0.0.1] notReady[10.0.0.2] ports[web:8080]")

		// publishNotReadyAddresses publishes it as ready.
		e.updateService("web", func(s *api.Service) { s.Spec.PublishNotReadyAddresses = true })
		e.expect("web", "ready[10.0.0.1,10.0.0.2] notReady[] ports[web:8080]")
		e.updateService("web", func(s *api.Service) { s.Spec.PublishNotReadyAddresses = false })
		e.expect("web", "ready[10.0.0.1] notReady[10.0.0.2] ports[web:8080]")

		// Relabelling moves the pod between services (other's numeric
		// target port needs no declared container port).
		e.updatePod("web-a", func(p *api.Pod) { p.Labels["app"] = "other" })
		e.expect("web", "ready[] notReady[10.0.0.2] ports[web:8080]")
		e.expect("other", "ready[10.0.0.1] notReady[] ports[web:9090]")

		// No write when nothing an Endpoints shows changed.
		e.rec.Reset()
		e.updatePod("web-b", func(p *api.Pod) { p.Annotations = map[string]string{"touched": "yes"} })
		e.updateService("web", func(s *api.Service) { s.Annotations = map[string]string{"touched": "yes"} })
		e.updateService("other", func(s *api.Service) { s.Annotations = map[string]string{"touched": "yes"} })
		settle()
		if w := e.rec.Writes(); len(w) != 0 {
			t.Errorf("%d writes without a change: %+v", len(w), w)
		}

		// A pod leaving and a service deleted.
		if _, err := e.c.Pods().DeleteWith(e.ctx, "default/web-b", cluster.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
			t.Fatal(err)
		}
		e.expect("web", "")
		if _, err := e.c.Services().Delete(e.ctx, "default/web", ""); err != nil {
			t.Fatal(err)
		}
		e.expect("web", "absent")
		e.expect("other", "ready[10.0.0.1] notReady[] ports[web:9090]")
	})
}

// The hostnames of a headless service's StatefulSet-style pods, and a
// selector-less service left alone.
func TestEndpointsHeadlessHostnames(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		e.service("nginx", func(s *api.Service) { s.Spec.ClusterIP = api.ClusterIPNone })
		for i, ip := range []string{"10.0.1.1", "10.0.1.2"} {
			name := fmt.Sprintf("web-%d", i)
			e.pod(name, "nginx", ip, func(p *api.Pod) { p.Spec.Hostname, p.Spec.Subdomain = name, "nginx" })
		}
		e.pod("stray", "nginx", "10.0.1.3", func(p *api.Pod) { p.Spec.Hostname = "stray" }) // no subdomain
		e.expect("nginx", "ready[10.0.1.1/web-0,10.0.1.2/web-1,10.0.1.3] notReady[] ports[web:8080]")
		ep, _, err := e.c.Endpoints().Get(e.ctx, "default/nginx")
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := ep.Labels[api.LabelServiceHeadless]; !ok {
			t.Errorf("labels %v lack %s", ep.Labels, api.LabelServiceHeadless)
		}
		if a := ep.Subsets[0].Addresses[0]; a.TargetRef == nil || a.TargetRef.Name != "web-0" || a.NodeName == nil || *a.NodeName != "node-1" {
			t.Errorf("address %+v: want a reference to web-0 on node-1", a)
		}

		// A service without a selector keeps the Endpoints its user wrote.
		e.service("manual", func(s *api.Service) { s.Spec.Selector = nil })
		manual := &api.Endpoints{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "manual"},
			Subsets: []api.EndpointSubset{{Addresses: []api.EndpointAddress{{IP: "192.0.2.1"}}, Ports: []api.EndpointPort{{Port: 80}}}}}
		if _, err := e.c.Endpoints().Create(e.ctx, manual); err != nil {
			t.Fatal(err)
		}
		e.rec.Reset()
		e.updateService("manual", func(s *api.Service) { s.Labels = map[string]string{"x": "y"} })
		e.expect("manual", "ready[192.0.2.1] notReady[] ports[:80]")
		if w := e.rec.Writes(); len(w) != 0 {
			t.Errorf("wrote a selector-less service's Endpoints: %+v", w)
		}
	})
}

// checkLeftoverEndpoints: an Endpoints whose service went away while no
// controller ran is deleted at start; onEndpointsDelete: an Endpoints
// deleted by someone else is written again.
func TestEndpointsLeftoverAndRecreated(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startWith(t, func(ctx context.Context, c *cluster.Cluster) {
			left := &api.Endpoints{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "gone"},
				Subsets: []api.EndpointSubset{{Addresses: []api.EndpointAddress{{IP: "10.0.9.9"}}, Ports: []api.EndpointPort{{Port: 80}}}}}
			if _, err := c.Endpoints().Create(ctx, left); err != nil {
				t.Fatal(err)
			}
		})
		e.expect("gone", "absent")
		e.service("web", nil)
		e.pod("web-a", "web", "10.0.0.1", nil)
		e.expect("web", "ready[10.0.0.1] notReady[] ports[web:8080]")
		if _, err := e.c.Endpoints().Delete(e.ctx, "default/web", ""); err != nil {
			t.Fatal(err)
		}
		e.expect("web", "ready[10.0.0.1] notReady[] ports[web:8080]")
	})
}
