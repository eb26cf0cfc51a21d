package etcd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/ctrlkit/ctrlkit/leader"
)

// DefaultElectionTTL is the default ElectorOptions.TTL.
const DefaultElectionTTL = 15 * time.Second

// ElectorOptions configures an Elector.
type ElectorOptions struct {
	// Election is the key prefix of the election; the replicas that
	// compete for one leadership use the same Election (for example
	// "/ctrlkit/leader/replicaset"). Required; it must not end with "/"
	// (the candidates' keys are Election + "/" + their lease ID).
	Election string

	// Identity is the value the leader announces under its key (see
	// Elector.Leader). Default: the host name and the process ID.
	Identity string

	// TTL is the lease's time to live: how long after this replica's
	// last renewal etcd may hand leadership to another. etcd counts whole
	// seconds: TTL is rounded up to one (and etcd may raise it to its
	// minimum, 1.5 election timeouts). Default DefaultElectionTTL.
	TTL time.Duration

	// RenewDeadline is how long the leader may go without a successful
	// renewal of its lease before it ends its own term (leader.Run then
	// cancels the work). It must be shorter than TTL: the difference is
	// the time the work has to stop before etcd can let another replica
	// win. Default 2/3 of TTL.
	RenewDeadline time.Duration

	// RetryPeriod is how often the leader renews its lease, and how long
	// a candidate waits after a failed campaign before it tries again. It
	// must be shorter than RenewDeadline. Default TTL/6.
	RetryPeriod time.Duration

	// Logger receives the elector's log lines (lost terms, failed
	// campaigns). Default slog.Default().
	Logger *slog.Logger
}

func (o *ElectorOptions) defaults() error {
	switch {
	case o.Election == "":
		return errors.New("etcd: ElectorOptions.Election is empty")
	case strings.HasSuffix(o.Election, "/"):
		return fmt.Errorf("etcd: ElectorOptions.Election %q ends with \"/\"", o.Election)
	case o.TTL < 0, o.RenewDeadline < 0, o.RetryPeriod < 0:
		return fmt.Errorf("etcd: ElectorOptions: negative duration (TTL %v, RenewDeadline %v, RetryPeriod %v)", o.TTL, o.RenewDeadline, o.RetryPeriod)
	}
	if o.TTL == 0 {
		o.TTL = DefaultElectionTTL
	}
	o.TTL = time.Duration(math.Ceil(o.TTL.Seconds())) * time.Second
	if o.RenewDeadline == 0 {
		o.RenewDeadline = o.TTL * 2 / 3
	}
	if o.RetryPeriod == 0 {
		o.RetryPeriod = o.TTL / 6
	}
	if o.RenewDeadline >= o.TTL || o.RetryPeriod >= o.RenewDeadline {
		return fmt.Errorf("etcd: ElectorOptions: want RetryPeriod (%v) < RenewDeadline (%v) < TTL (%v)", o.RetryPeriod, o.RenewDeadline, o.TTL)
	}
	if o.Identity == "" {
		host, err := os.Hostname()
		if err != nil {
			host = "unknown"
		}
		o.Identity = host + "-" + strconv.Itoa(os.Getpid())
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return nil
}

// Elector is a leader.Elector over an etcd lease and election. Each
// Campaign takes a new lease (kept alive by a concurrency.Session) and
// creates the key Election/<lease ID>, attached to it; the candidate whose
// key was created first leads, the others wait for the keys created before
// theirs to go — the algorithm of concurrency.Election.
type Elector struct {
	client *clientv3.Client
	opts   ElectorOptions
}

var _ leader.Elector = (*Elector)(nil)

// NewElector returns an Elector. It starts no goroutine and makes no
// request.
func NewElector(client *clientv3.Client, opts ElectorOptions) (*Elector, error) {
	if client == nil {
		return nil, errors.New("etcd: NewElector: nil client")
	}
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	return &Elector{client: client, opts: opts}, nil
}

// Leader returns the identity the current leader announced, and false
// when nobody leads.
func (e *Elector) Leader(ctx context.Context) (string, bool, error) {
	resp, err := e.client.Get(ctx, e.opts.Election+"/",
		clientv3.WithPrefix(), clientv3.WithSort(clientv3.SortByCreateRevision, clientv3.SortAscend), clientv3.WithLimit(1))
	if err != nil {
		return "", false, fmt.Errorf("etcd: election %q: leader: %w", e.opts.Election, err)
	}
	if len(resp.Kvs) == 0 {
		return "", false, nil
	}
	return string(resp.Kvs[0].Value), true, nil
}

// Campaign implements leader.Elector: it blocks until this replica leads
// or ctx ends, retrying failures (etcd unreachable, lease lost while
// waiting) every RetryPeriod. The returned leader.Term is a *Term.
func (e *Elector) Campaign(ctx context.Context) (leader.Term, error) {
	if ctx == nil {
		return nil, errors.New("etcd: Campaign: context is nil")
	}
	for {
		t, err := e.campaign(ctx)
		if err == nil {
			return t, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		e.opts.Logger.Warn("etcd: campaign failed; retrying", "election", e.opts.Election, "err", err)
		timer := time.NewTimer(e.opts.RetryPeriod)
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return nil, ctx.Err()
		}
	}
}

// campaign is one attempt: a new lease, the election, and a fresh renewal
// that starts the term's clock.
func (e *Elector) campaign(ctx context.Context) (*Term, error) {
	grant, err := e.client.Grant(ctx, int64(e.opts.TTL/time.Second))
	if err != nil {
		return nil, fmt.Errorf("grant a lease: %w", err)
	}
	// The session (its keep-alive) outlives ctx: it belongs to the term.
	sctx, scancel := context.WithCancel(context.WithoutCancel(ctx))
	sess, err := concurrency.NewSession(e.client, concurrency.WithLease(grant.ID),
		concurrency.WithTTL(int(grant.TTL)), concurrency.WithContext(sctx))
	if err != nil {
		scancel()
		e.revoke(grant.ID)
		return nil, fmt.Errorf("keep the lease alive: %w", err)
	}
	fail := func(err error) (*Term, error) {
		sess.Orphan()
		scancel()
		e.revoke(grant.ID)
		return nil, err
	}
	// Stop campaigning when the lease is lost while waiting.
	key := fmt.Sprintf("%s/%x", e.opts.Election, grant.ID)
	cctx, ccancel := context.WithCancel(ctx)
	stop := context.AfterFunc(sess.Ctx(), ccancel)
	rev, err := e.elect(cctx, key, grant.ID)
	stop()
	ccancel()
	if err != nil {
		return fail(fmt.Errorf("campaign: %w", err))
	}
	// The election may have waited long: renew now, so that the term's
	// clock starts from a renewal this replica has seen acknowledged, and
	// check that the key is still this replica's.
	t := &Term{
		e:       e,
		sess:    sess,
		scancel: scancel,
		key:     key,
		rev:     rev,
		lease:   grant.ID,
		done:    make(chan struct{}),
		exited:  make(chan struct{}),
	}
	vctx, vcancel := context.WithTimeout(ctx, e.opts.RenewDeadline)
	defer vcancel()
	valid, err := t.renew(vctx)
	if err != nil {
		return fail(fmt.Errorf("renew the lease after winning: %w", err))
	}
	resp, err := e.client.Get(vctx, t.key)
	if err != nil {
		return fail(fmt.Errorf("check the election key: %w", err))
	}
	if len(resp.Kvs) == 0 || resp.Kvs[0].CreateRevision != t.rev {
		return fail(errors.New("the election key vanished while campaigning"))
	}
	t.mctx, t.mcancel = context.WithCancel(sctx)
	go t.monitor(valid)
	return t, nil
}

// elect runs the election as go.etcd.io/etcd/client/v3/concurrency does:
// it creates key, attached to the lease, and waits until no candidate key
// created before it is left. It returns the key's creation revision.
// (concurrency.Election cleans up a cancelled campaign with a request
// that only the client's closing bounds, which would hang a shutdown
// during a partition; here the caller revokes the lease instead, within
// a bounded time.)
func (e *Elector) elect(ctx context.Context, key string, lease clientv3.LeaseID) (int64, error) {
	resp, err := e.client.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, e.opts.Identity, clientv3.WithLease(lease))).
		Else(clientv3.OpGet(key)).
		Commit()
	if err != nil {
		return 0, err
	}
	rev := resp.Header.Revision
	if !resp.Succeeded {
		kvs := resp.Responses[0].GetResponseRange().GetKvs()
		if len(kvs) == 0 {
			return 0, errors.New("the candidate key vanished")
		}
		rev = kvs[0].CreateRevision
	}
	opts := append(clientv3.WithLastCreate(), clientv3.WithMaxCreateRev(rev-1))
	for {
		// The newest candidate older than this one, if any.
		r, err := e.client.Get(ctx, e.opts.Election+"/", opts...)
		if err != nil {
			return 0, err
		}
		if len(r.Kvs) == 0 {
			return rev, nil
		}
		if err := e.waitDelete(ctx, string(r.Kvs[0].Key), r.Header.Revision+1); err != nil {
			return 0, err
		}
	}
}

// waitDelete waits for the deletion of key at or after revision from.
func (e *Elector) waitDelete(ctx context.Context, key string, from int64) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for resp := range e.client.Watch(wctx, key, clientv3.WithRev(from)) {
		if err := resp.Err(); err != nil {
			return err
		}
		for _, ev := range resp.Events {
			if ev.Type == mvccpb.DELETE {
				return nil
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return errors.New("the watch on the previous candidate closed")
}

// revoke revokes a lease, best effort, for at most the TTL.
func (e *Elector) revoke(id clientv3.LeaseID) {
	ctx, cancel := context.WithTimeout(context.Background(), e.opts.TTL)
	defer cancel()
	if _, err := e.client.Revoke(ctx, id); err != nil && !errors.Is(err, rpctypes.ErrLeaseNotFound) {
		e.opts.Logger.Debug("etcd: revoke the election lease", "election", e.opts.Election, "err", err)
	}
}

// Term is one term of leadership won by an Elector. It implements
// leader.Term.
//
// The term ends (Done closes) when the leader could not renew its lease
// for RenewDeadline, when its lease's keep-alive gave up, when its
// election key was deleted (for example because someone revoked the
// lease), or on Resign.
type Term struct {
	e       *Elector
	sess    *concurrency.Session
	scancel context.CancelFunc
	key     string
	rev     int64
	lease   clientv3.LeaseID

	// mctx ends the monitor goroutine (Resign cancels it).
	mctx    context.Context
	mcancel context.CancelFunc
	// exited is closed when the monitor goroutine has returned.
	exited chan struct{}

	endOnce sync.Once
	// done is closed when the term ends.
	done chan struct{}

	mu sync.Mutex
	// lost is set when the term ended by itself; valid is the time until
	// which the lease is known to be alive. Guarded by mu.
	lost  bool
	valid time.Time
	// resignOnce makes Resign idempotent; resignErr is its result.
	resignOnce sync.Once
	resignErr  error
}

var _ leader.Term = (*Term)(nil)

// Done implements leader.Term.
func (t *Term) Done() <-chan struct{} { return t.done }

// Key returns the election key this replica holds.
func (t *Term) Key() string { return t.key }

// Revision returns the creation revision of the election key: a fencing
// token that grows with every term of the election.
func (t *Term) Revision() int64 { return t.rev }

// Lease returns the ID of the lease the election key is attached to.
func (t *Term) Lease() clientv3.LeaseID { return t.lease }

// IsLeader returns a transaction comparison that holds only while this
// term's key exists: add it to the If of a transaction to make a write
// fail once another replica may lead.
func (t *Term) IsLeader() clientv3.Cmp {
	return clientv3.Compare(clientv3.CreateRevision(t.key), "=", t.rev)
}

// Resign implements leader.Term: it stops the term's monitor, stops
// renewing the lease and revokes it, which deletes the election key, so
// that the next candidate leads at once. For a term that already ended by
// itself, the revoke is bounded by the time the lease has left anyway
// (TTL - RenewDeadline after the last renewal) whatever ctx allows.
func (t *Term) Resign(ctx context.Context) error {
	if ctx == nil {
		return errors.New("etcd: Resign: context is nil")
	}
	t.resignOnce.Do(func() {
		t.mcancel()
		<-t.exited
		t.sess.Orphan()
		t.mu.Lock()
		lost, valid := t.lost, t.valid
		t.mu.Unlock()
		if lost {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(context.WithoutCancel(ctx), valid.Add(t.e.opts.TTL-t.e.opts.RenewDeadline))
			defer cancel()
		}
		_, err := t.e.client.Revoke(ctx, t.lease)
		if err != nil && !errors.Is(err, rpctypes.ErrLeaseNotFound) {
			t.resignErr = fmt.Errorf("etcd: election %q: revoke the lease: %w", t.e.opts.Election, err)
		}
		t.scancel()
		t.end()
	})
	return t.resignErr
}

func (t *Term) end() { t.endOnce.Do(func() { close(t.done) }) }

// renew renews the lease once and returns until when it is known to be
// alive: the time the renewal was sent plus RenewDeadline (etcd renews at
// receipt, for at least TTL).
func (t *Term) renew(ctx context.Context) (time.Time, error) {
	sent := time.Now()
	if _, err := t.e.client.KeepAliveOnce(ctx, t.lease); err != nil {
		return time.Time{}, err
	}
	valid := sent.Add(t.e.opts.RenewDeadline)
	t.mu.Lock()
	t.valid = valid
	t.mu.Unlock()
	return valid, nil
}

// monitor is the term's goroutine: it renews the lease every RetryPeriod
// and ends the term when the lease is in doubt or the key is gone.
func (t *Term) monitor(valid time.Time) {
	defer close(t.exited)
	defer t.mcancel()
	opts := &t.e.opts
	wch := t.e.client.Watch(t.mctx, t.key, clientv3.WithRev(t.rev+1))
	timer := time.NewTimer(opts.RetryPeriod)
	defer timer.Stop()
	for {
		select {
		case <-t.mctx.Done():
			return
		case <-t.sess.Done():
			t.lose("the lease keep-alive gave up")
			return
		case resp, ok := <-wch:
			if !ok {
				// Cannot observe the key any more (the renewals still
				// bound the term).
				wch = nil
				continue
			}
			for _, ev := range resp.Events {
				if ev.Type == mvccpb.DELETE {
					t.lose("the election key was deleted")
					return
				}
			}
		case <-timer.C:
			if !time.Now().Before(valid) {
				t.lose("the lease was not renewed within RenewDeadline")
				return
			}
			rctx, cancel := context.WithDeadline(t.mctx, valid)
			next, err := t.renew(rctx)
			cancel()
			switch {
			case err == nil:
				valid = next
			case t.mctx.Err() != nil:
				return
			case errors.Is(err, rpctypes.ErrLeaseNotFound):
				t.lose("the lease expired")
				return
			default:
				opts.Logger.Debug("etcd: renew the election lease", "election", opts.Election, "err", err)
			}
			timer.Reset(min(opts.RetryPeriod, max(0, time.Until(valid))))
		}
	}
}

// lose ends the term by itself: the work is cancelled at once, and the
// lease is no longer kept alive, so that it expires even if nobody calls
// Resign.
func (t *Term) lose(reason string) {
	t.mu.Lock()
	t.lost = true
	t.mu.Unlock()
	t.e.opts.Logger.Warn("etcd: leadership lost", "election", t.e.opts.Election, "key", t.key, "reason", reason)
	t.end()
	t.sess.Orphan()
}
