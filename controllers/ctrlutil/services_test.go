package ctrlutil_test

import (
	"fmt"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/ctrlutil"
)

func svcPod(l map[string]string, opts ...func(*api.Pod)) *api.Pod {
	p := &api.Pod{
		ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "p", UID: "u", ResourceVersion: "1", Labels: l},
		Spec:       api.PodSpec{NodeName: "node"},
		Status: api.PodStatus{Phase: api.PodRunning, PodIP: "1.2.3.4",
			Conditions: []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func TestServicesForPod(t *testing.T) {
	services := []*api.Service{
		{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "b"}, Spec: api.ServiceSpec{Selector: map[string]string{"app": "a"}}},
		{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "a"}, Spec: api.ServiceSpec{Selector: map[string]string{"app": "a"}}},
		{ObjectMeta: api.ObjectMeta{Namespace: "other", Name: "a"}, Spec: api.ServiceSpec{Selector: map[string]string{"app": "a"}}},
		{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "c"}, Spec: api.ServiceSpec{Selector: map[string]string{"app": "a", "tier": "x"}}},
		{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "noselector"}},
	}
	if got := fmt.Sprint(ctrlutil.ServicesForPod(services, svcPod(map[string]string{"app": "a"}))); got != "[ns/a ns/b]" {
		t.Errorf("got %s, want [ns/a ns/b]", got)
	}
	if ctrlutil.ServiceSelects(services[4], map[string]string{"app": "a"}) {
		t.Error("a service without a selector selects a pod")
	}
}

// After pkg/controller/util/endpoint TestDetermineNeededServiceUpdates and
// TestPodChanged / TestGetServicesToUpdateOnPodChange.
func TestServicesForPodChange(t *testing.T) {
	svc := func(name string, sel map[string]string) *api.Service {
		return &api.Service{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: name}, Spec: api.ServiceSpec{Selector: sel}}
	}
	services := []*api.Service{
		svc("a", map[string]string{"app": "a"}),
		svc("b", map[string]string{"app": "b"}),
		svc("ab", map[string]string{"tier": "x"}),
		svc("noselector", nil),
	}
	la := map[string]string{"app": "a", "tier": "x"}
	lb := map[string]string{"app": "b", "tier": "x"}
	bump := func(p *api.Pod) { p.ResourceVersion = "2" }
	notReady := func(p *api.Pod) { p.Status.Conditions[0].Status = api.ConditionFalse }
	cases := []struct {
		name     string
		old, cur *api.Pod
		want     string
	}{
		{"resync: nothing", svcPod(la), svcPod(la), "[]"},
		{"irrelevant change: nothing", svcPod(la), svcPod(la, bump, func(p *api.Pod) { p.Annotations = map[string]string{"x": "y"} }), "[]"},
		{"readiness: services of the pod", svcPod(la), svcPod(la, bump, notReady), "[ns/a ns/ab]"},
		{"IP change", svcPod(la), svcPod(la, bump, func(p *api.Pod) { p.Status.PodIP = "9.9.9.9" }), "[ns/a ns/ab]"},
		{"deletion timestamp", svcPod(la), svcPod(la, bump, func(p *api.Pod) { t := api.NewTime(now); p.DeletionTimestamp = &t }), "[ns/a ns/ab]"},
		{"node name", svcPod(la, func(p *api.Pod) { p.Spec.NodeName = "" }), svcPod(la, bump), "[ns/a ns/ab]"},
		{"relabel only: the symmetric difference", svcPod(la), svcPod(lb, bump), "[ns/a ns/b]"},
		{"hostname only: the symmetric difference, empty", svcPod(la), svcPod(la, bump, func(p *api.Pod) { p.Spec.Hostname = "h" }), "[]"},
		{"relabel and readiness: the union", svcPod(la), svcPod(lb, bump, notReady), "[ns/a ns/ab ns/b]"},
		{"turning terminal", svcPod(la, notReady), svcPod(la, bump, notReady, func(p *api.Pod) { p.Status.Phase = api.PodFailed }), "[ns/a ns/ab]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := fmt.Sprint(ctrlutil.ServicesForPodChange(services, tc.old, tc.cur)); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}
