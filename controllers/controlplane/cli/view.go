package cli

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/manager"
	"github.com/ctrlkit/ctrlkit/controllers/scheduler"
	"github.com/ctrlkit/ctrlkit/source"
)

// Snapshot is what the view shows: the objects of a cluster at one
// instant.
type Snapshot struct {
	Now          time.Time
	Nodes        []*api.Node
	Pods         []*api.Pod
	Deployments  []*api.Deployment
	ReplicaSets  []*api.ReplicaSet
	StatefulSets []*api.StatefulSet
	DaemonSets   []*api.DaemonSet
	Jobs         []*api.Job
	CronJobs     []*api.CronJob
	Services     []*api.Service
	Endpoints    []*api.Endpoints
	Events       []*api.Event
	// Controllers are the controller manager's counts (filled by the
	// command, not by Take); the view leaves the section out when empty.
	Controllers []ControllerStats
}

// ControllerStats is one controller's line in the view: its queues' depth,
// the items it finished and retried, and its rate of finished items per
// second over the last refresh.
type ControllerStats struct {
	manager.Stats
	Rate float64
}

// controllerStats pairs the manager's counts now with those of prev (taken
// elapsed earlier) into rates.
func controllerStats(now, prev []manager.Stats, elapsed time.Duration) []ControllerStats {
	out := make([]ControllerStats, len(now))
	for i, st := range now {
		out[i].Stats = st
		if i < len(prev) && prev[i].Name == st.Name && elapsed > 0 {
			out[i].Rate = float64(st.Processed-prev[i].Processed) / elapsed.Seconds()
		}
	}
	return out
}

// Take reads a Snapshot from the cluster's stores.
func Take(ctx context.Context, c *cluster.Cluster) (Snapshot, error) {
	s := Snapshot{Now: time.Now()}
	var errs []error
	list := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	list(fill(ctx, c.Nodes(), &s.Nodes))
	list(fill(ctx, c.Pods(), &s.Pods))
	list(fill(ctx, c.Deployments(), &s.Deployments))
	list(fill(ctx, c.ReplicaSets(), &s.ReplicaSets))
	list(fill(ctx, c.StatefulSets(), &s.StatefulSets))
	list(fill(ctx, c.DaemonSets(), &s.DaemonSets))
	list(fill(ctx, c.Jobs(), &s.Jobs))
	list(fill(ctx, c.CronJobs(), &s.CronJobs))
	list(fill(ctx, c.Services(), &s.Services))
	list(fill(ctx, c.Endpoints(), &s.Endpoints))
	list(fill(ctx, c.Events(), &s.Events))
	if len(errs) > 0 {
		return s, errs[0]
	}
	return s, nil
}

func fill[T api.Object](ctx context.Context, st *cluster.Store[T], out *[]T) error {
	l, err := st.List(ctx, source.ListOptions{})
	if err != nil {
		return err
	}
	*out = l.Items
	return nil
}

// Render writes the snapshot as kubectl get would print each kind, one
// table per kind that has objects, and the most recent events.
func Render(w io.Writer, s Snapshot, events int) {
	section := func(title string, header string, rows [][]string) {
		if len(rows) == 0 {
			return
		}
		fmt.Fprintf(w, "%s\n", title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, header)
		for _, r := range rows {
			fmt.Fprintln(tw, strings.Join(r, "\t"))
		}
		tw.Flush()
		fmt.Fprintln(w)
	}
	section("NODES", "NAME\tSTATUS\tPODS\tCPU REQUESTS\tMEMORY REQUESTS\tZONE", nodeRows(s))
	section("PODS", "NAMESPACE\tNAME\tREADY\tSTATUS\tRESTARTS\tIP\tNODE\tAGE", podRows(s))
	section("DEPLOYMENTS", "NAMESPACE\tNAME\tREADY\tUP-TO-DATE\tAVAILABLE\tAGE", rows(s.Deployments, func(d *api.Deployment) []string {
		return []string{d.Namespace, d.Name, fmt.Sprintf("%d/%d", d.Status.ReadyReplicas, replicas(d.Spec.Replicas)),
			fmt.Sprint(d.Status.UpdatedReplicas), fmt.Sprint(d.Status.AvailableReplicas), age(s.Now, d.CreationTimestamp)}
	}))
	section("REPLICASETS", "NAMESPACE\tNAME\tDESIRED\tCURRENT\tREADY\tAGE", rows(s.ReplicaSets, func(r *api.ReplicaSet) []string {
		return []string{r.Namespace, r.Name, fmt.Sprint(replicas(r.Spec.Replicas)), fmt.Sprint(r.Status.Replicas),
			fmt.Sprint(r.Status.ReadyReplicas), age(s.Now, r.CreationTimestamp)}
	}))
	section("STATEFULSETS", "NAMESPACE\tNAME\tREADY\tUPDATED\tAGE", rows(s.StatefulSets, func(st *api.StatefulSet) []string {
		return []string{st.Namespace, st.Name, fmt.Sprintf("%d/%d", st.Status.ReadyReplicas, replicas(st.Spec.Replicas)),
			fmt.Sprint(st.Status.UpdatedReplicas), age(s.Now, st.CreationTimestamp)}
	}))
	section("DAEMONSETS", "NAMESPACE\tNAME\tDESIRED\tCURRENT\tREADY\tUP-TO-DATE\tAVAILABLE\tAGE", rows(s.DaemonSets, func(d *api.DaemonSet) []string {
		st := d.Status
		return []string{d.Namespace, d.Name, fmt.Sprint(st.DesiredNumberScheduled), fmt.Sprint(st.CurrentNumberScheduled),
			fmt.Sprint(st.NumberReady), fmt.Sprint(st.UpdatedNumberScheduled), fmt.Sprint(st.NumberAvailable), age(s.Now, d.CreationTimestamp)}
	}))
	section("JOBS", "NAMESPACE\tNAME\tSTATUS\tCOMPLETIONS\tFAILED\tAGE", rows(s.Jobs, func(j *api.Job) []string {
		return []string{j.Namespace, j.Name, jobStatus(j), fmt.Sprintf("%d/%d", j.Status.Succeeded, replicas(j.Spec.Completions)),
			fmt.Sprint(j.Status.Failed), age(s.Now, j.CreationTimestamp)}
	}))
	section("CRONJOBS", "NAMESPACE\tNAME\tSCHEDULE\tSUSPEND\tACTIVE\tLAST SCHEDULE\tAGE", rows(s.CronJobs, func(c *api.CronJob) []string {
		last := "<none>"
		if t := c.Status.LastScheduleTime; t != nil {
			last = age(s.Now, *t)
		}
		suspend := c.Spec.Suspend != nil && *c.Spec.Suspend
		return []string{c.Namespace, c.Name, c.Spec.Schedule, fmt.Sprint(suspend), fmt.Sprint(len(c.Status.Active)), last, age(s.Now, c.CreationTimestamp)}
	}))
	section("SERVICES", "NAMESPACE\tNAME\tTYPE\tCLUSTER-IP\tPORTS\tENDPOINTS", serviceRows(s))
	var ctl [][]string
	for _, c := range s.Controllers {
		ctl = append(ctl, []string{c.Name, fmt.Sprint(c.Depth), fmt.Sprint(c.Processed), fmt.Sprint(c.Retries), fmt.Sprintf("%.1f", c.Rate)})
	}
	section("CONTROLLERS", "NAME\tQUEUE\tRECONCILES\tRETRIES\tPER SECOND", ctl)
	section("EVENTS", "LAST SEEN\tTYPE\tREASON\tOBJECT\tMESSAGE", eventRows(s, events))
}

func rows[T api.Object](objs []T, f func(T) []string) [][]string {
	sorted := slices.Clone(objs)
	slices.SortFunc(sorted, func(a, b T) int { return cmp.Compare(api.Key(a), api.Key(b)) })
	out := make([][]string, 0, len(sorted))
	for _, o := range sorted {
		out = append(out, f(o))
	}
	return out
}

func replicas(p *int32) int32 {
	if p == nil {
		return 1
	}
	return *p
}

func nodeRows(s Snapshot) [][]string {
	type use struct {
		pods int
		req  scheduler.Resources
	}
	used := map[string]*use{}
	for _, p := range s.Pods {
		if p.Spec.NodeName == "" || p.Status.Phase == api.PodSucceeded || p.Status.Phase == api.PodFailed {
			continue
		}
		u := used[p.Spec.NodeName]
		if u == nil {
			u = &use{}
			used[p.Spec.NodeName] = u
		}
		u.pods++
		u.req = u.req.Add(scheduler.PodRequests(p, false))
	}
	return rows(s.Nodes, func(n *api.Node) []string {
		status := "NotReady"
		for _, c := range n.Status.Conditions {
			if c.Type == api.NodeReady {
				switch c.Status {
				case api.ConditionTrue:
					status = "Ready"
				case api.ConditionUnknown:
					status = "Unknown"
				}
			}
		}
		if n.Spec.Unschedulable {
			status += ",SchedulingDisabled"
		}
		u := used[n.Name]
		if u == nil {
			u = &use{}
		}
		alloc := scheduler.ResourcesFromList(n.Status.Allocatable)
		return []string{n.Name, status, fmt.Sprint(u.pods),
			fmt.Sprintf("%dm/%dm", u.req.MilliCPU, alloc.MilliCPU),
			fmt.Sprintf("%dMi/%dMi", u.req.Memory>>20, alloc.Memory>>20),
			cmp.Or(n.Labels[api.LabelTopologyZone], "-")}
	})
}

func podRows(s Snapshot) [][]string {
	return rows(s.Pods, func(p *api.Pod) []string {
		ready, restarts := 0, int32(0)
		for _, cs := range p.Status.ContainerStatuses {
			if cs.Ready {
				ready++
			}
			restarts += cs.RestartCount
		}
		return []string{p.Namespace, p.Name, fmt.Sprintf("%d/%d", ready, len(p.Spec.Containers)), podStatus(p),
			fmt.Sprint(restarts), cmp.Or(p.Status.PodIP, "<none>"), cmp.Or(p.Spec.NodeName, "<none>"), age(s.Now, p.CreationTimestamp)}
	})
}

// podStatus is the STATUS column of kubectl get pods: a waiting or
// terminated container's reason, Terminating, Completed, or the phase.
func podStatus(p *api.Pod) string {
	if p.DeletionTimestamp != nil {
		return "Terminating"
	}
	for _, cs := range p.Status.ContainerStatuses {
		if w := cs.State.Waiting; w != nil && w.Reason != "" && w.Reason != "ContainerCreating" {
			return w.Reason
		}
		if t := cs.State.Terminated; t != nil && t.Reason != "" && p.Status.Phase != api.PodSucceeded {
			return t.Reason
		}
	}
	switch p.Status.Phase {
	case api.PodSucceeded:
		return "Completed"
	case api.PodPending:
		if p.Spec.NodeName != "" {
			return "ContainerCreating"
		}
	}
	return cmp.Or(string(p.Status.Phase), "Pending")
}

func jobStatus(j *api.Job) string {
	for _, c := range j.Status.Conditions {
		if c.Status == api.ConditionTrue && (c.Type == api.JobComplete || c.Type == api.JobFailed) {
			return string(c.Type)
		}
	}
	if j.Spec.Suspend != nil && *j.Spec.Suspend {
		return "Suspended"
	}
	return "Running"
}

func serviceRows(s Snapshot) [][]string {
	eps := map[string]*api.Endpoints{}
	for _, e := range s.Endpoints {
		eps[api.Key(e)] = e
	}
	return rows(s.Services, func(svc *api.Service) []string {
		var ports []string
		for _, p := range svc.Spec.Ports {
			port := fmt.Sprintf("%d/%s", p.Port, cmp.Or(string(p.Protocol), "TCP"))
			if p.NodePort != 0 {
				port = fmt.Sprintf("%d:%d/%s", p.Port, p.NodePort, cmp.Or(string(p.Protocol), "TCP"))
			}
			ports = append(ports, port)
		}
		var addrs []string
		if e := eps[api.Key(svc)]; e != nil {
			for _, sub := range e.Subsets {
				for _, a := range sub.Addresses {
					for _, p := range sub.Ports {
						addrs = append(addrs, fmt.Sprintf("%s:%d", a.IP, p.Port))
					}
					if len(sub.Ports) == 0 {
						addrs = append(addrs, a.IP)
					}
				}
			}
		}
		endpoints := "<none>"
		if len(addrs) > 3 {
			endpoints = strings.Join(addrs[:3], ",") + fmt.Sprintf(" + %d more", len(addrs)-3)
		} else if len(addrs) > 0 {
			endpoints = strings.Join(addrs, ",")
		}
		return []string{svc.Namespace, svc.Name, cmp.Or(string(svc.Spec.Type), "ClusterIP"), cmp.Or(svc.Spec.ClusterIP, "<none>"),
			cmp.Or(strings.Join(ports, ","), "<none>"), endpoints}
	})
}

func eventRows(s Snapshot, n int) [][]string {
	evs := slices.Clone(s.Events)
	last := func(e *api.Event) time.Time { return cmp.Or(e.LastTimestamp.Time, e.FirstTimestamp.Time) }
	slices.SortStableFunc(evs, func(a, b *api.Event) int {
		return cmp.Or(last(a).Compare(last(b)), cmp.Compare(api.Key(a), api.Key(b)))
	})
	if len(evs) > n {
		evs = evs[len(evs)-n:]
	}
	out := make([][]string, 0, len(evs))
	for _, e := range evs {
		obj := strings.ToLower(e.InvolvedObject.Kind) + "/" + e.InvolvedObject.Name
		msg := e.Message
		if e.Count > 1 {
			msg += fmt.Sprintf(" (x%d)", e.Count)
		}
		out = append(out, []string{age(s.Now, api.Time{Time: last(e)}), e.Type, e.Reason, obj, msg})
	}
	return out
}

// age formats how long ago t was as kubectl does: 45s, 3m20s, 15m, 5h,
// 3d.
func age(now time.Time, t api.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	d := now.Sub(t.Time).Round(time.Second)
	switch {
	case d < 0:
		return "0s"
	case d < 2*time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < 10*time.Minute:
		m := int(d.Minutes())
		if s := int(d.Seconds()) - 60*m; s != 0 {
			return fmt.Sprintf("%dm%ds", m, s)
		}
		return fmt.Sprintf("%dm", m)
	case d < 3*time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

type eventLine struct {
	at   time.Time
	line string
}

// eventRowsSince formats the events last seen after since, oldest
// first, as log lines.
func eventRowsSince(s Snapshot, since time.Time) []eventLine {
	var out []eventLine
	for _, e := range s.Events {
		at := cmp.Or(e.LastTimestamp.Time, e.FirstTimestamp.Time)
		if !at.After(since) {
			continue
		}
		obj := strings.ToLower(e.InvolvedObject.Kind) + "/" + e.InvolvedObject.Namespace + "/" + e.InvolvedObject.Name
		out = append(out, eventLine{at, fmt.Sprintf("%s %-7s %-20s %s: %s", at.Format(time.TimeOnly), e.Type, e.Reason, obj, e.Message)})
	}
	slices.SortStableFunc(out, func(a, b eventLine) int { return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.line, b.line)) })
	return out
}
