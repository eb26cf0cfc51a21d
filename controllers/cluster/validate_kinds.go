package cluster

import (
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/admission"
	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Defaulting and validation of the kinds served without a controller
// (PodDisruptionBudget, Ingress, IngressClass, NetworkPolicy,
// PriorityClass, LimitRange, EndpointSlice, CSIDriver, CSINode,
// VolumeAttachment), as kube-apiserver's pkg/apis/<group>/v1 defaults and
// pkg/apis/<group>/validation check them: the same field paths, error
// types and messages.

func podDisruptionBudgetKind() *kind[*api.PodDisruptionBudget] {
	k := newKind[*api.PodDisruptionBudget]()
	k.validate = validatePodDisruptionBudget
	return k
}

func ingressKind() *kind[*api.Ingress] {
	k := newKind[*api.Ingress]()
	k.validate = validateIngress
	k.validateCreate = validateIngressCreate
	return k
}

func ingressClassKind() *kind[*api.IngressClass] {
	k := newKind[*api.IngressClass]()
	k.defaults = defaultIngressClass
	k.validate = validateIngressClass
	k.validateUpdate = func(old, cur *api.IngressClass, fs *fieldErrors) {
		if old.Spec.Controller != cur.Spec.Controller {
			fs.invalid("spec.controller", cur.Spec.Controller, "field is immutable")
		}
	}
	return k
}

func networkPolicyKind() *kind[*api.NetworkPolicy] {
	k := newKind[*api.NetworkPolicy]()
	k.defaults = defaultNetworkPolicy
	k.validate = validateNetworkPolicy
	return k
}

func priorityClassKind() *kind[*api.PriorityClass] {
	k := newKind[*api.PriorityClass]()
	k.defaults = func(pc *api.PriorityClass) {
		if pc.PreemptionPolicy == nil {
			pc.PreemptionPolicy = ptr(api.PreemptLowerPriority)
		}
	}
	k.validate = validatePriorityClass
	k.validateUpdate = func(old, cur *api.PriorityClass, fs *fieldErrors) {
		if old.Value != cur.Value {
			fs.forbidden("value", "may not be changed in an update.")
		}
		immutable(fs, "preemptionPolicy", old.PreemptionPolicy, cur.PreemptionPolicy)
	}
	return k
}

func limitRangeKind() *kind[*api.LimitRange] {
	k := newKind[*api.LimitRange]()
	k.validate = validateLimitRange
	return k
}

func endpointSliceKind() *kind[*api.EndpointSlice] {
	k := newKind[*api.EndpointSlice]()
	k.defaults = defaultEndpointSlice
	k.validate = validateEndpointSlice
	k.validateUpdate = func(old, cur *api.EndpointSlice, fs *fieldErrors) {
		if old.AddressType != cur.AddressType {
			fs.invalid("addressType", string(cur.AddressType), "field is immutable")
		}
	}
	return k
}

func csiDriverKind() *kind[*api.CSIDriver] {
	k := newKind[*api.CSIDriver]()
	k.defaults = defaultCSIDriver
	k.validate = validateCSIDriver
	k.validateUpdate = func(old, cur *api.CSIDriver, fs *fieldErrors) {
		immutable(fs, "spec.attachRequired", old.Spec.AttachRequired, cur.Spec.AttachRequired)
		immutable(fs, "spec.fsGroupPolicy", old.Spec.FSGroupPolicy, cur.Spec.FSGroupPolicy)
		immutable(fs, "spec.volumeLifecycleModes", old.Spec.VolumeLifecycleModes, cur.Spec.VolumeLifecycleModes)
	}
	return k
}

func csiNodeKind() *kind[*api.CSINode] {
	k := newKind[*api.CSINode]()
	k.validate = validateCSINode
	k.validateUpdate = validateCSINodeUpdate
	return k
}

func volumeAttachmentKind() *kind[*api.VolumeAttachment] {
	k := newKind[*api.VolumeAttachment]()
	k.validate = validateVolumeAttachment
	k.validateUpdate = func(old, cur *api.VolumeAttachment, fs *fieldErrors) {
		if !jsonEqual(old.Spec, cur.Spec) {
			fs.invalid("spec", "", "field is immutable")
		}
	}
	return k
}

// validateLabelSelector checks a metav1.LabelSelector at path
// (ValidateLabelSelector).
func validateLabelSelector(fs *fieldErrors, path string, sel *api.LabelSelector) {
	if sel == nil {
		return
	}
	checkLabels(fs, path+".matchLabels", sel.MatchLabels)
	for i, e := range sel.MatchExpressions {
		p := fmt.Sprintf("%s.matchExpressions[%d]", path, i)
		switch e.Operator {
		case api.LabelSelectorOpIn, api.LabelSelectorOpNotIn:
			if len(e.Values) == 0 {
				fs.required(p+".values", "must be specified when `operator` is 'In' or 'NotIn'")
			}
		case api.LabelSelectorOpExists, api.LabelSelectorOpDoesNotExist:
			if len(e.Values) > 0 {
				fs.forbidden(p+".values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
			}
		default:
			fs.invalid(p+".operator", string(e.Operator), "not a valid selector operator")
		}
		checkQualifiedName(fs, p+".key", e.Key)
	}
}

var percentRE = regexp.MustCompile(`^[0-9]+%$`)

// validatePositiveIntOrPercent checks a count or a percentage of at most
// 100% (ValidatePositiveIntOrPercent, IsNotMoreThan100Percent).
func validatePositiveIntOrPercent(fs *fieldErrors, path string, v *api.IntOrString) {
	if v == nil {
		return
	}
	if v.Type == api.TypeString {
		if !percentRE.MatchString(v.StrVal) {
			fs.invalid(path, v.StrVal, "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')")
			return
		}
		if n, _ := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%")); n > 100 {
			fs.invalid(path, v.StrVal, "must not be greater than 100%")
		}
		return
	}
	if v.IntVal < 0 {
		fs.invalid(path, strconv.Itoa(int(v.IntVal)), "must be greater than or equal to 0")
	}
}

// validatePodDisruptionBudget: pkg/apis/policy/validation
// ValidatePodDisruptionBudgetSpec.
func validatePodDisruptionBudget(p *api.PodDisruptionBudget, fs *fieldErrors) {
	s := &p.Spec
	if s.MinAvailable != nil && s.MaxUnavailable != nil {
		fs.invalid("spec", "", "minAvailable and maxUnavailable cannot be both set")
	}
	validatePositiveIntOrPercent(fs, "spec.minAvailable", s.MinAvailable)
	validatePositiveIntOrPercent(fs, "spec.maxUnavailable", s.MaxUnavailable)
	validateLabelSelector(fs, "spec.selector", s.Selector)
	if pol := s.UnhealthyPodEvictionPolicy; pol != nil && *pol != api.IfHealthyBudget && *pol != api.AlwaysAllow {
		fs.add(FieldUnsupported, "spec.unhealthyPodEvictionPolicy", string(*pol), `supported values: "AlwaysAllow", "IfHealthyBudget"`)
	}
}

var wildcardDNS1123RE = regexp.MustCompile(`^\*\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// checkHost checks an ingress host: a DNS subdomain, or one with a
// leading "*." wildcard label, never an IP address.
func checkHost(fs *fieldErrors, path, host string) {
	if _, err := netip.ParseAddr(host); err == nil {
		fs.invalid(path, host, "must be a DNS name, not an IP address")
		return
	}
	if strings.Contains(host, "*") {
		if !wildcardDNS1123RE.MatchString(host) {
			fs.invalid(path, host, "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character")
		}
		return
	}
	checkDNS1123Subdomain(fs, path, host)
}

// validateIngress: pkg/apis/networking/validation ValidateIngressSpec.
func validateIngress(ing *api.Ingress, fs *fieldErrors) {
	s := &ing.Spec
	if len(s.Rules) == 0 && s.DefaultBackend == nil {
		fs.invalid("spec", "", "either `defaultBackend` or `rules` must be specified")
	}
	if s.DefaultBackend != nil {
		validateIngressBackend(fs, "spec.defaultBackend", s.DefaultBackend)
	}
	if s.IngressClassName != nil {
		checkDNS1123Subdomain(fs, "spec.ingressClassName", *s.IngressClassName)
	}
	for i, t := range s.TLS {
		for j, h := range t.Hosts {
			checkHost(fs, fmt.Sprintf("spec.tls[%d].hosts[%d]", i, j), h)
		}
	}
	for i, r := range s.Rules {
		p := fmt.Sprintf("spec.rules[%d]", i)
		if r.Host != "" {
			checkHost(fs, p+".host", r.Host)
		}
		if r.HTTP == nil {
			continue
		}
		if len(r.HTTP.Paths) == 0 {
			fs.required(p+".http.paths", "")
		}
		for j, hp := range r.HTTP.Paths {
			pp := fmt.Sprintf("%s.http.paths[%d]", p, j)
			validateIngressPath(fs, pp, &hp)
			validateIngressBackend(fs, pp+".backend", &hp.Backend)
		}
	}
}

// validateIngressCreate: the class annotation and field are exclusive
// (ValidateIngressCreate).
func validateIngressCreate(ing *api.Ingress, fs *fieldErrors) {
	const annotation = "kubernetes.io/ingress.class"
	if _, ok := ing.Annotations[annotation]; ok && ing.Spec.IngressClassName != nil {
		fs.invalid("annotations."+annotation, ing.Annotations[annotation], "can not be set when the class field is also set")
	}
}

var invalidPathSequences = []string{"//", "/./", "/../", "%2f", "%2F"}
var invalidPathSuffixes = []string{"/..", "/."}

func validateIngressPath(fs *fieldErrors, path string, hp *api.HTTPIngressPath) {
	if hp.PathType == nil {
		fs.required(path+".pathType", "pathType must be specified")
		return
	}
	switch *hp.PathType {
	case api.PathTypeExact, api.PathTypePrefix:
		if !strings.HasPrefix(hp.Path, "/") {
			fs.invalid(path+".path", hp.Path, "must be an absolute path")
		}
		for _, seq := range invalidPathSequences {
			if strings.Contains(hp.Path, seq) {
				fs.invalid(path+".path", hp.Path, fmt.Sprintf("must not contain '%s'", seq))
			}
		}
		for _, suf := range invalidPathSuffixes {
			if strings.HasSuffix(hp.Path, suf) {
				fs.invalid(path+".path", hp.Path, fmt.Sprintf("cannot end with '%s'", suf))
			}
		}
	case api.PathTypeImplementationSpecific:
		if hp.Path != "" && !strings.HasPrefix(hp.Path, "/") {
			fs.invalid(path+".path", hp.Path, "must be an absolute path")
		}
	default:
		fs.add(FieldUnsupported, path+".pathType", string(*hp.PathType), `supported values: "Exact", "ImplementationSpecific", "Prefix"`)
	}
}

func validateIngressBackend(fs *fieldErrors, path string, b *api.IngressBackend) {
	switch {
	case b.Resource != nil && b.Service != nil:
		fs.invalid(path, "", "cannot set both resource and service backends")
	case b.Resource != nil:
		if b.Resource.Kind == "" {
			fs.required(path+".resource.kind", "")
		}
		if b.Resource.Name == "" {
			fs.required(path+".resource.name", "")
		}
	case b.Service != nil:
		if b.Service.Name == "" {
			fs.required(path+".service.name", "")
		} else {
			checkDNS1035Label(fs, path+".service.name", b.Service.Name)
		}
		port := b.Service.Port
		switch {
		case port.Name != "" && port.Number != 0:
			fs.invalid(path, "", "cannot set both port name & port number")
		case port.Name != "":
			checkPortName(fs, path+".service.port.name", port.Name)
		case port.Number != 0:
			checkPortRange(fs, path+".service.port.number", port.Number)
		default:
			fs.required(path, "port name or number is required")
		}
	default:
		fs.invalid(path, "", "resource or service backend is required")
	}
}

// defaultIngressClass: parameters' scope defaults to Cluster.
func defaultIngressClass(c *api.IngressClass) {
	if p := c.Spec.Parameters; p != nil && p.Scope == nil {
		p.Scope = ptr(api.IngressClassParametersReferenceScopeCluster)
	}
}

var domainPrefixedPathRE = regexp.MustCompile(`^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$`)

// validateIngressClass: ValidateIngressClassSpec.
func validateIngressClass(c *api.IngressClass, fs *fieldErrors) {
	ctrl := c.Spec.Controller
	switch domain, path, ok := strings.Cut(ctrl, "/"); {
	case len(ctrl) > 250:
		fs.add(FieldTooLong, "spec.controller", "", "may not be more than 250 bytes")
	case ctrl == "":
		fs.required("spec.controller", "")
	case !ok:
		fs.invalid("spec.controller", ctrl, `must be a domain-prefixed path (such as "acme.io/foo")`)
	default:
		checkDNS1123Subdomain(fs, "spec.controller", domain)
		if !domainPrefixedPathRE.MatchString(path) {
			fs.invalid("spec.controller", path, "Invalid path")
		}
	}
	p := c.Spec.Parameters
	if p == nil {
		return
	}
	if p.APIGroup != nil {
		checkDNS1123Subdomain(fs, "spec.parameters.apiGroup", *p.APIGroup)
	}
	if p.Kind == "" {
		fs.required("spec.parameters.kind", "")
	}
	if p.Name == "" {
		fs.required("spec.parameters.name", "")
	}
	if p.Scope == nil {
		fs.required("spec.parameters.scope", "")
		return
	}
	switch *p.Scope {
	case api.IngressClassParametersReferenceScopeNamespace:
		if p.Namespace == nil {
			fs.required("spec.parameters.namespace", "`parameters.scope` is set to 'Namespace'")
		} else {
			checkDNS1123Label(fs, "spec.parameters.namespace", *p.Namespace)
		}
	case api.IngressClassParametersReferenceScopeCluster:
		if p.Namespace != nil {
			fs.forbidden("spec.parameters.namespace", "`parameters.scope` is set to 'Cluster'")
		}
	default:
		fs.add(FieldUnsupported, "spec.parameters.scope", *p.Scope, `supported values: "Cluster", "Namespace"`)
	}
}

// defaultNetworkPolicy: ports' protocol TCP; policyTypes Ingress, plus
// Egress when there are egress rules (SetDefaults_NetworkPolicy).
func defaultNetworkPolicy(n *api.NetworkPolicy) {
	for i := range n.Spec.Ingress {
		defaultPolicyPorts(n.Spec.Ingress[i].Ports)
	}
	for i := range n.Spec.Egress {
		defaultPolicyPorts(n.Spec.Egress[i].Ports)
	}
	if len(n.Spec.PolicyTypes) == 0 {
		n.Spec.PolicyTypes = []api.PolicyType{api.PolicyTypeIngress}
		if len(n.Spec.Egress) > 0 {
			n.Spec.PolicyTypes = append(n.Spec.PolicyTypes, api.PolicyTypeEgress)
		}
	}
}

func defaultPolicyPorts(ports []api.NetworkPolicyPort) {
	for i := range ports {
		if ports[i].Protocol == nil {
			ports[i].Protocol = ptr(api.ProtocolTCP)
		}
	}
}

// validateNetworkPolicy: ValidateNetworkPolicySpec.
func validateNetworkPolicy(n *api.NetworkPolicy, fs *fieldErrors) {
	s := &n.Spec
	validateLabelSelector(fs, "spec.podSelector", &s.PodSelector)
	for i, r := range s.Ingress {
		p := fmt.Sprintf("spec.ingress[%d]", i)
		validatePolicyPorts(fs, p+".ports", r.Ports)
		validatePolicyPeers(fs, p+".from", r.From)
	}
	for i, r := range s.Egress {
		p := fmt.Sprintf("spec.egress[%d]", i)
		validatePolicyPorts(fs, p+".ports", r.Ports)
		validatePolicyPeers(fs, p+".to", r.To)
	}
	for i, t := range s.PolicyTypes {
		if t != api.PolicyTypeIngress && t != api.PolicyTypeEgress {
			fs.add(FieldUnsupported, fmt.Sprintf("spec.policyTypes[%d]", i), string(t), `supported values: "Egress", "Ingress"`)
		}
	}
	if len(s.PolicyTypes) > 2 {
		fs.forbidden("spec.policyTypes", "may not specify more than two policyTypes")
	}
}

func validatePolicyPorts(fs *fieldErrors, path string, ports []api.NetworkPolicyPort) {
	for i, port := range ports {
		p := fmt.Sprintf("%s[%d]", path, i)
		if port.Protocol != nil {
			switch *port.Protocol {
			case api.ProtocolTCP, api.ProtocolUDP, api.ProtocolSCTP:
			default:
				fs.add(FieldUnsupported, p+".protocol", string(*port.Protocol), `supported values: "SCTP", "TCP", "UDP"`)
			}
		}
		if port.Port != nil {
			if port.Port.Type == api.TypeInt {
				checkPortRange(fs, p+".port", port.Port.IntVal)
			} else {
				checkPortName(fs, p+".port", port.Port.StrVal)
			}
		}
		if port.EndPort == nil {
			continue
		}
		switch {
		case port.Port == nil:
			fs.required(p+".port", "must be specified when endPort is specified")
		case port.Port.Type == api.TypeString:
			fs.forbidden(p+".endPort", "may not be specified when `port` is non-numeric")
		case *port.EndPort < port.Port.IntVal:
			fs.invalid(p+".endPort", strconv.Itoa(int(*port.EndPort)), "must be greater than or equal to `port`")
		}
	}
}

func validatePolicyPeers(fs *fieldErrors, path string, peers []api.NetworkPolicyPeer) {
	for i, peer := range peers {
		p := fmt.Sprintf("%s[%d]", path, i)
		n := 0
		if peer.PodSelector != nil {
			n++
			validateLabelSelector(fs, p+".podSelector", peer.PodSelector)
		}
		if peer.NamespaceSelector != nil {
			n++
			validateLabelSelector(fs, p+".namespaceSelector", peer.NamespaceSelector)
		}
		if peer.IPBlock != nil {
			n++
			validateIPBlock(fs, p+".ipBlock", peer.IPBlock)
		}
		switch {
		case n == 0:
			fs.required(p, "must specify a peer")
		case n > 1 && peer.IPBlock != nil:
			fs.forbidden(p, "may not specify both ipBlock and another peer")
		}
	}
}

const cidrDetail = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"

func validateIPBlock(fs *fieldErrors, path string, b *api.IPBlock) {
	if b.CIDR == "" {
		fs.required(path+".cidr", "")
		return
	}
	cidr, err := netip.ParsePrefix(b.CIDR)
	if err != nil {
		fs.invalid(path+".cidr", b.CIDR, cidrDetail)
		return
	}
	for i, e := range b.Except {
		p := fmt.Sprintf("%s.except[%d]", path, i)
		ex, err := netip.ParsePrefix(e)
		if err != nil {
			fs.invalid(p, e, cidrDetail)
			continue
		}
		if ex.Bits() <= cidr.Bits() || !cidr.Contains(ex.Addr()) {
			fs.invalid(p, e, "must be a strict subset of `cidr`")
		}
	}
}

// validatePriorityClass: ValidatePriorityClass. A name with the system-
// prefix must be one of the system classes, with its value; other
// classes may not go above HighestUserDefinablePriority.
func validatePriorityClass(pc *api.PriorityClass, fs *fieldErrors) {
	if strings.HasPrefix(pc.Name, "system-") {
		if msg := knownSystemPriorityClass(pc); msg != "" {
			fs.forbidden("metadata.name", "priority class names with 'system-' prefix are reserved for system use only. error: "+msg)
		}
	} else if pc.Value > api.HighestUserDefinablePriority {
		fs.forbidden("value", fmt.Sprintf("maximum allowed value of a user defined priority is %d", api.HighestUserDefinablePriority))
	}
	switch {
	case pc.PreemptionPolicy == nil:
		fs.required("preemptionPolicy", "")
	case *pc.PreemptionPolicy != api.PreemptLowerPriority && *pc.PreemptionPolicy != api.PreemptNever:
		fs.add(FieldUnsupported, "preemptionPolicy", string(*pc.PreemptionPolicy), `supported values: "Never", "PreemptLowerPriority"`)
	}
}

// knownSystemPriorityClass returns why pc is not one of the system
// classes ("" when it is).
func knownSystemPriorityClass(pc *api.PriorityClass) string {
	for _, s := range admission.SystemPriorityClasses() {
		if s.Name != pc.Name {
			continue
		}
		if s.Value != pc.Value {
			return fmt.Sprintf("value of %s PriorityClass must be %d", s.Name, s.Value)
		}
		if pc.GlobalDefault {
			return fmt.Sprintf("globalDefault of %s PriorityClass must be false", s.Name)
		}
		return ""
	}
	return fmt.Sprintf("%s is not a known system priority class", pc.Name)
}

// validateLimitRange: ValidateLimitRange.
func validateLimitRange(l *api.LimitRange, fs *fieldErrors) {
	for i, item := range l.Spec.Limits {
		p := fmt.Sprintf("spec.limits[%d]", i)
		switch item.Type {
		case api.LimitTypePod, api.LimitTypeContainer, api.LimitTypePersistentVolumeClaim:
		default:
			if !strings.Contains(string(item.Type), "/") {
				fs.invalid(p+".type", string(item.Type), "must be a standard limit type or fully qualified")
			} else {
				checkQualifiedName(fs, p+".type", string(item.Type))
			}
		}
		if item.Type == api.LimitTypePod {
			if len(item.Default) > 0 {
				fs.forbidden(p+".default", "may not be specified when `type` is 'Pod'")
			}
			if len(item.DefaultRequest) > 0 {
				fs.forbidden(p+".defaultRequest", "may not be specified when `type` is 'Pod'")
			}
		}
		if item.Type == api.LimitTypePersistentVolumeClaim {
			_, minOK := item.Min[api.ResourceStorage]
			_, maxOK := item.Max[api.ResourceStorage]
			if !minOK && !maxOK {
				fs.required(p+".limits", "either minimum or maximum storage value is required, but neither was provided")
			}
		}
		for _, part := range []struct {
			field string
			list  api.ResourceList
		}{{"max", item.Max}, {"min", item.Min}, {"default", item.Default}, {"defaultRequest", item.DefaultRequest}, {"maxLimitRequestRatio", item.MaxLimitRequestRatio}} {
			for _, name := range sortedMapKeys(part.list) {
				if q := part.list[name]; q.Sign() < 0 {
					fs.invalid(keyPath(p+"."+part.field, string(name)), q.String(), "must be greater than or equal to 0")
				}
			}
		}
		names := map[api.ResourceName]bool{}
		for _, list := range []api.ResourceList{item.Max, item.Min, item.Default, item.DefaultRequest, item.MaxLimitRequestRatio} {
			for n := range list {
				names[n] = true
			}
		}
		for _, n := range sortedMapKeys(names) {
			k := string(n)
			mx, hasMax := item.Max[n]
			mn, hasMin := item.Min[n]
			df, hasDefault := item.Default[n]
			dr, hasRequest := item.DefaultRequest[n]
			ratio, hasRatio := item.MaxLimitRequestRatio[n]
			if hasMin && hasMax && mn.Cmp(mx) > 0 {
				fs.invalid(keyPath(p+".min", k), mn.String(), fmt.Sprintf("min value %s is greater than max value %s", mn.String(), mx.String()))
			}
			if hasRequest && hasMin && mn.Cmp(dr) > 0 {
				fs.invalid(keyPath(p+".defaultRequest", k), dr.String(), fmt.Sprintf("min value %s is greater than default request value %s", mn.String(), dr.String()))
			}
			if hasRequest && hasMax && dr.Cmp(mx) > 0 {
				fs.invalid(keyPath(p+".defaultRequest", k), dr.String(), fmt.Sprintf("default request value %s is greater than max value %s", dr.String(), mx.String()))
			}
			if hasRequest && hasDefault && dr.Cmp(df) > 0 {
				fs.invalid(keyPath(p+".defaultRequest", k), dr.String(), fmt.Sprintf("default request value %s is greater than default limit value %s", dr.String(), df.String()))
			}
			if hasDefault && hasMin && mn.Cmp(df) > 0 {
				fs.invalid(keyPath(p+".default", k), df.String(), fmt.Sprintf("min value %s is greater than default value %s", mn.String(), df.String()))
			}
			if hasDefault && hasMax && df.Cmp(mx) > 0 {
				fs.invalid(keyPath(p+".default", k), df.String(), fmt.Sprintf("default value %s is greater than max value %s", df.String(), mx.String()))
			}
			if hasRatio && ratio.CmpInt64(1) < 0 {
				fs.invalid(keyPath(p+".maxLimitRequestRatio", k), ratio.String(), fmt.Sprintf("ratio %s is less than 1", ratio.String()))
			}
			if hasRatio && hasMin && hasMax && mn.Sign() > 0 {
				maxRatio := float64(mx.MilliValue()) / float64(mn.MilliValue())
				if float64(ratio.MilliValue())/1000 > maxRatio {
					fs.invalid(keyPath(p+".maxLimitRequestRatio", k), ratio.String(), fmt.Sprintf("ratio %s is greater than max/min = %f", ratio.String(), maxRatio))
				}
			}
		}
	}
}

// defaultEndpointSlice: a port's name defaults to "" and its protocol
// to TCP (SetDefaults_EndpointPort).
func defaultEndpointSlice(s *api.EndpointSlice) {
	for i := range s.Ports {
		if s.Ports[i].Name == nil {
			s.Ports[i].Name = ptr("")
		}
		if s.Ports[i].Protocol == nil {
			s.Ports[i].Protocol = ptr(api.ProtocolTCP)
		}
	}
}

// The limits of an EndpointSlice.
const (
	maxEndpoints = 1000
	maxAddresses = 100
	maxPorts     = 100
)

// validateEndpointSlice: ValidateEndpointSlice.
func validateEndpointSlice(s *api.EndpointSlice, fs *fieldErrors) {
	switch s.AddressType {
	case api.AddressTypeIPv4, api.AddressTypeIPv6, api.AddressTypeFQDN:
	case "":
		fs.required("addressType", "")
	default:
		fs.add(FieldUnsupported, "addressType", string(s.AddressType), `supported values: "FQDN", "IPv4", "IPv6"`)
	}
	if len(s.Endpoints) > maxEndpoints {
		fs.add(FieldTooMany, "endpoints", strconv.Itoa(len(s.Endpoints)), fmt.Sprintf("must have at most %d items", maxEndpoints))
	}
	for i, e := range s.Endpoints {
		p := fmt.Sprintf("endpoints[%d]", i)
		switch {
		case len(e.Addresses) == 0:
			fs.required(p+".addresses", "must contain at least 1 address")
		case len(e.Addresses) > maxAddresses:
			fs.add(FieldTooMany, p+".addresses", strconv.Itoa(len(e.Addresses)), fmt.Sprintf("must have at most %d items", maxAddresses))
		}
		for j, a := range e.Addresses {
			checkEndpointAddress(fs, fmt.Sprintf("%s.addresses[%d]", p, j), s.AddressType, a)
		}
		if e.Hostname != nil {
			checkDNS1123Label(fs, p+".hostname", *e.Hostname)
		}
		if e.NodeName != nil {
			checkDNS1123Subdomain(fs, p+".nodeName", *e.NodeName)
		}
	}
	if len(s.Ports) > maxPorts {
		fs.add(FieldTooMany, "ports", strconv.Itoa(len(s.Ports)), fmt.Sprintf("must have at most %d items", maxPorts))
	}
	names := map[string]bool{}
	for i, port := range s.Ports {
		p := fmt.Sprintf("ports[%d]", i)
		name := ""
		if port.Name != nil {
			name = *port.Name
		}
		if name != "" {
			checkDNS1123Label(fs, p+".name", name)
		}
		if names[name] {
			fs.add(FieldDuplicate, p+".name", name, "")
		}
		names[name] = true
		if port.Protocol == nil {
			fs.required(p+".protocol", "")
		} else {
			switch *port.Protocol {
			case api.ProtocolTCP, api.ProtocolUDP, api.ProtocolSCTP:
			default:
				fs.add(FieldUnsupported, p+".protocol", string(*port.Protocol), `supported values: "SCTP", "TCP", "UDP"`)
			}
		}
		if port.Port != nil {
			checkPortRange(fs, p+".port", *port.Port)
		}
		if port.AppProtocol != nil {
			checkQualifiedName(fs, p+".appProtocol", *port.AppProtocol)
		}
	}
}

func checkEndpointAddress(fs *fieldErrors, path string, t api.AddressType, a string) {
	switch t {
	case api.AddressTypeIPv4:
		if ip, err := netip.ParseAddr(a); err != nil || !ip.Is4() {
			fs.invalid(path, a, "must be a valid IPv4 address")
		}
	case api.AddressTypeIPv6:
		if ip, err := netip.ParseAddr(a); err != nil || !ip.Is6() || ip.Is4In6() {
			fs.invalid(path, a, "must be a valid IPv6 address")
		}
	case api.AddressTypeFQDN:
		if !strings.Contains(a, ".") {
			fs.invalid(path, a, "should be a domain with at least two segments separated by dots")
		} else {
			checkDNS1123Subdomain(fs, path, a)
		}
	}
}

// defaultCSIDriver: SetDefaults_CSIDriver.
func defaultCSIDriver(d *api.CSIDriver) {
	s := &d.Spec
	for _, b := range []struct {
		p *(*bool)
		v bool
	}{{&s.AttachRequired, true}, {&s.PodInfoOnMount, false}, {&s.StorageCapacity, false},
		{&s.RequiresRepublish, false}, {&s.SELinuxMount, false}} {
		if *b.p == nil {
			*b.p = ptr(b.v)
		}
	}
	if s.FSGroupPolicy == nil {
		s.FSGroupPolicy = ptr(api.ReadWriteOnceWithFSTypeFSGroupPolicy)
	}
	if len(s.VolumeLifecycleModes) == 0 {
		s.VolumeLifecycleModes = []api.VolumeLifecycleMode{api.VolumeLifecyclePersistent}
	}
}

// checkCSIDriverName: ValidateCSIDriverName, a DNS subdomain of at most
// 63 characters.
func checkCSIDriverName(fs *fieldErrors, path, name string) {
	switch {
	case name == "":
		fs.required(path, "")
	case len(name) > 63:
		fs.add(FieldTooLong, path, "", "may not be more than 63 bytes")
	default:
		checkDNS1123Subdomain(fs, path, name)
	}
}

// validateCSIDriver: ValidateCSIDriver.
func validateCSIDriver(d *api.CSIDriver, fs *fieldErrors) {
	if len(d.Name) > 63 {
		fs.add(FieldTooLong, "metadata.name", "", "may not be more than 63 bytes")
	}
	s := &d.Spec
	if s.AttachRequired == nil {
		fs.required("spec.attachRequired", "")
	}
	if s.PodInfoOnMount == nil {
		fs.required("spec.podInfoOnMount", "")
	}
	if s.StorageCapacity == nil {
		fs.required("spec.storageCapacity", "")
	}
	if s.RequiresRepublish == nil {
		fs.required("spec.requiresRepublish", "")
	}
	if s.FSGroupPolicy != nil {
		switch *s.FSGroupPolicy {
		case api.ReadWriteOnceWithFSTypeFSGroupPolicy, api.FileFSGroupPolicy, api.NoneFSGroupPolicy:
		default:
			fs.add(FieldUnsupported, "spec.fsGroupPolicy", string(*s.FSGroupPolicy), `supported values: "File", "None", "ReadWriteOnceWithFSType"`)
		}
	}
	for _, m := range s.VolumeLifecycleModes {
		if m != api.VolumeLifecyclePersistent && m != api.VolumeLifecycleEphemeral {
			fs.add(FieldUnsupported, "spec.volumeLifecycleModes", string(m), `supported values: "Ephemeral", "Persistent"`)
		}
	}
	audiences := map[string]bool{}
	for i, t := range s.TokenRequests {
		p := fmt.Sprintf("spec.tokenRequests[%d]", i)
		if audiences[t.Audience] {
			fs.add(FieldDuplicate, p+".audience", t.Audience, "")
		}
		audiences[t.Audience] = true
		if e := t.ExpirationSeconds; e != nil {
			switch {
			case *e < 600:
				fs.invalid(p+".expirationSeconds", strconv.FormatInt(*e, 10), "may not specify a duration less than 10 minutes")
			case *e > 1<<32:
				fs.invalid(p+".expirationSeconds", strconv.FormatInt(*e, 10), "may not specify a duration larger than 2^32 seconds")
			}
		}
	}
	if p := s.NodeAllocatableUpdatePeriodSeconds; p != nil && *p < 10 {
		fs.invalid("spec.nodeAllocatableUpdatePeriodSeconds", strconv.FormatInt(*p, 10), "must be greater than or equal to 10 seconds")
	}
}

// validateCSINode: ValidateCSINode.
func validateCSINode(n *api.CSINode, fs *fieldErrors) {
	names := map[string]bool{}
	for i, d := range n.Spec.Drivers {
		p := fmt.Sprintf("spec.drivers[%d]", i)
		checkCSIDriverName(fs, p+".name", d.Name)
		if names[d.Name] {
			fs.add(FieldDuplicate, p+".name", d.Name, "")
		}
		names[d.Name] = true
		switch {
		case d.NodeID == "":
			fs.required(p+".nodeID", "")
		case len(d.NodeID) > 192:
			fs.add(FieldTooLong, p+".nodeID", "", "may not be more than 192 bytes")
		}
		keys := map[string]bool{}
		for j, k := range d.TopologyKeys {
			kp := fmt.Sprintf("%s.topologyKeys[%d]", p, j)
			if k == "" {
				fs.required(kp, "")
				continue
			}
			if keys[k] {
				fs.add(FieldDuplicate, kp, k, "")
			}
			keys[k] = true
			checkQualifiedName(fs, kp, k)
		}
		if a := d.Allocatable; a != nil && a.Count != nil && *a.Count < 0 {
			fs.invalid(p+".allocatable.count", strconv.Itoa(int(*a.Count)), "must be greater than or equal to 0")
		}
	}
}

// validateCSINodeUpdate: drivers may come and go, but a driver's nodeID
// and topologyKeys may not change (ValidateCSINodeUpdate).
func validateCSINodeUpdate(old, cur *api.CSINode, fs *fieldErrors) {
	for _, od := range old.Spec.Drivers {
		i := slices.IndexFunc(cur.Spec.Drivers, func(d api.CSINodeDriver) bool { return d.Name == od.Name })
		if i < 0 {
			continue
		}
		d := cur.Spec.Drivers[i]
		p := fmt.Sprintf("spec.drivers[%d]", i)
		if d.NodeID != od.NodeID {
			fs.invalid(p+".nodeID", d.NodeID, "field is immutable")
		}
		if !slices.Equal(d.TopologyKeys, od.TopologyKeys) {
			fs.invalid(p+".topologyKeys", strings.Join(d.TopologyKeys, ","), "field is immutable")
		}
	}
}

// validateVolumeAttachment: ValidateVolumeAttachment.
func validateVolumeAttachment(v *api.VolumeAttachment, fs *fieldErrors) {
	checkCSIDriverName(fs, "spec.attacher", v.Spec.Attacher)
	if v.Spec.NodeName == "" {
		fs.required("spec.nodeName", "")
	} else {
		checkDNS1123Subdomain(fs, "spec.nodeName", v.Spec.NodeName)
	}
	src := v.Spec.Source
	switch {
	case src.PersistentVolumeName == nil && src.InlineVolumeSpec == nil:
		fs.required("spec.source", "must specify exactly one of inlineVolumeSpec and persistentVolumeName")
	case src.PersistentVolumeName != nil && src.InlineVolumeSpec != nil:
		fs.forbidden("spec.source", "must specify exactly one of inlineVolumeSpec and persistentVolumeName")
	case src.PersistentVolumeName != nil:
		if *src.PersistentVolumeName == "" {
			fs.required("spec.source.persistentVolumeName", "must specify non empty persistentVolumeName")
		} else {
			checkDNS1123Subdomain(fs, "spec.source.persistentVolumeName", *src.PersistentVolumeName)
		}
	}
}
