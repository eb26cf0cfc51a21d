package endpoints

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Test fixtures after kubernetes pkg/controller/endpoint/endpoints_controller_test.go
// (testPod, newService): pods "pod0".."podN" with IPs 1.2.3.4+i on node
// "node", a container port 8080 named "http".

var now = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

type podOpt func(*api.Pod)

func testPod(i int, opts ...podOpt) *api.Pod {
	p := &api.Pod{
		ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("pod%d", i), UID: api.UID(fmt.Sprintf("uid%d", i)),
			ResourceVersion: "1", Labels: map[string]string{"foo": "bar"}},
		Spec: api.PodSpec{NodeName: "node", Containers: []api.Container{{Name: "c", Ports: []api.ContainerPort{
			{Name: "http", ContainerPort: 8080, Protocol: api.ProtocolTCP},
			{Name: "dns", ContainerPort: 53, Protocol: api.ProtocolUDP},
		}}}},
		Status: api.PodStatus{Phase: api.PodRunning, PodIP: fmt.Sprintf("1.2.3.%d", 4+i),
			Conditions: []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func notReady(p *api.Pod) { p.Status.Conditions[0].Status = api.ConditionFalse }
func phase(ph api.PodPhase) podOpt {
	return func(p *api.Pod) { p.Status.Phase = ph; notReady(p) }
}
func terminating(p *api.Pod) { t := api.NewTime(now); p.DeletionTimestamp = &t }
func noIP(p *api.Pod)        { p.Status.PodIP = "" }
func host(h, sub string) podOpt {
	return func(p *api.Pod) { p.Spec.Hostname, p.Spec.Subdomain = h, sub }
}
func labels(l map[string]string) podOpt { return func(p *api.Pod) { p.Labels = l } }

type svcOpt func(*api.Service)

func newService(opts ...svcOpt) *api.Service {
	s := &api.Service{
		ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "foo"},
		Spec: api.ServiceSpec{ClusterIP: "10.96.0.1", Selector: map[string]string{"foo": "bar"},
			Ports: []api.ServicePort{{Port: 80, Protocol: api.ProtocolTCP, TargetPort: api.FromInt32(8080)}}},
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

func ports(ps ...api.ServicePort) svcOpt { return func(s *api.Service) { s.Spec.Ports = ps } }
func headless(s *api.Service)            { s.Spec.ClusterIP = api.ClusterIPNone }
func publishNotReady(s *api.Service)     { s.Spec.PublishNotReadyAddresses = true }
func svcLabels(l map[string]string) svcOpt {
	return func(s *api.Service) { s.Labels = l }
}

// addr renders an address compactly: ip[/hostname]@pod.
func render(subsets []api.EndpointSubset) string {
	var b strings.Builder
	for i, s := range subsets {
		if i > 0 {
			b.WriteString(" | ")
		}
		one := func(as []api.EndpointAddress) string {
			var parts []string
			for _, a := range as {
				x := a.IP
				if a.Hostname != "" {
					x += "/" + a.Hostname
				}
				parts = append(parts, x+"@"+a.TargetRef.Name)
			}
			return strings.Join(parts, ",")
		}
		var ps []string
		for _, p := range s.Ports {
			ps = append(ps, fmt.Sprintf("%s:%d/%s", p.Name, p.Port, p.Protocol))
		}
		fmt.Fprintf(&b, "ready[%s] notReady[%s] ports[%s]", one(s.Addresses), one(s.NotReadyAddresses), strings.Join(ps, ","))
	}
	return b.String()
}

// Cases after endpoints_controller_test.go (TestSyncEndpointsItems*,
// TestSyncEndpointsHeadlessService*, TestSyncEndpointsItemsExcludeNotReadyPods*,
// TestSyncServiceOverCapacity left out) and endpointslice util's
// TestShouldPodBeInEndpoints.
func TestDesiredSubsets(t *testing.T) {
	cases := []struct {
		name string
		svc  *api.Service
		pods []*api.Pod
		want string
	}{
		{"no pods", newService(), nil, ""},
		{"one ready pod (TestSyncEndpointsProtocolTCP)", newService(), []*api.Pod{testPod(0)},
			"ready[1.2.3.4@pod0] notReady[] ports[:8080/TCP]"},
		{"ready and not ready (TestSyncEndpointsItemsPreexisting…)", newService(), []*api.Pod{testPod(1), testPod(0, notReady)},
			"ready[1.2.3.5@pod1] notReady[1.2.3.4@pod0] ports[:8080/TCP]"},
		{"publishNotReadyAddresses makes all ready", newService(publishNotReady), []*api.Pod{testPod(0, notReady), testPod(1)},
			"ready[1.2.3.4@pod0,1.2.3.5@pod1] notReady[] ports[:8080/TCP]"},
		{"publishNotReadyAddresses keeps terminating pods", newService(publishNotReady), []*api.Pod{testPod(0, terminating)},
			"ready[1.2.3.4@pod0] notReady[] ports[:8080/TCP]"},
		{"terminating pods left out", newService(), []*api.Pod{testPod(0, terminating), testPod(1)},
			"ready[1.2.3.5@pod1] notReady[] ports[:8080/TCP]"},
		{"failed pods left out (…RestartPolicyNeverAndPhaseFailed)", newService(), []*api.Pod{testPod(0, phase(api.PodFailed))}, ""},
		{"succeeded pods left out (…PhaseSucceeded)", newService(publishNotReady), []*api.Pod{testPod(0, phase(api.PodSucceeded))}, ""},
		{"pods without an IP left out", newService(), []*api.Pod{testPod(0, noIP)}, ""},
		{"named target port", newService(ports(api.ServicePort{Name: "web", Port: 80, Protocol: api.ProtocolTCP, TargetPort: api.FromString("http")})),
			[]*api.Pod{testPod(0)}, "ready[1.2.3.4@pod0] notReady[] ports[web:8080/TCP]"},
		{"named port of another protocol does not match", newService(ports(api.ServicePort{Name: "d", Port: 53, Protocol: api.ProtocolTCP, TargetPort: api.FromString("dns")})),
			[]*api.Pod{testPod(0)}, ""},
		{"pods without the named port skipped", newService(ports(api.ServicePort{Name: "web", Port: 80, Protocol: api.ProtocolTCP, TargetPort: api.FromString("http")})),
			[]*api.Pod{testPod(0), testPod(1, func(p *api.Pod) { p.Spec.Containers[0].Ports = nil })},
			"ready[1.2.3.4@pod0] notReady[] ports[web:8080/TCP]"},
		{"multiple ports group into one subset (TestSyncEndpointsItems)", newService(ports(
			api.ServicePort{Name: "port0", Port: 80, Protocol: api.ProtocolTCP, TargetPort: api.FromInt32(8080)},
			api.ServicePort{Name: "port1", Port: 88, Protocol: api.ProtocolTCP, TargetPort: api.FromInt32(8088)})),
			[]*api.Pod{testPod(2), testPod(1), testPod(0)},
			"ready[1.2.3.4@pod0,1.2.3.5@pod1,1.2.3.6@pod2] notReady[] ports[port0:8080/TCP,port1:8088/TCP]"},
		{"pods serving different ports split subsets", newService(ports(
			api.ServicePort{Name: "a", Port: 80, Protocol: api.ProtocolTCP, TargetPort: api.FromInt32(8080)},
			api.ServicePort{Name: "b", Port: 81, Protocol: api.ProtocolTCP, TargetPort: api.FromString("http")})),
			[]*api.Pod{testPod(0), testPod(1, func(p *api.Pod) { p.Spec.Containers[0].Ports = nil })},
			// RepackSubsets groups ports by the addresses serving them:
			// port a by both pods, port b by pod0 only.
			"ready[1.2.3.4@pod0,1.2.3.5@pod1] notReady[] ports[a:8080/TCP] | ready[1.2.3.4@pod0] notReady[] ports[b:8080/TCP]"},
		{"hostname when subdomain is the service", newService(headless), []*api.Pod{testPod(0, host("web-0", "foo")), testPod(1, host("web-1", "other"))},
			"ready[1.2.3.4/web-0@pod0,1.2.3.5@pod1] notReady[] ports[:8080/TCP]"},
		{"headless without ports (TestSyncEndpointsHeadlessWithoutPort)", newService(headless, ports()), []*api.Pod{testPod(0), testPod(1, notReady)},
			"ready[1.2.3.4@pod0] notReady[1.2.3.5@pod1] ports[]"},
		{"a cluster IP service without ports has no endpoints", newService(ports()), []*api.Pod{testPod(0)}, ""},
		{"numeric sort of IPs", newService(), []*api.Pod{testPod(6), testPod(5)}, // 1.2.3.10 after 1.2.3.9
			"ready[1.2.3.9@pod5,1.2.3.10@pod6] notReady[] ports[:8080/TCP]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, _, _ := desiredSubsets(tc.svc, tc.pods)
			if r := render(got); r != tc.want {
				t.Errorf("got  %s\nwant %s", r, tc.want)
			}
		})
	}
}

func TestPodAddress(t *testing.T) {
	// After TestPodToEndpointAddressForService.
	a := podAddress(newService(), testPod(0, host("h", "foo")))
	want := api.EndpointAddress{IP: "1.2.3.4", Hostname: "h", NodeName: a.NodeName,
		TargetRef: &api.ObjectReference{Kind: "Pod", Namespace: "ns", Name: "pod0", UID: "uid0"}}
	if !reflect.DeepEqual(a, want) || *a.NodeName != "node" {
		t.Errorf("got %+v", a)
	}
	other := newService()
	other.Namespace = "other"
	if a := podAddress(other, testPod(0, host("h", "foo"))); a.Hostname != "" {
		t.Errorf("hostname across namespaces: %q", a.Hostname)
	}
}

func TestDecide(t *testing.T) {
	pods := []*api.Pod{testPod(0)}
	existing := func(svc *api.Service) *api.Endpoints {
		d := decide(svc, pods, nil)
		ep := d.endpoints
		ep.ResourceVersion = "7"
		return ep
	}
	cases := []struct {
		name    string
		svc     *api.Service
		current *api.Endpoints
		pods    []*api.Pod
		want    op
		labels  map[string]string
	}{
		{name: "create when none", svc: newService(svcLabels(map[string]string{"a": "b"})), want: opCreate, labels: map[string]string{"a": "b"}},
		{name: "identical: no write (TestSyncEndpointsItemsPreexistingIdentical)", svc: newService(), current: existing(newService()), want: opNone},
		{name: "pod resourceVersion ignored", svc: newService(), current: func() *api.Endpoints {
			ep := existing(newService())
			ep.Subsets[0].Addresses[0].TargetRef.ResourceVersion = "99"
			return ep
		}(), want: opNone},
		{name: "service labels changed (TestSyncEndpointsItemsWithLabels)", svc: newService(svcLabels(map[string]string{"x": "y"})), current: existing(newService()),
			want: opUpdate, labels: map[string]string{"x": "y"}},
		{name: "headless label added, and ignored in the comparison", svc: newService(headless), current: existing(newService(headless)), want: opNone},
		{name: "headless creates with the label", svc: newService(headless), want: opCreate, labels: map[string]string{api.LabelServiceHeadless: ""}},
		{name: "subsets changed", svc: newService(), current: existing(newService()), pods: []*api.Pod{testPod(0, notReady)}, want: opUpdate, labels: map[string]string{}},
		{name: "all pods gone: update to empty", svc: newService(), current: existing(newService()), pods: []*api.Pod{}, want: opUpdate, labels: map[string]string{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ps := tc.pods
			if ps == nil {
				ps = pods
			}
			d := decide(tc.svc, ps, tc.current)
			if d.op != tc.want {
				t.Fatalf("op %v, want %v", d.op, tc.want)
			}
			if d.op == opNone {
				return
			}
			if !reflect.DeepEqual(d.endpoints.Labels, tc.labels) {
				t.Errorf("labels %v, want %v", d.endpoints.Labels, tc.labels)
			}
			if d.endpoints.Name != "foo" || d.endpoints.Namespace != "ns" {
				t.Errorf("endpoints %s/%s", d.endpoints.Namespace, d.endpoints.Name)
			}
			if tc.current != nil && d.endpoints.ResourceVersion != "7" {
				t.Errorf("an update must carry the current resourceVersion, got %q", d.endpoints.ResourceVersion)
			}
		})
	}
}
