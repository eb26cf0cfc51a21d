package cluster_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// The validation of the kinds served without a controller, with the
// field path, type and message kube-apiserver reports. Cases ported from
// k8s.io/kubernetes pkg/apis/policy/validation/validation_test.go
// (TestValidateMinAvailablePodDisruptionBudgetSpec,
// TestValidatePodDisruptionBudgetSpec, TestValidateUnhealthyPodEvictionPolicyDisruptionBudgetSpec),
// pkg/apis/networking/validation/validation_test.go (TestValidateIngress*,
// TestValidateIngressClass, TestValidateNetworkPolicy),
// pkg/apis/scheduling/validation/validation_test.go
// (TestValidatePriorityClass), pkg/apis/core/validation/validation_test.go
// (TestValidateLimitRange), pkg/apis/discovery/validation/validation_test.go
// (TestValidateEndpointSlice) and pkg/apis/storage/validation/validation_test.go
// (TestCSIDriverValidation, TestValidateCSINode, TestVolumeAttachmentValidation).
func TestValidationKinds(t *testing.T) {
	ctx := context.Background()
	pdb := func(m func(*api.PodDisruptionBudgetSpec)) api.Object {
		p := &api.PodDisruptionBudget{ObjectMeta: api.ObjectMeta{Name: "pdb", Namespace: "default"}}
		m(&p.Spec)
		return p
	}
	prefix := api.PathTypePrefix
	ingress := func(m func(*api.IngressSpec)) api.Object {
		ing := &api.Ingress{ObjectMeta: api.ObjectMeta{Name: "ing", Namespace: "default"}, Spec: api.IngressSpec{Rules: []api.IngressRule{{
			Host: "foo.example.com", IngressRuleValue: api.IngressRuleValue{HTTP: &api.HTTPIngressRuleValue{Paths: []api.HTTPIngressPath{{
				Path: "/", PathType: &prefix, Backend: api.IngressBackend{Service: &api.IngressServiceBackend{Name: "web", Port: api.ServiceBackendPort{Number: 80}}}}}}}}}}}
		m(&ing.Spec)
		return ing
	}
	path0 := func(s *api.IngressSpec) *api.HTTPIngressPath { return &s.Rules[0].HTTP.Paths[0] }
	class := func(m func(*api.IngressClassSpec)) api.Object {
		c := &api.IngressClass{ObjectMeta: api.ObjectMeta{Name: "nginx"}, Spec: api.IngressClassSpec{Controller: "k8s.io/ingress-nginx"}}
		m(&c.Spec)
		return c
	}
	netpol := func(m func(*api.NetworkPolicySpec)) api.Object {
		n := &api.NetworkPolicy{ObjectMeta: api.ObjectMeta{Name: "np", Namespace: "default"}}
		m(&n.Spec)
		return n
	}
	pc := func(name string, value int32, m func(*api.PriorityClass)) api.Object {
		c := &api.PriorityClass{ObjectMeta: api.ObjectMeta{Name: name}, Value: value}
		m(c)
		return c
	}
	rl := func(kv ...string) api.ResourceList {
		l := api.ResourceList{}
		for i := 0; i < len(kv); i += 2 {
			l[api.ResourceName(kv[i])] = api.MustParse(kv[i+1])
		}
		return l
	}
	limits := func(items ...api.LimitRangeItem) api.Object {
		return &api.LimitRange{ObjectMeta: api.ObjectMeta{Name: "lr", Namespace: "default"}, Spec: api.LimitRangeSpec{Limits: items}}
	}
	slice := func(m func(*api.EndpointSlice)) api.Object {
		s := &api.EndpointSlice{ObjectMeta: api.ObjectMeta{Name: "s", Namespace: "default"}, AddressType: api.AddressTypeIPv4,
			Endpoints: []api.Endpoint{{Addresses: []string{"10.0.0.1"}}}}
		m(s)
		return s
	}
	driver := func(name string, m func(*api.CSIDriverSpec)) api.Object {
		d := &api.CSIDriver{ObjectMeta: api.ObjectMeta{Name: name}}
		m(&d.Spec)
		return d
	}
	csiNode := func(drivers ...api.CSINodeDriver) api.Object {
		return &api.CSINode{ObjectMeta: api.ObjectMeta{Name: "n"}, Spec: api.CSINodeSpec{Drivers: drivers}}
	}
	attachment := func(m func(*api.VolumeAttachmentSpec)) api.Object {
		v := &api.VolumeAttachment{ObjectMeta: api.ObjectMeta{Name: "va"}, Spec: api.VolumeAttachmentSpec{Attacher: "csi.example.com", NodeName: "n",
			Source: api.VolumeAttachmentSource{PersistentVolumeName: ptr("pv")}}}
		m(&v.Spec)
		return v
	}
	cases := []struct {
		name    string
		obj     api.Object
		path    string
		typ     cluster.FieldErrorType
		message string // a part of the error's text
	}{
		{"PDBBothSet", pdb(func(s *api.PodDisruptionBudgetSpec) {
			s.MinAvailable = ptr(api.FromInt32(1))
			s.MaxUnavailable = ptr(api.FromInt32(1))
		}),
			"spec", cluster.FieldInvalid, "minAvailable and maxUnavailable cannot be both set"},
		{"PDBNegative", pdb(func(s *api.PodDisruptionBudgetSpec) { s.MinAvailable = ptr(api.FromInt32(-1)) }),
			"spec.minAvailable", cluster.FieldInvalid, `spec.minAvailable: Invalid value: "-1": must be greater than or equal to 0`},
		{"PDBBadPercent", pdb(func(s *api.PodDisruptionBudgetSpec) { s.MaxUnavailable = ptr(api.FromString("1.1%")) }),
			"spec.maxUnavailable", cluster.FieldInvalid, "a valid percent string must be a numeric string followed by an ending '%'"},
		{"PDBOver100", pdb(func(s *api.PodDisruptionBudgetSpec) { s.MinAvailable = ptr(api.FromString("101%")) }),
			"spec.minAvailable", cluster.FieldInvalid, "must not be greater than 100%"},
		{"PDBPolicy", pdb(func(s *api.PodDisruptionBudgetSpec) {
			s.UnhealthyPodEvictionPolicy = ptr(api.UnhealthyPodEvictionPolicyType("Invalid"))
		}),
			"spec.unhealthyPodEvictionPolicy", cluster.FieldUnsupported, `supported values: "AlwaysAllow", "IfHealthyBudget"`},
		{"PDBSelectorOperator", pdb(func(s *api.PodDisruptionBudgetSpec) {
			s.Selector = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "a", Operator: "In"}}}
		}), "spec.selector.matchExpressions[0].values", cluster.FieldRequired, "must be specified when `operator` is 'In' or 'NotIn'"},

		{"IngressEmpty", ingress(func(s *api.IngressSpec) { s.Rules = nil }), "spec", cluster.FieldInvalid, "either `defaultBackend` or `rules` must be specified"},
		{"IngressPathType", ingress(func(s *api.IngressSpec) { path0(s).PathType = nil }), "spec.rules[0].http.paths[0].pathType", cluster.FieldRequired, "pathType must be specified"},
		{"IngressPathTypeBogus", ingress(func(s *api.IngressSpec) { path0(s).PathType = ptr(api.PathType("Regex")) }),
			"spec.rules[0].http.paths[0].pathType", cluster.FieldUnsupported, `supported values: "Exact", "ImplementationSpecific", "Prefix"`},
		{"IngressRelativePath", ingress(func(s *api.IngressSpec) { path0(s).Path = "foo" }), "spec.rules[0].http.paths[0].path", cluster.FieldInvalid, "must be an absolute path"},
		{"IngressDoubleSlash", ingress(func(s *api.IngressSpec) { path0(s).Path = "/foo//bar" }), "spec.rules[0].http.paths[0].path", cluster.FieldInvalid, "must not contain '//'"},
		{"IngressHostIP", ingress(func(s *api.IngressSpec) { s.Rules[0].Host = "1.2.3.4" }), "spec.rules[0].host", cluster.FieldInvalid, "must be a DNS name, not an IP address"},
		{"IngressBadWildcard", ingress(func(s *api.IngressSpec) { s.Rules[0].Host = "foo.*.com" }), "spec.rules[0].host", cluster.FieldInvalid, "a wildcard DNS-1123 subdomain must start with '*.'"},
		{"IngressBothBackends", ingress(func(s *api.IngressSpec) {
			path0(s).Backend.Resource = &api.TypedLocalObjectReference{Kind: "Bucket", Name: "b"}
		}), "spec.rules[0].http.paths[0].backend", cluster.FieldInvalid, "cannot set both resource and service backends"},
		{"IngressPortNameAndNumber", ingress(func(s *api.IngressSpec) { path0(s).Backend.Service.Port.Name = "http" }),
			"spec.rules[0].http.paths[0].backend", cluster.FieldInvalid, "cannot set both port name & port number"},
		{"IngressNoPort", ingress(func(s *api.IngressSpec) { path0(s).Backend.Service.Port.Number = 0 }),
			"spec.rules[0].http.paths[0].backend", cluster.FieldRequired, "port name or number is required"},
		{"IngressNoPaths", ingress(func(s *api.IngressSpec) { s.Rules[0].HTTP.Paths = nil }), "spec.rules[0].http.paths", cluster.FieldRequired, ""},

		{"IngressClassController", class(func(s *api.IngressClassSpec) { s.Controller = "foo" }), "spec.controller", cluster.FieldInvalid, `must be a domain-prefixed path (such as "acme.io/foo")`},
		{"IngressClassControllerRequired", class(func(s *api.IngressClassSpec) { s.Controller = "" }), "spec.controller", cluster.FieldRequired, ""},
		{"IngressClassNamespaceScope", class(func(s *api.IngressClassSpec) {
			s.Parameters = &api.IngressClassParametersReference{Kind: "K", Name: "n", Scope: ptr("Namespace")}
		}), "spec.parameters.namespace", cluster.FieldRequired, "`parameters.scope` is set to 'Namespace'"},
		{"IngressClassClusterScope", class(func(s *api.IngressClassSpec) {
			s.Parameters = &api.IngressClassParametersReference{Kind: "K", Name: "n", Namespace: ptr("ns")}
		}), "spec.parameters.namespace", cluster.FieldForbidden, "`parameters.scope` is set to 'Cluster'"},

		{"NetworkPolicyPeer", netpol(func(s *api.NetworkPolicySpec) {
			s.Ingress = []api.NetworkPolicyIngressRule{{From: []api.NetworkPolicyPeer{{}}}}
		}),
			"spec.ingress[0].from[0]", cluster.FieldRequired, "must specify a peer"},
		{"NetworkPolicyIPBlockAndSelector", netpol(func(s *api.NetworkPolicySpec) {
			s.Ingress = []api.NetworkPolicyIngressRule{{From: []api.NetworkPolicyPeer{{IPBlock: &api.IPBlock{CIDR: "10.0.0.0/8"}, PodSelector: &api.LabelSelector{}}}}}
		}), "spec.ingress[0].from[0]", cluster.FieldForbidden, "may not specify both ipBlock and another peer"},
		{"NetworkPolicyCIDR", netpol(func(s *api.NetworkPolicySpec) {
			s.Egress = []api.NetworkPolicyEgressRule{{To: []api.NetworkPolicyPeer{{IPBlock: &api.IPBlock{CIDR: "10.0.0.0"}}}}}
		}), "spec.egress[0].to[0].ipBlock.cidr", cluster.FieldInvalid, "must be a valid CIDR value"},
		{"NetworkPolicyExcept", netpol(func(s *api.NetworkPolicySpec) {
			s.Egress = []api.NetworkPolicyEgressRule{{To: []api.NetworkPolicyPeer{{IPBlock: &api.IPBlock{CIDR: "10.0.0.0/16", Except: []string{"10.1.0.0/24"}}}}}}
		}), "spec.egress[0].to[0].ipBlock.except[0]", cluster.FieldInvalid, "must be a strict subset of `cidr`"},
		{"NetworkPolicyEndPort", netpol(func(s *api.NetworkPolicySpec) {
			s.Ingress = []api.NetworkPolicyIngressRule{{Ports: []api.NetworkPolicyPort{{Port: ptr(api.FromInt32(100)), EndPort: ptr(int32(50))}}}}
		}), "spec.ingress[0].ports[0].endPort", cluster.FieldInvalid, "must be greater than or equal to `port`"},
		{"NetworkPolicyEndPortNamed", netpol(func(s *api.NetworkPolicySpec) {
			s.Ingress = []api.NetworkPolicyIngressRule{{Ports: []api.NetworkPolicyPort{{Port: ptr(api.FromString("http")), EndPort: ptr(int32(50))}}}}
		}), "spec.ingress[0].ports[0].endPort", cluster.FieldForbidden, "may not be specified when `port` is non-numeric"},
		{"NetworkPolicyType", netpol(func(s *api.NetworkPolicySpec) { s.PolicyTypes = []api.PolicyType{"Sideways"} }),
			"spec.policyTypes[0]", cluster.FieldUnsupported, `supported values: "Egress", "Ingress"`},

		{"PriorityClassTooHigh", pc("tc", api.HighestUserDefinablePriority+1, func(*api.PriorityClass) {}), "value", cluster.FieldForbidden,
			"maximum allowed value of a user defined priority is 1000000000"},
		{"PriorityClassSystemPrefix", pc("system-foo", 100, func(*api.PriorityClass) {}), "metadata.name", cluster.FieldForbidden,
			"priority class names with 'system-' prefix are reserved for system use only. error: system-foo is not a known system priority class"},
		{"PriorityClassPolicy", pc("tc", 1, func(c *api.PriorityClass) { c.PreemptionPolicy = ptr(api.PreemptionPolicy("Sometimes")) }),
			"preemptionPolicy", cluster.FieldUnsupported, `supported values: "Never", "PreemptLowerPriority"`},

		{"LimitRangeMinAboveMax", limits(api.LimitRangeItem{Type: api.LimitTypeContainer, Min: rl("cpu", "2"), Max: rl("cpu", "1")}),
			"spec.limits[0].min[cpu]", cluster.FieldInvalid, "min value 2 is greater than max value 1"},
		{"LimitRangeDefaultAboveMax", limits(api.LimitRangeItem{Type: api.LimitTypeContainer, Default: rl("memory", "2Gi"), Max: rl("memory", "1Gi")}),
			"spec.limits[0].default[memory]", cluster.FieldInvalid, "default value 2Gi is greater than max value 1Gi"},
		{"LimitRangeRequestAboveLimit", limits(api.LimitRangeItem{Type: api.LimitTypeContainer, Default: rl("cpu", "100m"), DefaultRequest: rl("cpu", "200m")}),
			"spec.limits[0].defaultRequest[cpu]", cluster.FieldInvalid, "default request value 200m is greater than default limit value 100m"},
		{"LimitRangeRatio", limits(api.LimitRangeItem{Type: api.LimitTypeContainer, MaxLimitRequestRatio: rl("cpu", "500m")}),
			"spec.limits[0].maxLimitRequestRatio[cpu]", cluster.FieldInvalid, "ratio 500m is less than 1"},
		{"LimitRangePodDefault", limits(api.LimitRangeItem{Type: api.LimitTypePod, Default: rl("cpu", "1")}),
			"spec.limits[0].default", cluster.FieldForbidden, "may not be specified when `type` is 'Pod'"},
		{"LimitRangeType", limits(api.LimitRangeItem{Type: "Widget"}), "spec.limits[0].type", cluster.FieldInvalid, "must be a standard limit type or fully qualified"},

		{"EndpointSliceAddressType", slice(func(s *api.EndpointSlice) { s.AddressType = "IP" }), "addressType", cluster.FieldUnsupported, `supported values: "FQDN", "IPv4", "IPv6"`},
		{"EndpointSliceNoAddress", slice(func(s *api.EndpointSlice) { s.Endpoints[0].Addresses = nil }), "endpoints[0].addresses", cluster.FieldRequired, "must contain at least 1 address"},
		{"EndpointSliceIPv4", slice(func(s *api.EndpointSlice) { s.Endpoints[0].Addresses = []string{"fd00::1"} }), "endpoints[0].addresses[0]", cluster.FieldInvalid, "must be a valid IPv4 address"},
		{"EndpointSliceDuplicatePort", slice(func(s *api.EndpointSlice) {
			s.Ports = []api.EndpointSlicePort{{Name: ptr("http"), Port: ptr(int32(80))}, {Name: ptr("http"), Port: ptr(int32(81))}}
		}), "ports[1].name", cluster.FieldDuplicate, ""},
		{"EndpointSliceTooMany", slice(func(s *api.EndpointSlice) {
			s.Endpoints = make([]api.Endpoint, 1001)
			for i := range s.Endpoints {
				s.Endpoints[i].Addresses = []string{"10.0.0.1"}
			}
		}), "endpoints", cluster.FieldTooMany, "must have at most 1000 items"},

		{"CSIDriverModes", driver("csi.example.com", func(s *api.CSIDriverSpec) { s.VolumeLifecycleModes = []api.VolumeLifecycleMode{"Forever"} }),
			"spec.volumeLifecycleModes", cluster.FieldUnsupported, `supported values: "Ephemeral", "Persistent"`},
		{"CSIDriverToken", driver("csi.example.com", func(s *api.CSIDriverSpec) {
			s.TokenRequests = []api.TokenRequest{{Audience: "a", ExpirationSeconds: ptr(int64(60))}}
		}), "spec.tokenRequests[0].expirationSeconds", cluster.FieldInvalid, "may not specify a duration less than 10 minutes"},
		{"CSIDriverFSGroupPolicy", driver("csi.example.com", func(s *api.CSIDriverSpec) { s.FSGroupPolicy = ptr(api.FSGroupPolicy("Some")) }),
			"spec.fsGroupPolicy", cluster.FieldUnsupported, ""},
		{"CSINodeDuplicate", csiNode(api.CSINodeDriver{Name: "d.example.com", NodeID: "n"}, api.CSINodeDriver{Name: "d.example.com", NodeID: "n"}),
			"spec.drivers[1].name", cluster.FieldDuplicate, ""},
		{"CSINodeNodeID", csiNode(api.CSINodeDriver{Name: "d.example.com"}), "spec.drivers[0].nodeID", cluster.FieldRequired, ""},
		{"VolumeAttachmentAttacher", attachment(func(s *api.VolumeAttachmentSpec) { s.Attacher = "" }), "spec.attacher", cluster.FieldRequired, ""},
		{"VolumeAttachmentNoSource", attachment(func(s *api.VolumeAttachmentSpec) { s.Source = api.VolumeAttachmentSource{} }),
			"spec.source", cluster.FieldRequired, "must specify exactly one of inlineVolumeSpec and persistentVolumeName"},
		{"VolumeAttachmentNode", attachment(func(s *api.VolumeAttachmentSpec) { s.NodeName = "" }), "spec.nodeName", cluster.FieldRequired, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newMemory(t, cluster.Options{})
			_, err := c.CreateObject(ctx, tc.obj)
			var inv *cluster.InvalidError
			if !errors.As(err, &inv) || !errors.Is(err, cluster.ErrInvalid) {
				t.Fatalf("got %v, want an *InvalidError", err)
			}
			for _, fe := range inv.Errors {
				if fe.Field == tc.path && fe.Type == tc.typ && strings.Contains(fe.Error(), tc.message) {
					return
				}
			}
			t.Fatalf("no %s error at %q containing %q in %v", tc.typ, tc.path, tc.message, inv.Errors)
		})
	}
}

// Valid objects of each kind are stored with kube's defaults.
func TestDefaultsKinds(t *testing.T) {
	ctx := context.Background()
	c := newMemory(t, cluster.Options{})
	create := func(obj api.Object) {
		t.Helper()
		if _, err := c.CreateObject(ctx, obj); err != nil {
			t.Fatalf("create %T: %v", obj, err)
		}
	}
	np := &api.NetworkPolicy{ObjectMeta: api.ObjectMeta{Name: "np", Namespace: "default"}, Spec: api.NetworkPolicySpec{
		Egress: []api.NetworkPolicyEgressRule{{Ports: []api.NetworkPolicyPort{{Port: ptr(api.FromInt32(53))}}}}}}
	create(np)
	if got := np.Spec.PolicyTypes; len(got) != 2 || got[0] != api.PolicyTypeIngress || got[1] != api.PolicyTypeEgress {
		t.Errorf("policyTypes %v, want [Ingress Egress]", got)
	}
	if p := np.Spec.Egress[0].Ports[0].Protocol; p == nil || *p != api.ProtocolTCP {
		t.Errorf("egress port protocol %v, want TCP", p)
	}
	np2 := &api.NetworkPolicy{ObjectMeta: api.ObjectMeta{Name: "np2", Namespace: "default"}}
	create(np2)
	if got := np2.Spec.PolicyTypes; len(got) != 1 || got[0] != api.PolicyTypeIngress {
		t.Errorf("policyTypes %v, want [Ingress]", got)
	}
	pc := &api.PriorityClass{ObjectMeta: api.ObjectMeta{Name: "high"}, Value: 1000}
	create(pc)
	if pc.PreemptionPolicy == nil || *pc.PreemptionPolicy != api.PreemptLowerPriority {
		t.Errorf("preemptionPolicy %v, want PreemptLowerPriority", pc.PreemptionPolicy)
	}
	d := &api.CSIDriver{ObjectMeta: api.ObjectMeta{Name: "csi.example.com"}}
	create(d)
	s := d.Spec
	if !*s.AttachRequired || *s.PodInfoOnMount || *s.StorageCapacity || *s.RequiresRepublish || *s.FSGroupPolicy != api.ReadWriteOnceWithFSTypeFSGroupPolicy ||
		len(s.VolumeLifecycleModes) != 1 || s.VolumeLifecycleModes[0] != api.VolumeLifecyclePersistent {
		t.Errorf("CSIDriver defaults %+v", s)
	}
	es := &api.EndpointSlice{ObjectMeta: api.ObjectMeta{Name: "es", Namespace: "default"}, AddressType: api.AddressTypeIPv4,
		Ports: []api.EndpointSlicePort{{Port: ptr(int32(80))}}}
	create(es)
	if p := es.Ports[0]; p.Name == nil || *p.Name != "" || p.Protocol == nil || *p.Protocol != api.ProtocolTCP {
		t.Errorf("EndpointSlice port %+v, want name \"\" and TCP", p)
	}
	ic := &api.IngressClass{ObjectMeta: api.ObjectMeta{Name: "ic"}, Spec: api.IngressClassSpec{Controller: "example.com/ingress",
		Parameters: &api.IngressClassParametersReference{Kind: "K", Name: "n"}}}
	create(ic)
	if sc := ic.Spec.Parameters.Scope; sc == nil || *sc != "Cluster" {
		t.Errorf("parameters scope %v, want Cluster", sc)
	}
	pdb := &api.PodDisruptionBudget{ObjectMeta: api.ObjectMeta{Name: "pdb", Namespace: "default"}, Spec: api.PodDisruptionBudgetSpec{MinAvailable: ptr(api.FromString("50%"))}}
	create(pdb)
	if pdb.Spec.UnhealthyPodEvictionPolicy != nil || pdb.Spec.Selector != nil {
		t.Errorf("PodDisruptionBudget got defaults %+v", pdb.Spec)
	}
}

// Updates keep what kube-apiserver keeps immutable.
func TestImmutableKinds(t *testing.T) {
	ctx := context.Background()
	c := newMemory(t, cluster.Options{})
	update := func(obj api.Object, change func(), path string) {
		t.Helper()
		if _, err := c.CreateObject(ctx, obj); err != nil {
			t.Fatal(err)
		}
		change()
		_, err := updateObject(ctx, c, obj)
		var inv *cluster.InvalidError
		if !errors.As(err, &inv) || inv.Errors[0].Field != path {
			t.Fatalf("update %T: got %v, want an invalid %s", obj, err, path)
		}
	}
	pc := &api.PriorityClass{ObjectMeta: api.ObjectMeta{Name: "pc"}, Value: 10}
	update(pc, func() { pc.Value = 11 }, "value")
	ic := &api.IngressClass{ObjectMeta: api.ObjectMeta{Name: "ic"}, Spec: api.IngressClassSpec{Controller: "example.com/a"}}
	update(ic, func() { ic.Spec.Controller = "example.com/b" }, "spec.controller")
	es := &api.EndpointSlice{ObjectMeta: api.ObjectMeta{Name: "es", Namespace: "default"}, AddressType: api.AddressTypeIPv4}
	update(es, func() { es.AddressType = api.AddressTypeFQDN }, "addressType")
	va := &api.VolumeAttachment{ObjectMeta: api.ObjectMeta{Name: "va"}, Spec: api.VolumeAttachmentSpec{Attacher: "a.example.com", NodeName: "n",
		Source: api.VolumeAttachmentSource{PersistentVolumeName: ptr("pv")}}}
	update(va, func() { va.Spec.NodeName = "m" }, "spec")
	d := &api.CSIDriver{ObjectMeta: api.ObjectMeta{Name: "d.example.com"}}
	update(d, func() { d.Spec.AttachRequired = ptr(false) }, "spec.attachRequired")
	n := &api.CSINode{ObjectMeta: api.ObjectMeta{Name: "n"}, Spec: api.CSINodeSpec{Drivers: []api.CSINodeDriver{{Name: "d.example.com", NodeID: "a"}}}}
	update(n, func() { n.Spec.Drivers[0].NodeID = "b" }, "spec.drivers[0].nodeID")
}

// updateObject updates obj through the store of its kind.
func updateObject(ctx context.Context, c *cluster.Cluster, obj api.Object) (string, error) {
	switch o := obj.(type) {
	case *api.PriorityClass:
		return update(ctx, c, o)
	case *api.IngressClass:
		return update(ctx, c, o)
	case *api.EndpointSlice:
		return update(ctx, c, o)
	case *api.VolumeAttachment:
		return update(ctx, c, o)
	case *api.CSIDriver:
		return update(ctx, c, o)
	case *api.CSINode:
		return update(ctx, c, o)
	}
	panic("no store")
}

func update[T api.Object](ctx context.Context, c *cluster.Cluster, obj T) (string, error) {
	s, _ := cluster.StoreFor[T](c)
	return s.Update(ctx, obj, "")
}
