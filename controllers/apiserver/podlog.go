package apiserver

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/source"
)

// LogAnnotation scripts a container's simulated log, beside the
// annotations of the simulated runtime (package kubelet): the value of
// "sim.ctrlkit.io/log.<container>" (or, for every container without its
// own, of "sim.ctrlkit.io/log") is text whose lines the container
// writes when it starts, each run, after the line ctrlkit writes for the
// start itself. Lines appended to the annotation while a client follows
// the log (`kubectl logs -f`, `kubectl attach`) are sent to it as they
// appear, stamped with the time they were seen.
const LogAnnotation = "sim.ctrlkit.io/log"

// maxLogLine bounds one scripted log line (longer ones are cut).
const maxLogLine = 16 << 10

// logLine is one line of a simulated container log.
type logLine struct {
	at   time.Time
	text string
}

// logOptions are the parameters of GET pods/{name}/log (core/v1
// PodLogOptions).
type logOptions struct {
	container  string
	follow     bool
	previous   bool
	timestamps bool
	since      *time.Time
	tailLines  *int64
	limitBytes *int64
}

// parseLogOptions reads the query of a log request as kube-apiserver:
// malformed numbers and booleans are 400, invalid values 422.
func parseLogOptions(req *request, now time.Time) (logOptions, error) {
	q := req.r.URL.Query()
	var o logOptions
	o.container = q.Get("container")
	var err error
	boolean := func(name string) bool {
		v := q.Get(name)
		if v == "" || err != nil {
			return false
		}
		b, perr := strconv.ParseBool(v)
		if perr != nil {
			err = badRequest("%s: invalid value %q: %v", name, v, perr)
		}
		return b
	}
	integer := func(name string) *int64 {
		v := q.Get(name)
		if v == "" || err != nil {
			return nil
		}
		n, perr := strconv.ParseInt(v, 10, 64)
		if perr != nil {
			err = badRequest("%s: invalid value %q: %v", name, v, perr)
			return nil
		}
		return &n
	}
	o.follow, o.previous, o.timestamps = boolean("follow"), boolean("previous"), boolean("timestamps")
	sinceSeconds := integer("sinceSeconds")
	o.tailLines, o.limitBytes = integer("tailLines"), integer("limitBytes")
	var sinceTime *time.Time
	if v := q.Get("sinceTime"); v != "" && err == nil {
		t, perr := time.Parse(time.RFC3339, v)
		if perr != nil {
			err = badRequest("sinceTime: invalid value %q: %v", v, perr)
		}
		sinceTime = &t
	}
	if err != nil {
		return o, err
	}
	var fes []cluster.FieldError
	if sinceSeconds != nil && sinceTime != nil {
		fes = append(fes, cluster.FieldError{Type: cluster.FieldForbidden, Field: "",
			Detail: "at most one of `sinceTime` or `sinceSeconds` may be specified"})
	}
	if sinceSeconds != nil && *sinceSeconds < 1 {
		fes = append(fes, cluster.FieldError{Type: cluster.FieldInvalid, Field: "sinceSeconds",
			Value: strconv.FormatInt(*sinceSeconds, 10), Detail: "must be greater than 0"})
	}
	if o.tailLines != nil && *o.tailLines < 0 {
		fes = append(fes, cluster.FieldError{Type: cluster.FieldInvalid, Field: "tailLines",
			Value: strconv.FormatInt(*o.tailLines, 10), Detail: "must be greater than or equal to 0"})
	}
	if o.limitBytes != nil && *o.limitBytes < 1 {
		fes = append(fes, cluster.FieldError{Type: cluster.FieldInvalid, Field: "limitBytes",
			Value: strconv.FormatInt(*o.limitBytes, 10), Detail: "must be greater than 0"})
	}
	if len(fes) > 0 {
		return o, &cluster.InvalidError{Resource: "podlogoptions", Name: req.name, Errors: fes}
	}
	switch {
	case sinceTime != nil:
		o.since = sinceTime
	case sinceSeconds != nil:
		t := now.Add(-time.Duration(*sinceSeconds) * time.Second)
		o.since = &t
	}
	return o, nil
}

// podContainer resolves the container a log, exec or attach request
// names, as kube-apiserver's validateContainer: none names the only one
// (400 when there are several), and an unknown one is 400.
func podContainer(pod *api.Pod, name string) (*api.Container, error) {
	all := make([]*api.Container, 0, len(pod.Spec.InitContainers)+len(pod.Spec.Containers))
	for i := range pod.Spec.Containers {
		all = append(all, &pod.Spec.Containers[i])
	}
	for i := range pod.Spec.InitContainers {
		all = append(all, &pod.Spec.InitContainers[i])
	}
	for i := range pod.Spec.EphemeralContainers {
		all = append(all, &pod.Spec.EphemeralContainers[i].Container)
	}
	if name == "" {
		switch len(pod.Spec.Containers) {
		case 1:
			return &pod.Spec.Containers[0], nil
		case 0:
			return nil, badRequest("a container name must be specified for pod %s", pod.Name)
		}
		// kube lists the init containers first (VisitContainers).
		names := make([]string, 0, len(all))
		for _, c := range pod.Spec.InitContainers {
			names = append(names, c.Name)
		}
		for _, c := range pod.Spec.Containers {
			names = append(names, c.Name)
		}
		return nil, badRequest("a container name must be specified for pod %s, choose one of: %v", pod.Name, names)
	}
	for _, c := range all {
		if c.Name == name {
			return c, nil
		}
	}
	return nil, badRequest("container %s is not valid for pod %s", name, pod.Name)
}

// containerStatus returns the status the kubelet reported for container
// name, or nil.
func containerStatus(pod *api.Pod, name string) *api.ContainerStatus {
	for _, list := range [][]api.ContainerStatus{pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses, pod.Status.EphemeralContainerStatuses} {
		for i := range list {
			if list[i].Name == name {
				return &list[i]
			}
		}
	}
	return nil
}

// logRun is one run of a container, whose log is simulated.
type logRun struct {
	started  time.Time
	restart  int32
	image    string
	finished *api.ContainerStateTerminated
}

// selectRun picks the run a log request reads, as the kubelet's
// validateContainerLogStatus, with its errors (400 BadRequest).
func selectRun(pod *api.Pod, c *api.Container, previous bool) (logRun, error) {
	cs := containerStatus(pod, c.Name)
	if cs == nil {
		return logRun{}, badRequest("container %q in pod %q is waiting to start - no logs yet", c.Name, pod.Name)
	}
	image := cs.Image
	if image == "" {
		image = c.Image
	}
	last := cs.LastTerminationState.Terminated
	switch st := cs.State; {
	case previous:
		if last == nil {
			return logRun{}, badRequest("previous terminated container %q in pod %q not found", c.Name, pod.Name)
		}
		return logRun{started: last.StartedAt.Time, restart: max(cs.RestartCount-1, 0), image: image, finished: last}, nil
	case st.Running != nil:
		return logRun{started: st.Running.StartedAt.Time, restart: cs.RestartCount, image: image}, nil
	case st.Terminated != nil:
		return logRun{started: st.Terminated.StartedAt.Time, restart: cs.RestartCount, image: image, finished: st.Terminated}, nil
	case last != nil:
		return logRun{started: last.StartedAt.Time, restart: max(cs.RestartCount-1, 0), image: image, finished: last}, nil
	case st.Waiting != nil:
		switch r := st.Waiting.Reason; r {
		case "ErrImagePull":
			return logRun{}, badRequest("container %q in pod %q is waiting to start: image can't be pulled", c.Name, pod.Name)
		case "ImagePullBackOff":
			return logRun{}, badRequest("container %q in pod %q is waiting to start: trying and failing to pull image", c.Name, pod.Name)
		default:
			return logRun{}, badRequest("container %q in pod %q is waiting to start: %s", c.Name, pod.Name, r)
		}
	}
	return logRun{}, badRequest("container %q in pod %q is waiting to start - no logs yet", c.Name, pod.Name)
}

// scriptedLines returns the lines of pod's log annotation for container.
func scriptedLines(pod *api.Pod, container string) []string {
	v, ok := pod.Annotations[LogAnnotation+"."+container]
	if !ok {
		v = pod.Annotations[LogAnnotation]
	}
	if v == "" {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(v, "\n"), "\n")
	for i, l := range lines {
		if len(l) > maxLogLine {
			lines[i] = l[:maxLogLine]
		}
	}
	return lines
}

// runLog is the simulated log of one run: a start line, the scripted
// lines, a line when the container became ready (the pod's Ready
// condition, for the current run), and a line when it terminated.
func runLog(pod *api.Pod, c *api.Container, run logRun, current bool) []logLine {
	start := run.started
	lines := []logLine{{start, fmt.Sprintf("[ctrlkit] container %s started: image %s, restart %d", c.Name, run.image, run.restart)}}
	for _, l := range scriptedLines(pod, c.Name) {
		lines = append(lines, logLine{start, l})
	}
	if current && run.finished == nil {
		if cs := containerStatus(pod, c.Name); cs != nil && cs.Ready {
			at := start
			for _, cond := range pod.Status.Conditions {
				if cond.Type == api.PodReady && cond.Status == api.ConditionTrue && cond.LastTransitionTime.After(at) {
					at = cond.LastTransitionTime.Time
				}
			}
			lines = append(lines, logLine{at, fmt.Sprintf("[ctrlkit] container %s is ready", c.Name)})
		}
	}
	if t := run.finished; t != nil {
		lines = append(lines, terminatedLine(c.Name, t))
	}
	return lines
}

func terminatedLine(name string, t *api.ContainerStateTerminated) logLine {
	reason := t.Reason
	if reason == "" {
		reason = "Terminated"
	}
	return logLine{t.FinishedAt.Time, fmt.Sprintf("[ctrlkit] container %s terminated: %s, exit code %d", name, reason, t.ExitCode)}
}

// logWriter writes log lines with the request's options: the since
// filter, timestamps and the byte limit.
type logWriter struct {
	w         io.Writer
	flush     func() error // nil: nothing to flush
	o         logOptions
	written   int64
	buf       bytes.Buffer
	exhausted bool
}

// write writes lines; it reports false once the byte limit is reached.
func (lw *logWriter) write(lines []logLine) bool {
	lw.buf.Reset()
	for _, l := range lines {
		if lw.o.since != nil && l.at.Before(*lw.o.since) {
			continue
		}
		if lw.o.timestamps {
			lw.buf.WriteString(l.at.UTC().Format(time.RFC3339Nano))
			lw.buf.WriteByte(' ')
		}
		lw.buf.WriteString(l.text)
		lw.buf.WriteByte('\n')
	}
	b := lw.buf.Bytes()
	if lim := lw.o.limitBytes; lim != nil && lw.written+int64(len(b)) >= *lim {
		b = b[:*lim-lw.written]
		lw.exhausted = true
	}
	n, err := lw.w.Write(b)
	lw.written += int64(n)
	if err == nil && lw.flush != nil {
		err = lw.flush()
	}
	if err != nil {
		lw.exhausted = true
	}
	return !lw.exhausted
}

// serveLog serves GET pods/{name}/log: the simulated log of one run of a
// container (see LogAnnotationPrefix), with kube's options and errors.
// With follow it streams until the run ends (its termination line), the
// pod is deleted, the client goes, the byte limit is reached or
// Options.MaxWatchTimeout passes.
func (h *typed[T]) serveLog(req *request) {
	if req.r.Method != http.MethodGet {
		h.fail(req, methodNotAllowed(req))
		return
	}
	o, err := parseLogOptions(req, time.Now())
	if err != nil {
		h.fail(req, err)
		return
	}
	pods := h.srv.c.Pods()
	key := h.key(req)
	pod, rv, err := pods.Get(req.r.Context(), key)
	if err != nil {
		h.fail(req, err)
		return
	}
	c, err := podContainer(pod, o.container)
	if err != nil {
		h.fail(req, err)
		return
	}
	req.w.Header().Set("Content-Type", "text/plain")
	if pod.Spec.NodeName == "" {
		// As kube-apiserver: no node, no location, an empty log.
		req.w.WriteHeader(http.StatusOK)
		return
	}
	run, err := selectRun(pod, c, o.previous)
	if err != nil {
		h.fail(req, err)
		return
	}
	lines := runLog(pod, c, run, !o.previous)
	if n := o.tailLines; n != nil && int64(len(lines)) > *n {
		lines = lines[int64(len(lines))-*n:]
	}
	lw := &logWriter{w: req.w, o: o}
	if o.follow {
		lw.flush = http.NewResponseController(req.w).Flush
	}
	req.w.WriteHeader(http.StatusOK)
	if !lw.write(lines) || !o.follow || o.previous || run.finished != nil {
		return
	}
	ctx, cancel := context.WithTimeout(req.r.Context(), h.srv.opts.MaxWatchTimeout)
	defer cancel()
	h.followLog(ctx, req, lw, pod, c, run, rv)
}

// followLog streams what happens to the run being followed: scripted
// lines appended to the annotation, and its end.
func (h *typed[T]) followLog(ctx context.Context, req *request, lw *logWriter, pod *api.Pod, c *api.Container, run logRun, rv string) {
	lw.o.since = nil // what follows is new
	sel, err := h.srv.c.Pods().Select(cluster.SelectOptions{Namespace: req.namespace, FieldSelector: "metadata.name=" + req.name})
	if err != nil {
		return
	}
	events, err := sel.Watch(ctx, source.WatchOptions{ResourceVersion: rv})
	if err != nil {
		return
	}
	sent := scriptedLines(pod, c.Name)
	for {
		var ev source.Event[*api.Pod]
		var ok bool
		select {
		case <-ctx.Done():
			return
		case ev, ok = <-events:
			if !ok {
				return
			}
		}
		switch ev.Type {
		case source.Deleted:
			return
		case source.Added, source.Modified:
		default:
			continue
		}
		p := ev.Object
		var add []logLine
		now := time.Now()
		if lines := scriptedLines(p, c.Name); len(lines) > len(sent) && equalPrefix(lines, sent) {
			for _, l := range lines[len(sent):] {
				add = append(add, logLine{now, l})
			}
			sent = lines
		}
		cs := containerStatus(p, c.Name)
		ended := false
		switch {
		case cs == nil:
		case cs.RestartCount != run.restart && cs.LastTerminationState.Terminated != nil:
			add, ended = append(add, terminatedLine(c.Name, cs.LastTerminationState.Terminated)), true
		case cs.State.Terminated != nil:
			add, ended = append(add, terminatedLine(c.Name, cs.State.Terminated)), true
		}
		if len(add) > 0 && !lw.write(add) {
			return
		}
		if ended {
			return
		}
	}
}

func equalPrefix(long, short []string) bool {
	for i := range short {
		if long[i] != short[i] {
			return false
		}
	}
	return true
}
