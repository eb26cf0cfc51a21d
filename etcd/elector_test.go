package etcd_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/ctrlkit/ctrlkit/etcd"
	"github.com/ctrlkit/ctrlkit/etcd/etcdtest"
	"github.com/ctrlkit/ctrlkit/leader"
)

const electionTTL = 2 * time.Second

func newElector(t *testing.T, cli *clientv3.Client, election, identity string) *etcd.Elector {
	t.Helper()
	e, err := etcd.NewElector(cli, etcd.ElectorOptions{
		Election: election,
		Identity: identity,
		TTL:      electionTTL,
		Logger:   quiet,
	})
	require.NoError(t, err)
	return e
}

// leadEvent is a replica's work starting or stopping.
type leadEvent struct {
	who   string
	start bool
	at    time.Time
}

// replica runs leader.Run with work that reports when it starts and when
// its context is cancelled.
type replica struct {
	cancel context.CancelFunc
	result chan error
}

func startReplica(t *testing.T, e *etcd.Elector, who string, events chan<- leadEvent) *replica {
	ctx, cancel := context.WithCancel(t.Context())
	r := &replica{cancel: cancel, result: make(chan error, 1)}
	go func() {
		r.result <- leader.Run(ctx, e, func(ctx context.Context) error {
			events <- leadEvent{who, true, time.Now()}
			<-ctx.Done()
			events <- leadEvent{who, false, time.Now()}
			return nil
		})
	}()
	t.Cleanup(func() {
		cancel()
		<-r.result
	})
	return r
}

// stop cancels the replica and checks that Run returned the context's
// error.
func (r *replica) stop(t *testing.T) {
	t.Helper()
	r.cancel()
	select {
	case err := <-r.result:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("leader.Run did not return after its context was cancelled")
	}
	r.result <- context.Canceled // for the cleanup
}

func nextLeadEvent(t *testing.T, events <-chan leadEvent, within time.Duration) leadEvent {
	t.Helper()
	select {
	case ev := <-events:
		return ev
	case <-time.After(within):
		t.Fatalf("no leadership change within %v", within)
		return leadEvent{}
	}
}

func expectNoLeadEvent(t *testing.T, events <-chan leadEvent, d time.Duration) {
	t.Helper()
	select {
	case ev := <-events:
		t.Fatalf("unexpected leadership change: %+v", ev)
	case <-time.After(d):
	}
}

// TestElectorKilledSessionHandsOver: the leader's lease is revoked from
// outside (its session killed); the leader's work stops and the other
// replica takes over well within the TTL. A resigning leader hands over
// at once.
func TestElectorKilledSessionHandsOver(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	admin := newClient(t, c)
	const election = "/elections/killed"
	a := newElector(t, newClient(t, c), election, "a")
	b := newElector(t, newClient(t, c), election, "b")
	events := make(chan leadEvent, 16)

	ra := startReplica(t, a, "a", events)
	require.Equal(t, leadEvent{who: "a", start: true}, strip(nextLeadEvent(t, events, 10*time.Second)))
	rb := startReplica(t, b, "b", events)
	expectNoLeadEvent(t, events, 300*time.Millisecond) // b waits its turn
	id, ok, err := b.Leader(t.Context())
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "a", id)

	// Kill a's session: revoke the lease of the leader's key.
	resp, err := admin.Get(t.Context(), election+"/", clientv3.WithFirstCreate()...)
	require.NoError(t, err)
	require.Len(t, resp.Kvs, 1)
	killed := time.Now()
	_, err = admin.Revoke(t.Context(), clientv3.LeaseID(resp.Kvs[0].Lease))
	require.NoError(t, err)

	got := map[leadEvent]time.Time{}
	for range 2 {
		ev := nextLeadEvent(t, events, electionTTL)
		got[strip(ev)] = ev.at
	}
	require.Contains(t, got, leadEvent{who: "a", start: false}, "a's work was not stopped")
	require.Contains(t, got, leadEvent{who: "b", start: true}, "b did not take over")
	require.Less(t, got[leadEvent{who: "b", start: true}].Sub(killed), electionTTL)
	t.Logf("a stopped %v and b started %v after the kill",
		got[leadEvent{who: "a"}].Sub(killed), got[leadEvent{who: "b", start: true}].Sub(killed))
	expectNoLeadEvent(t, events, 300*time.Millisecond) // a campaigns again, and waits

	// b resigns: a leads again without waiting for a lease to expire.
	resigned := time.Now()
	rb.stop(t)
	require.Equal(t, leadEvent{who: "b", start: false}, strip(nextLeadEvent(t, events, time.Second)))
	require.Equal(t, leadEvent{who: "a", start: true}, strip(nextLeadEvent(t, events, electionTTL)))
	require.Less(t, time.Since(resigned), electionTTL/2)
	ra.stop(t)
	require.Equal(t, leadEvent{who: "a", start: false}, strip(nextLeadEvent(t, events, time.Second)))
	_, ok, err = b.Leader(t.Context())
	require.NoError(t, err)
	require.False(t, ok, "the last leader resigned")
}

func strip(ev leadEvent) leadEvent { return leadEvent{who: ev.who, start: ev.start} }

// TestElectorPartitionedLeaderStopsFirst cuts the leader off from etcd:
// it stops its work (its renewals fail for RenewDeadline) before etcd
// expires its lease and lets the other replica take over, within the TTL
// and etcd's expiry check.
func TestElectorPartitionedLeaderStopsFirst(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	proxy, err := etcdtest.NewProxy(c.Members()[0].ClientURL())
	require.NoError(t, err)
	t.Cleanup(proxy.Close)
	const election = "/elections/partition"
	a := newElector(t, newClient(t, c, proxy.URL()), election, "a")
	b := newElector(t, newClient(t, c), election, "b")
	events := make(chan leadEvent, 16)

	startReplica(t, a, "a", events)
	require.Equal(t, leadEvent{who: "a", start: true}, strip(nextLeadEvent(t, events, 10*time.Second)))
	rb := startReplica(t, b, "b", events)
	expectNoLeadEvent(t, events, 500*time.Millisecond) // a keeps renewing

	cut := time.Now()
	proxy.Cut()
	stopA := nextLeadEvent(t, events, 2*electionTTL)
	require.Equal(t, leadEvent{who: "a", start: false}, strip(stopA), "the partitioned leader must stop first")
	startB := nextLeadEvent(t, events, 2*electionTTL)
	require.Equal(t, leadEvent{who: "b", start: true}, strip(startB))
	t.Logf("after the cut: a stopped after %v, b started after %v", stopA.at.Sub(cut), startB.at.Sub(cut))
	// RenewDeadline is 2/3 of the TTL; allow for a loaded machine.
	require.Less(t, stopA.at.Sub(cut), electionTTL)
	// etcd checks lease expiry every 500ms.
	require.Less(t, startB.at.Sub(cut), electionTTL+time.Second)
	require.True(t, stopA.at.Before(startB.at))

	// Healed, a competes again but b keeps leading.
	proxy.Restore()
	expectNoLeadEvent(t, events, 500*time.Millisecond)
	rb.stop(t)
	require.Equal(t, leadEvent{who: "b", start: false}, strip(nextLeadEvent(t, events, time.Second)))
	require.Equal(t, leadEvent{who: "a", start: true}, strip(nextLeadEvent(t, events, 2*electionTTL)))
}

// TestElectorTermFencesWrites: a write guarded by Term.IsLeader succeeds
// while the term holds and fails once the lease is gone, and the term
// ends promptly.
func TestElectorTermFencesWrites(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	cli := newClient(t, c)
	e := newElector(t, cli, "/elections/fence", "a")
	var nilCtx context.Context
	_, err := e.Campaign(nilCtx)
	require.ErrorContains(t, err, "etcd: Campaign: context is nil")
	lt, err := e.Campaign(t.Context())
	require.NoError(t, err)
	term := lt.(*etcd.Term)
	require.ErrorContains(t, term.Resign(nilCtx), "etcd: Resign: context is nil")
	require.Equal(t, "/elections/fence/", term.Key()[:len("/elections/fence/")])
	require.Positive(t, term.Revision())

	guarded := func() bool {
		resp, err := cli.Txn(t.Context()).If(term.IsLeader()).Then(clientv3.OpPut("/fenced", "x")).Commit()
		require.NoError(t, err)
		return resp.Succeeded
	}
	require.True(t, guarded())
	_, err = cli.Revoke(t.Context(), term.Lease())
	require.NoError(t, err)
	select {
	case <-term.Done():
	case <-time.After(electionTTL):
		t.Fatal("the term did not end after its lease was revoked")
	}
	require.False(t, guarded(), "a write fenced by a lost term succeeded")
	require.NoError(t, term.Resign(t.Context()))
	require.NoError(t, term.Resign(t.Context()), "Resign is idempotent")

	// A cancelled campaign returns the context's error.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = e.Campaign(ctx)
	require.ErrorIs(t, err, context.Canceled)
}

func TestElectorOptions(t *testing.T) {
	cli := new(clientv3.Client)
	_, err := etcd.NewElector(nil, etcd.ElectorOptions{Election: "/e"})
	require.ErrorContains(t, err, "nil client")
	for _, tc := range []struct {
		opts etcd.ElectorOptions
		want string
	}{
		{etcd.ElectorOptions{}, "Election is empty"},
		{etcd.ElectorOptions{Election: "/e/"}, `ends with "/"`},
		{etcd.ElectorOptions{Election: "/e", TTL: -time.Second}, "negative duration"},
		{etcd.ElectorOptions{Election: "/e", TTL: 2 * time.Second, RenewDeadline: 3 * time.Second}, "RenewDeadline (3s) < TTL (2s)"},
		{etcd.ElectorOptions{Election: "/e", RetryPeriod: 11 * time.Second}, "RetryPeriod (11s) < RenewDeadline (10s)"},
	} {
		_, err := etcd.NewElector(cli, tc.opts)
		require.ErrorContains(t, err, tc.want, "%+v", tc.opts)
	}
	_, err = etcd.NewElector(cli, etcd.ElectorOptions{Election: "/e", TTL: 1500 * time.Millisecond})
	require.NoError(t, err, "TTL rounds up to 2s; RenewDeadline and RetryPeriod follow")
}
