package harness_test

// The reference controllers under the harness (issue 30, "Prove it" 2):
// each controller is built over the harness's client, with one worker and
// its own informer factory, beside the rest of the control plane it needs
// (run by the control plane's manager from Scenario.Options); each
// scenario's steps are the ones that matter for it and its invariants
// state its contract. Every scenario explores a crash and every write
// fault at each write (capped in CI) plus random seeds, then the time
// faults (subtest "time"), the view faults (subtest "views") and a
// leader handover (subtest "handover", the controller built as kcm runs
// it under its lease: refElected); $CTRLKIT_HARNESS_RUNS sets the random
// runs of a long exploration and lifts the cap.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cronjob"
	"github.com/ctrlkit/ctrlkit/controllers/daemonset"
	"github.com/ctrlkit/ctrlkit/controllers/deployment"
	"github.com/ctrlkit/ctrlkit/controllers/endpoints"
	"github.com/ctrlkit/ctrlkit/controllers/garbagecollector"
	"github.com/ctrlkit/ctrlkit/controllers/harness"
	"github.com/ctrlkit/ctrlkit/controllers/job"
	"github.com/ctrlkit/ctrlkit/controllers/manager"
	"github.com/ctrlkit/ctrlkit/controllers/namespace"
	"github.com/ctrlkit/ctrlkit/controllers/nodelifecycle"
	"github.com/ctrlkit/ctrlkit/controllers/replicaset"
	"github.com/ctrlkit/ctrlkit/controllers/statefulset"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/leader"
	"github.com/ctrlkit/ctrlkit/source"
	"github.com/stretchr/testify/require"
)

// refDiscard is the reference controllers' logger.
var refDiscard = slog.New(slog.DiscardHandler)

// refRunner runs a reference controller over its own informer factory.
type refRunner struct {
	f   *informer.Factory
	ctl harness.Runner
}

// Run starts the factory, waits for its caches, runs the controller and
// shuts the factory down once the controller has returned.
func (r *refRunner) Run(ctx context.Context) error {
	defer r.f.Shutdown()
	r.f.Start(ctx)
	if !r.f.WaitForCacheSync(ctx) {
		return nil
	}
	err := r.ctl.Run(ctx)
	if ctx.Err() != nil && (err == nil || errors.Is(err, context.Canceled)) {
		return nil
	}
	return err
}

// refController is a harness.Controller building a reference controller
// with build, over a new factory per incarnation (fresh caches).
func refController(build func(c client.Client, f *informer.Factory) (harness.Runner, error)) harness.Controller {
	return func(c client.Client) (harness.Runner, error) {
		f := informer.NewFactory(informer.FactoryOptions{Logger: refDiscard})
		ctl, err := build(c, f)
		if err != nil {
			return nil, err
		}
		return &refRunner{f: f, ctl: ctl}, nil
	}
}

// refBudget is the exhaustive runs' cap and the random runs of a
// scenario: capped in CI, $CTRLKIT_HARNESS_RUNS random runs and no cap for
// a long exploration.
func refBudget(t *testing.T, budget, random int) harness.Options {
	t.Helper()
	opts := harness.Options{Budget: budget, Random: random, Seed: 1}
	if testing.Short() {
		opts.Budget, opts.Random = min(budget, 4), 0
	}
	if v := os.Getenv("CTRLKIT_HARNESS_RUNS"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(t, err, "CTRLKIT_HARNESS_RUNS")
		opts.Budget, opts.Random, opts.All = 100_000, n, true
	}
	return opts
}

// refDecode decodes manifests.
func refDecode(t *testing.T, yaml string) []api.Object {
	t.Helper()
	objs, err := api.Decode([]byte(yaml), api.DecodeOptions{})
	require.NoError(t, err)
	return objs
}

// refUpdate is a step changing the object of type T stored under key
// with change, retrying conflicts (the user, or another component, does
// not give up).
func refUpdate[T api.Object](name, key string, change func(T)) harness.Step {
	return harness.Step{Name: name, Do: func(ctx context.Context, c client.Client) error {
		r, err := client.For[T](c)
		if err != nil {
			return err
		}
		for {
			o, _, err := r.Get(ctx, key)
			if err != nil {
				return err
			}
			change(o)
			if _, err := r.Update(ctx, o, ""); !client.IsConflict(err) {
				return err
			}
		}
	}}
}

// refDelete is a step deleting the object of type T under key with a
// propagation policy.
func refDelete[T api.Object](name, key string, policy client.PropagationPolicy) harness.Step {
	return harness.Step{Name: name, Do: func(ctx context.Context, c client.Client) error {
		r, err := client.For[T](c)
		if err != nil {
			return err
		}
		_, err = r.DeleteWith(ctx, key, client.DeleteOptions{PropagationPolicy: policy})
		return err
	}}
}

// refList lists every object of type T.
func refList[T api.Object](ctx context.Context, c client.Client) ([]T, error) {
	r, err := client.For[T](c)
	if err != nil {
		return nil, err
	}
	l, err := r.List(ctx, refAll)
	if err != nil {
		return nil, err
	}
	return l.Items, nil
}

// refLive are the pods not being deleted whose labels include sel.
func refLive(pods []*api.Pod, sel map[string]string) []*api.Pod {
	var out []*api.Pod
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			continue
		}
		ok := true
		for k, v := range sel {
			ok = ok && p.Labels[k] == v
		}
		if ok {
			out = append(out, p)
		}
	}
	return out
}

// refManager sets the manager's controllers a scenario runs beside the
// one under test, each with one worker.
func refManager(s *harness.Scenario, names ...string) {
	s.Options.Manager.Controllers = append([]string{manager.ServiceAccountController}, names...)
	s.Options.Manager.Workers = map[string]int{}
	for _, n := range names {
		s.Options.Manager.Workers[n] = 1
	}
}

// refSA is the namespace's default service account, applied first so
// that no run's first pod create races the service account controller.
// The scenarios change one pod at a time: pods that become ready at the
// same instant of virtual time make a status write of one pod or of
// several, as the goroutines happen to run, and the harness needs the
// reference run to write the same each time.
const refSA = `
apiVersion: v1
kind: ServiceAccount
metadata: {name: default, namespace: default}
---`

// refAll lists everything.
var refAll = source.ListOptions{}

// TestReferenceReplicaSet: a ReplicaSet of 3 scaled to 5, its template's
// image changed (no pod is replaced), then scaled to 1. Contract: never
// more live pods than the larger of the replicas before and after a
// scale (the controller creates at most the diff), and every pod it owns
// matches its selector.
func TestReferenceReplicaSet(t *testing.T) {
	rs := refDecode(t, refSA+`
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    # A pod asked to stop takes 2 s (virtual) to exit, so the controller
    # always sees it terminating (status.terminatingReplicas 1, then 0):
    # exiting at once would make that write depend on goroutine order.
    metadata: {labels: {app: web}, annotations: {sim.ctrlkit.io/stop-after: 2s}}
    spec: {containers: [{name: nginx, image: "nginx:1.27"}]}
`)
	s := harness.Scenario{
		Name:    "replicaset",
		Objects: rs,
		Steps: []harness.Step{
			refUpdate("scale to 2", "default/web", func(rs *api.ReplicaSet) { rs.Spec.Replicas = new(int32(2)) }),
			refUpdate("new image", "default/web", func(rs *api.ReplicaSet) { rs.Spec.Template.Spec.Containers[0].Image = "nginx:1.28" }),
			refUpdate("scale to 1", "default/web", func(rs *api.ReplicaSet) { rs.Spec.Replicas = new(int32(1)) }),
		},
		Invariants: []harness.Invariant{{Name: "at most replicas pods", Check: func(ctx context.Context, c client.Client) error {
			rss, err := refList[*api.ReplicaSet](ctx, c)
			if err != nil || len(rss) != 1 {
				return err
			}
			pods, err := refList[*api.Pod](ctx, c)
			if err != nil {
				return err
			}
			// +1: a create whose reply was lost (TimeoutWritten) lowers
			// the expectations, as kcm's ReplicaSet controller does for
			// any failed create, and the retry may come before the pod's
			// event: one surplus pod, deleted at once.
			most := max(*rss[0].Spec.Replicas, rss[0].Status.Replicas) + 1
			if n := len(refLive(pods, map[string]string{"app": "web"})); n > int(most) {
				return fmt.Errorf("%d live pods, at most max(spec %d, status %d)+1", n, *rss[0].Spec.Replicas, rss[0].Status.Replicas)
			}
			return nil
		}}},
	}
	refCheck(t, s, 12, refMore{viewScenario: refReplicaSetViews}, func(c client.Client, f *informer.Factory) (harness.Runner, error) {
		return replicaset.New(c, f, replicaset.Options{Workers: 1, Logger: refDiscard})
	})
}

// refReplicaSetViews is the ReplicaSet scenario under the view faults,
// with the pods' image (and the image ID of their status) masked: restarted on a stale list taken before it
// deleted the surplus pod of the scale to 1 (Stale at that delete), the
// controller sees two live pods and deletes one, which may be the pod
// that was to stay; once the other has stopped it creates a pod of the
// current template. kcm's controller acts the same on the same list (it
// deletes by name, and the pod deleted was live), so the end state has
// the one pod of the reference run, of either template.
func refReplicaSetViews(s harness.Scenario) harness.Scenario {
	s.Mask = append(slices.Clone(s.Mask), harness.Mask{Kind: "Pod", Pattern: `("image(?:ID)?":)"nginx[:@][^"]*"`, Replace: `$1"nginx*"`})
	return s
}

// refCheck explores s with the controller build makes, the exhaustive
// runs capped at budget in CI.
func refCheck(t *testing.T, s harness.Scenario, budget int, more refMore, build func(c client.Client, f *informer.Factory) (harness.Runner, error)) {
	t.Helper()
	harness.Check(t, s, refController(build), refBudget(t, budget, 2))
	t.Run("time", func(t *testing.T) { harness.Check(t, s, refController(build), refTimeBudget(t)) })
	t.Run("views", func(t *testing.T) {
		harness.Check(t, more.views(s), refController(build), refViewBudget(t))
	})
	t.Run("handover", func(t *testing.T) {
		harness.Check(t, refElection(s), refElected(build), refHandoverBudget(t))
	})
}

// refMore says how a reference scenario is explored under the view
// faults (subtest "views") and a leader handover (subtest "handover").
type refMore struct {
	// viewScenario, when set, is the scenario of subtest "views": the
	// scenario with a legitimate difference masked, which its comment
	// explains (what kcm's controller does on the same view).
	viewScenario func(harness.Scenario) harness.Scenario
}

// views is the scenario of subtest "views".
func (m refMore) views(s harness.Scenario) harness.Scenario {
	if m.viewScenario == nil {
		return s
	}
	return m.viewScenario(s)
}

// refViewBudget explores the view faults (Stale and Cut) at the first
// writes, then random runs mixing them with crashes: 2 exhaustive runs
// in CI, every write and $CTRLKIT_HARNESS_RUNS random runs in a long
// exploration.
func refViewBudget(t *testing.T) harness.Options {
	t.Helper()
	opts := refBudget(t, 2, 1)
	if testing.Short() {
		opts.Budget = 2
	}
	opts.Faults = harness.ViewFaults()
	opts.RandomFaults = append(harness.ViewFaults(), harness.Crash)
	return opts
}

// refHandoverBudget explores a leader handover at the first writes, then
// random runs mixing it with crashes: 2 exhaustive runs in CI, every
// write and $CTRLKIT_HARNESS_RUNS random runs in a long exploration.
func refHandoverBudget(t *testing.T) harness.Options {
	t.Helper()
	opts := refBudget(t, 2, 1)
	if testing.Short() {
		opts.Budget = 2
	}
	opts.Faults = []harness.Fault{harness.Handover}
	opts.RandomFaults = []harness.Fault{harness.Handover, harness.Crash}
	return opts
}

// refElection is s run as two replicas under leader election, as
// kube-controller-manager runs all its controllers under one lease: the
// harness's default Lease, as the control plane's own manager (the
// controllers beside the one under test) holds kube-controller-manager.
func refElection(s harness.Scenario) harness.Scenario {
	s.Election = &harness.Election{}
	return s
}

// refElected is the reference controller build makes, run as
// kube-controller-manager runs it under leader election: a standby
// builds nothing (kcm starts its informers and controllers in
// OnStartedLeading), and each term builds the controller over a new
// informer factory and runs it under the term's context. kcm exits when
// it stops leading (OnStoppedLeading) and starts again cold, its
// requests in flight dying with the process: every call of a term's
// controller ends with the term too, although the reconcile package
// lets a reconcile in flight finish when its Run's context ends.
func refElected(build func(c client.Client, f *informer.Factory) (harness.Runner, error)) harness.Controller {
	return harness.Elected(func(c client.Client, e leader.Elector) (harness.Runner, error) {
		return refElectedRunner{c: c, e: e, ctl: refController(build)}, nil
	})
}

// refElectedRunner is a Runner of refElected.
type refElectedRunner struct {
	c   client.Client
	e   leader.Elector
	ctl harness.Controller
}

// Run builds and runs the controller while it leads, a new one each
// term, until ctx ends.
func (r refElectedRunner) Run(ctx context.Context) error {
	err := leader.Run(ctx, r.e, func(term context.Context) error {
		c := client.Intercept(r.c, func(ctx context.Context, call client.Call, next func(context.Context) error) error {
			if call.Verb == "watch" {
				// The stream lives as long as the context of the call that
				// opened it, which cancel below would end at once; the
				// informers watch under the term already.
				return next(ctx)
			}
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			defer context.AfterFunc(term, cancel)()
			return next(ctx)
		})
		run, err := r.ctl(c)
		if err != nil {
			return err
		}
		return run.Run(term)
	})
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// refTimeBudget explores the time faults (Expire and Resync: the
// reference controllers run as one replica) at the first writes, then
// random runs mixing them with crashes: 2 exhaustive runs in CI, every
// write and $CTRLKIT_HARNESS_RUNS random runs in a long exploration.
func refTimeBudget(t *testing.T) harness.Options {
	t.Helper()
	opts := refBudget(t, 2, 1)
	if testing.Short() {
		opts.Budget = 2
	}
	opts.Faults = harness.TimeFaults()
	opts.RandomFaults = append(harness.TimeFaults(), harness.Crash)
	return opts
}

// refExploreLoose explores s as Explore does — every fault at every
// write of one reference run, then random seeds — for a controller whose
// number of writes depends on how goroutines run at one instant (Explore
// refuses it): each run's oracle compares its end state with the
// reference run's, its invariants hold at every write, and it converges;
// a failure is reported with its perturbations and timeline, unminimized.
func refExploreLoose(t *testing.T, s harness.Scenario, budget int, more refMore, build func(c client.Client, f *informer.Factory) (harness.Runner, error)) {
	t.Helper()
	refLoose(t, s, refController(build), refBudget(t, budget, 2), append([]harness.Fault{harness.Crash}, harness.WriteFaults()...))
	t.Run("time", func(t *testing.T) { refLoose(t, s, refController(build), refTimeBudget(t), harness.TimeFaults()) })
	t.Run("views", func(t *testing.T) {
		refLoose(t, more.views(s), refController(build), refViewBudget(t), harness.ViewFaults())
	})
	t.Run("handover", func(t *testing.T) {
		refLoose(t, refElection(s), refElected(build), refHandoverBudget(t), []harness.Fault{harness.Handover})
	})
}

// refLoose is refExploreLoose's exploration with opts of faults at each
// write.
func refLoose(t *testing.T, s harness.Scenario, ctl harness.Controller, opts harness.Options, faults []harness.Fault) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		ref, err := harness.Replay(t.Context(), s, ctl, nil, nil)
		require.NoError(t, err)
		require.Empty(t, ref.Problems, "the reference run")
		try := func(ps []harness.Perturbation) bool {
			o, err := harness.Replay(t.Context(), s, ctl, ref, ps)
			require.NoError(t, err)
			if !o.Failed() {
				return true
			}
			var b strings.Builder
			for _, e := range o.Timeline {
				fmt.Fprintf(&b, "\n  %s", e)
			}
			t.Errorf("scenario %q fails under %v:\n  %s\ntimeline:%s", s.Name, ps, strings.Join(o.Problems, "\n  "), b.String())
			return opts.All
		}
		runs := 0
		for k := 1; k <= ref.Writes; k++ {
			for _, f := range faults {
				if f == harness.Handover && s.Election == nil {
					continue
				}
				if runs++; runs > opts.Budget || !try([]harness.Perturbation{{Write: k, Fault: f}}) {
					return
				}
			}
		}
		for i := range opts.Random {
			rf := opts.RandomFaults
			if s.Election == nil {
				rf = slices.DeleteFunc(slices.Clone(rf), func(f harness.Fault) bool { return f == harness.Handover })
			}
			if !try(harness.GenerateFrom(opts.Seed+uint64(i), ref.Writes, 3, rf)) {
				return
			}
		}
	})
}

// refWeb is a Deployment "web" of 2 nginx pods, rolled one pod at a
// time (maxSurge 1, maxUnavailable 0).
const refWeb = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 2
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}
  selector: {matchLabels: {app: web}}
  template:
    # Its pods drain for their whole grace period when deleted (the
    # simulated kubelet's behaviour before containers stopped at once on
    # SIGTERM), so every controller sees them terminating and not ready
    # before they are gone, whatever order goroutines run in.
    metadata: {labels: {app: web}, annotations: {sim.ctrlkit.io/stop-after: grace}}
    spec: {containers: [{name: nginx, image: "nginx:1.27"}]}
`

// TestReferenceDeployment: a Deployment of 1 rolled to a new image, then
// scaled to 2 and rolled back to the first image, beside the ReplicaSet
// controller. Contract: the ReplicaSets' replicas never add up to more
// than replicas + maxSurge, and at most one ReplicaSet per template. The
// controller writes the Deployment's status from its cache, as kcm's
// does, and conflicts with its own last status write when the cache has
// not caught up with it yet: how many such conflicts a run has depends
// on how goroutines run at one instant, so the scenario is explored with
// refExploreLoose.
func TestReferenceDeployment(t *testing.T) {
	s := harness.Scenario{
		Name:    "deployment",
		Objects: refDecode(t, refSA+strings.Replace(refWeb, "replicas: 2", "replicas: 1", 1)),
		Steps: []harness.Step{
			refUpdate("new image", "default/web", func(d *api.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:1.28" }),
			refUpdate("scale to 2", "default/web", func(d *api.Deployment) { d.Spec.Replicas = new(int32(2)) }),
			refUpdate("roll back", "default/web", func(d *api.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:1.27" }),
		},
		Invariants: []harness.Invariant{{Name: "replicas + maxSurge", Check: refSurge}},
	}
	refManager(&s, manager.ReplicaSetController)
	refExploreLoose(t, s, 4, refMore{}, func(c client.Client, f *informer.Factory) (harness.Runner, error) {
		return deployment.New(c, f, deployment.Options{Workers: 1, Logger: refDiscard})
	})
}

// refSurge checks the Deployment "web" (maxSurge 1): its ReplicaSets'
// replicas add up to at most replicas + 1, and no two have one image.
func refSurge(ctx context.Context, c client.Client) error {
	ds, err := refList[*api.Deployment](ctx, c)
	if err != nil || len(ds) != 1 {
		return err
	}
	rss, err := refList[*api.ReplicaSet](ctx, c)
	if err != nil {
		return err
	}
	sum, images := int32(0), map[string]string{}
	for _, rs := range rss {
		sum += *rs.Spec.Replicas
		img := rs.Spec.Template.Spec.Containers[0].Image
		if other, ok := images[img]; ok && rs.DeletionTimestamp == nil {
			return fmt.Errorf("ReplicaSets %s and %s both run %s", other, rs.Name, img)
		}
		images[img] = rs.Name
	}
	if most := *ds[0].Spec.Replicas + 1; sum > most {
		return fmt.Errorf("ReplicaSets' replicas add up to %d, more than %d", sum, most)
	}
	return nil
}

// TestReferenceStatefulSet: a StatefulSet of 2 scaled to 3, its image
// changed (a rolling update from the highest ordinal), then scaled to 1.
// Contract (OrderedReady): each live pod's ordinal is below the
// replicas (spec, or status while scaling down), and at most one live pod
// is not ready (the next is created only once its predecessors are).
func TestReferenceStatefulSet(t *testing.T) {
	s := harness.Scenario{
		Name: "statefulset",
		Objects: refDecode(t, refSA+`
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: default}
spec:
  replicas: 2
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: pg, image: "postgres:16"}]}
`),
		Steps: []harness.Step{
			refUpdate("scale to 3", "default/db", func(s *api.StatefulSet) { s.Spec.Replicas = new(int32(3)) }),
			refUpdate("new image", "default/db", func(s *api.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = "postgres:17" }),
			refUpdate("scale to 1", "default/db", func(s *api.StatefulSet) { s.Spec.Replicas = new(int32(1)) }),
		},
		Invariants: []harness.Invariant{{Name: "ordered", Check: func(ctx context.Context, c client.Client) error {
			sets, err := refList[*api.StatefulSet](ctx, c)
			if err != nil || len(sets) != 1 {
				return err
			}
			pods, err := refList[*api.Pod](ctx, c)
			if err != nil {
				return err
			}
			most := max(*sets[0].Spec.Replicas, sets[0].Status.Replicas)
			var unready []string
			for _, p := range refLive(pods, map[string]string{"app": "db"}) {
				n, err := strconv.Atoi(strings.TrimPrefix(p.Name, "db-"))
				if err != nil || n >= int(most) {
					return fmt.Errorf("pod %s is no ordinal below %d", p.Name, most)
				}
				if !api.IsPodReady(p) {
					unready = append(unready, p.Name)
				}
			}
			if len(unready) > 1 {
				return fmt.Errorf("pods %v not ready at once", unready)
			}
			return nil
		}}},
	}
	refExploreLoose(t, s, 10, refMore{}, func(c client.Client, f *informer.Factory) (harness.Runner, error) {
		return statefulset.New(c, f, statefulset.Options{Workers: 1, Logger: refDiscard})
	})
}

// refNode is a node "node-x" no kubelet runs: ready when applied, it
// never posts its status again (its pods stay pending).
const refNode = `
apiVersion: v1
kind: Node
metadata: {name: node-x, labels: {kubernetes.io/hostname: node-x}}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
  conditions:
  - {type: Ready, status: "True", reason: KubeletReady, lastHeartbeatTime: "2000-01-01T00:00:00Z", lastTransitionTime: "2000-01-01T00:00:00Z"}
`

// TestReferenceDaemonSet: a DaemonSet on the one node, then a second
// node joins (whose pod stays pending: no kubelet runs it), then its
// image changes (a rolling update, one node at a time). Contract: one
// live daemon pod per node (and one surplus pod after a lost reply).
func TestReferenceDaemonSet(t *testing.T) {
	nodes := refDecode(t, refNode)
	s := harness.Scenario{
		Name: "daemonset",
		Objects: refDecode(t, refSA+`
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: default}
spec:
  selector: {matchLabels: {app: agent}}
  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 1}}
  template:
    metadata: {labels: {app: agent}}
    spec: {terminationGracePeriodSeconds: 0, containers: [{name: agent, image: "agent:1"}]}
`),
		Steps: []harness.Step{
			{Name: "node joins", Do: func(ctx context.Context, c client.Client) error {
				r, err := client.For[*api.Node](c)
				if err != nil {
					return err
				}
				_, err = r.Create(ctx, nodes[0].(*api.Node).DeepCopy())
				return err
			}, Sleep: time.Minute},
			refUpdate("new image", "default/agent", func(d *api.DaemonSet) { d.Spec.Template.Spec.Containers[0].Image = "agent:2" }),
		},
		Invariants: []harness.Invariant{{Name: "one pod per node", Check: func(ctx context.Context, c client.Client) error {
			pods, err := refList[*api.Pod](ctx, c)
			if err != nil {
				return err
			}
			per := map[string]int{}
			for _, p := range refLive(pods, map[string]string{"app": "agent"}) {
				node := p.Spec.NodeName
				if node == "" {
					node = refAffinityNode(p)
				}
				// 2: a create whose reply was lost (TimeoutWritten) lowers
				// the expectations, as kcm's does for any failed create,
				// and the retry may come before the pod's event: one
				// surplus pod, deleted at once.
				if per[node]++; per[node] > 2 {
					return fmt.Errorf("%d daemon pods for node %s", per[node], node)
				}
			}
			return nil
		}}},
	}
	refCheck(t, s, 10, refMore{}, func(c client.Client, f *informer.Factory) (harness.Runner, error) {
		return daemonset.New(c, f, daemonset.Options{Workers: 1, Logger: refDiscard})
	})
}

// refAffinityNode is the node a daemon pod's node affinity names.
func refAffinityNode(p *api.Pod) string {
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, f := range t.MatchFields {
			if len(f.Values) == 1 {
				return f.Values[0]
			}
		}
	}
	return ""
}

// TestReferenceJob: a Job of 3 completions, one pod at a time, each
// running 10 s and succeeding. Contract: never more active pods than
// parallelism, never more succeeded pods than completions.
func TestReferenceJob(t *testing.T) {
	s := harness.Scenario{
		Name: "job",
		Objects: refDecode(t, refSA+`
apiVersion: batch/v1
kind: Job
metadata: {name: batch, namespace: default}
spec:
  completions: 3
  parallelism: 1
  template:
    metadata: {annotations: {sim.ctrlkit.io/run-for: 10s}}
    spec:
      restartPolicy: Never
      containers: [{name: work, image: "busybox:1"}]
`),
		Steps:      []harness.Step{{Name: "a minute", Sleep: time.Minute}},
		Kinds:      []harness.Kind{harness.KindOf[*api.Job](), harness.KindOf[*api.Pod]()},
		Mask:       []harness.Mask{harness.MaskControllerUID()},
		Invariants: []harness.Invariant{refJobPods(1)},
	}
	refCheck(t, s, 12, refMore{viewScenario: refJobViews}, func(c client.Client, f *informer.Factory) (harness.Runner, error) {
		return job.New(c, f, job.Options{Workers: 1, Logger: refDiscard})
	})
}

// refJobPods is the Job scenario's invariant: at most mostActive active
// pods (parallelism 1), at most 3 succeeded (completions 3).
func refJobPods(mostActive int) harness.Invariant {
	return harness.Invariant{Name: "one pod per completion", Check: func(ctx context.Context, c client.Client) error {
		pods, err := refList[*api.Pod](ctx, c)
		if err != nil {
			return err
		}
		active, succeeded := 0, 0
		for _, p := range pods {
			switch {
			case p.Status.Phase == api.PodSucceeded:
				succeeded++
			case p.DeletionTimestamp == nil && p.Status.Phase != api.PodFailed:
				active++
			}
		}
		if active > mostActive || succeeded > 3 {
			return fmt.Errorf("%d active pods (parallelism 1), %d succeeded (completions 3)", active, succeeded)
		}
		return nil
	}}
}

// refJobViews is the Job scenario under the view faults, allowing one
// surplus active pod for a while: restarted on a stale list (Stale)
// without the running pod, the controller creates another, as kcm's
// does (its expectations start empty and its informer's first list at
// resourceVersion 0 may lag), and deletes the surplus once its watch
// catches up. The end state must still be the reference run's: the
// surplus pod is not counted as failed (TestSurplusPodIsNotCountedAsFailed
// in package job, the finding of stale@1).
//
// Restarted on a list from before its status write counting the second
// pod (random run 3 of seed 1, minimized to stale@12), the controller
// catches up through its two watches, each in order but each at its own
// pace: when its pods cache already shows the third pod succeeded and
// its tracking finalizer removed, while its jobs cache still shows
// status.succeeded 2 (and not yet the write that listed the pod in
// status.uncountedTerminatedPods, nor the one completing the Job), it
// takes the pod for one counted before (a finished pod without the
// finalizer) and creates a fourth. kcm's does the same on the same
// caches: syncJob reads the Job from its lister, and
// trackJobStatusAndRemoveFinalizers skips a pod without the finalizer
// ("processed in a previous sync"), so succeeded is status.succeeded
// plus the uncounted ones, 2, and it creates one pod
// (pkg/controller/job/job_controller.go); once the Job shows complete,
// the pod only loses its finalizer (a finished Job is not synced again).
// So the run ends with one more pod than the reference run's, created
// after the Job completed (refJobExtra), and otherwise its state.
func refJobViews(s harness.Scenario) harness.Scenario {
	s.Invariants = []harness.Invariant{refJobPods(2)}
	s.Extra = []harness.Extra{{Kind: "Pod", Match: refJobExtra,
		Reason: "kcm's syncJob creates a pod on a pods cache ahead of its jobs cache (pkg/controller/job/job_controller.go)"}}
	return s
}

// refJobExtra matches a pod of the Job batch created after the Job
// completed, its tracking finalizer removed: the surplus pod of a
// restart on a stale list (refJobViews).
func refJobExtra(o api.Object, end map[string][]api.Object) bool {
	p := o.(*api.Pod)
	ref := p.ControllerRef()
	if ref == nil || ref.Kind != "Job" || ref.Name != "batch" || slices.Contains(p.Finalizers, job.FinalizerTracking) {
		return false
	}
	for _, j := range end["Job"] {
		if j.GetObjectMeta().Name == "batch" {
			done := j.(*api.Job).Status.CompletionTime
			return done != nil && p.CreationTimestamp.After(done.Time)
		}
	}
	return false
}

// TestReferenceCronJob: a CronJob every minute whose jobs run 90 s, with
// concurrencyPolicy Forbid and a history of one, over 4 minutes, beside
// the Job controller. Contract: at most one unfinished Job at a time,
// and at most one finished Job kept once it settles.
func TestReferenceCronJob(t *testing.T) {
	s := harness.Scenario{
		Name: "cronjob",
		Objects: refDecode(t, refSA+`
apiVersion: batch/v1
kind: CronJob
metadata: {name: tick, namespace: default}
spec:
  schedule: "* * * * *"
  concurrencyPolicy: Forbid
  successfulJobsHistoryLimit: 1
  failedJobsHistoryLimit: 1
  jobTemplate:
    spec:
      template:
        metadata: {annotations: {sim.ctrlkit.io/run-for: 90s}}
        spec:
          restartPolicy: Never
          containers: [{name: work, image: "busybox:1"}]
`),
		Steps: []harness.Step{{Name: "4 minutes", Sleep: 4 * time.Minute}},
		// A Job is named after its scheduled minute, and the runs of one
		// exploration follow each other in virtual time.
		Kinds:      []harness.Kind{harness.KindOf[*api.CronJob](), harness.KindOf[*api.Job]()},
		Mask:       []harness.Mask{harness.MaskTimeNames("", "tick-"), harness.MaskControllerUID()},
		Invariants: []harness.Invariant{refCronJobForbid(1)},
	}
	refManager(&s, manager.JobController)
	refCheck(t, s, 10, refMore{viewScenario: refCronJobViews}, func(c client.Client, f *informer.Factory) (harness.Runner, error) {
		return cronjob.New(c, f, cronjob.Options{Workers: 1, Logger: refDiscard})
	})
}

// refCronJobForbid is the CronJob scenario's invariant: at most most
// unfinished Jobs at a time.
func refCronJobForbid(most int) harness.Invariant {
	return harness.Invariant{Name: "Forbid: one active Job", Check: func(ctx context.Context, c client.Client) error {
		jobs, err := refList[*api.Job](ctx, c)
		if err != nil {
			return err
		}
		active := 0
		for _, j := range jobs {
			if j.DeletionTimestamp == nil && j.Status.CompletionTime == nil && !refJobFailed(j) {
				active++
			}
		}
		if active > most {
			return fmt.Errorf("%d unfinished Jobs", active)
		}
		return nil
	}}
}

// refCronJobViews is the CronJob scenario under the view faults,
// allowing two unfinished Jobs (each runs 90 s, one a minute): with its
// watches cut at its first create (Cut) and held to the end of the 4
// minutes, the controller's caches show neither that Job nor the status
// that lists it, and at the next schedules it sees no Job active and
// creates the next one, its status writes conflicting. kcm's does the
// same on the same view: syncCronJob (pkg/controller/cronjob/
// cronjob_controllerv2.go) reads the cron job and its jobs from the
// listers, reads the API server only for a listed job or an active entry
// the other cache lacks, and checks Forbid on the cached status.active;
// its CronJob controller has no consistency store, and ctrlkit's gate
// waits at most a minute (reconcile.DefaultMaxKeyWait) for a write to
// show. Once the watches relist, the history limit leaves the reference
// run's end state.
//
// Restarted on a stale list instead (Stale at its create of a Job, the
// restart at the end of the 4 minutes: random run 3 of seed 1, crash@5
// stale@6), the controller lists the previous Job, finished, in
// status.active and not the running one: it drops the finished Job and,
// seeing nothing active, creates the current minute's Job while the
// other runs. kcm's syncCronJob does the same on the same listers: it
// reads the API server for a listed unfinished Job missing from
// status.active or an active entry missing from the jobs lister, and
// here neither is the case (the listed Job is finished, the running one
// absent from both). Its status write then conflicts, and on the
// caught-up caches the new Job is an UnexpectedJob, not added to
// status.active; so the run ends with one unfinished Job of the cron job
// beyond the reference run's, not in its status.active (refCronJobExtra),
// and otherwise the reference run's state.
func refCronJobViews(s harness.Scenario) harness.Scenario {
	s.Invariants = []harness.Invariant{refCronJobForbid(2)}
	s.Extra = []harness.Extra{{Kind: "Job", Match: refCronJobExtra,
		Reason: "kcm's syncCronJob creates the current minute's Job on a stale jobs lister (pkg/controller/cronjob/cronjob_controllerv2.go)"}}
	return s
}

// refCronJobExtra matches a Job of the cron job tick that is unfinished
// and missing from its status.active: the extra Job of a restart on a
// stale list (refCronJobViews).
func refCronJobExtra(o api.Object, end map[string][]api.Object) bool {
	j := o.(*api.Job)
	ref := j.ControllerRef()
	if ref == nil || ref.Kind != "CronJob" || ref.Name != "tick" || j.Status.CompletionTime != nil || refJobFailed(j) {
		return false
	}
	for _, c := range end["CronJob"] {
		if c.GetObjectMeta().Name == "tick" {
			return !slices.ContainsFunc(c.(*api.CronJob).Status.Active, func(r api.ObjectReference) bool { return r.UID == j.UID })
		}
	}
	return false
}

// refJobFailed reports whether j has its Failed condition.
func refJobFailed(j *api.Job) bool {
	for _, c := range j.Status.Conditions {
		if c.Type == "Failed" && c.Status == "True" {
			return true
		}
	}
	return false
}

// TestReferenceGarbageCollector: two Deployments (beside the Deployment
// and ReplicaSet controllers); "web" is deleted in the foreground, "api"
// orphaning its dependents. Contract: an orphaned dependent is never
// deleted; at the end web's ReplicaSet and pods are gone. With its
// watches cut at its delete of web's ReplicaSet (cut@1), the collector
// deletes the pod but removes the ReplicaSet's foregroundDeletion
// finalizer only once an event tells it the pod is gone — as kcm's
// collector, whose attemptToDeleteItem is queued by its graph's events
// (pkg/controller/garbagecollector/garbagecollector.go) — so that
// deletion waits for the relist, which the harness lets through once
// the settle has stalled for harness.CutHold.
func TestReferenceGarbageCollector(t *testing.T) {
	api2 := strings.NewReplacer("web", "api", "replicas: 2", "replicas: 1").Replace(refWeb)
	s := harness.Scenario{
		Name:    "garbagecollector",
		Objects: refDecode(t, refSA+strings.Replace(refWeb, "replicas: 2", "replicas: 1", 1)+"---"+api2),
		Steps: []harness.Step{
			refDelete[*api.Deployment]("delete web (foreground)", "default/web", client.DeletePropagationForeground),
			refDelete[*api.Deployment]("delete api (orphan)", "default/api", client.DeletePropagationOrphan),
		},
		Invariants: []harness.Invariant{{Name: "orphans live", Check: func(ctx context.Context, c client.Client) error {
			rss, err := refList[*api.ReplicaSet](ctx, c)
			if err != nil {
				return err
			}
			pods, err := refList[*api.Pod](ctx, c)
			if err != nil {
				return err
			}
			ds, err := refList[*api.Deployment](ctx, c)
			if err != nil {
				return err
			}
			apiGone := !slices.ContainsFunc(ds, func(d *api.Deployment) bool { return d.Name == "api" })
			if apiGone && (!slices.ContainsFunc(rss, func(rs *api.ReplicaSet) bool { return rs.Labels["app"] == "api" && rs.DeletionTimestamp == nil }) ||
				len(refLive(pods, map[string]string{"app": "api"})) == 0) {
				return errors.New("an orphaned dependent of api was deleted")
			}
			return nil
		}}},
	}
	refManager(&s, manager.DeploymentController, manager.ReplicaSetController)
	refExploreLoose(t, s, 8, refMore{}, func(c client.Client, f *informer.Factory) (harness.Runner, error) {
		return garbagecollector.New(c, f, garbagecollector.Options{Workers: 1, Logger: refDiscard})
	})
}

// TestReferenceEndpoints: a Service over the Deployment "web" of 2
// (beside the Deployment and ReplicaSet controllers), scaled to 3, rolled
// to a new image, scaled to 1. Contract: every address of the Endpoints
// names a pod of the service's selector, ready ones a ready pod.
func TestReferenceEndpoints(t *testing.T) {
	s := harness.Scenario{
		Name: "endpoints",
		Objects: refDecode(t, refSA+`
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
---`+refWeb),
		Steps: []harness.Step{
			refUpdate("scale to 3", "default/web", func(d *api.Deployment) { d.Spec.Replicas = new(int32(3)) }),
			refUpdate("new image", "default/web", func(d *api.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:1.28" }),
			refUpdate("scale to 1", "default/web", func(d *api.Deployment) { d.Spec.Replicas = new(int32(1)) }),
		},
		Kinds: append(harness.DefaultKinds(), harness.KindOf[*api.Endpoints]()),
		Mask:  []harness.Mask{harness.MaskIPs()},
		Invariants: []harness.Invariant{{Name: "addresses are the selector's pods", Check: func(ctx context.Context, c client.Client) error {
			eps, err := refList[*api.Endpoints](ctx, c)
			if err != nil {
				return err
			}
			pods, err := refList[*api.Pod](ctx, c)
			if err != nil {
				return err
			}
			byName := map[string]*api.Pod{}
			for _, p := range pods {
				byName[p.Name] = p
			}
			for _, ep := range eps {
				if ep.Name != "web" {
					continue
				}
				for _, ss := range ep.Subsets {
					for _, a := range ss.Addresses {
						if a.TargetRef == nil || byName[a.TargetRef.Name] == nil || byName[a.TargetRef.Name].Labels["app"] != "web" {
							return fmt.Errorf("ready address %s names no pod of web", a.IP)
						}
					}
				}
			}
			return nil
		}}},
	}
	refManager(&s, manager.DeploymentController, manager.ReplicaSetController)
	refExploreLoose(t, s, 4, refMore{}, func(c client.Client, f *informer.Factory) (harness.Runner, error) {
		return endpoints.New(c, f, endpoints.Options{Workers: 1, Logger: refDiscard})
	})
}

// TestReferenceNodeLifecycle: a node no kubelet runs (ready when
// applied) beside node-1, over 10 minutes. Contract: node-1, whose
// kubelet posts its status, is never tainted nor marked not ready; the
// silent node ends tainted unreachable.
func TestReferenceNodeLifecycle(t *testing.T) {
	s := harness.Scenario{
		Name:    "nodelifecycle",
		Objects: refDecode(t, refNode),
		Steps:   []harness.Step{{Name: "node-x silent 10 minutes", Sleep: 10 * time.Minute}},
		Kinds:   append(harness.DefaultKinds(), harness.KindOf[*api.Node]()),
		// node-x's taints are added by independent writes, in either order.
		Mask: []harness.Mask{harness.SortList("Node", "spec", "taints")},
		Invariants: []harness.Invariant{{Name: "a healthy node is left alone", Check: func(ctx context.Context, c client.Client) error {
			nodes, err := refList[*api.Node](ctx, c)
			if err != nil {
				return err
			}
			for _, n := range nodes {
				if n.Name != "node-1" {
					continue
				}
				if len(n.Spec.Taints) > 0 {
					return fmt.Errorf("node-1 tainted %v", n.Spec.Taints)
				}
				for _, c := range n.Status.Conditions {
					if c.Type == "Ready" && c.Status != "True" {
						return fmt.Errorf("node-1 Ready=%s", c.Status)
					}
				}
			}
			return nil
		}}},
	}
	refExploreLoose(t, s, 8, refMore{viewScenario: refNodeLifecycleViews}, func(c client.Client, f *informer.Factory) (harness.Runner, error) {
		return nodelifecycle.New(c, f, nodelifecycle.Options{Logger: refDiscard})
	})
}

// refNodeLifecycleViews is the NodeLifecycle scenario under the view
// faults, each settle waiting for the stores to be quiet for longer than
// a zone queue's token period (1/nodelifecycle.DefaultEvictionRate, 10
// s): with its node watch cut at its first write (Cut) and held to the
// end of the silence, the controller queues node-x for its NoExecute
// taint at every health pass (it reads the live node on its status
// conflict), but its tainting pass reads the cached node, still Ready,
// and drops it — taking the queue's token each time. Once the watch
// relists, the taint waits for the next token, up to 10 s, past the
// default 5 s quiet period that ended the run. kcm's does the same on
// the same view (pkg/controller/nodelifecycle/
// node_lifecycle_controller.go: doNoExecuteTaintingPass reads
// nc.nodeLister and returns true for a node "ready now", and the
// RateLimitedTimedQueue's Try takes a token for each attempt).
//
// Under a Cut the invariant "a healthy node is left alone" is not checked:
// every watch of the controller is held up to CutHold (a minute), longer
// than the 40 s grace period, so it sees no renewal of node-1's Lease, and
// as kube's kubelet node-1's posts its status only on change or every 5
// minutes (pkg/kubelet/kubelet_node_status.go, nodeStatusReportFrequency),
// so no status conflict makes the controller read the live node either: it
// marks node-1 Unknown (and may taint it), as kcm does on the same view
// (monitorNodeHealth reads the frozen lease lister, and its UpdateStatus of
// the cached node succeeds). The kubelet restores Ready at its next status
// sync, 10 s later, and the end state is still compared with the
// reference run's.
func refNodeLifecycleViews(s harness.Scenario) harness.Scenario {
	s.Quiet = time.Duration(float64(time.Second)/nodelifecycle.DefaultEvictionRate) + time.Second
	s.Invariants = nil
	return s
}

// TestReferenceNamespace: a namespace holding a ConfigMap, a Secret and
// a Deployment (beside the Deployment and ReplicaSet controllers) is
// deleted. Contract: the namespace is removed only once it is empty, and
// nothing of it is left.
func TestReferenceNamespace(t *testing.T) {
	s := harness.Scenario{
		Name: "namespace",
		Objects: refDecode(t, `
apiVersion: v1
kind: Namespace
metadata: {name: team}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: default, namespace: team}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: team}
data: {a: "1"}
---
apiVersion: v1
kind: Secret
metadata: {name: token, namespace: team}
stringData: {t: x}
---`+strings.ReplaceAll(refWeb, "namespace: default", "namespace: team")),
		Steps: []harness.Step{{Name: "delete team", Do: func(ctx context.Context, c client.Client) error {
			r, err := client.For[*api.Namespace](c)
			if err != nil {
				return err
			}
			_, err = r.Delete(ctx, "team", "")
			return err
		}}},
		Kinds: append(harness.DefaultKinds(), harness.KindOf[*api.Namespace]()),
		Invariants: []harness.Invariant{{Name: "removed only once empty", Check: func(ctx context.Context, c client.Client) error {
			nss, err := refList[*api.Namespace](ctx, c)
			if err != nil || slices.ContainsFunc(nss, func(ns *api.Namespace) bool { return ns.Name == "team" }) {
				return err
			}
			for _, k := range harness.DefaultKinds() {
				objs, err := k.List(ctx, c)
				if err != nil {
					return err
				}
				for _, o := range objs {
					if o.GetObjectMeta().Namespace == "team" {
						return fmt.Errorf("namespace team removed, %s %s left", k.Name, api.Key(o))
					}
				}
			}
			return nil
		}}},
	}
	refManager(&s, manager.DeploymentController, manager.ReplicaSetController)
	refExploreLoose(t, s, 6, refMore{}, func(c client.Client, f *informer.Factory) (harness.Runner, error) {
		return namespace.New(c, f, namespace.Options{Workers: 1, Logger: refDiscard})
	})
}
