package endpointslice

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Cases ported from kube's pkg/controller/endpointslice/reconciler_test.go
// (TestReconcileEmpty, TestReconcile1Pod, TestReconcile1EndpointSlice,
// TestReconcileManyPods, TestReconcileEndpointSlicesSomePreexisting,
// TestReconcileEndpointSlicesRecycling, TestReconcileEndpointSlicesUpdatePacking),
// on the plan of writes instead of the fake clientset's actions.

func testService(name string) *api.Service {
	return &api.Service{
		ObjectMeta: api.ObjectMeta{Namespace: "test", Name: name, UID: api.UID("uid-" + name), Labels: map[string]string{"foo": "bar"}},
		Spec: api.ServiceSpec{ClusterIP: "10.96.0.10", Selector: map[string]string{"foo": "bar"},
			Ports: []api.ServicePort{{Name: "foo", Port: 80, TargetPort: api.FromInt32(80), Protocol: api.ProtocolTCP}}},
	}
}

func testPod(n int, ready bool) *api.Pod {
	st := api.ConditionFalse
	if ready {
		st = api.ConditionTrue
	}
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Namespace: "test", Name: fmt.Sprintf("pod%d", n), UID: api.UID(fmt.Sprintf("pod-uid-%d", n)), Labels: map[string]string{"foo": "bar"}},
		Spec:       api.PodSpec{NodeName: "node-1", Containers: []api.Container{{Name: "c"}}},
		Status: api.PodStatus{Phase: api.PodRunning, PodIP: fmt.Sprintf("10.0.%d.%d", n/250, n%250),
			PodIPs:     []api.PodIP{{IP: fmt.Sprintf("10.0.%d.%d", n/250, n%250)}},
			Conditions: []api.PodCondition{{Type: api.PodReady, Status: st}}},
	}
}

func testReconciler(max int) *reconciler {
	nodes := map[string]*api.Node{
		"node-1": {ObjectMeta: api.ObjectMeta{Name: "node-1", Labels: map[string]string{api.LabelTopologyZone: "us-central1-a"}}},
	}
	return &reconciler{managedBy: ControllerName, maxPerSlice: max, node: func(n string) (*api.Node, bool) {
		nd, ok := nodes[n]
		return nd, ok
	}}
}

// apply plays a plan on the slices as the API server would, naming the
// created ones, and returns the slices after.
func apply(existing []*api.EndpointSlice, p plan, seq *int) []*api.EndpointSlice {
	byName := map[string]*api.EndpointSlice{}
	var order []string
	for _, s := range existing {
		byName[s.Name] = s
		order = append(order, s.Name)
	}
	for _, s := range p.update {
		byName[s.Name] = s
	}
	for _, s := range p.create {
		*seq++
		s = s.DeepCopy()
		s.Name = fmt.Sprintf("%s%05d", s.GenerateName, *seq)
		byName[s.Name] = s
		order = append(order, s.Name)
	}
	for _, s := range p.delete {
		delete(byName, s.Name)
	}
	var out []*api.EndpointSlice
	for _, n := range order {
		if s, ok := byName[n]; ok {
			out = append(out, s)
		}
	}
	return out
}

func sizes(ss []*api.EndpointSlice) []int {
	var out []int
	for _, s := range ss {
		out = append(out, len(s.Endpoints))
	}
	return out
}

func TestReconcileEmpty(t *testing.T) {
	svc := testService("foo")
	p := testReconciler(100).reconcile(svc, nil, nil)
	require.Len(t, p.create, 1, "a placeholder slice")
	require.Empty(t, p.update)
	require.Empty(t, p.delete)
	s := p.create[0]
	require.Equal(t, "foo-", s.GenerateName)
	require.Equal(t, "foo", s.Labels[api.LabelServiceName])
	require.Equal(t, ControllerName, s.Labels[LabelManagedBy])
	require.Equal(t, "bar", s.Labels["foo"], "the service's labels are copied")
	require.Equal(t, api.AddressTypeIPv4, s.AddressType)
	require.Empty(t, s.Ports)
	require.Empty(t, s.Endpoints)
	require.Equal(t, svc.UID, s.ControllerRef().UID)
	require.Equal(t, "Service", s.ControllerRef().Kind)

	// The placeholder is kept as it is on the next sync.
	var seq int
	after := apply(nil, p, &seq)
	p = testReconciler(100).reconcile(svc, nil, after)
	require.Empty(t, p.create)
	require.Empty(t, p.update)
	require.Empty(t, p.delete)
}

func TestReconcile1Pod(t *testing.T) {
	ptrue, pfalse := true, false
	tests := []struct {
		name      string
		families  []string
		clusterIP string
		podIPs    []string
		terminate bool
		publish   bool
		ready     bool
		wantTypes []api.AddressType
		wantAddrs map[api.AddressType][]string
		wantCond  api.EndpointConditions
	}{
		{name: "no families, ipv4 pod", clusterIP: "10.96.0.10", podIPs: []string{"1.2.3.4"}, ready: true,
			wantTypes: []api.AddressType{api.AddressTypeIPv4}, wantAddrs: map[api.AddressType][]string{api.AddressTypeIPv4: {"1.2.3.4"}},
			wantCond: api.EndpointConditions{Ready: &ptrue, Serving: &ptrue, Terminating: &pfalse}},
		{name: "ipv6 cluster IP, dual-stack pod", clusterIP: "fd00::10", podIPs: []string{"1.2.3.4", "1234::5678:0000:0000:9abc:def0"}, ready: true,
			wantTypes: []api.AddressType{api.AddressTypeIPv6}, wantAddrs: map[api.AddressType][]string{api.AddressTypeIPv6: {"1234::5678:0000:0000:9abc:def0"}},
			wantCond: api.EndpointConditions{Ready: &ptrue, Serving: &ptrue, Terminating: &pfalse}},
		{name: "dual-stack service, dual-stack pod", clusterIP: "10.96.0.10", families: []string{"IPv4", "IPv6"},
			podIPs: []string{"1.2.3.4", "1234::5678:0000:0000:9abc:def0"}, ready: true,
			wantTypes: []api.AddressType{api.AddressTypeIPv4, api.AddressTypeIPv6},
			wantAddrs: map[api.AddressType][]string{api.AddressTypeIPv4: {"1.2.3.4"}, api.AddressTypeIPv6: {"1234::5678:0000:0000:9abc:def0"}},
			wantCond:  api.EndpointConditions{Ready: &ptrue, Serving: &ptrue, Terminating: &pfalse}},
		{name: "ipv6 service, ipv4-only pod: placeholder", families: []string{"IPv6"}, clusterIP: "fd00::10", podIPs: []string{"1.2.3.4"}, ready: true,
			wantTypes: []api.AddressType{api.AddressTypeIPv6}, wantAddrs: map[api.AddressType][]string{}},
		{name: "not ready", clusterIP: "10.96.0.10", podIPs: []string{"1.2.3.4"}, ready: false,
			wantTypes: []api.AddressType{api.AddressTypeIPv4}, wantAddrs: map[api.AddressType][]string{api.AddressTypeIPv4: {"1.2.3.4"}},
			wantCond: api.EndpointConditions{Ready: &pfalse, Serving: &pfalse, Terminating: &pfalse}},
		{name: "terminating, serving", clusterIP: "10.96.0.10", podIPs: []string{"1.2.3.4"}, ready: true, terminate: true,
			wantTypes: []api.AddressType{api.AddressTypeIPv4}, wantAddrs: map[api.AddressType][]string{api.AddressTypeIPv4: {"1.2.3.4"}},
			wantCond: api.EndpointConditions{Ready: &pfalse, Serving: &ptrue, Terminating: &ptrue}},
		{name: "terminating, publishNotReadyAddresses", clusterIP: "10.96.0.10", podIPs: []string{"1.2.3.4"}, ready: false, terminate: true, publish: true,
			wantTypes: []api.AddressType{api.AddressTypeIPv4}, wantAddrs: map[api.AddressType][]string{api.AddressTypeIPv4: {"1.2.3.4"}},
			wantCond: api.EndpointConditions{Ready: &ptrue, Serving: &pfalse, Terminating: &ptrue}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := testService("foo")
			svc.Spec.ClusterIP, svc.Spec.IPFamilies, svc.Spec.PublishNotReadyAddresses = tt.clusterIP, tt.families, tt.publish
			pod := testPod(1, tt.ready)
			pod.Spec.Hostname, pod.Spec.Subdomain = "pod1", "foo"
			pod.Status.PodIP, pod.Status.PodIPs = tt.podIPs[0], nil
			for _, ip := range tt.podIPs {
				pod.Status.PodIPs = append(pod.Status.PodIPs, api.PodIP{IP: ip})
			}
			if tt.terminate {
				pod.DeletionTimestamp = new(api.NewTime(time.Unix(100, 0)))
			}
			p := testReconciler(100).reconcile(svc, []*api.Pod{pod}, nil)
			require.Len(t, p.create, len(tt.wantTypes))
			for i, s := range p.create {
				require.Equal(t, tt.wantTypes[i], s.AddressType)
				want, ok := tt.wantAddrs[s.AddressType]
				if !ok {
					require.Empty(t, s.Endpoints, "a placeholder")
					continue
				}
				require.Len(t, s.Endpoints, 1)
				ep := s.Endpoints[0]
				require.Equal(t, want, ep.Addresses)
				require.Equal(t, tt.wantCond, ep.Conditions)
				require.Equal(t, "node-1", *ep.NodeName)
				require.Equal(t, "us-central1-a", *ep.Zone)
				require.Equal(t, "pod1", *ep.Hostname)
				require.Equal(t, &api.ObjectReference{Kind: "Pod", Namespace: "test", Name: "pod1", UID: pod.UID}, ep.TargetRef)
				require.Len(t, s.Ports, 1)
				require.Equal(t, "foo", *s.Ports[0].Name)
				require.Equal(t, int32(80), *s.Ports[0].Port)
				require.Equal(t, api.ProtocolTCP, *s.Ports[0].Protocol)
			}
		})
	}
}

// An existing slice and no pods: the same placeholder is kept; one that
// differs is replaced, recycled as an update (TestReconcile1EndpointSlice).
func TestReconcile1EndpointSlice(t *testing.T) {
	svc := testService("foo")
	r := testReconciler(100)
	ph := r.newSlice(svc, api.AddressTypeIPv4, []api.EndpointSlicePort{}, r.desiredLabels(svc))
	ph.Name, ph.ResourceVersion = "foo-abc", "7"

	p := r.reconcile(svc, nil, []*api.EndpointSlice{ph})
	require.Empty(t, p.create)
	require.Empty(t, p.update)
	require.Empty(t, p.delete, "the placeholder stays")

	stale := ph.DeepCopy()
	stale.Ports = []api.EndpointSlicePort{{Name: new("old"), Port: new(int32(81))}}
	stale.Endpoints = []api.Endpoint{{Addresses: []string{"10.1.1.1"}}}
	p = r.reconcile(svc, nil, []*api.EndpointSlice{stale})
	require.Empty(t, p.create)
	require.Empty(t, p.delete)
	require.Len(t, p.update, 1, "the stale slice becomes the placeholder")
	require.Equal(t, "foo-abc", p.update[0].Name)
	require.Equal(t, "7", p.update[0].ResourceVersion)
	require.Empty(t, p.update[0].Endpoints)
	require.Empty(t, p.update[0].Ports)
}

// 250 pods: three slices of 100, 100 and 50 (TestReconcileManyPods).
func TestReconcileManyPods(t *testing.T) {
	var pods []*api.Pod
	for i := range 250 {
		pods = append(pods, testPod(i, i%3 == 0))
	}
	p := testReconciler(100).reconcile(testService("foo"), pods, nil)
	require.Equal(t, []int{100, 100, 50}, sizes(p.create))
	require.Empty(t, p.update)
	require.Empty(t, p.delete)
}

// Existing slices partly full: the new endpoints fill the slices that
// are updated anyway before new ones are made
// (TestReconcileEndpointSlicesSomePreexisting).
func TestReconcileEndpointSlicesSomePreexisting(t *testing.T) {
	svc := testService("foo")
	r := testReconciler(100)
	var pods []*api.Pod
	for i := range 250 {
		pods = append(pods, testPod(i, true))
	}
	mk := func(name string, from, to int) *api.EndpointSlice {
		s := r.newSlice(svc, api.AddressTypeIPv4, endpointPorts(svc, pods[0]), r.desiredLabels(svc))
		s.Name, s.GenerateName = name, ""
		for i := from; i < to; i++ {
			s.Endpoints = append(s.Endpoints, podToEndpoint(pods[i], nil, svc, api.AddressTypeIPv4))
		}
		return s
	}
	// slice1: 62 endpoints, 2 of them not desired any more (pods 0, 1
	// removed); slice2: 73 endpoints all desired but one changed.
	slice1 := mk("foo-1", 0, 62)
	slice2 := mk("foo-2", 62, 135)
	existing := []*api.EndpointSlice{slice1, slice2}
	current := pods[2:]
	p := r.reconcile(svc, current, existing)
	// slice1 loses 2 and its missing zone counts as a change; both slices
	// are updated (zones), filled to 100 each; 248-200 = 48 go to a new slice.
	require.Len(t, p.update, 2)
	require.Equal(t, []int{100, 100}, sizes(p.update))
	require.Equal(t, []int{48}, sizes(p.create))
	require.Empty(t, p.delete)
}

// A changed port name: every existing slice is replaced, and the
// replacements are recycled into updates (TestReconcileEndpointSlicesRecycling).
func TestReconcileEndpointSlicesRecycling(t *testing.T) {
	svc := testService("foo")
	r := testReconciler(100)
	var pods []*api.Pod
	for i := range 300 {
		pods = append(pods, testPod(i, true))
	}
	var seq int
	slices := apply(nil, r.reconcile(svc, pods, nil), &seq)
	require.Equal(t, []int{100, 100, 100}, sizes(slices))
	svc.Spec.Ports[0].Name = "bar"
	p := r.reconcile(svc, pods, slices)
	require.Empty(t, p.create)
	require.Empty(t, p.delete)
	require.Len(t, p.update, 3)
	for _, s := range p.update {
		require.Equal(t, "bar", *s.Ports[0].Name)
		require.Len(t, s.Endpoints, 100)
	}
	// Nothing more to do once written.
	slices = apply(slices, p, &seq)
	p = r.reconcile(svc, pods, slices)
	require.Empty(t, p.create)
	require.Empty(t, p.update)
	require.Empty(t, p.delete)
}

// New endpoints fewer than a slice holds go into the fullest unchanged
// slice that can take them all (TestReconcileEndpointSlicesUpdatePacking).
func TestReconcileEndpointSlicesUpdatePacking(t *testing.T) {
	svc := testService("foo")
	r := testReconciler(100)
	var pods []*api.Pod
	for i := range 160 {
		pods = append(pods, testPod(i, true))
	}
	var seq int
	cur := apply(nil, r.reconcile(svc, pods[:80], nil), &seq) // one slice of 80
	cur = apply(cur, plan{create: []*api.EndpointSlice{func() *api.EndpointSlice {
		s := r.newSlice(svc, api.AddressTypeIPv4, endpointPorts(svc, pods[0]), r.desiredLabels(svc))
		for _, pd := range pods[80:150] {
			n, _ := r.node("node-1")
			s.Endpoints = append(s.Endpoints, podToEndpoint(pd, n, svc, api.AddressTypeIPv4))
		}
		return s
	}()}}, &seq) // and one of 70
	require.Equal(t, []int{80, 70}, sizes(cur))
	// 10 more pods: they fit in the fuller slice (80 → 90).
	p := r.reconcile(svc, pods, cur)
	require.Empty(t, p.create)
	require.Empty(t, p.delete)
	require.Equal(t, []int{90}, sizes(p.update))
	require.Equal(t, cur[0].Name, p.update[0].Name)
}

// A pod on an unknown node is left out and reported (kcm retries).
func TestReconcileUnknownNode(t *testing.T) {
	pod := testPod(1, true)
	pod.Spec.NodeName = "gone"
	p := testReconciler(100).reconcile(testService("foo"), []*api.Pod{pod}, nil)
	require.Equal(t, []string{"pod1"}, p.skipped)
	require.Len(t, p.create, 1)
	require.Empty(t, p.create[0].Endpoints, "a placeholder")
}

// A slice of an older service of the same name is replaced.
func TestReconcileNotOwned(t *testing.T) {
	svc := testService("foo")
	r := testReconciler(100)
	old := r.newSlice(svc, api.AddressTypeIPv4, nil, r.desiredLabels(svc))
	old.Name = "foo-old"
	old.OwnerReferences[0].UID = "older"
	p := r.reconcile(svc, []*api.Pod{testPod(1, true)}, []*api.EndpointSlice{old})
	require.Len(t, p.update, 1, "recycled")
	require.Equal(t, svc.UID, p.update[0].ControllerRef().UID)
	require.Len(t, p.update[0].Endpoints, 1)
}
