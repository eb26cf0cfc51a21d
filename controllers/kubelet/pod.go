package kubelet

import (
	"fmt"
	"math/rand/v2"
	"time"
	"unique"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// This file is the pure core: what the simulated runtime and the kubelet's
// pod workers do with one pod, as a function of explicit instants. It knows
// nothing of goroutines, stores or clocks; the shell in kubelet.go calls
// advance(now) and writes status(pod).

type ctrPhase uint8

const (
	waiting ctrPhase = iota
	running
	terminated
)

// Exit codes and reasons the kubelet reports (kuberuntime: a SIGKILLed
// process exits 128+9).
const (
	exitKilled       = 137
	reasonCompleted  = "Completed"
	reasonError      = "Error"
	reasonCrashLoop  = "CrashLoopBackOff"
	reasonCreating   = "ContainerCreating"
	reasonPodInit    = "PodInitializing"
	reasonDeadline   = "DeadlineExceeded"
	msgDeadline      = "Pod was active on the node longer than the specified deadline"
	reasonPodDone    = "PodCompleted"
	reasonPodFailed  = "PodFailed"
	reasonNotInit    = "ContainersNotInitialized"
	reasonNotReady   = "ContainersNotReady"
	reasonGatesReady = "ReadinessGatesNotReady"
)

// probe is one probe worker of a container (pkg/kubelet/prober/worker.go):
// it runs every period from the container's start plus the initial delay
// and flips its result after successThreshold successes or
// failureThreshold failures in a row.
type probe struct {
	spec       *api.Probe
	next       time.Time // zero: not armed
	succ, fail int32
}

func (p *probe) period() time.Duration {
	if p.spec.PeriodSeconds > 0 {
		return time.Duration(p.spec.PeriodSeconds) * time.Second
	}
	return 10 * time.Second
}

func (p *probe) successThreshold() int32 { return max(p.spec.SuccessThreshold, 1) }

func (p *probe) failureThreshold() int32 {
	if p.spec.FailureThreshold > 0 {
		return p.spec.FailureThreshold
	}
	return 3
}

// arm schedules the first probe of a container started at startedAt, not
// before t.
func (p *probe) arm(startedAt, t time.Time) {
	if p.spec == nil {
		return
	}
	first := startedAt.Add(time.Duration(p.spec.InitialDelaySeconds) * time.Second)
	if first.Before(t) {
		first = t
	}
	p.next, p.succ, p.fail = first, 0, 0
}

// record counts one answer and schedules the next probe.
func (p *probe) record(pass bool, t time.Time) {
	if pass {
		p.succ, p.fail = p.succ+1, 0
	} else {
		p.succ, p.fail = 0, p.fail+1
	}
	p.next = t.Add(p.period())
}

// container is one simulated container of a pod. It keeps what the
// runtime and the prober would, not the container's spec: what creating
// it needs (its env) the shell reads from the pod (configError).
type container struct {
	// spec is what the container is and does, fixed at admission.
	spec      unique.Handle[ctrSpec]
	msg       string    // while waiting: the message of its reason
	startAt   time.Time // while waiting: when it starts; zero: not scheduled
	startedAt time.Time // while running
	exitAt    time.Time // while running: when it exits on its own; zero: never
	stopAt    time.Time // while running: when it exits after being asked to stop
	term      *api.ContainerStateTerminated
	last      *api.ContainerStateTerminated
	// probes are the container's probe workers; nil when it declares
	// none (most containers), so that those carry no idle workers.
	probes      *probes
	back        backOff
	runs        int32
	phase       ctrPhase
	reason      waitReason // while waiting
	init        bool
	sidecar     bool // an init container with restartPolicy Always
	ready       bool
	started     bool
	everStarted bool // a sidecar's started once: the next init container may run
}

// ctrSpec is what a container is and does, fixed when its pod is
// admitted: its name, image and simulated behaviour, and the field path
// its events name. Containers alike (every replica's of a workload, on
// every node) share one copy (unique.Make): a pod's state keeps only
// what changes.
type ctrSpec struct {
	name string
	// fieldPath is the container's in the events about it, as the
	// kubelet's GenerateContainerRef: spec.containers{name}, or
	// spec.initContainers{name} for an init container.
	fieldPath string
	image     imageInfo
	b         behaviour
}

// newCtrSpec returns the shared ctrSpec of container name running image
// with b.
func newCtrSpec(name, image string, init bool, b behaviour) unique.Handle[ctrSpec] {
	path := "spec.containers{" + name + "}"
	if init {
		path = "spec.initContainers{" + name + "}"
	}
	return unique.Make(ctrSpec{name: name, fieldPath: path, image: newImageInfo(image), b: b})
}

// name is the container's name.
func (c *container) name() string { return c.spec.Value().name }

// b is the container's simulated behaviour.
func (c *container) b() behaviour { return c.spec.Value().b }

// image is what the kubelet says of the container's image.
func (c *container) image() imageInfo { return c.spec.Value().image }

// waitReason is why a container waits, as its status says.
type waitReason uint8

const (
	waitNone waitReason = iota
	waitPodInit
	waitCreating
	waitCrashLoop
	waitConfigError
)

// String is the reason as the container's status has it.
func (r waitReason) String() string {
	switch r {
	case waitPodInit:
		return reasonPodInit
	case waitCreating:
		return reasonCreating
	case waitCrashLoop:
		return reasonCrashLoop
	case waitConfigError:
		return reasonConfigError
	}
	return ""
}

// probes are the probe workers of a container that declares a probe.
type probes struct {
	readiness, liveness, startup probe
}

// disarm stops the probe workers of p, which may be nil.
func (p *probes) disarm() {
	if p != nil {
		p.readiness.next, p.liveness.next, p.startup.next = time.Time{}, time.Time{}, time.Time{}
	}
}

func (c *container) restarts() int32 { return max(c.runs-1, 0) }

func (c *container) succeeded() bool {
	return c.phase == terminated && c.term.ExitCode == 0
}

// ownConds are the pod conditions the kubelet's status manager sets
// besides PodScheduled, in the order they are posted; a condIndex
// indexes them.
var ownConds = [...]api.PodConditionType{condInitialized: api.PodInitialized, condContainersReady: api.ContainersReady, condReady: api.PodReady}

// condIndex is the index of a condition in ownConds.
type condIndex int

const (
	condInitialized condIndex = iota
	condContainersReady
	condReady
)

// podState is what the kubelet knows of one pod it runs. It is kept for
// as long as the pod runs on the node, so it holds only what a pod in
// its steady state needs: what few pods need is in extra, what one sync
// produces in out, what containers alike share in their ctrSpec.
type podState struct {
	// podName and namespace are the pod's, shared with the object;
	// formatPod joins them for messages.
	podName, namespace string
	uid                api.UID
	// ctrs are the pod's containers: its nInit init containers, then its
	// app containers (initCtrs, appCtrs).
	ctrs     []*container
	nInit    uint32
	admitted time.Time
	podIP    string
	hostIP   string
	phase    api.PodPhase // Succeeded and Failed are final
	// condSince are the transition times of the pod's own conditions,
	// by the index of their type in ownConds (zero: not set yet), and
	// condTrue their statuses (else False: the kubelet sets no other).
	// Their reasons and messages are not kept: status computes them anew
	// from the pod's state each time it reports them.
	condSince [len(ownConds)]time.Time
	extra     *podExtras // nil: none of it
	out       *syncOut   // nil: nothing produced since the shell drained it
	policy    restartPolicy
	// The flags, together at the end, where they take no padding each.
	hostNetwork bool
	ipReleased  bool // the shell gave podIP back; the status keeps it
	terminating bool
	done        bool // terminating and every container has stopped
	// unmounted: a volume needs a ConfigMap or Secret and is not set up
	// yet; no container is created until it is (the shell retries the
	// mount at extra.mountAt).
	unmounted bool
	// overdue: the pod failed for running past its active deadline.
	overdue  bool
	condTrue [len(ownConds)]bool
}

// podExtras is the part of a podState that few pods need: an active
// deadline, a termination, volumes to mount, ephemeral containers.
type podExtras struct {
	deadline   time.Time // activeDeadlineSeconds; zero: none
	graceUntil time.Time // while terminating: when its containers are killed
	mountAt    time.Time // while unmounted: the next attempt
	mountTries int
	ephemeral  []*ephemeral // ephemeral.go
}

// noExtras is what ext returns for a pod without extras: read only.
var noExtras podExtras

// ext returns s's extras to read.
func (s *podState) ext() *podExtras {
	if s.extra == nil {
		return &noExtras
	}
	return s.extra
}

// extras returns s's extras to write, made on first use.
func (s *podState) extras() *podExtras {
	if s.extra == nil {
		s.extra = &podExtras{}
	}
	return s.extra
}

// syncOut is what the core produces for the shell, which drains it
// (Kubelet.record), and what the shell lends the core for one sync.
type syncOut struct {
	notes []note      // events not yet recorded
	pulls []imagePull // images containers started with
	// configError, set by the shell for the span of one sync, says why
	// a container cannot be created now (CreateContainerConfigError), ""
	// if it can; nil: always can.
	configError func(c *container) string
}

// output returns where s's events and pulls go: the shell's buffer while
// it syncs the pod, else one of s's own until the shell drains it.
func (s *podState) output() *syncOut {
	if s.out == nil {
		s.out = &syncOut{}
	}
	return s.out
}

// restartPolicy is a pod's spec.restartPolicy.
type restartPolicy uint8

const (
	policyAlways restartPolicy = iota // also the policy of a pod that sets none
	policyOnFailure
	policyNever
	policyOther // one the API does not know: neither of the above
)

// policyOf returns the restartPolicy of p.
func policyOf(p api.RestartPolicy) restartPolicy {
	switch p {
	case api.RestartPolicyAlways, "":
		return policyAlways
	case api.RestartPolicyOnFailure:
		return policyOnFailure
	case api.RestartPolicyNever:
		return policyNever
	}
	return policyOther
}

// formatPod names the pod in messages as the kubelet's format.Pod does:
// "name_namespace(uid)".
func (s *podState) formatPod() string {
	return s.podName + "_" + s.namespace + "(" + string(s.uid) + ")"
}

// note is one event the kubelet records about the pod: about one of its
// containers, fieldPath naming it.
type note struct {
	warning                    bool
	fieldPath, reason, message string
}

// note records an event about container c, whose reference is the
// kubelet's GenerateContainerRef: the pod with fieldPath
// spec.containers{name} (spec.initContainers{name} for an init container).
func (s *podState) note(warning bool, c *container, reason, format string, args ...any) {
	s.noteMsg(warning, c, reason, fmt.Sprintf(format, args...))
}

// noteMsg is note with the message made.
func (s *podState) noteMsg(warning bool, c *container, reason, message string) {
	out := s.output()
	out.notes = append(out.notes, note{warning, c.spec.Value().fieldPath, reason, message})
}

// newPodState admits pod at now: it resolves each container's behaviour
// from the stages and annotations and schedules the first container(s).
// An annotation error is returned with the state, which uses the values
// that did parse.
func newPodState(pod *api.Pod, now time.Time, stages []Stage, rng *rand.Rand, podIP, hostIP string) (*podState, error) {
	s := &podState{
		podName:     pod.Name,
		namespace:   pod.Namespace,
		uid:         pod.UID,
		policy:      policyOf(pod.Spec.RestartPolicy),
		hostNetwork: pod.Spec.HostNetwork,
		admitted:    now,
		podIP:       podIP,
		hostIP:      hostIP,
		phase:       api.PodPending,
	}
	if d := pod.Spec.ActiveDeadlineSeconds; d != nil && *d > 0 {
		s.extras().deadline = now.Add(time.Duration(*d) * time.Second)
	}
	var firstErr error
	add := func(spec *api.Container, init bool) *container {
		b, err := resolve(stages, pod, spec, init, rng)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		c := &container{spec: newCtrSpec(spec.Name, spec.Image, init, b), init: init, sidecar: isSidecar(spec, init), reason: waitPodInit}
		if !init || c.sidecar {
			if spec.ReadinessProbe != nil || spec.LivenessProbe != nil || spec.StartupProbe != nil {
				c.probes = &probes{}
				c.probes.readiness.spec, c.probes.liveness.spec, c.probes.startup.spec = spec.ReadinessProbe, spec.LivenessProbe, spec.StartupProbe
			}
			if len(pod.Spec.InitContainers) == 0 {
				c.reason = waitCreating
			}
		}
		return c
	}
	s.ctrs = make([]*container, 0, len(pod.Spec.InitContainers)+len(pod.Spec.Containers))
	for i := range pod.Spec.InitContainers {
		s.ctrs = append(s.ctrs, add(&pod.Spec.InitContainers[i], true))
	}
	s.nInit = uint32(len(s.ctrs))
	for i := range pod.Spec.Containers {
		s.ctrs = append(s.ctrs, add(&pod.Spec.Containers[i], false))
	}
	s.progress(now)
	return s, firstErr
}

func (s *podState) containers(yield func(*container) bool) {
	for _, c := range s.ctrs {
		if !yield(c) {
			return
		}
	}
}

// initCtrs are the pod's init containers, in order.
func (s *podState) initCtrs() []*container { return s.ctrs[:s.nInit] }

// appCtrs are the pod's app containers, in order.
func (s *podState) appCtrs() []*container { return s.ctrs[s.nInit:] }

func (s *podState) terminal() bool { return s.phase == api.PodSucceeded || s.phase == api.PodFailed }

// next returns the instant of the pod's next event, zero if none is due.
func (s *podState) next() time.Time {
	var t time.Time
	consider := func(u time.Time) {
		if !u.IsZero() && (t.IsZero() || u.Before(t)) {
			t = u
		}
	}
	if s.done {
		return t
	}
	for c := range s.containers {
		switch c.phase {
		case waiting:
			consider(c.startAt)
		case running:
			consider(c.exitAt)
			consider(c.stopAt)
			if p := c.probes; p != nil {
				consider(p.startup.next)
				consider(p.liveness.next)
				consider(p.readiness.next)
			}
		}
	}
	if !s.terminal() && !s.terminating {
		consider(s.ext().deadline)
	}
	if s.terminating {
		consider(s.ext().graceUntil)
	}
	return t
}

// advance applies every event due at or before now, in time order.
func (s *podState) advance(now time.Time) {
	for {
		t := s.next()
		if t.IsZero() || t.After(now) {
			return
		}
		s.step(t)
	}
}

func due(at, t time.Time) bool { return !at.IsZero() && !at.After(t) }

// step applies the events due at t.
func (s *podState) step(t time.Time) {
	if !s.terminating && !s.terminal() && due(s.ext().deadline, t) {
		s.phase, s.overdue = api.PodFailed, true
		for c := range s.containers {
			switch c.phase {
			case running:
				s.kill(c, t, exitKilled, reasonError, "")
			case waiting:
				c.startAt = time.Time{}
			}
		}
	}
	for c := range s.containers {
		if c.phase == waiting && due(c.startAt, t) {
			s.tryStart(c, t)
		}
		if c.phase != running {
			continue
		}
		switch {
		case due(c.stopAt, t):
			s.kill(c, t, 0, reasonCompleted, "")
		case due(c.exitAt, t):
			reason := reasonCompleted
			if c.b().exit.Code != 0 {
				reason = reasonError
			}
			s.kill(c, t, c.b().exit.Code, reason, "")
		default:
			s.probe(c, t)
		}
	}
	if s.terminating && due(s.ext().graceUntil, t) {
		for c := range s.containers {
			if c.phase == running {
				s.kill(c, t, exitKilled, reasonError, "")
			}
		}
	}
	s.progress(t)
}

// tryStart creates and runs container c at t, unless what it needs is
// missing: then it waits in CreateContainerConfigError, with a Failed
// event as kuberuntime's startContainer records, and is tried again
// after configRetry.
func (s *podState) tryStart(c *container, t time.Time) {
	if s.out != nil && s.out.configError != nil {
		if msg := s.out.configError(c); msg != "" {
			c.reason, c.msg, c.startAt = waitConfigError, msg, t.Add(configRetry)
			s.noteMsg(false, c, "Pulled", c.image().pulled)
			s.note(true, c, "Failed", "Error: %s", msg)
			return
		}
	}
	s.start(c, t)
}

// holdMount keeps the pod's containers from being created until mounted
// is called: a volume of the pod is to be set up first, at t.
func (s *podState) holdMount(t time.Time) {
	s.unmounted, s.extras().mountAt = true, t
	for c := range s.containers {
		if c.phase == waiting && c.runs == 0 {
			c.startAt = time.Time{}
		}
	}
}

// mounted ends holdMount at t: the containers are scheduled.
func (s *podState) mounted(t time.Time) {
	s.unmounted = false
	if s.extra != nil {
		s.extra.mountAt = time.Time{}
	}
	s.progress(t)
}

// wakeAt is when the shell is to look at the pod again: its next event,
// or its next mount attempt.
func (s *podState) wakeAt() time.Time {
	t := s.next()
	if s.unmounted && !s.terminating && !s.terminal() && (t.IsZero() || s.ext().mountAt.Before(t)) {
		t = s.ext().mountAt
	}
	return t
}

// start runs container c at t.
func (s *podState) start(c *container, t time.Time) {
	c.phase, c.reason, c.msg, c.startAt = running, waitNone, "", time.Time{}
	c.runs++
	img, b := c.image(), c.b()
	s.noteMsg(false, c, "Pulled", img.pulled)
	s.noteMsg(false, c, "Created", "Container created")
	s.noteMsg(false, c, "Started", "Container started")
	size := b.imageSize
	if size == 0 {
		size = img.size
	}
	out := s.output()
	out.pulls = append(out.pulls, imagePull{img.ref, size})
	c.startedAt = t
	c.exitAt = time.Time{}
	if !b.exit.Never {
		c.exitAt = t.Add(b.exit.After.Duration)
	}
	c.ready, c.started = false, c.probes == nil || c.probes.startup.spec == nil
	c.probes.disarm()
	if c.init && !c.sidecar {
		return
	}
	if c.started {
		s.armProbes(c, t)
	} else {
		c.probes.startup.arm(t, t)
	}
}

// armProbes starts the readiness and liveness workers of a started
// container; one without a readiness probe is ready at once.
func (s *podState) armProbes(c *container, t time.Time) {
	c.everStarted = true
	p := c.probes
	if p == nil {
		c.ready = true
		return
	}
	p.readiness.arm(c.startedAt, t)
	p.liveness.arm(c.startedAt, t)
	if p.readiness.spec == nil {
		c.ready = true
	}
}

// probe runs the container's probes due at t: startup first (it holds
// the others back), then liveness, then readiness.
func (s *podState) probe(c *container, t time.Time) {
	p := c.probes
	if p == nil {
		return
	}
	elapsed := t.Sub(c.startedAt)
	if !c.started && due(p.startup.next, t) {
		p.startup.record(s.answer(c, "Startup", c.b().startup, elapsed), t)
		switch {
		case p.startup.succ >= 1:
			c.started, p.startup.next = true, time.Time{}
			s.armProbes(c, t)
		case p.startup.fail >= p.startup.failureThreshold():
			s.kill(c, t, exitKilled, reasonError, fmt.Sprintf("Container %s failed startup probe, will be restarted", c.name()))
			return
		}
	}
	if !c.started {
		return
	}
	if due(p.liveness.next, t) {
		p.liveness.record(s.answer(c, "Liveness", c.b().liveness, elapsed), t)
		if p.liveness.fail >= p.liveness.failureThreshold() {
			s.kill(c, t, exitKilled, reasonError, fmt.Sprintf("Container %s failed liveness probe, will be restarted", c.name()))
			return
		}
	}
	if due(p.readiness.next, t) {
		p.readiness.record(s.answer(c, "Readiness", c.b().readiness, elapsed), t)
		switch {
		case !c.ready && p.readiness.succ >= p.readiness.successThreshold():
			c.ready = true
		case c.ready && p.readiness.fail >= p.readiness.failureThreshold():
			c.ready = false
		}
	}
}

// answer is what the probe of kind answers elapsed after c started; a
// failure is an Unhealthy event, as the prober records.
func (s *podState) answer(c *container, kind string, o ProbeOutcome, elapsed time.Duration) bool {
	pass := o.passes(elapsed)
	if !pass {
		s.note(true, c, "Unhealthy", "%s probe failed: simulated failure of container %s", kind, c.name())
	}
	return pass
}

// kill ends container c's run at t with code, and restarts it when the
// pod's restart policy says so.
func (s *podState) kill(c *container, t time.Time, code int32, reason, msg string) {
	c.phase = terminated
	c.term = &api.ContainerStateTerminated{
		ExitCode:   code,
		Reason:     reason,
		Message:    msg,
		StartedAt:  apiTime(c.startedAt),
		FinishedAt: apiTime(t),
	}
	if msg != "" {
		s.note(false, c, "Killing", "%s", msg)
	}
	c.ready, c.exitAt, c.stopAt = false, time.Time{}, time.Time{}
	c.probes.disarm()
	if s.terminating || s.terminal() || !s.restarts(c, code) {
		return
	}
	wait := c.back.delay(t)
	c.last, c.term = c.term, nil
	c.phase, c.startAt = waiting, t.Add(wait)
	c.reason, c.msg = waitNone, ""
	if wait > 0 {
		c.reason = waitCrashLoop
		c.msg = fmt.Sprintf("back-off %s restarting failed container=%s pod=%s", wait, c.name(), s.formatPod())
		s.note(true, c, "BackOff", "Back-off restarting failed container %s in pod %s", c.name(), s.formatPod())
	} else {
		s.tryStart(c, t)
	}
}

// restarts reports whether a container that exited with code is run
// again: init containers until they succeed unless the policy is Never
// (an init container's Always means OnFailure), app containers as the
// policy says.
func (s *podState) restarts(c *container, code int32) bool {
	switch {
	case c.sidecar:
		return true
	case s.policy == policyNever:
		return false
	case c.init || s.policy == policyOnFailure:
		return code != 0
	}
	return true
}

// progress moves the pod on after the events at t: the next init
// container, the app containers once every init container succeeded, the
// phase, and the end of a termination.
func (s *podState) progress(t time.Time) {
	if s.done {
		return
	}
	if s.terminating {
		for c := range s.containers {
			if c.phase == running {
				return
			}
		}
		s.done = true
		if !s.terminal() {
			s.phase = api.PodSucceeded
			for _, c := range s.appCtrs() {
				if !c.succeeded() {
					s.phase = api.PodFailed
				}
			}
		}
		return
	}
	if s.terminal() {
		return
	}
	if s.unmounted {
		return // nothing is created before the volumes are set up
	}
	initDone := true
	for _, c := range s.initCtrs() {
		if c.succeeded() || c.sidecar && c.everStarted {
			continue
		}
		initDone = false
		if c.phase == waiting && c.startAt.IsZero() && c.runs == 0 {
			c.startAt = t.Add(c.b().start)
		}
		break
	}
	if initDone {
		for _, c := range s.appCtrs() {
			if c.phase == waiting && c.startAt.IsZero() && c.runs == 0 {
				c.startAt, c.reason = t.Add(c.b().start), waitCreating
			}
		}
	}
	s.phase = s.computePhase()
	if s.terminal() { // the app containers are done: the sidecars are stopped
		for _, c := range s.initCtrs() {
			switch {
			case c.phase == running:
				s.kill(c, t, 0, reasonCompleted, "")
			case c.phase == waiting:
				c.startAt = time.Time{}
			}
		}
	}
}

// computePhase is the kubelet's getPhase (pkg/kubelet/kubelet_pods.go)
// over the simulated containers.
func (s *podState) computePhase() api.PodPhase {
	for _, c := range s.initCtrs() {
		switch {
		case c.succeeded(), c.sidecar && c.everStarted:
			continue
		case c.phase == terminated && s.policy == policyNever:
			return api.PodFailed
		}
		return api.PodPending
	}
	var run, wait, stopped, succeeded int
	for _, c := range s.appCtrs() {
		switch {
		case c.phase == running:
			run++
		case c.phase == terminated:
			stopped++
			if c.term.ExitCode == 0 {
				succeeded++
			}
		case c.last != nil:
			stopped++
		default:
			wait++
		}
	}
	switch {
	case wait > 0:
		return api.PodPending
	case run > 0:
		return api.PodRunning
	case stopped > 0:
		switch {
		case s.policy == policyAlways:
			return api.PodRunning
		case stopped == succeeded:
			return api.PodSucceeded
		case s.policy == policyNever:
			return api.PodFailed
		}
		return api.PodRunning
	}
	return api.PodPending
}

// terminate begins the pod's graceful termination at t: running
// containers stop after their stop delay (at once by default), killed at
// the end of the grace period if it is longer; no container starts any
// more.
func (s *podState) terminate(t time.Time, grace time.Duration) {
	if s.terminating {
		if until := t.Add(grace); until.Before(s.extra.graceUntil) {
			s.extra.graceUntil = until // a second delete may shorten the grace period
		}
		return
	}
	x := s.extras()
	s.terminating, x.graceUntil = true, t.Add(grace)
	for c := range s.containers {
		switch c.phase {
		case waiting:
			c.startAt = time.Time{}
		case running:
			s.note(false, c, "Killing", "Stopping container %s", c.name())
			c.stopAt = x.graceUntil // stop-after "grace": it drains until the end
			if !c.b().drain {
				c.stopAt = t.Add(c.b().stop)
				if c.stopAt.After(x.graceUntil) {
					c.stopAt = time.Time{} // killed at graceUntil
				}
			}
			if !c.exitAt.IsZero() && c.exitAt.Before(c.stopAt) {
				c.stopAt = time.Time{} // it exits on its own first
			}
		}
	}
	s.progress(t)
}

// apiTime is t as the API stores it: whole seconds, UTC.
func apiTime(t time.Time) api.Time { return api.NewTime(t.UTC().Truncate(time.Second)) }
