package api

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The tables of the kinds served without a controller, as kubectl's
// printers (k8s.io/kubernetes pkg/printers/internalversion) compute them.

// podDisruptionBudgetColumns and podDisruptionBudgetCells are the table
// of PodDisruptionBudget objects.
var podDisruptionBudgetColumns = []Column{{"Name", "string", 0}, {"Min Available", "string", 0},
	{"Max Unavailable", "string", 0}, {"Allowed Disruptions", "integer", 0}, {"Age", "string", 0}}

func podDisruptionBudgetCells(o Object, now time.Time) []any {
	p := o.(*PodDisruptionBudget)
	orNA := func(v *IntOrString) string {
		if v == nil {
			return "N/A"
		}
		return v.String()
	}
	return []any{p.Name, orNA(p.Spec.MinAvailable), orNA(p.Spec.MaxUnavailable), int64(p.Status.DisruptionsAllowed), age(p, now)}
}

// ingressColumns and ingressCells are the table of Ingress objects.
var ingressColumns = []Column{{"Name", "string", 0}, {"Class", "string", 0}, {"Hosts", "string", 0},
	{"Address", "string", 0}, {"Ports", "string", 0}, {"Age", "string", 0}}

func ingressCells(o Object, now time.Time) []any {
	ing := o.(*Ingress)
	class := "<none>"
	if ing.Spec.IngressClassName != nil {
		class = *ing.Spec.IngressClassName
	}
	var hosts []string
	for _, r := range ing.Spec.Rules {
		if r.Host != "" {
			hosts = append(hosts, r.Host)
		}
	}
	var addrs []string
	for _, in := range ing.Status.LoadBalancer.Ingress {
		if in.IP != "" {
			addrs = append(addrs, in.IP)
		} else if in.Hostname != "" {
			addrs = append(addrs, in.Hostname)
		}
	}
	address := strings.Join(addrs, ",")
	if len(address) > loadBalancerWidth {
		address = address[:loadBalancerWidth-3] + "..."
	}
	ports := "80"
	if len(ing.Spec.TLS) > 0 {
		ports = "80, 443"
	}
	return []any{ing.Name, class, firstThree(hosts, "*"), address, ports, age(ing, now)}
}

// loadBalancerWidth is how much of an address list a table shows
// without -o wide, as kubectl's printers.
const loadBalancerWidth = 16

// firstThree joins at most three of list with "," and says how many
// more there are ("a,b,c + 2 more..."); empty is none.
func firstThree(list []string, none string) string {
	switch {
	case len(list) == 0:
		return none
	case len(list) > 3:
		return strings.Join(list[:3], ",") + fmt.Sprintf(" + %d more...", len(list)-3)
	}
	return strings.Join(list, ",")
}

// ingressClassColumns and ingressClassCells are the table of
// IngressClass objects.
var ingressClassColumns = []Column{{"Name", "string", 0}, {"Controller", "string", 0},
	{"Parameters", "string", 0}, {"Age", "string", 0}}

func ingressClassCells(o Object, now time.Time) []any {
	c := o.(*IngressClass)
	params := "<none>"
	if p := c.Spec.Parameters; p != nil {
		params = p.Kind
		if p.APIGroup != nil {
			params += "." + *p.APIGroup
		}
		params += "/" + p.Name
	}
	return []any{c.Name, c.Spec.Controller, params, age(c, now)}
}

// networkPolicyColumns and networkPolicyCells are the table of
// NetworkPolicy objects.
var networkPolicyColumns = []Column{{"Name", "string", 0}, {"Pod-Selector", "string", 0}, {"Age", "string", 0}}

func networkPolicyCells(o Object, now time.Time) []any {
	n := o.(*NetworkPolicy)
	return []any{n.Name, orNone(labelSelectorString(&n.Spec.PodSelector)), age(n, now)}
}

// priorityClassColumns and priorityClassCells are the table of
// PriorityClass objects.
var priorityClassColumns = []Column{{"Name", "string", 0}, {"Value", "integer", 0},
	{"Global-Default", "boolean", 0}, {"Age", "string", 0}, {"PreemptionPolicy", "string", 0}}

func priorityClassCells(o Object, now time.Time) []any {
	c := o.(*PriorityClass)
	policy := "<unset>"
	if c.PreemptionPolicy != nil {
		policy = string(*c.PreemptionPolicy)
	}
	return []any{c.Name, int64(c.Value), c.GlobalDefault, age(c, now), policy}
}

// limitRangeColumns and limitRangeCells are the table of LimitRange
// objects.
var limitRangeColumns = []Column{{"Name", "string", 0}, {"Created At", "date", 0}}

func limitRangeCells(o Object, _ time.Time) []any {
	l := o.(*LimitRange)
	return []any{l.Name, l.CreationTimestamp.UTC().Format(time.RFC3339)}
}

// endpointSliceColumns and endpointSliceCells are the table of
// EndpointSlice objects.
var endpointSliceColumns = []Column{{"Name", "string", 0}, {"AddressType", "string", 0},
	{"Ports", "string", 0}, {"Endpoints", "string", 0}, {"Age", "string", 0}}

func endpointSliceCells(o Object, now time.Time) []any {
	s := o.(*EndpointSlice)
	var ports []string
	for _, p := range s.Ports {
		if p.Port == nil {
			ports = append(ports, "<unset>")
		} else {
			ports = append(ports, strconv.Itoa(int(*p.Port)))
		}
	}
	var addrs []string
	for _, e := range s.Endpoints {
		addrs = append(addrs, e.Addresses...)
	}
	return []any{s.Name, string(s.AddressType), firstThree(ports, "<unset>"), firstThree(addrs, "<unset>"), age(s, now)}
}

// csiDriverColumns and csiDriverCells are the table of CSIDriver objects.
var csiDriverColumns = []Column{{"Name", "string", 0}, {"AttachRequired", "boolean", 0},
	{"PodInfoOnMount", "boolean", 0}, {"StorageCapacity", "boolean", 0}, {"TokenRequests", "string", 0},
	{"RequiresRepublish", "boolean", 0}, {"Modes", "string", 0}, {"Age", "string", 0}}

func csiDriverCells(o Object, now time.Time) []any {
	d := o.(*CSIDriver)
	flag := func(b *bool, dflt bool) bool {
		if b == nil {
			return dflt
		}
		return *b
	}
	tokens := "<unset>"
	if len(d.Spec.TokenRequests) > 0 {
		auds := make([]string, len(d.Spec.TokenRequests))
		for i, t := range d.Spec.TokenRequests {
			auds[i] = t.Audience
		}
		tokens = strings.Join(auds, ",")
	}
	modes := make([]string, len(d.Spec.VolumeLifecycleModes))
	for i, m := range d.Spec.VolumeLifecycleModes {
		modes[i] = string(m)
	}
	return []any{d.Name, flag(d.Spec.AttachRequired, true), flag(d.Spec.PodInfoOnMount, false),
		flag(d.Spec.StorageCapacity, false), tokens, flag(d.Spec.RequiresRepublish, false),
		strings.Join(modes, ","), age(d, now)}
}

// csiNodeColumns and csiNodeCells are the table of CSINode objects.
var csiNodeColumns = []Column{{"Name", "string", 0}, {"Drivers", "integer", 0}, {"Age", "string", 0}}

func csiNodeCells(o Object, now time.Time) []any {
	n := o.(*CSINode)
	return []any{n.Name, int64(len(n.Spec.Drivers)), age(n, now)}
}

// volumeAttachmentColumns and volumeAttachmentCells are the table of
// VolumeAttachment objects.
var volumeAttachmentColumns = []Column{{"Name", "string", 0}, {"Attacher", "string", 0},
	{"PV", "string", 0}, {"Node", "string", 0}, {"Attached", "boolean", 0}, {"Age", "string", 0}}

func volumeAttachmentCells(o Object, now time.Time) []any {
	v := o.(*VolumeAttachment)
	pv := ""
	if v.Spec.Source.PersistentVolumeName != nil {
		pv = *v.Spec.Source.PersistentVolumeName
	}
	return []any{v.Name, v.Spec.Attacher, pv, v.Spec.NodeName, v.Status.Attached, age(v, now)}
}
