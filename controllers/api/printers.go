package api

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The printer columns of the built-in kinds (KindInfo.Columns and
// Cells), as kubectl's printers (k8s.io/kubernetes pkg/printers/internalversion)
// compute them.

// podColumns and podCells are the table of Pod objects.
var podColumns = []Column{{"Name", "string", 0}, {"Ready", "string", 0}, {"Status", "string", 0},
	{"Restarts", "string", 0}, {"Age", "string", 0}, {"IP", "string", 1}, {"Node", "string", 1},
	{"Nominated Node", "string", 1}, {"Readiness Gates", "string", 1}}

func podCells(o Object, now time.Time) []any {
	p := o.(*Pod)
	reason, ready, total, restarts := podStatus(p)
	return []any{p.Name, fmt.Sprintf("%d/%d", ready, total), reason, strconv.Itoa(restarts), age(p, now),
		orNone(p.Status.PodIP), orNone(p.Spec.NodeName), orNone(p.Status.NominatedNodeName), "<none>"}
}

// deploymentColumns and deploymentCells are the table of Deployment objects.
var deploymentColumns = []Column{{"Name", "string", 0}, {"Ready", "string", 0}, {"Up-to-date", "integer", 0},
	{"Available", "integer", 0}, {"Age", "string", 0}, {"Containers", "string", 1},
	{"Images", "string", 1}, {"Selector", "string", 1}}

func deploymentCells(o Object, now time.Time) []any {
	d := o.(*Deployment)
	c, i := containersImages(&d.Spec.Template.Spec)
	return []any{d.Name, fmt.Sprintf("%d/%d", d.Status.ReadyReplicas, replicas(d.Spec.Replicas)),
		d.Status.UpdatedReplicas, d.Status.AvailableReplicas, age(d, now), c, i, labelSelectorString(d.Spec.Selector)}
}

// replicaSetColumns and replicaSetCells are the table of ReplicaSet objects.
var replicaSetColumns = []Column{{"Name", "string", 0}, {"Desired", "integer", 0}, {"Current", "integer", 0},
	{"Ready", "integer", 0}, {"Age", "string", 0}, {"Containers", "string", 1},
	{"Images", "string", 1}, {"Selector", "string", 1}}

func replicaSetCells(o Object, now time.Time) []any {
	rs := o.(*ReplicaSet)
	c, i := containersImages(&rs.Spec.Template.Spec)
	return []any{rs.Name, replicas(rs.Spec.Replicas), rs.Status.Replicas, rs.Status.ReadyReplicas, age(rs, now),
		c, i, labelSelectorString(rs.Spec.Selector)}
}

// statefulSetColumns and statefulSetCells are the table of StatefulSet objects.
var statefulSetColumns = []Column{{"Name", "string", 0}, {"Ready", "string", 0}, {"Age", "string", 0},
	{"Containers", "string", 1}, {"Images", "string", 1}}

func statefulSetCells(o Object, now time.Time) []any {
	s := o.(*StatefulSet)
	c, i := containersImages(&s.Spec.Template.Spec)
	return []any{s.Name, fmt.Sprintf("%d/%d", s.Status.ReadyReplicas, replicas(s.Spec.Replicas)), age(s, now), c, i}
}

// daemonSetColumns and daemonSetCells are the table of DaemonSet objects.
var daemonSetColumns = []Column{{"Name", "string", 0}, {"Desired", "integer", 0}, {"Current", "integer", 0},
	{"Ready", "integer", 0}, {"Up-to-date", "integer", 0}, {"Available", "integer", 0},
	{"Node Selector", "string", 0}, {"Age", "string", 0}, {"Containers", "string", 1},
	{"Images", "string", 1}, {"Selector", "string", 1}}

func daemonSetCells(o Object, now time.Time) []any {
	d := o.(*DaemonSet)
	c, i := containersImages(&d.Spec.Template.Spec)
	return []any{d.Name, d.Status.DesiredNumberScheduled, d.Status.CurrentNumberScheduled, d.Status.NumberReady,
		d.Status.UpdatedNumberScheduled, d.Status.NumberAvailable,
		orNone(SelectorFromSet(d.Spec.Template.Spec.NodeSelector).String()), age(d, now), c, i,
		labelSelectorString(d.Spec.Selector)}
}

// jobColumns and jobCells are the table of Job objects.
var jobColumns = []Column{{"Name", "string", 0}, {"Status", "string", 0}, {"Completions", "string", 0},
	{"Duration", "string", 0}, {"Age", "string", 0}, {"Containers", "string", 1},
	{"Images", "string", 1}, {"Selector", "string", 1}}

func jobCells(o Object, now time.Time) []any {
	j := o.(*Job)
	c, i := containersImages(&j.Spec.Template.Spec)
	status := "Running"
	for _, cond := range j.Status.Conditions {
		if cond.Status == ConditionTrue && (cond.Type == "Complete" || cond.Type == "Failed") {
			status = string(cond.Type)
		}
	}
	dur := ""
	if j.Status.StartTime != nil {
		end := now
		if j.Status.CompletionTime != nil {
			end = j.Status.CompletionTime.Time
		}
		dur = HumanDuration(end.Sub(j.Status.StartTime.Time))
	}
	return []any{j.Name, status, fmt.Sprintf("%d/%d", j.Status.Succeeded, replicas(j.Spec.Completions)), dur,
		age(j, now), c, i, labelSelectorString(j.Spec.Selector)}
}

// cronJobColumns and cronJobCells are the table of CronJob objects.
var cronJobColumns = []Column{{"Name", "string", 0}, {"Schedule", "string", 0}, {"Timezone", "string", 0},
	{"Suspend", "boolean", 0}, {"Active", "integer", 0}, {"Last Schedule", "string", 0},
	{"Age", "string", 0}}

func cronJobCells(o Object, now time.Time) []any {
	c := o.(*CronJob)
	tz, last := "<none>", "<none>"
	if c.Spec.TimeZone != nil {
		tz = *c.Spec.TimeZone
	}
	if c.Status.LastScheduleTime != nil {
		last = HumanDuration(now.Sub(c.Status.LastScheduleTime.Time))
	}
	return []any{c.Name, c.Spec.Schedule, tz, c.Spec.Suspend != nil && *c.Spec.Suspend, len(c.Status.Active), last, age(c, now)}
}

// serviceColumns and serviceCells are the table of Service objects.
var serviceColumns = []Column{{"Name", "string", 0}, {"Type", "string", 0}, {"Cluster-IP", "string", 0},
	{"External-IP", "string", 0}, {"Port(s)", "string", 0}, {"Age", "string", 0}, {"Selector", "string", 1}}

func serviceCells(o Object, now time.Time) []any {
	s := o.(*Service)
	var ports []string
	for _, p := range s.Spec.Ports {
		if p.NodePort != 0 {
			ports = append(ports, fmt.Sprintf("%d:%d/%s", p.Port, p.NodePort, p.Protocol))
		} else {
			ports = append(ports, fmt.Sprintf("%d/%s", p.Port, p.Protocol))
		}
	}
	ext := strings.Join(s.Spec.ExternalIPs, ",")
	if ext == "" && s.Spec.Type == ServiceTypeLoadBalancer {
		ext = "<pending>"
	}
	return []any{s.Name, string(s.Spec.Type), orNone(s.Spec.ClusterIP), orNone(ext), orNone(strings.Join(ports, ",")),
		age(s, now), orNone(SelectorFromSet(s.Spec.Selector).String())}
}

// endpointsColumns and endpointsCells are the table of Endpoints objects.
var endpointsColumns = []Column{{"Name", "string", 0}, {"Endpoints", "string", 0}, {"Age", "string", 0}}

func endpointsCells(o Object, now time.Time) []any {
	e := o.(*Endpoints)
	var list []string
	for _, ss := range e.Subsets {
		for _, a := range ss.Addresses {
			if len(ss.Ports) == 0 {
				list = append(list, a.IP)
			}
			for _, p := range ss.Ports {
				list = append(list, fmt.Sprintf("%s:%d", a.IP, p.Port))
			}
		}
	}
	s := strings.Join(list, ",")
	if len(list) > 3 {
		s = strings.Join(list[:3], ",") + fmt.Sprintf(" + %d more...", len(list)-3)
	}
	return []any{e.Name, orNone(s), age(e, now)}
}

// nodeColumns and nodeCells are the table of Node objects.
var nodeColumns = []Column{{"Name", "string", 0}, {"Status", "string", 0}, {"Roles", "string", 0},
	{"Age", "string", 0}, {"Version", "string", 0}, {"Internal-IP", "string", 1},
	{"External-IP", "string", 1}, {"OS-Image", "string", 1}, {"Kernel-Version", "string", 1},
	{"Container-Runtime", "string", 1}}

func nodeCells(o Object, now time.Time) []any {
	n := o.(*Node)
	status := "Unknown"
	for _, c := range n.Status.Conditions {
		if c.Type == NodeReady {
			status = "NotReady"
			if c.Status == ConditionTrue {
				status = "Ready"
			}
		}
	}
	if n.Spec.Unschedulable {
		status += ",SchedulingDisabled"
	}
	var roles []string
	for k := range n.Labels {
		if r, ok := strings.CutPrefix(k, "node-role.kubernetes.io/"); ok && r != "" {
			roles = append(roles, r)
		}
	}
	sort.Strings(roles)
	internal, external := "<none>", "<none>"
	for _, a := range n.Status.Addresses {
		switch a.Type {
		case "InternalIP":
			internal = a.Address
		case "ExternalIP":
			external = a.Address
		}
	}
	info := n.Status.NodeInfo
	return []any{n.Name, status, orNone(strings.Join(roles, ",")), age(n, now), info.KubeletVersion, internal, external,
		orNone(info.OSImage), orNone(info.KernelVersion), orNone(info.ContainerRuntimeVersion)}
}

// namespaceColumns and namespaceCells are the table of Namespace objects.
var namespaceColumns = []Column{{"Name", "string", 0}, {"Status", "string", 0}, {"Age", "string", 0}}

func namespaceCells(o Object, now time.Time) []any {
	n := o.(*Namespace)
	return []any{n.Name, string(n.Status.Phase), age(n, now)}
}

// eventColumns and eventCells are the table of Event objects.
var eventColumns = []Column{{"Last Seen", "string", 0}, {"Type", "string", 0}, {"Reason", "string", 0},
	{"Object", "string", 0}, {"Message", "string", 0}, {"Name", "string", 1}}

func eventCells(o Object, now time.Time) []any {
	e := o.(*Event)
	last := e.LastTimestamp.Time
	if last.IsZero() {
		last = e.EventTime.Time
	}
	seen := "<unknown>"
	if !last.IsZero() {
		seen = HumanDuration(now.Sub(last))
	}
	obj := strings.ToLower(e.InvolvedObject.Kind) + "/" + e.InvolvedObject.Name
	return []any{seen, e.Type, e.Reason, obj, strings.TrimSpace(e.Message), e.Name}
}

// podStatus is the STATUS column of a pod, as kubectl computes it, with
// the READY and RESTARTS counts: restartable init containers (sidecars)
// count among the containers, ready once started and ready; an init
// container still running, failed or waiting makes the status Init:….
func podStatus(p *Pod) (reason string, ready, total, restarts int) {
	reason = string(p.Status.Phase)
	if p.Status.Reason != "" {
		reason = p.Status.Reason
	}
	total = len(p.Spec.Containers)
	sidecar := map[string]bool{}
	for _, c := range p.Spec.InitContainers {
		if IsRestartableInitContainer(&c) {
			sidecar[c.Name] = true
			total++
		}
	}
	initializing, sidecarRestarts := false, 0
	for i, cs := range p.Status.InitContainerStatuses {
		restarts += int(cs.RestartCount)
		if sidecar[cs.Name] {
			sidecarRestarts += int(cs.RestartCount)
		}
		switch t, w := cs.State.Terminated, cs.State.Waiting; {
		case t != nil && t.ExitCode == 0:
			continue
		case sidecar[cs.Name] && cs.Started != nil && *cs.Started:
			if cs.Ready {
				ready++
			}
			continue
		case t != nil && t.Reason != "":
			reason = "Init:" + t.Reason
		case t != nil:
			reason = fmt.Sprintf("Init:ExitCode:%d", t.ExitCode)
		case w != nil && w.Reason != "" && w.Reason != "PodInitializing":
			reason = "Init:" + w.Reason
		default:
			reason = fmt.Sprintf("Init:%d/%d", i, len(p.Spec.InitContainers))
		}
		initializing = true
		break
	}
	if initialized, ok := p.Status.GetCondition(PodInitialized); !initializing || ok && initialized.Status == ConditionTrue {
		restarts = sidecarRestarts
		running := false
		for i := len(p.Status.ContainerStatuses) - 1; i >= 0; i-- {
			cs := p.Status.ContainerStatuses[i]
			restarts += int(cs.RestartCount)
			switch {
			case cs.State.Waiting != nil && cs.State.Waiting.Reason != "":
				reason = cs.State.Waiting.Reason
			case cs.State.Terminated != nil && cs.State.Terminated.Reason != "":
				reason = cs.State.Terminated.Reason
			case cs.State.Terminated != nil:
				reason = fmt.Sprintf("ExitCode:%d", cs.State.Terminated.ExitCode)
			case cs.Ready && cs.State.Running != nil:
				running = true
				ready++
			}
		}
		// A pod with a container still running is not Completed.
		if reason == "Completed" && running {
			if c, ok := p.Status.GetCondition(PodReady); ok && c.Status == ConditionTrue {
				reason = "Running"
			} else {
				reason = "NotReady"
			}
		}
	}
	if p.DeletionTimestamp != nil {
		reason = "Terminating"
	}
	return reason, ready, total, restarts
}

// HumanDuration formats d as kubectl's AGE column does ("45s", "3m12s",
// "5h", "12d").
func HumanDuration(d time.Duration) string {
	if s := int(d.Seconds()); s < -1 {
		return "<invalid>"
	} else if s < 0 {
		return "0s"
	} else if s < 120 {
		return fmt.Sprintf("%ds", s)
	}
	m := int(d.Minutes())
	if m < 10 {
		s := int(d/time.Second) % 60
		if s == 0 {
			return fmt.Sprintf("%dm", m)
		}
		return fmt.Sprintf("%dm%ds", m, s)
	} else if m < 3*60 {
		return fmt.Sprintf("%dm", m)
	}
	hr := int(d.Hours())
	switch {
	case hr < 8:
		if mm := m % 60; mm != 0 {
			return fmt.Sprintf("%dh%dm", hr, mm)
		}
		return fmt.Sprintf("%dh", hr)
	case hr < 48:
		return fmt.Sprintf("%dh", hr)
	case hr < 24*8:
		if h := hr % 24; h != 0 {
			return fmt.Sprintf("%dd%dh", hr/24, h)
		}
		return fmt.Sprintf("%dd", hr/24)
	case hr < 24*365*2:
		return fmt.Sprintf("%dd", hr/24)
	case hr < 24*365*8:
		if dd := hr / 24 % 365; dd != 0 {
			return fmt.Sprintf("%dy%dd", hr/24/365, dd)
		}
		return fmt.Sprintf("%dy", hr/24/365)
	}
	return fmt.Sprintf("%dy", hr/24/365)
}

func age(obj Object, now time.Time) string {
	ts := obj.GetObjectMeta().CreationTimestamp
	if ts.IsZero() {
		return "<unknown>"
	}
	return HumanDuration(now.Sub(ts.Time))
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

func containersImages(spec *PodSpec) (string, string) {
	var names, images []string
	for _, c := range spec.Containers {
		names = append(names, c.Name)
		images = append(images, c.Image)
	}
	return strings.Join(names, ","), strings.Join(images, ",")
}

func replicas(p *int32) int32 {
	if p == nil {
		return 1
	}
	return *p
}

// labelSelectorString is ls in label-selector syntax; "" for nil or
// invalid.
func labelSelectorString(ls *LabelSelector) string {
	if ls == nil {
		return ""
	}
	sel, err := ls.AsSelector()
	if err != nil {
		return ""
	}
	return sel.String()
}
