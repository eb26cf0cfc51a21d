package reconcile

import (
	"context"
	"errors"
	"time"
)

// Reconciler brings the world in line with the desired state of one
// request. R is the request type: usually the key of an object ("ns/name"),
// or any comparable value that names what to reconcile.
//
// Reconcile is level-based: it must read the current state (from listers,
// never from the event that caused the request) and converge towards the
// desired one, so that calling it again with nothing changed is harmless.
// The Controller never calls Reconcile concurrently for the same request,
// but does for different requests when Options.Workers > 1.
type Reconciler[R comparable] interface {
	// Reconcile handles req. A nil error and a zero Result mean done. A
	// non-nil error is retried with the rate limiter's backoff, unless it
	// is Terminal; the Result is then ignored. Result.RequeueAfter asks
	// for another call after that delay, without backoff. ctx ends when
	// Options.ReconcileTimeout passes or when a shutdown's
	// Options.ShutdownTimeout runs out.
	Reconcile(ctx context.Context, req R) (Result, error)
}

// Func adapts a function to a Reconciler.
type Func[R comparable] func(ctx context.Context, req R) (Result, error)

// Reconcile calls f(ctx, req).
func (f Func[R]) Reconcile(ctx context.Context, req R) (Result, error) { return f(ctx, req) }

// Result tells the Controller what to do with a request after a
// successful Reconcile.
//
// There is deliberately no Requeue flag. controller-runtime's
// Result.Requeue (deprecated there) meant "call me again, with backoff,
// but this is not an error": it hid failures from the error metrics and
// logs while still backing off, and its interplay with RequeueAfter was a
// frequent source of bugs. Here the two intents stay apart: return an
// error to be retried with backoff (and counted as an error), or set
// RequeueAfter to be called again at a time you choose (polling an
// external system, a deadline, a TTL). The zero Result means "done until
// something changes".
type Result struct {
	// RequeueAfter, when positive, reconciles the request again after
	// this delay. The rate limiter's failure history of the request is
	// forgotten first, so it is honoured exactly, with no backoff added.
	// If the request is enqueued by an event meanwhile, it runs earlier
	// (once: the later time is then dropped, as the queue keeps the
	// earliest).
	RequeueAfter time.Duration
	// Priority, when set, is the priority the request is queued with
	// when it is requeued — after RequeueAfter, or with backoff after an
	// error (controller-runtime's Result.Priority). Unset, a requeue
	// keeps the priority the request was queued with.
	Priority *int
}

// IsZero reports whether r is the zero Result.
func (r Result) IsZero() bool { return r == Result{} }

// ErrTerminal is the sentinel that errors.Is finds in every error made
// by Terminal: errors.Is(err, ErrTerminal) tells whether err, or any error
// it wraps, is terminal.
var ErrTerminal = errors.New("reconcile: terminal error")

// Terminal marks err as terminal: the Controller logs and counts it but
// does not retry the request (it forgets its backoff history instead).
// Use it for failures that retrying cannot fix, such as an invalid spec;
// the request is reconciled again when something enqueues it. The result
// wraps err, so errors.Is and errors.As see through it, and it survives
// further wrapping with %w. Terminal(nil) is nil.
func Terminal(err error) error {
	if err == nil {
		return nil
	}
	return &terminalError{err: err}
}

type terminalError struct{ err error }

func (e *terminalError) Error() string { return "terminal error: " + e.err.Error() }

func (e *terminalError) Unwrap() error { return e.err }

func (e *terminalError) Is(target error) bool { return target == ErrTerminal }
