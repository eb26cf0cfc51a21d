package leaderelection

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/leader"
)

// The defaults of Options, kube-controller-manager's --leader-elect-*
// defaults.
const (
	DefaultLeaseDuration = 15 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 2 * time.Second
)

// Options configure an Elector.
type Options struct {
	// Namespace and Name name the Lease the candidates compete for
	// (kube-controller-manager's are kube-system and
	// kube-controller-manager). Required.
	Namespace, Name string

	// Identity is what the leader writes as the Lease's holderIdentity;
	// every candidate needs its own. Default: the host name, "_" and a
	// random suffix (kube-controller-manager's form).
	Identity string

	// LeaseDuration is how long after a candidate last saw the Lease
	// change it may take the Lease over from a holder that stopped
	// renewing. It is written to the Lease in whole seconds (rounded
	// up). Default DefaultLeaseDuration.
	LeaseDuration time.Duration

	// RenewDeadline is how long the leader may go without a successful
	// renewal before it ends its own term. It must be shorter than
	// LeaseDuration: the difference is the time the work has to stop
	// before another candidate may take over. Default
	// DefaultRenewDeadline.
	RenewDeadline time.Duration

	// RetryPeriod is how often the leader renews, and how often a
	// candidate tries to acquire the Lease. It must be shorter than
	// RenewDeadline. Default DefaultRetryPeriod.
	RetryPeriod time.Duration

	// Logger receives the elector's log lines (lost terms, failed
	// writes). Default slog.Default().
	Logger *slog.Logger
}

func (o *Options) defaults() error {
	switch {
	case o.Namespace == "" || o.Name == "":
		return fmt.Errorf("leaderelection: Options: the Lease needs a namespace and a name (got %q/%q)", o.Namespace, o.Name)
	case o.LeaseDuration < 0, o.RenewDeadline < 0, o.RetryPeriod < 0:
		return fmt.Errorf("leaderelection: Options: negative duration (LeaseDuration %v, RenewDeadline %v, RetryPeriod %v)",
			o.LeaseDuration, o.RenewDeadline, o.RetryPeriod)
	}
	if o.LeaseDuration == 0 {
		o.LeaseDuration = DefaultLeaseDuration
	}
	o.LeaseDuration = time.Duration(math.Ceil(o.LeaseDuration.Seconds())) * time.Second
	if o.RenewDeadline == 0 {
		o.RenewDeadline = DefaultRenewDeadline
	}
	if o.RetryPeriod == 0 {
		o.RetryPeriod = DefaultRetryPeriod
	}
	if o.RenewDeadline >= o.LeaseDuration || o.RetryPeriod >= o.RenewDeadline {
		return fmt.Errorf("leaderelection: Options: want RetryPeriod (%v) < RenewDeadline (%v) < LeaseDuration (%v)",
			o.RetryPeriod, o.RenewDeadline, o.LeaseDuration)
	}
	if o.Identity == "" {
		host, err := os.Hostname()
		if err != nil || host == "" {
			host = "unknown"
		}
		var b [8]byte
		_, _ = rand.Read(b[:])
		o.Identity = host + "_" + hex.EncodeToString(b[:])
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return nil
}

// Elector is a leader.Elector over a coordination.k8s.io Lease, with the
// semantics of client-go's tools/leaderelection (see the package
// documentation). Campaign and the terms it returns share the Elector's
// view of the Lease: campaign with one Elector at a time (leader.Run
// does), and give each candidate its own.
type Elector struct {
	leases client.Resource[*api.Lease]
	opts   Options
	key    string

	mu sync.Mutex
	// observed is the Lease as last read or written, nil before the
	// first read or when it is missing; observedAt is when its
	// resourceVersion was first seen (by this candidate's clock).
	// Guarded by mu.
	observed   *api.Lease
	observedAt time.Time
}

var _ leader.Elector = (*Elector)(nil)

// New returns an Elector of the Lease opts names, read and written
// through leases. It starts nothing and makes no request.
func New(leases client.Resource[*api.Lease], opts Options) (*Elector, error) {
	if leases == nil {
		return nil, errors.New("leaderelection: New: leases client is nil")
	}
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	return &Elector{leases: leases, opts: opts, key: opts.Namespace + "/" + opts.Name}, nil
}

// Identity returns the identity this candidate writes as holder.
func (e *Elector) Identity() string { return e.opts.Identity }

// Options returns the options in effect, defaults filled in.
func (e *Elector) Options() Options { return e.opts }

// Campaign implements leader.Elector: every RetryPeriod it tries to
// acquire the Lease (free, released or expired), until it succeeds or
// ctx ends. Failed requests are logged and retried. The returned
// leader.Term is a *Term.
func (e *Elector) Campaign(ctx context.Context) (leader.Term, error) {
	if ctx == nil {
		return nil, errors.New("leaderelection: Campaign: context is nil")
	}
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-timer.C:
		}
		sent := time.Now()
		rctx, cancel := context.WithTimeout(ctx, e.opts.RenewDeadline)
		ok, err := e.tryAcquireOrRenew(rctx, false)
		cancel()
		switch {
		case ok:
			t := &Term{e: e, valid: sent.Add(e.opts.RenewDeadline), done: make(chan struct{}), exited: make(chan struct{})}
			t.ctx, t.cancel = context.WithCancel(context.WithoutCancel(ctx))
			go t.monitor()
			return t, nil
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil && !errors.Is(err, errHeld):
			e.opts.Logger.Warn("leaderelection: acquire the lease", "lease", e.key, "err", err)
		}
		timer.Reset(e.opts.RetryPeriod)
	}
}

// errHeld says that another candidate holds a valid lease.
var errHeld = errors.New("the lease is held by another candidate")

// tryAcquireOrRenew reads the Lease and writes this candidate as its
// holder if it is free, released, expired, or already this candidate's
// (leading says which the caller expects), always conditionally on the
// resourceVersion read. It reports whether this candidate holds the Lease
// afterwards; errHeld when another candidate holds it.
func (e *Elector) tryAcquireOrRenew(ctx context.Context, leading bool) (bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := time.Now()
	cur, rv, err := e.leases.Get(ctx, e.key)
	if client.IsNotFound(err) {
		l := &api.Lease{ObjectMeta: api.ObjectMeta{Namespace: e.opts.Namespace, Name: e.opts.Name}}
		e.fill(l, now, true)
		if _, err := e.leases.Create(ctx, l); err != nil {
			return false, fmt.Errorf("create lease %s: %w", e.key, err)
		}
		e.observe(l, time.Now())
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("get lease %s: %w", e.key, err)
	}
	cur.ResourceVersion = rv
	if e.observed == nil || e.observed.ResourceVersion != rv {
		e.observe(cur, time.Now())
	}
	holder := deref(cur.Spec.HolderIdentity)
	mine := holder == e.opts.Identity
	if leading && !mine {
		return false, fmt.Errorf("%w (%q)", errHeld, holder)
	}
	if holder != "" && !mine && e.observedAt.Add(leaseDuration(cur, e.opts.LeaseDuration)).After(now) {
		return false, fmt.Errorf("%w (%q)", errHeld, holder)
	}
	l := cur.DeepCopy()
	e.fill(l, now, !mine)
	if _, err := e.leases.Update(ctx, l, rv); err != nil {
		return false, fmt.Errorf("update lease %s: %w", e.key, err)
	}
	e.observe(l, time.Now())
	return true, nil
}

// fill writes this candidate's record into l: renewed now, and, when
// acquired (a change of holder or a new Lease), acquired now with one
// more transition (none for a new Lease).
func (e *Elector) fill(l *api.Lease, now time.Time, acquired bool) {
	s := &l.Spec
	id := e.opts.Identity
	secs := int32(e.opts.LeaseDuration / time.Second)
	mt := api.NewMicroTime(now)
	s.HolderIdentity, s.LeaseDurationSeconds, s.RenewTime = &id, &secs, &mt
	if acquired {
		at := mt
		s.AcquireTime = &at
		var n int32
		if l.ResourceVersion != "" { // a change of holder
			n = 1
			if s.LeaseTransitions != nil {
				n += *s.LeaseTransitions
			}
		}
		s.LeaseTransitions = &n
	}
}

// observe records l as the Lease last seen, at time at. Called with mu
// held.
func (e *Elector) observe(l *api.Lease, at time.Time) {
	e.observed, e.observedAt = l.DeepCopy(), at
}

// release clears the holder of the Lease if this candidate still holds
// it as last observed, conditionally on that resourceVersion: a Lease
// that changed since (another candidate took over) is left alone.
func (e *Elector) release(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.observed == nil || deref(e.observed.Spec.HolderIdentity) != e.opts.Identity {
		return nil
	}
	l := e.observed.DeepCopy()
	now := api.NewMicroTime(time.Now())
	one := int32(1)
	empty := ""
	l.Spec.HolderIdentity, l.Spec.LeaseDurationSeconds = &empty, &one
	l.Spec.RenewTime, l.Spec.AcquireTime = &now, &now
	_, err := e.leases.Update(ctx, l, l.ResourceVersion)
	switch {
	case err == nil:
		e.observe(l, time.Now())
		return nil
	case client.IsConflict(err), client.IsNotFound(err):
		// Someone else wrote it: not ours to release any more.
		e.observed = nil
		return nil
	default:
		return fmt.Errorf("leaderelection: release lease %s: %w", e.key, err)
	}
}

func leaseDuration(l *api.Lease, def time.Duration) time.Duration {
	if l.Spec.LeaseDurationSeconds != nil {
		return time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second
	}
	return def
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Term is one term of leadership won by an Elector. It implements
// leader.Term.
//
// The term ends (Done closes) when the leader could not renew the Lease
// within RenewDeadline of its last successful renewal's start, when it
// found another holder in the Lease, or on Resign.
type Term struct {
	e *Elector

	endOnce sync.Once
	// done is closed when the term ends.
	done chan struct{}
	// ctx bounds the monitor and its requests; Resign cancels it.
	// exited is closed when the monitor has returned.
	ctx    context.Context
	cancel context.CancelFunc
	exited chan struct{}

	// valid is when the term ends without a renewal: the start of the
	// last successful write plus RenewDeadline. Owned by the monitor.
	valid time.Time

	resignOnce sync.Once
	resignErr  error
}

var _ leader.Term = (*Term)(nil)

// Done implements leader.Term.
func (t *Term) Done() <-chan struct{} { return t.done }

// Resign implements leader.Term: it stops renewing and, if the Lease is
// still this candidate's as last written (for a term that was lost: and
// the Lease has not expired yet), clears its holderIdentity (and
// sets its duration to one second), so that the next candidate acquires
// it at once, as client-go's ReleaseOnCancel. The write is conditional on
// the resourceVersion this candidate last wrote: a Lease another
// candidate took over is left alone. It is bounded by ctx.
func (t *Term) Resign(ctx context.Context) error {
	if ctx == nil {
		return errors.New("leaderelection: Resign: context is nil")
	}
	t.resignOnce.Do(func() {
		t.cancel()
		<-t.exited
		select {
		case <-t.done:
			// Lost: the Lease is still this candidate's only if nobody
			// wrote it since; try to release it while it is valid (the
			// resign context of leader.Run has ended with the term).
			// Past that, another candidate may hold it: nothing to do.
			expiry := t.valid.Add(t.e.opts.LeaseDuration - t.e.opts.RenewDeadline)
			if !time.Now().Before(expiry) {
				t.end()
				return
			}
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(context.WithoutCancel(ctx), expiry)
			defer cancel()
		default:
		}
		t.resignErr = t.e.release(ctx)
		t.end()
	})
	return t.resignErr
}

func (t *Term) end() { t.endOnce.Do(func() { close(t.done) }) }

// monitor renews the Lease every RetryPeriod until Resign, and ends the
// term when a renewal has not succeeded in time or another candidate
// holds the Lease.
func (t *Term) monitor() {
	defer close(t.exited)
	opts := &t.e.opts
	timer := time.NewTimer(opts.RetryPeriod)
	defer timer.Stop()
	for {
		select {
		case <-t.ctx.Done():
			return
		case <-timer.C:
		}
		now := time.Now()
		if !now.Before(t.valid) {
			t.lose("the lease was not renewed within RenewDeadline")
			return
		}
		ctx, cancel := context.WithDeadline(t.ctx, t.valid)
		ok, err := t.e.tryAcquireOrRenew(ctx, true)
		cancel()
		switch {
		case ok:
			t.valid = now.Add(opts.RenewDeadline)
		case errors.Is(err, errHeld):
			t.lose(err.Error())
			return
		case t.ctx.Err() != nil:
			return
		default:
			opts.Logger.Debug("leaderelection: renew the lease", "lease", t.e.key, "err", err)
		}
		timer.Reset(min(opts.RetryPeriod, max(0, time.Until(t.valid))))
	}
}

// lose ends the term by itself.
func (t *Term) lose(reason string) {
	t.e.opts.Logger.Warn("leaderelection: leadership lost", "lease", t.e.key, "identity", t.e.opts.Identity, "reason", reason)
	t.end()
}
