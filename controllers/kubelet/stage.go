package kubelet

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// AnnotationPrefix prefixes the annotations a pod carries to steer its
// simulated containers; see the package documentation for the list.
// Each may be suffixed with ".<container name>" to apply to that
// container only, which wins over the pod-wide form.
const AnnotationPrefix = "sim.ctrlkit.io/"

// The annotations, without a container suffix.
const (
	// AnnotationExitCode is the exit code a container exits with ("1").
	// On a container that would otherwise run forever it also makes the
	// container exit after one second, unless run-for says otherwise.
	AnnotationExitCode = AnnotationPrefix + "exit-code"
	// AnnotationRunFor is how long a container runs before it exits
	// ("30s"), or "forever".
	AnnotationRunFor = AnnotationPrefix + "run-for"
	// AnnotationStartAfter is how long creating a container takes before
	// it runs for the first time ("3s").
	AnnotationStartAfter = AnnotationPrefix + "start-after"
	// AnnotationStopAfter is how long a container takes to exit once it
	// is asked to stop (SIGTERM): "2s", or "grace" to ignore SIGTERM and
	// use the whole grace period (exiting 0 at its end). Unset, a
	// container exits at once, as most processes do on SIGTERM.
	AnnotationStopAfter = AnnotationPrefix + "stop-after"
	// AnnotationReady is when the readiness probe starts passing, counted
	// from the container's start ("20s"), or "never".
	AnnotationReady = AnnotationPrefix + "ready"
	// AnnotationLiveFor is how long the liveness probe passes after each
	// start of the container ("30s"; "0s" fails from the first probe).
	AnnotationLiveFor = AnnotationPrefix + "live-for"
	// AnnotationStarted is when the startup probe starts passing, counted
	// from the container's start ("20s"), or "never".
	AnnotationStarted = AnnotationPrefix + "started"
	// AnnotationImageSize is the size of the container's image as the
	// node reports it in status.images once pulled, a quantity ("300Mi");
	// unset, a size derived from the image name (see ImageSize).
	AnnotationImageSize = AnnotationPrefix + "image-size"
)

// Delay is a duration with an optional jitter: the delay drawn is
// Duration plus a uniform random part of [0, Jitter).
type Delay struct {
	// Duration is the fixed part.
	Duration time.Duration `json:"duration"`
	// Jitter bounds the random part; zero adds none.
	Jitter time.Duration `json:"jitter"`
}

func (d Delay) draw(rng *rand.Rand) time.Duration {
	if d.Jitter <= 0 || rng == nil {
		return d.Duration
	}
	return d.Duration + time.Duration(rng.Int64N(int64(d.Jitter)))
}

// Exit says how a container's process ends on its own.
type Exit struct {
	// Never makes the container run until it is stopped (a server).
	Never bool `json:"never,omitempty"`
	// After is how long the process runs.
	After Delay `json:"after"`
	// Code is its exit code: 0 succeeds, anything else fails.
	Code int32 `json:"code,omitempty"`
}

// ProbeOutcome says what a simulated probe answers, as a function of the
// time since the container started. The zero value passes always.
type ProbeOutcome struct {
	// Never makes every probe fail.
	Never bool `json:"never,omitempty"`
	// PassAfter makes probes fail until this long after the start.
	PassAfter time.Duration `json:"passAfter,omitempty"`
	// FailAfter, when positive, makes probes fail from this long after
	// the start on.
	FailAfter time.Duration `json:"failAfter,omitempty"`
}

// passes reports the probe's answer elapsed after the container started.
func (o ProbeOutcome) passes(elapsed time.Duration) bool {
	if o.Never || elapsed < o.PassAfter {
		return false
	}
	return o.FailAfter <= 0 || elapsed < o.FailAfter
}

// ContainerKind restricts a Match to init or app containers.
type ContainerKind string

// The container kinds.
const (
	// AnyContainer matches init and app containers.
	AnyContainer ContainerKind = ""
	// InitContainer matches spec.initContainers only.
	InitContainer ContainerKind = "init"
	// AppContainer matches spec.containers only.
	AppContainer ContainerKind = "app"
	// SidecarContainer matches init containers with restartPolicy
	// Always only (native sidecars); InitContainer does not.
	SidecarContainer ContainerKind = "sidecar"
)

// isSidecar reports whether init container c is a sidecar: an init
// container with restartPolicy Always, which keeps running.
func isSidecar(c *api.Container, init bool) bool {
	return init && c.RestartPolicy != nil && *c.RestartPolicy == "Always"
}

// Match selects the containers a Stage applies to. Every non-empty field
// must match; the zero Match matches every container.
type Match struct {
	// Labels the pod must carry, with these values.
	Labels map[string]string `json:"labels,omitempty"`
	// Annotations the pod must carry, with these values.
	Annotations map[string]string `json:"annotations,omitempty"`
	// RestartPolicies, when set, must include the pod's.
	RestartPolicies []api.RestartPolicy `json:"restartPolicies,omitempty"`
	// OwnerKinds, when set, must include the kind of the pod's controller
	// ("Job", "ReplicaSet"); "" stands for a pod without one.
	OwnerKinds []string `json:"ownerKinds,omitempty"`
	// Containers, when set, must include the container's name.
	Containers []string `json:"containers,omitempty"`
	// Kind restricts the match to init, sidecar or app containers.
	Kind ContainerKind `json:"kind,omitempty"`
}

func (m Match) matches(pod *api.Pod, c *api.Container, init bool) bool {
	for k, v := range m.Labels {
		if got, ok := pod.Labels[k]; !ok || got != v {
			return false
		}
	}
	for k, v := range m.Annotations {
		if got, ok := pod.Annotations[k]; !ok || got != v {
			return false
		}
	}
	if len(m.RestartPolicies) > 0 && !slices.Contains(m.RestartPolicies, pod.Spec.RestartPolicy) {
		return false
	}
	if len(m.OwnerKinds) > 0 {
		kind := ""
		if ref := pod.ControllerRef(); ref != nil {
			kind = ref.Kind
		}
		if !slices.Contains(m.OwnerKinds, kind) {
			return false
		}
	}
	if len(m.Containers) > 0 && !slices.Contains(m.Containers, c.Name) {
		return false
	}
	switch m.Kind {
	case InitContainer:
		return init && !isSidecar(c, init)
	case AppContainer:
		return !init
	case SidecarContainer:
		return isSidecar(c, init)
	}
	return true
}

// Stage is one rule of the simulated container runtime, in the style of
// KWOK's stages: the containers it matches get the fields it sets. Every
// matching stage applies in order, later ones overriding earlier ones
// field by field; a pod's annotations apply last.
type Stage struct {
	// Name identifies the stage in documentation and errors.
	Name string `json:"name,omitempty"`
	// Match selects the containers.
	Match Match `json:"match,omitzero"`
	// Start is how long creating the container takes before its first
	// run (pulling the image, creating the sandbox).
	Start *Delay `json:"start,omitempty"`
	// Exit is how its process ends on its own.
	Exit *Exit `json:"exit,omitempty"`
	// Stop is how long it takes to exit once asked to stop; a
	// container that takes longer than the grace period is killed.
	// Unset, it exits at once.
	Stop *Delay `json:"stop,omitempty"`
	// Readiness, Liveness and Startup are what its probes answer; a
	// probe only runs when the container's spec declares it.
	Readiness *ProbeOutcome `json:"readiness,omitempty"`
	Liveness  *ProbeOutcome `json:"liveness,omitempty"`
	Startup   *ProbeOutcome `json:"startup,omitempty"`
}

// DefaultStages make the demo manifests (manifests/) behave as on a real
// cluster: creating a container takes one second; init containers (not
// sidecars) complete with exit code 0 after one second; app containers
// of a pod whose restartPolicy is OnFailure or Never (a Job's pod)
// complete with exit code 0 after five seconds; other containers run
// until stopped; every probe passes; a stopped container exits at once,
// as most processes do on SIGTERM (AnnotationStopAfter asks otherwise).
func DefaultStages() []Stage {
	return []Stage{
		{Name: "create", Start: &Delay{Duration: time.Second}},
		{Name: "init", Match: Match{Kind: InitContainer}, Exit: &Exit{After: Delay{Duration: time.Second}}},
		{
			Name:  "job",
			Match: Match{Kind: AppContainer, RestartPolicies: []api.RestartPolicy{api.RestartPolicyOnFailure, api.RestartPolicyNever}},
			Exit:  &Exit{After: Delay{Duration: 5 * time.Second}},
		},
	}
}

// behaviour is what the simulated runtime does with one container, its
// delays drawn.
type behaviour struct {
	start     time.Duration
	exit      Exit // After.Jitter already drawn into After.Duration
	stop      time.Duration
	drain     bool // stop-after "grace": it ignores SIGTERM and uses the whole grace period
	readiness ProbeOutcome
	liveness  ProbeOutcome
	startup   ProbeOutcome
	imageSize int64 // sim.ctrlkit.io/image-size; zero: ImageSize(image)
}

// resolve applies the stages and then the pod's annotations to container c
// and draws the jitters from rng (nil draws none).
func resolve(stages []Stage, pod *api.Pod, c *api.Container, init bool, rng *rand.Rand) (behaviour, error) {
	var start, stop Delay
	// By default a container exits as soon as it gets SIGTERM.
	drain := false
	exit := Exit{Never: true}
	var b behaviour
	for _, s := range stages {
		if !s.Match.matches(pod, c, init) {
			continue
		}
		if s.Start != nil {
			start = *s.Start
		}
		if s.Exit != nil {
			exit = *s.Exit
		}
		if s.Stop != nil {
			stop, drain = *s.Stop, false
		}
		if s.Readiness != nil {
			b.readiness = *s.Readiness
		}
		if s.Liveness != nil {
			b.liveness = *s.Liveness
		}
		if s.Startup != nil {
			b.startup = *s.Startup
		}
	}
	ann := func(name string) (string, bool) {
		if v, ok := pod.Annotations[name+"."+c.Name]; ok {
			return v, true
		}
		v, ok := pod.Annotations[name]
		return v, ok
	}
	var err error
	fail := func(name, v string, e error) {
		if err == nil {
			err = fmt.Errorf("kubelet: pod %s container %s: annotation %s=%q: %w", api.Key(pod), c.Name, name, v, e)
		}
	}
	if v, ok := ann(AnnotationExitCode); ok {
		code, e := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
		if e != nil {
			fail(AnnotationExitCode, v, e)
		} else {
			exit.Code = int32(code)
			if exit.Never {
				exit = Exit{After: Delay{Duration: time.Second}, Code: int32(code)}
			}
		}
	}
	if v, ok := ann(AnnotationRunFor); ok {
		if strings.TrimSpace(v) == "forever" {
			exit = Exit{Never: true}
		} else if d, e := time.ParseDuration(strings.TrimSpace(v)); e != nil {
			fail(AnnotationRunFor, v, e)
		} else {
			exit.Never, exit.After = false, Delay{Duration: d}
		}
	}
	if v, ok := ann(AnnotationStartAfter); ok {
		if d, e := time.ParseDuration(strings.TrimSpace(v)); e != nil {
			fail(AnnotationStartAfter, v, e)
		} else {
			start = Delay{Duration: d}
		}
	}
	if v, ok := ann(AnnotationStopAfter); ok {
		if strings.TrimSpace(v) == "grace" {
			stop, drain = Delay{}, true
		} else if d, e := time.ParseDuration(strings.TrimSpace(v)); e != nil {
			fail(AnnotationStopAfter, v, e)
		} else {
			stop, drain = Delay{Duration: d}, false
		}
	}
	probe := func(name string, dst *ProbeOutcome) {
		v, ok := ann(name)
		if !ok {
			return
		}
		switch v = strings.TrimSpace(v); v {
		case "never":
			*dst = ProbeOutcome{Never: true}
		case "always":
			*dst = ProbeOutcome{}
		default:
			if d, e := time.ParseDuration(v); e != nil {
				fail(name, v, e)
			} else {
				*dst = ProbeOutcome{PassAfter: d}
			}
		}
	}
	probe(AnnotationReady, &b.readiness)
	probe(AnnotationStarted, &b.startup)
	if v, ok := ann(AnnotationLiveFor); ok {
		if d, e := time.ParseDuration(strings.TrimSpace(v)); e != nil {
			fail(AnnotationLiveFor, v, e)
		} else if d <= 0 {
			b.liveness = ProbeOutcome{Never: true}
		} else {
			b.liveness = ProbeOutcome{FailAfter: d}
		}
	}
	if v, ok := ann(AnnotationImageSize); ok {
		if q, e := api.ParseQuantity(strings.TrimSpace(v)); e != nil {
			fail(AnnotationImageSize, v, e)
		} else if q.Value() <= 0 {
			fail(AnnotationImageSize, v, errors.New("not a positive size"))
		} else {
			b.imageSize = q.Value()
		}
	}
	b.start = start.draw(rng)
	b.stop, b.drain = stop.draw(rng), drain
	if !exit.Never {
		exit.After = Delay{Duration: exit.After.draw(rng)}
	}
	b.exit = exit
	return b, err
}
