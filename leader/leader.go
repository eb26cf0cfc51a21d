package leader

import (
	"context"
	"errors"
	"fmt"
)

// Elector campaigns for leadership on behalf of one replica.
type Elector interface {
	// Campaign blocks until this replica leads and returns the Term, or
	// until ctx ends (then it returns ctx.Err()). Implementations retry
	// transient failures of their backend themselves; any error they
	// return ends leader.Run. A nil ctx should be an error (Memory's is);
	// leader.Run never passes one.
	Campaign(ctx context.Context) (Term, error)
}

// Term is one period of leadership.
type Term interface {
	// Done is closed when the term ends: leadership was lost (a lease
	// expired, a session was killed, the backend deposed this replica)
	// or given up by Resign.
	Done() <-chan struct{}
	// Resign gives leadership up so that another replica can take over
	// without waiting for a lease to expire, and releases what the term
	// holds. It is safe to call more than once and after the term ended;
	// a term that already ended still releases its local resources when
	// ctx is already cancelled.
	Resign(ctx context.Context) error
}

// Run calls fn whenever this replica leads, as described in the package
// documentation: fn's context is cancelled when the term ends; Run waits
// for fn to return, resigns, and campaigns again. It returns fn's own
// result when fn returns without its context having been cancelled,
// ctx.Err() when ctx ends, or a Campaign error. A panic in fn is recovered
// and returned as an error (after resigning). A nil ctx, e or fn (e
// included when it holds a nil pointer) is an error, returned before
// anything runs.
func Run(ctx context.Context, e Elector, fn func(ctx context.Context) error) error {
	switch {
	case ctx == nil:
		return errors.New("leader: Run: context is nil")
	case isNil(e):
		return errors.New("leader: Run: Elector is nil")
	case fn == nil:
		return errors.New("leader: Run: fn is nil")
	}
	for {
		term, err := e.Campaign(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("leader: campaign: %w", err)
		}
		if isNil(term) {
			return errors.New("leader: campaign returned a nil Term")
		}
		select {
		case <-term.Done():
			// Lost before it began: do not start fn for nothing.
			if err := resign(ctx, term); err != nil && ctx.Err() == nil {
				return err
			}
			continue
		default:
		}
		err, byItself := lead(ctx, term, fn)
		resignErr := resign(ctx, term)
		switch {
		case byItself:
			return errors.Join(err, resignErr)
		case ctx.Err() != nil:
			return ctx.Err()
		}
		// The term was lost: campaign again.
	}
}

// lead runs fn under a context cancelled when ctx ends or the term does.
// byItself reports that fn returned before its context was cancelled.
func lead(ctx context.Context, term Term, fn func(context.Context) error) (err error, byItself bool) {
	fnCtx, stop := withTerm(ctx, term)
	defer stop()
	err = call(fnCtx, fn)
	return err, fnCtx.Err() == nil
}

// withTerm returns a context derived from parent that is also cancelled
// when term ends, and a stop func that releases it and returns only after
// the goroutine watching the term has exited.
func withTerm(parent context.Context, term Term) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	stop := make(chan struct{})
	watcherDone := make(chan struct{})
	go func() {
		defer close(watcherDone)
		select {
		case <-term.Done():
			cancel()
		case <-stop:
		}
	}()
	return ctx, func() {
		close(stop)
		<-watcherDone
		cancel()
	}
}

// call runs fn, turning a panic into an error.
func call(ctx context.Context, fn func(context.Context) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("leader: fn panicked: %v", p)
		}
	}()
	return fn(ctx)
}

// resign gives the term up with a context that survives the end of ctx
// (a cancelled Run still hands over gracefully) but ends with the term.
func resign(ctx context.Context, term Term) error {
	rctx, stop := withTerm(context.WithoutCancel(ctx), term)
	err := term.Resign(rctx)
	stop()
	if err != nil {
		return fmt.Errorf("leader: resign: %w", err)
	}
	return nil
}
