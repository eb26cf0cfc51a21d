package leader_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/leader"
)

func TestRunReturnsWhatFnReturns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := leader.NewMemory()
		errBoom := errors.New("boom")
		calls := 0
		err := leader.Run(t.Context(), m, func(ctx context.Context) error {
			calls++
			require.True(t, m.Leading())
			return errBoom
		})
		require.ErrorIs(t, err, errBoom)
		require.Equal(t, 1, calls)
		require.False(t, m.Leading(), "Run resigns after fn returned")

		require.NoError(t, leader.Run(t.Context(), m, func(context.Context) error { return nil }))
		require.False(t, m.Leading())
	})
}

func TestRunRecoversPanicAndResigns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := leader.NewMemory()
		err := leader.Run(t.Context(), m, func(context.Context) error { panic("oops") })
		require.ErrorContains(t, err, "leader: fn panicked: oops")
		require.False(t, m.Leading())
	})
}

// TestRunStopsFnOnLossAndCampaignsAgain deposes the leader: fn's context
// is cancelled, Run waits for fn (which takes its time to stop) before it
// resigns, and then leads again with a fresh call of fn.
func TestRunStopsFnOnLossAndCampaignsAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := leader.NewMemory()
		ctx, cancel := context.WithCancel(t.Context())
		var calls atomic.Int32
		started := make(chan int32, 10)
		stopped := make(chan int32, 10)
		runErr := make(chan error, 1)
		go func() {
			runErr <- leader.Run(ctx, m, func(ctx context.Context) error {
				n := calls.Add(1)
				started <- n
				<-ctx.Done()
				time.Sleep(3 * time.Second) // slow to stop
				stopped <- n
				return ctx.Err()
			})
		}()
		require.Equal(t, int32(1), <-started)
		require.True(t, m.Depose())
		synctest.Wait()
		// fn 1 was cancelled and is stopping: the seat is still held and
		// no second call has started.
		require.True(t, m.Leading())
		require.Len(t, started, 0)
		time.Sleep(3 * time.Second)
		require.Equal(t, int32(1), <-stopped)
		require.Equal(t, int32(2), <-started)

		cancel()
		require.ErrorIs(t, <-runErr, context.Canceled)
		require.Equal(t, int32(2), <-stopped)
		require.False(t, m.Leading())
	})
}

// TestReplicasNeverOverlap runs three replicas on one Memory and deposes
// the leader at random: the fns never run at once, and leadership moves.
func TestReplicasNeverOverlap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := leader.NewMemory()
		ctx, cancel := context.WithCancel(t.Context())
		var running atomic.Int32
		var mu sync.Mutex
		terms := map[int]int{}
		var wg sync.WaitGroup
		for replica := range 3 {
			wg.Go(func() {
				err := leader.Run(ctx, m, func(ctx context.Context) error {
					if n := running.Add(1); n != 1 {
						t.Errorf("%d fns running at once", n)
					}
					mu.Lock()
					terms[replica]++
					mu.Unlock()
					<-ctx.Done()
					time.Sleep(time.Duration(1+replica) * 100 * time.Millisecond)
					running.Add(-1)
					return nil
				})
				assert.ErrorIs(t, err, context.Canceled)
			})
		}
		r := rand.New(rand.NewPCG(1, 2))
		for range 60 {
			time.Sleep(time.Duration(r.IntN(500)) * time.Millisecond)
			m.Depose()
		}
		cancel()
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		total := 0
		for replica := range 3 {
			assert.Positive(t, terms[replica], "replica %d never led", replica)
			total += terms[replica]
		}
		assert.Greater(t, total, 30)
		assert.False(t, m.Leading())
	})
}

func TestRunCancelledWhileCampaigning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := leader.NewMemory()
		term, err := m.Campaign(t.Context())
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		err = leader.Run(ctx, m, func(context.Context) error {
			t.Error("fn ran although another term holds the seat")
			return nil
		})
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.NoError(t, term.Resign(t.Context()))
		require.NoError(t, term.Resign(t.Context()), "Resign is idempotent")
		require.False(t, m.Leading())
		require.False(t, m.Depose())
	})
}

// scriptedElector returns terms whose Resign blocks until its context
// ends, and fails the campaign once terms run out.
type scriptedElector struct {
	terms []*blockingTerm
}

var errNoMoreTerms = errors.New("no more terms")

func (e *scriptedElector) Campaign(ctx context.Context) (leader.Term, error) {
	if len(e.terms) == 0 {
		return nil, errNoMoreTerms
	}
	t := e.terms[0]
	e.terms = e.terms[1:]
	return t, nil
}

type blockingTerm struct {
	done      chan struct{}
	resignErr error
	// failFast makes Resign return resignErr without waiting.
	failFast bool
	resigned atomic.Int32
}

func (t *blockingTerm) Done() <-chan struct{} { return t.done }

func (t *blockingTerm) Resign(ctx context.Context) error {
	t.resigned.Add(1)
	if !t.failFast {
		<-ctx.Done()
	}
	return t.resignErr
}

// TestResignIsBoundedByTheTerm: a Resign against an unreachable backend
// is cut short when the term ends, not by the (cancelled) Run context.
func TestResignIsBoundedByTheTerm(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lost := &blockingTerm{done: make(chan struct{})}
		slow := &blockingTerm{done: make(chan struct{}), resignErr: errors.New("unreachable")}
		e := &scriptedElector{terms: []*blockingTerm{lost, slow}}
		ctx, cancel := context.WithCancel(t.Context())
		var calls atomic.Int32
		errc := make(chan error, 1)
		go func() {
			errc <- leader.Run(ctx, e, func(ctx context.Context) error {
				calls.Add(1)
				<-ctx.Done()
				return nil
			})
		}()
		synctest.Wait()
		close(lost.done) // term 1 lost: Resign's context is already over
		synctest.Wait()
		require.Equal(t, int32(1), lost.resigned.Load())
		require.Equal(t, int32(2), calls.Load())

		cancel() // Run ends; its resign outlives ctx until the term ends
		synctest.Wait()
		require.Equal(t, int32(1), slow.resigned.Load())
		select {
		case <-errc:
			t.Fatal("Run returned while its resign was still running")
		default:
		}
		time.Sleep(time.Hour)
		close(slow.done)
		require.ErrorIs(t, <-errc, context.Canceled)
	})
}

func TestRunReturnsCampaignErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		err := leader.Run(t.Context(), &scriptedElector{}, func(context.Context) error { return nil })
		require.ErrorIs(t, err, errNoMoreTerms)
		require.ErrorContains(t, err, "leader: campaign: ")
	})
}

func TestRunReportsResignErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		term := &blockingTerm{done: make(chan struct{}), resignErr: errors.New("unreachable"), failFast: true}
		e := &scriptedElector{terms: []*blockingTerm{term}}
		errFn := errors.New("fn failed")
		err := leader.Run(t.Context(), e, func(context.Context) error { return errFn })
		// fn returned before its context was cancelled: its result counts,
		// joined with the resign failure.
		require.ErrorIs(t, err, errFn)
		require.ErrorContains(t, err, "leader: resign: unreachable")
	})
}

// TestMemoryHandsTheSeatInOrder: campaigners get the seat in the order
// they asked; one that gives up while waiting is skipped.
func TestMemoryHandsTheSeatInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := leader.NewMemory()
		first, err := m.Campaign(t.Context())
		require.NoError(t, err)
		got := make(chan int, 3)
		terms := make([]leader.Term, 3)
		ctxs := make([]context.CancelFunc, 3)
		for i := range 3 {
			ctx, cancel := context.WithCancel(t.Context())
			ctxs[i] = cancel
			go func() {
				term, err := m.Campaign(ctx)
				if err != nil {
					assert.ErrorIs(t, err, context.Canceled)
					return
				}
				terms[i] = term
				got <- i
			}()
			synctest.Wait() // queued before the next one asks
		}
		ctxs[1]() // the second gives up
		synctest.Wait()
		require.NoError(t, first.Resign(t.Context()))
		require.Equal(t, 0, <-got)
		synctest.Wait()
		require.Len(t, got, 0, "only one campaigner holds the seat")
		require.NoError(t, terms[0].Resign(t.Context()))
		require.Equal(t, 2, <-got)
		require.NoError(t, terms[2].Resign(t.Context()))
		require.False(t, m.Leading())
		ctxs[0]()
		ctxs[2]()
	})
}

// TestRunSkipsATermLostBeforeItBegan: fn is not started for a term that
// is already over; Run resigns it and campaigns again.
func TestRunSkipsATermLostBeforeItBegan(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dead := &blockingTerm{done: make(chan struct{})}
		close(dead.done)
		e := &scriptedElector{terms: []*blockingTerm{dead}}
		err := leader.Run(t.Context(), e, func(context.Context) error {
			t.Error("fn ran for a lost term")
			return nil
		})
		require.ErrorIs(t, err, errNoMoreTerms, "Run campaigned again")
		require.Equal(t, int32(1), dead.resigned.Load())
	})
}
