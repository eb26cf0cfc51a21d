package harness

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

// Runner is a started controller: Run blocks until ctx ends (or the
// controller fails) and returns only after every goroutine it started has
// exited.
type Runner interface {
	Run(ctx context.Context) error
}

// Controller builds a controller over c. The harness calls it once per
// incarnation — at the start and after every crash — so everything the
// controller keeps in memory (informers, caches, queues, expectations)
// must be built here, anew, from c.
type Controller func(c client.Client) (Runner, error)

// Step is one step of a Scenario: Do (if set) runs over the control
// plane's own client, not the controller's (it is the user, or another
// component), then Sleep passes in virtual time, then the harness
// settles.
type Step struct {
	// Name names the step in reports.
	Name string
	// Do changes the cluster.
	Do func(ctx context.Context, c client.Client) error
	// Sleep is time passing after Do.
	Sleep time.Duration
}

// Invariant is a property of the cluster that must hold after every
// write of the controller and at the end of a run. Check reads through
// c (the control plane's client) and returns an error describing the
// violation.
type Invariant struct {
	// Name names the invariant in reports.
	Name string
	// Check returns nil when the invariant holds.
	Check func(ctx context.Context, c client.Client) error
}

// Scenario is what every run does: start a control plane with Options,
// start the controller, apply Objects, settle, then each Step in turn,
// settling after each.
type Scenario struct {
	// Name names the scenario in reports.
	Name string
	// Options configure the control plane. A nil
	// Options.Manager.Controllers runs, of the manager's controllers,
	// only the service account controller (beside the user's controller,
	// the scheduler and the nodes); set it to run others.
	Options controlplane.Options
	// Objects are applied, in order, after the controller started.
	Objects []api.Object
	// Steps follow.
	Steps []Step
	// Invariants are checked after every write of the controller and at
	// the end.
	Invariants []Invariant
	// Kinds are the kinds whose objects make the end state the
	// differential oracle compares. Default: DefaultKinds.
	Kinds []Kind
	// Quiet is the quiet period of each Settle. Default 5 s.
	Quiet time.Duration
	// Converge bounds, in virtual time, how long the system may take to
	// settle after the last step. Default 10 min.
	Converge time.Duration
	// TTL is how much virtual time an Expire fault lets pass. Default
	// ExpectationsTTL.
	TTL time.Duration
	// Election, when not nil, runs the controller as two replicas under
	// leader election (see Elected and the Handover fault). Default: one
	// replica, no election.
	Election *Election
	// Mask normalizes the end state further before the differential
	// oracle compares it (see Mask); applied in order, after Normalize.
	Mask []Mask
	// Extra lists the objects a perturbed run may end with beyond the
	// reference run's (see Extra): each excuses, in the differential
	// oracle, a bounded number of objects of one kind that its
	// predicate matches. Default: none, every surplus object is a
	// problem.
	Extra []Extra
}

// Extra excuses, in the differential oracle, an object a perturbed run
// ends with beyond the reference run's when the controller under test
// does what its upstream counterpart does on the same view (a restart on
// a stale list may create what the reference run never needed): of
// the run's end state, the objects of Kind (a Kind's Name) that Match
// accepts are set aside, at most Max (default 1) of them, before the
// objects are compared, and only where the run has more objects of
// that normalized identity than the reference run (a surplus of
// generated or masked names, or an identity the reference lacks). A
// surplus that Match rejects, or beyond Max, is still a duplicate create
// or an extra object; the objects set aside are listed in
// Outcome.Excused. Keep the mask narrow, and say in Reason which
// upstream behaviour it stands for.
type Extra struct {
	// Kind is the kind of the objects excused; required.
	Kind string
	// Reason names the upstream behaviour the excuse stands for; it is
	// part of Outcome.Excused.
	Reason string
	// Match reports whether o, an object of Kind in the run's end state
	// (as read, before Normalize), may be the extra one; end is the
	// whole end state, by kind (Kind.Name), for the objects o relates
	// to. Required.
	Match func(o api.Object, end map[string][]api.Object) bool
	// Max bounds the objects excused per run. Default 1.
	Max int
}

// Election configures the two replicas of Scenario.Election: replicas
// "a" and "b", each with its own client, incarnations and a
// leaderelection.Elector (identity "a" or "b") over one Lease, which
// the harness's own client reads and writes (its writes are not the
// controller's and are not numbered). Replica a starts first and
// leads; b starts once a leads, as the standby. Build the controller
// with Elected, so that each incarnation gets its replica's elector.
type Election struct {
	// Namespace and Name of the Lease. Default "kube-system" and
	// "harness-controller".
	Namespace, Name string
	// LeaseDuration, RenewDeadline and RetryPeriod are the elector's
	// (see leaderelection.Options); zero takes its defaults,
	// kube-controller-manager's 15 s, 10 s and 2 s.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
}

// Fault is what happens at a perturbed write.
type Fault string

// The faults.
const (
	// Crash stops the controller right after the write (which happens;
	// its reply may or may not reach the controller) and starts a new
	// incarnation with fresh caches.
	Crash Fault = "crash"
	// Conflict fails the write with a 409 Conflict; nothing is written.
	Conflict Fault = "conflict"
	// Throttle fails the write with a 429 Too Many Requests carrying
	// Retry-After: 1s; nothing is written.
	Throttle Fault = "429"
	// Internal fails the write with a 500 Internal Server Error; nothing
	// is written.
	Internal Fault = "500"
	// TimeoutWritten makes the write happen and then fail with a server
	// timeout (the reply was lost).
	TimeoutWritten Fault = "timeout-written"
	// TimeoutLost fails the write with a server timeout; nothing is
	// written.
	TimeoutLost Fault = "timeout-lost"
	// Stale is a restart after which the controller reads a stale
	// view: the cluster's state just before the write (each kind's
	// resourceVersion then) is remembered, the write happens, and right
	// after the scenario's next change (the next Step's Do; at the end
	// of the steps if there is none) the controller is stopped as by a
	// Crash. Its new incarnation's first list of each resource (and
	// Select) — an informer's initial list — is served at the remembered
	// state (source.Exact), as a lagging API server replica or watch
	// cache serves a list at resourceVersion=0, and its first watch of
	// each goes on from that version StaleLag later, so that it catches
	// up through every event it missed, in order: never a state newer,
	// then an older one.
	Stale Fault = "stale"
	// Cut is a watch cut: every watch the controller has open is
	// closed, then the write happens (its event is never seen), and its
	// informers' next list or watch of each of those resources is held
	// until the scenario's next change (the next Step's Do; at the end
	// of the steps, at once), or for at most CutHold of a settle that
	// does not settle meanwhile (the system may wait for what the
	// controller can only learn from the held events), and then
	// answered, a watch with
	// source.ErrExpired (410 Gone), so that they relist: the states
	// their objects went through meanwhile are never seen — several
	// updates of an object arrive as the last one, an object created
	// and deleted meanwhile not at all, a deletion as a relist's
	// finalStateUnknown delete.
	Cut Fault = "cut"
	// Expire is time passing past a TTL: the write fails with a server
	// timeout and is not written (as TimeoutLost: the object the
	// controller may believe created never appears, so no watch event
	// of it ever comes), and once the system has settled the harness
	// lets Scenario.TTL (default ExpectationsTTL) pass in virtual time
	// before the scenario goes on (the next Step's Do, or the end),
	// then settles again. The controller's timers fire and its TTLs
	// expire while it waits: a controller that, as kube-controller-
	// manager's Job controller, keeps the expectation of a timed-out
	// create and relies on the expectation's TTL recovers; one whose
	// expectations never expire stalls and is found.
	Expire Fault = "ttl"
	// Resync is a resync of every informer of the controller: the write
	// happens, then every informer its running incarnations run (under
	// the context Run was given; see informer.WithResyncs) gives each of
	// its handlers OnUpdate(obj, obj) for every cached object, as a
	// shared informer's resync period does. A controller that acts on
	// every Update event without comparing states (creates, appends,
	// bumps a counter) acts again for nothing and is found.
	Resync Fault = "resync"
	// Handover is the leader's partition and a standby's takeover; it
	// needs Scenario.Election (without it, Explore leaves it out). The
	// write fails with a server timeout and is not written, and from
	// then on the replica that made it is partitioned: every write of
	// its controller and every renewal of its Lease fails (its reads
	// still succeed: its caches stay current). Its term ends when
	// RenewDeadline has passed since its last renewal; the standby, whose
	// caches are warm if its controller starts its informers before it
	// campaigns, takes the Lease over once LeaseDuration has passed
	// since it last saw the Lease change. As soon as the standby leads,
	// the partition heals: an old leader that still acts (one that did
	// not stop its work when its term ended) now writes beside the new
	// one. The harness waits (in virtual time, up to Scenario.Converge)
	// for the takeover before the scenario goes on.
	Handover Fault = "handover"
)

// ExpectationsTTL is the time after which kube-controller-manager's
// controller expectations expire (its ExpectationsTimeout, 5 minutes):
// the default of Scenario.TTL.
const ExpectationsTTL = 5 * time.Minute

// TimeFaults returns the faults of time passing: Expire, Resync and
// Handover; Options.Faults does not try them unless asked, and Explore
// leaves Handover out of a scenario without Scenario.Election.
func TimeFaults() []Fault {
	return []Fault{Expire, Resync, Handover}
}

// StaleLag is how long, in virtual time, a Stale incarnation's watches
// lag behind its stale initial lists before they catch up: the time the
// controller acts on the stale view alone.
const StaleLag = time.Second

// CutHold bounds how long, in virtual time, a settle waits while a Cut
// holds the controller's relist: a real watch cut is followed by a
// relist within the reflector's back-off (client-go's caps at 30 s). A
// settle waits in spans of CutHold; a span that ends without the system
// settled answers the held lists and watches, and the settle goes on.
// A cut whose relist the system does not wait for (the settle settles)
// stays held until the scenario's next change.
const CutHold = time.Minute

// ViewFaults returns the faults of the controller's view, Stale and
// Cut; Options.Faults does not try them unless asked.
func ViewFaults() []Fault {
	return []Fault{Stale, Cut}
}

// WriteFaults returns the write faults (every Fault but Crash), in the
// order the exhaustive strategy tries them.
func WriteFaults() []Fault {
	return []Fault{Conflict, Throttle, Internal, TimeoutWritten, TimeoutLost}
}

// ErrInternal is the error of the Internal fault: a 500 that no
// predicate of package client classifies.
var ErrInternal = errors.New("harness: injected internal server error (500)")

// Perturbation is a Fault at the controller's Write-th write (counting
// from 1, over every incarnation, every attempt: a failed write counts).
type Perturbation struct {
	// Write is the write's number, from 1.
	Write int
	// Fault is what happens to it.
	Fault Fault
}

// String returns "crash@3".
func (p Perturbation) String() string { return fmt.Sprintf("%s@%d", p.Fault, p.Write) }

// Entry is one write of the controller in a run's timeline.
type Entry struct {
	// Write is its number (from 1); Incarnation the controller's (from 0,
	// one more after each crash).
	Write, Incarnation int
	// Replica is the replica ("a" or "b") under Scenario.Election; ""
	// otherwise.
	Replica string
	// At is the virtual time since the run started.
	At time.Duration
	// Verb, Resource (with "/subresource") and Key of the call. For a
	// create with metadata.generateName, Key is "namespace/prefix*" and
	// Generated the name the store made, which differs from run to run.
	Verb, Resource, Key, Generated string
	// Fault injected at this write, if any.
	Fault Fault
	// Result is "ok" or the error the controller got.
	Result string
}

// String formats the entry as a timeline line.
func (e Entry) String() string {
	f := ""
	if e.Fault != "" {
		f = " [" + string(e.Fault) + "]"
	}
	k := e.Key
	if e.Generated != "" {
		k += " (" + e.Generated + ")"
	}
	return fmt.Sprintf("#%d t=%s inc=%s%d %s %s %s -> %s%s", e.Write, e.At, e.Replica, e.Incarnation, e.Verb, e.Resource, k, e.Result, f)
}

// isWrite reports whether a call writes.
func isWrite(verb string) bool {
	switch verb {
	case "create", "update", "delete", "patch":
		return true
	}
	return false
}

// faultError returns the error a fault returns to the controller.
func faultError(f Fault) error {
	switch f {
	case Conflict:
		return fmt.Errorf("harness: injected conflict: %w", source.ErrConflict)
	case Throttle:
		return &client.RetryAfterError{Err: client.ErrTooManyRequests, After: time.Second}
	case Internal:
		return ErrInternal
	case TimeoutWritten, TimeoutLost, Expire:
		return fmt.Errorf("harness: injected timeout: %w", client.ErrServerTimeout)
	case Handover:
		return errPartitioned
	}
	return nil
}

// errPartitioned is the error of a partitioned replica's writes.
var errPartitioned = fmt.Errorf("harness: partitioned from the API server: %w", client.ErrServerTimeout)

// MaxTimeline is the most writes a run's timeline (Outcome.Timeline)
// keeps: a controller that writes without end is stopped by the
// convergence bound, and its timeline's first MaxTimeline writes tell
// the story; Outcome.Writes still counts every write.
const MaxTimeline = 1_000

// recorder is one run's view of the controller's writes.
type recorder struct {
	start  time.Time
	faults map[int]Fault
	check  func(ctx context.Context) []string // invariants
	// snapshot reads every kind's current resourceVersion (Stale).
	snapshot func(ctx context.Context) (map[string]string, error)

	mu         sync.Mutex
	n          int
	timeline   []Entry
	violations []string
	broken     map[string]bool // the invariants' messages after the last write
	// pending is the snapshot of a Stale write, until the next change;
	// stale is then the one the next incarnation lists at; current is
	// the running incarnation.
	pending, stale map[string]string
	current        *incarnation
	// release is closed when the cut watches may relist; cuts counts
	// the cuts since it was made. While a change of the scenario is
	// under way, before and beforeCuts are the release and the count of
	// the cuts made before it began (before is nil otherwise).
	release    chan struct{}
	cuts       int
	before     chan struct{}
	beforeCuts int
	// expire is set by an Expire write until the harness lets time pass.
	expire bool
	// live are the incarnations running (a Resync reaches them all);
	// parted is the replica a Handover partitioned, until it heals;
	// taken is closed when the other replica leads (isTaken), healed
	// when the partition heals.
	live          map[*incarnation]bool
	parted        *replica
	taken, healed chan struct{}
	isTaken       bool
}

// replica is one of the two replicas of Scenario.Election.
type replica struct {
	name        string
	partitioned atomic.Bool
}

// handingOver returns the handover under way: taken is closed when the
// standby leads; nil when there is none.
func (r *recorder) handingOver() (taken chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.parted == nil {
		return nil
	}
	return r.taken
}

// leads is called when replica rep begins a term: a term of the other
// replica than the partitioned one takes the handover under way.
func (r *recorder) leads(rep *replica) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.parted != nil && r.parted != rep && !r.isTaken {
		r.isTaken = true
		close(r.taken)
	}
}

// heal ends the partition of the handover under way: the old leader's
// writes held meanwhile go out.
func (r *recorder) heal() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.parted != nil {
		r.parted.partitioned.Store(false)
		close(r.healed)
		r.parted = nil
	}
}

// held returns the channel closed when the partition heals, or nil.
func (r *recorder) held() chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.parted == nil {
		return nil
	}
	return r.healed
}

// partition partitions rep until another replica leads.
func (r *recorder) partition(rep *replica) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.parted != nil {
		return // one handover at a time
	}
	rep.partitioned.Store(true)
	r.parted, r.taken, r.healed, r.isTaken = rep, make(chan struct{}), make(chan struct{}), false
}

// resync resyncs the informers of every running incarnation.
func (r *recorder) resync() {
	r.mu.Lock()
	var all []*informer.Resyncs
	for inc := range r.live {
		all = append(all, inc.resyncs)
	}
	r.mu.Unlock()
	for _, rs := range all {
		rs.Resync()
	}
}

// expired reports whether an Expire write asked for time to pass since
// the last call.
func (r *recorder) expired() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.expire
	r.expire = false
	return e
}

// releaseCuts lets the watches cut since the last release relist; it
// reports whether there were any.
func (r *recorder) releaseCuts() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.releaseLocked()
}

// releaseLocked is releaseCuts with r.mu held.
func (r *recorder) releaseLocked() bool {
	if r.cuts == 0 {
		return false
	}
	close(r.release)
	r.release, r.cuts = make(chan struct{}), 0
	return true
}

// beginChange is called before a change of the scenario (a Step's Do):
// the watches cut until now relist once it is done (changed), but those
// the controller cuts meanwhile, reacting to the change as it happens,
// wait for the next change — released by this one, a cut would relist at
// once, racing the very change it was made to miss.
func (r *recorder) beginChange() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.before, r.beforeCuts = r.release, r.cuts
	r.release, r.cuts = make(chan struct{}), 0
}

// changed is called after each change of the scenario: the watches cut
// before it (since beginChange, if that was called; else until now)
// relist, and a pending Stale restart happens. It reports whether either
// did.
func (r *recorder) changed() bool {
	r.mu.Lock()
	var cut bool
	if r.before != nil {
		if cut = r.beforeCuts > 0; cut {
			close(r.before)
		}
		r.before, r.beforeCuts = nil, 0
	} else {
		cut = r.releaseLocked()
	}
	snap, inc := r.pending, r.current
	restart := snap != nil && inc != nil
	if restart {
		r.pending, r.stale = nil, snap
	}
	r.mu.Unlock()
	if restart {
		inc.crash()
	}
	return cut || restart
}

// crash stops the incarnation: its calls fail from now on.
func (inc *incarnation) crash() {
	inc.mu.Lock()
	inc.dead = true
	inc.mu.Unlock()
	inc.cancel()
}

// incarnation is one life of the controller between crashes.
type incarnation struct {
	n       int
	replica *replica // nil without Scenario.Election
	resyncs *informer.Resyncs
	cancel  context.CancelFunc
	mu      sync.Mutex
	dead    bool
	// stale is the snapshot this incarnation's first lists are served
	// at; listed and watched the streams (resource and Select) already
	// listed and watched.
	stale           map[string]string
	listed, watched map[string]bool
	// watches cancel each stream's open watch; cut holds, per stream
	// cut, the channel its next list or watch waits for.
	watches map[string]context.CancelFunc
	cut     map[string]chan struct{}
}

// stream names the list and watch of a resource or one of its Selects.
func stream(call client.Call) string {
	return fmt.Sprintf("%s %+v", call.Resource, call.SelectOptions)
}

// read passes a list or a watch of incarnation inc through the view
// perturbations: a cut stream's call waits for the release and a watch
// then expires; a stale incarnation's first list of a stream is served
// at its snapshot, and its first watch lags StaleLag.
func (r *recorder) read(ctx context.Context, inc *incarnation, call client.Call, next func(context.Context) error) error {
	id := stream(call)
	inc.mu.Lock()
	wait, cut := inc.cut[id]
	inc.mu.Unlock()
	if cut {
		select {
		case <-wait:
		case <-ctx.Done():
			return ctx.Err()
		}
		inc.mu.Lock()
		delete(inc.cut, id)
		inc.mu.Unlock()
		if call.Verb == "watch" {
			return fmt.Errorf("harness: the watch was cut: %w", source.ErrExpired)
		}
	}
	if call.Verb == "list" {
		inc.mu.Lock()
		first := !inc.listed[id]
		inc.listed[id] = true
		rv, ok := inc.stale[call.Resource]
		inc.mu.Unlock()
		if first && ok && call.ListOptions.Continue == "" {
			opts := call.ListOptions
			opts.ResourceVersion, opts.ResourceVersionMatch = rv, source.Exact
			ctx = client.WithListOptions(ctx, opts)
		}
		return next(ctx)
	}
	inc.mu.Lock()
	lagging := inc.stale != nil && !inc.watched[id]
	inc.watched[id] = true
	inc.mu.Unlock()
	if lagging {
		select {
		case <-time.After(StaleLag):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	wctx, cancel := context.WithCancel(ctx)
	inc.mu.Lock()
	inc.watches[id] = cancel
	inc.mu.Unlock()
	err := next(wctx)
	if err != nil {
		cancel()
	}
	return err
}

// cutWatches closes every open watch of inc; their next list or watch
// waits for the recorder's release.
func (r *recorder) cutWatches(inc *incarnation) {
	r.mu.Lock()
	release := r.release
	r.cuts++
	r.mu.Unlock()
	inc.mu.Lock()
	defer inc.mu.Unlock()
	for id, cancel := range inc.watches {
		inc.cut[id] = release
		cancel()
	}
	clear(inc.watches)
}

// intercept returns the InterceptFunc of incarnation inc.
func (r *recorder) intercept(inc *incarnation) client.InterceptFunc {
	return func(ctx context.Context, call client.Call, next func(context.Context) error) error {
		inc.mu.Lock()
		dead := inc.dead
		inc.mu.Unlock()
		if dead {
			return context.Canceled // a crashed controller reaches nothing
		}
		if call.Verb == "list" || call.Verb == "watch" {
			return r.read(ctx, inc, call, next)
		}
		if !isWrite(call.Verb) {
			return next(ctx)
		}
		r.mu.Lock()
		r.n++
		k := r.n
		f := r.faults[k]
		r.current = inc
		r.mu.Unlock()
		var err error
		if f == Handover && inc.replica != nil {
			r.partition(inc.replica)
		}
		switch {
		case inc.replica != nil && inc.replica.partitioned.Load():
			// The replica hangs: its write goes out once the standby
			// leads, if the context it was made under is still live.
			if healed := r.held(); healed != nil {
				select {
				case <-healed:
				case <-ctx.Done():
				}
			}
			if err = ctx.Err(); err == nil {
				err = next(ctx)
			}
		case f == Resync:
			err = next(ctx)
			r.resync()
		default:
			err = r.write(ctx, inc, f, next)
		}
		e := Entry{Write: k, Incarnation: inc.n, At: time.Since(r.start), Verb: call.Verb, Resource: call.Resource, Key: call.Key, Fault: f, Result: "ok"}
		if inc.replica != nil {
			e.Replica = inc.replica.name
		}
		if call.Subresource != "" {
			e.Resource += "/" + call.Subresource
		}
		if call.Verb == "create" && call.Object != nil {
			if m := call.Object.GetObjectMeta(); m.GenerateName != "" && call.Name() == "" {
				e.Key = api.NamespacedKey(m.Namespace, m.GenerateName+"*")
				if strings.HasPrefix(m.Name, m.GenerateName) {
					e.Generated = m.Name
				}
			}
		}
		if err != nil {
			e.Result = err.Error()
		}
		var broken []string
		if r.check != nil {
			broken = r.check(ctx)
		}
		r.mu.Lock()
		if len(r.timeline) < MaxTimeline {
			r.timeline = append(r.timeline, e)
		}
		now := map[string]bool{}
		for _, b := range broken {
			now[b] = true
			if !r.broken[b] { // reported once, at the write that broke it
				r.violations = append(r.violations, fmt.Sprintf("after write #%d: %s", k, b))
			}
		}
		r.broken = now
		r.mu.Unlock()
		if f == Crash {
			inc.crash()
		}
		return err
	}
}

// write does write call (next) of incarnation inc under fault f (a
// Crash, a view, time or write fault, or none).
func (r *recorder) write(ctx context.Context, inc *incarnation, f Fault, next func(context.Context) error) error {
	var err error
	switch f {
	case Stale:
		if r.snapshot != nil {
			if snap, serr := r.snapshot(context.WithoutCancel(ctx)); serr == nil {
				r.mu.Lock()
				if r.pending == nil {
					r.pending = snap
				}
				r.mu.Unlock()
			}
		}
		err = next(ctx)
	case Cut:
		r.cutWatches(inc)
		err = next(ctx)
	case Expire:
		r.mu.Lock()
		r.expire = true
		r.mu.Unlock()
		err = faultError(f)
	case "", Crash:
		err = next(ctx)
	case TimeoutWritten:
		if err = next(ctx); err == nil {
			err = faultError(f)
		}
	default:
		err = faultError(f)
	}
	return err
}
