package apiserver

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// table is metav1.Table.
type table struct {
	api.TypeMeta      `json:",inline"`
	Metadata          ListMeta `json:"metadata"`
	ColumnDefinitions []column `json:"columnDefinitions"`
	Rows              []row    `json:"rows"`
}

// column is metav1.TableColumnDefinition.
type column struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Format      string `json:"format"`
	Description string `json:"description"`
	Priority    int32  `json:"priority"`
}

// row is metav1.TableRow.
type row struct {
	Cells  []any `json:"cells"`
	Object any   `json:"object,omitempty"`
}

// printer is the columns of one kind and the cells of one object.
type printer struct {
	columns []column
	cells   func(obj api.Object, now time.Time) []any
}

func col(name, typ string, priority int32) column {
	c := column{Name: name, Type: typ, Priority: priority, Description: name}
	if name == "Name" {
		c.Format = "name"
	}
	return c
}

func (h *typed[T]) table(req *request, objs []T, rv, cont string) table {
	p, ok := printers[h.res.kind]
	if !ok {
		p = defaultPrinter
	}
	include := req.r.URL.Query().Get("includeObject")
	t := table{TypeMeta: api.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "Table"},
		Metadata: ListMeta{ResourceVersion: rv, Continue: cont}, ColumnDefinitions: p.columns, Rows: []row{}}
	now := time.Now()
	for _, obj := range objs {
		r := row{Cells: p.cells(obj, now)}
		switch include {
		case "None":
		case "Object":
			r.Object = obj
		default: // Metadata, kube-apiserver's default
			r.Object = partialMetadata(obj)
		}
		t.Rows = append(t.Rows, r)
	}
	return t
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

func age(obj api.Object, now time.Time) string {
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

func containersImages(spec *api.PodSpec) (string, string) {
	var names, images []string
	for _, c := range spec.Containers {
		names = append(names, c.Name)
		images = append(images, c.Image)
	}
	return strings.Join(names, ","), strings.Join(images, ",")
}

var defaultPrinter = printer{
	columns: []column{col("Name", "string", 0), col("Age", "string", 0)},
	cells:   func(o api.Object, now time.Time) []any { return []any{o.GetObjectMeta().Name, age(o, now)} },
}

// podStatus is the STATUS column of a pod, as kubectl computes it.
func podStatus(p *api.Pod) (reason string, ready, total, restarts int) {
	reason = string(p.Status.Phase)
	if p.Status.Reason != "" {
		reason = p.Status.Reason
	}
	total = len(p.Spec.Containers)
	for i := len(p.Status.ContainerStatuses) - 1; i >= 0; i-- {
		cs := p.Status.ContainerStatuses[i]
		restarts += int(cs.RestartCount)
		switch {
		case cs.State.Waiting != nil && cs.State.Waiting.Reason != "":
			reason = cs.State.Waiting.Reason
		case cs.State.Terminated != nil && cs.State.Terminated.Reason != "":
			reason = cs.State.Terminated.Reason
		case cs.Ready && cs.State.Running != nil:
			ready++
		}
	}
	if p.DeletionTimestamp != nil {
		reason = "Terminating"
	}
	return reason, ready, total, restarts
}

var printers = map[string]printer{
	"Pod": {
		columns: []column{col("Name", "string", 0), col("Ready", "string", 0), col("Status", "string", 0),
			col("Restarts", "string", 0), col("Age", "string", 0), col("IP", "string", 1), col("Node", "string", 1),
			col("Nominated Node", "string", 1), col("Readiness Gates", "string", 1)},
		cells: func(o api.Object, now time.Time) []any {
			p := o.(*api.Pod)
			reason, ready, total, restarts := podStatus(p)
			return []any{p.Name, fmt.Sprintf("%d/%d", ready, total), reason, strconv.Itoa(restarts), age(p, now),
				orNone(p.Status.PodIP), orNone(p.Spec.NodeName), orNone(p.Status.NominatedNodeName), "<none>"}
		},
	},
	"Deployment": {
		columns: []column{col("Name", "string", 0), col("Ready", "string", 0), col("Up-to-date", "integer", 0),
			col("Available", "integer", 0), col("Age", "string", 0), col("Containers", "string", 1),
			col("Images", "string", 1), col("Selector", "string", 1)},
		cells: func(o api.Object, now time.Time) []any {
			d := o.(*api.Deployment)
			c, i := containersImages(&d.Spec.Template.Spec)
			return []any{d.Name, fmt.Sprintf("%d/%d", d.Status.ReadyReplicas, replicas(d.Spec.Replicas)),
				d.Status.UpdatedReplicas, d.Status.AvailableReplicas, age(d, now), c, i, labelSelectorString(d.Spec.Selector)}
		},
	},
	"ReplicaSet": {
		columns: []column{col("Name", "string", 0), col("Desired", "integer", 0), col("Current", "integer", 0),
			col("Ready", "integer", 0), col("Age", "string", 0), col("Containers", "string", 1),
			col("Images", "string", 1), col("Selector", "string", 1)},
		cells: func(o api.Object, now time.Time) []any {
			rs := o.(*api.ReplicaSet)
			c, i := containersImages(&rs.Spec.Template.Spec)
			return []any{rs.Name, replicas(rs.Spec.Replicas), rs.Status.Replicas, rs.Status.ReadyReplicas, age(rs, now),
				c, i, labelSelectorString(rs.Spec.Selector)}
		},
	},
	"StatefulSet": {
		columns: []column{col("Name", "string", 0), col("Ready", "string", 0), col("Age", "string", 0),
			col("Containers", "string", 1), col("Images", "string", 1)},
		cells: func(o api.Object, now time.Time) []any {
			s := o.(*api.StatefulSet)
			c, i := containersImages(&s.Spec.Template.Spec)
			return []any{s.Name, fmt.Sprintf("%d/%d", s.Status.ReadyReplicas, replicas(s.Spec.Replicas)), age(s, now), c, i}
		},
	},
	"DaemonSet": {
		columns: []column{col("Name", "string", 0), col("Desired", "integer", 0), col("Current", "integer", 0),
			col("Ready", "integer", 0), col("Up-to-date", "integer", 0), col("Available", "integer", 0),
			col("Node Selector", "string", 0), col("Age", "string", 0), col("Containers", "string", 1),
			col("Images", "string", 1), col("Selector", "string", 1)},
		cells: func(o api.Object, now time.Time) []any {
			d := o.(*api.DaemonSet)
			c, i := containersImages(&d.Spec.Template.Spec)
			return []any{d.Name, d.Status.DesiredNumberScheduled, d.Status.CurrentNumberScheduled, d.Status.NumberReady,
				d.Status.UpdatedNumberScheduled, d.Status.NumberAvailable,
				orNone(api.SelectorFromSet(d.Spec.Template.Spec.NodeSelector).String()), age(d, now), c, i,
				labelSelectorString(d.Spec.Selector)}
		},
	},
	"Job": {
		columns: []column{col("Name", "string", 0), col("Status", "string", 0), col("Completions", "string", 0),
			col("Duration", "string", 0), col("Age", "string", 0), col("Containers", "string", 1),
			col("Images", "string", 1), col("Selector", "string", 1)},
		cells: func(o api.Object, now time.Time) []any {
			j := o.(*api.Job)
			c, i := containersImages(&j.Spec.Template.Spec)
			status := "Running"
			for _, cond := range j.Status.Conditions {
				if cond.Status == api.ConditionTrue && (cond.Type == "Complete" || cond.Type == "Failed") {
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
		},
	},
	"CronJob": {
		columns: []column{col("Name", "string", 0), col("Schedule", "string", 0), col("Timezone", "string", 0),
			col("Suspend", "boolean", 0), col("Active", "integer", 0), col("Last Schedule", "string", 0),
			col("Age", "string", 0)},
		cells: func(o api.Object, now time.Time) []any {
			c := o.(*api.CronJob)
			tz, last := "<none>", "<none>"
			if c.Spec.TimeZone != nil {
				tz = *c.Spec.TimeZone
			}
			if c.Status.LastScheduleTime != nil {
				last = HumanDuration(now.Sub(c.Status.LastScheduleTime.Time))
			}
			return []any{c.Name, c.Spec.Schedule, tz, c.Spec.Suspend != nil && *c.Spec.Suspend, len(c.Status.Active), last, age(c, now)}
		},
	},
	"Service": {
		columns: []column{col("Name", "string", 0), col("Type", "string", 0), col("Cluster-IP", "string", 0),
			col("External-IP", "string", 0), col("Port(s)", "string", 0), col("Age", "string", 0), col("Selector", "string", 1)},
		cells: func(o api.Object, now time.Time) []any {
			s := o.(*api.Service)
			var ports []string
			for _, p := range s.Spec.Ports {
				if p.NodePort != 0 {
					ports = append(ports, fmt.Sprintf("%d:%d/%s", p.Port, p.NodePort, p.Protocol))
				} else {
					ports = append(ports, fmt.Sprintf("%d/%s", p.Port, p.Protocol))
				}
			}
			ext := strings.Join(s.Spec.ExternalIPs, ",")
			if ext == "" && s.Spec.Type == api.ServiceTypeLoadBalancer {
				ext = "<pending>"
			}
			return []any{s.Name, string(s.Spec.Type), orNone(s.Spec.ClusterIP), orNone(ext), orNone(strings.Join(ports, ",")),
				age(s, now), orNone(api.SelectorFromSet(s.Spec.Selector).String())}
		},
	},
	"Endpoints": {
		columns: []column{col("Name", "string", 0), col("Endpoints", "string", 0), col("Age", "string", 0)},
		cells: func(o api.Object, now time.Time) []any {
			e := o.(*api.Endpoints)
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
		},
	},
	"Node": {
		columns: []column{col("Name", "string", 0), col("Status", "string", 0), col("Roles", "string", 0),
			col("Age", "string", 0), col("Version", "string", 0), col("Internal-IP", "string", 1),
			col("External-IP", "string", 1), col("OS-Image", "string", 1), col("Kernel-Version", "string", 1),
			col("Container-Runtime", "string", 1)},
		cells: func(o api.Object, now time.Time) []any {
			n := o.(*api.Node)
			status := "Unknown"
			for _, c := range n.Status.Conditions {
				if c.Type == api.NodeReady {
					status = "NotReady"
					if c.Status == api.ConditionTrue {
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
		},
	},
	"Namespace": {
		columns: []column{col("Name", "string", 0), col("Status", "string", 0), col("Age", "string", 0)},
		cells: func(o api.Object, now time.Time) []any {
			n := o.(*api.Namespace)
			return []any{n.Name, string(n.Status.Phase), age(n, now)}
		},
	},
	"Event": {
		columns: []column{col("Last Seen", "string", 0), col("Type", "string", 0), col("Reason", "string", 0),
			col("Object", "string", 0), col("Message", "string", 0), col("Name", "string", 1)},
		cells: func(o api.Object, now time.Time) []any {
			e := o.(*api.Event)
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
		},
	},
}

func replicas(p *int32) int32 {
	if p == nil {
		return 1
	}
	return *p
}
